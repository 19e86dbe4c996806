// AdminClient round trips for the codes no other test runs, against an in-process name
// server and broker (ClusterFixture): KV config (100-102, 219) and what ORDER_TOPIC_CONFIG
// does to routes, the name server's config (318/319), the broker's (25/26), topic lists
// (224, 304, 305), and the consumer-side views (300, 303, 315, 317) after a real produce
// and consume — each reply decoded by the client's types (BrokerStatsData,
// ConsumeStatsList, ConsumeTimeSpans) into the values the broker holds. Failure paths
// first in each.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "client/admin_client.h"
#include "client/producer.h"
#include "client/pull_consumer.h"
#include "client_fixture.h"

namespace rocketstore::client {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
template <typename Set>
bool Has(const Set& v, const std::string& s) {
  return v.find(s) != v.end();
}

class AdminRoundTripTest : public testing::ClusterFixture {
 protected:
  void SetUp() override {
    ClusterFixture::SetUp();
    admin_ = std::make_unique<AdminClient>(AdminOptions{{namesrv_addr()}, 5000});
  }
  void TearDown() override {
    admin_.reset();
    ClusterFixture::TearDown();
  }
  std::unique_ptr<AdminClient> admin_;
};

TEST_F(AdminRoundTripTest, KvConfigAndOrderTopicConf) {
  auto missing = admin_->GetKvConfig("NS_RT", "k");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status();
  EXPECT_EQ(admin_->GetKvList("NS_RT").status().code(), StatusCode::kNotFound);

  ASSERT_OK(admin_->PutKvConfig("NS_RT", "k", "v"));
  ASSERT_OK(admin_->PutKvConfig("NS_RT", "k2", "v 2"));
  ASSERT_OK_AND_ASSIGN(std::string v, admin_->GetKvConfig("NS_RT", "k"));
  EXPECT_EQ(v, "v");
  ASSERT_OK_AND_ASSIGN(KvTable list, admin_->GetKvList("NS_RT"));
  EXPECT_EQ(list.table, (std::map<std::string, std::string>{{"k", "v"}, {"k2", "v 2"}}));

  // ORDER_TOPIC_CONFIG: with orderMessageEnable (as Java's RouteInfoManager) the value
  // becomes the route's orderTopicConf (mqadmin updateOrderConf), and goes with its key.
  CreateTopic("T_order_rt", 2);
  ASSERT_OK(admin_->PutKvConfig("ORDER_TOPIC_CONFIG", "T_order_rt", "broker-a:2"));
  ASSERT_OK_AND_ASSIGN(auto route, admin_->GetRoute("T_order_rt"));
  EXPECT_EQ(route->order_topic_conf, "");  // orderMessageEnable is false by default
  ASSERT_OK(admin_->UpdateNamesrvConfig({{"orderMessageEnable", "true"}}));
  ASSERT_OK_AND_ASSIGN(route, admin_->GetRoute("T_order_rt"));
  EXPECT_EQ(route->order_topic_conf, "broker-a:2");
  ASSERT_OK(admin_->DeleteKvConfig("ORDER_TOPIC_CONFIG", "T_order_rt"));
  ASSERT_OK_AND_ASSIGN(route, admin_->GetRoute("T_order_rt"));
  EXPECT_EQ(route->order_topic_conf, "");

  ASSERT_OK(admin_->DeleteKvConfig("NS_RT", "k"));
  EXPECT_EQ(admin_->GetKvConfig("NS_RT", "k").status().code(), StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(list, admin_->GetKvList("NS_RT"));
  EXPECT_EQ(list.table, (std::map<std::string, std::string>{{"k2", "v 2"}}));
}

TEST_F(AdminRoundTripTest, NamesrvConfigUpdateIsAllowListed) {
  ASSERT_OK_AND_ASSIGN(auto before, admin_->GetNamesrvConfig());
  ASSERT_TRUE(before.count("orderMessageEnable")) << "GET_NAMESRV_CONFIG lacks the key";
  EXPECT_EQ(before.at("orderMessageEnable"), "false");
  // A key outside the allow-list: refused with the key named, nothing applied.
  Status refused = admin_->UpdateNamesrvConfig({{"kvConfigPath", "/tmp/elsewhere.json"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("kvConfigPath"), std::string::npos) << refused;
  ASSERT_OK(admin_->UpdateNamesrvConfig({{"orderMessageEnable", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto after, admin_->GetNamesrvConfig());
  EXPECT_EQ(after.at("orderMessageEnable"), "true");
  EXPECT_EQ(after.at("kvConfigPath"), before.at("kvConfigPath"));
}

TEST_F(AdminRoundTripTest, BrokerConfigUpdateIsAllowListed) {
  Status refused = admin_->UpdateBrokerConfig(broker_addr(), {{"listenPort", "1"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("'listenPort'"), std::string::npos) << refused;
  Status bad = admin_->UpdateBrokerConfig(broker_addr(), {{"deleteWhen", "25"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("deleteWhen"), std::string::npos) << bad;
  ASSERT_OK(admin_->UpdateBrokerConfig(
      broker_addr(), {{"shortPollingTimeMills", "2500"}, {"fileReservedTime", "48"}}));
  ASSERT_OK_AND_ASSIGN(auto config, admin_->GetBrokerConfig(broker_addr()));
  EXPECT_EQ(config.at("shortPollingTimeMills"), "2500");
  EXPECT_EQ(config.at("fileReservedTime"), "48");
  EXPECT_EQ(broker_->store().retention_options().file_reserved_time_ms, int64_t{48} * 3600 * 1000);
}

TEST_F(AdminRoundTripTest, TopicListsByClusterAndSystemTopics) {
  CreateTopic("T_list_rt", 1);
  ASSERT_OK_AND_ASSIGN(TopicList none, admin_->GetTopicsByCluster("NoSuchCluster"));
  EXPECT_TRUE(none.topics.empty());
  ASSERT_OK_AND_ASSIGN(TopicList cluster, admin_->GetTopicsByCluster("TestCluster"));
  EXPECT_TRUE(Contains(cluster.topics, "T_list_rt"));
  // 304: the cluster and broker names (RouteInfoManager.getSystemTopicList) with a broker
  // address to ask.
  ASSERT_OK_AND_ASSIGN(TopicList ns_system, admin_->GetSystemTopics());
  EXPECT_TRUE(Contains(ns_system.topics, "TestCluster"));
  EXPECT_TRUE(Contains(ns_system.topics, "broker-a"));
  EXPECT_EQ(ns_system.broker_addr, broker_addr());
  // 305: TopicValidator's system topics plus the broker's own names.
  ASSERT_OK_AND_ASSIGN(TopicList broker_system, admin_->GetSystemTopicsFromBroker(broker_addr()));
  for (const char* t : {"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "TestCluster",
                        "broker-a", "TestCluster_REPLY_TOPIC"}) {
    EXPECT_TRUE(Contains(broker_system.topics, t)) << t;
  }
  EXPECT_FALSE(Contains(broker_system.topics, "T_list_rt"));
}

// After a real produce and consume: who consumes (300), the time spans (303), the broker's
// consume stats (317) and the statistics (315), decoded and checked against what
// happened.
TEST_F(AdminRoundTripTest, ConsumerSideViewsAfterProduceAndConsume) {
  CreateTopic("T_cons_rt", 2);
  ProducerOptions po;
  po.group = "pg-rt";
  po.namesrv_addrs = {namesrv_addr()};
  po.start_runner = false;
  Producer p(po);
  ASSERT_OK(p.Start());
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK(p.SendToQueue(Message{.topic = "T_cons_rt", .body = "m" + std::to_string(i)},
                            MessageQueue{"T_cons_rt", "broker-a", i % 2})
                  .status());
  }
  PullConsumerOptions co;
  co.group = "cg-rt";
  co.namesrv_addrs = {namesrv_addr()};
  co.consume_from = ConsumeFrom::kFirst;
  co.long_poll_ms = 500;
  co.start_runner = false;
  co.auto_commit = false;
  PullConsumer c(co);
  ASSERT_OK(c.Subscribe("T_cons_rt"));
  ASSERT_OK(c.Start());
  size_t got = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (got < 6 && std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto ms, c.Poll(500));
    got += ms.size();
  }
  ASSERT_EQ(got, 6u);
  ASSERT_OK(c.Commit());
  c.Shutdown();  // no more pulls (the late messages below are not got); the offsets stay

  // 300
  ASSERT_OK_AND_ASSIGN(auto who, admin_->QueryTopicConsumeByWho(broker_addr(), "T_cons_rt"));
  EXPECT_TRUE(Contains(who, "cg-rt"));

  // 303: one span per write queue, the group's consume time within the stored range.
  EXPECT_EQ(admin_->QueryConsumeTimeSpan(broker_addr(), "NoSuchTopic", "cg-rt").status().code(),
            StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(ConsumeTimeSpans spans,
                       admin_->QueryConsumeTimeSpan(broker_addr(), "T_cons_rt", "cg-rt"));
  ASSERT_EQ(spans.spans.size(), 2u);
  for (const QueueTimeSpan& s : spans.spans) {
    EXPECT_EQ(s.queue.topic, "T_cons_rt");
    EXPECT_EQ(s.queue.broker_name, "broker-a");
    EXPECT_GT(s.min_timestamp, 0);
    EXPECT_LE(s.min_timestamp, s.max_timestamp);
  }

  // 317: the group with its offsets; nothing to consume after the commit, then 3 behind.
  ASSERT_OK_AND_ASSIGN(ConsumeStatsList list, admin_->GetBrokerConsumeStats(broker_addr(), false));
  EXPECT_EQ(list.broker_addr, broker_addr());
  auto group_lag = [](const ConsumeStatsList& l, const std::string& group) -> int64_t {
    for (const auto& [g, stats] : l.groups) {
      if (g != group) continue;
      int64_t lag = 0;
      for (const ConsumeStats& s : stats) lag += s.TotalLag();
      return lag;
    }
    return -1;  // absent
  };
  EXPECT_EQ(group_lag(list, "cg-rt"), 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(p.SendToQueue(Message{.topic = "T_cons_rt", .body = "late"},
                            MessageQueue{"T_cons_rt", "broker-a", 0})
                  .status());
  }
  BrokerCall b{&transport_, broker_addr(), 3000};
  for (int i = 0; i < 300; ++i) {
    auto mx = b.MaxOffset(MessageQueue{"T_cons_rt", "broker-a", 0});
    if (mx.ok() && *mx == 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_OK_AND_ASSIGN(list, admin_->GetBrokerConsumeStats(broker_addr(), false));
  EXPECT_EQ(group_lag(list, "cg-rt"), 3);
  EXPECT_GE(list.total_diff, 3);
  ASSERT_OK_AND_ASSIGN(ConsumeStatsList order_only,
                       admin_->GetBrokerConsumeStats(broker_addr(), true));
  EXPECT_LE(group_lag(order_only, "cg-rt"), 0);  // not an order topic: no queues listed

  // 315: unknown items are errors naming them; the put and get counts reach the windows
  // at the sampler's next 10 s mark (the broker runs on the real clock here).
  auto unknown = admin_->ViewBrokerStats(broker_addr(), "TOPIC_PUT_NUMS", "NoSuchTopic");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("not exist"), std::string::npos) << unknown.status();
  BrokerStatsData put, get;
  const auto stats_end = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  for (;;) {
    auto pr = admin_->ViewBrokerStats(broker_addr(), "TOPIC_PUT_NUMS", "T_cons_rt");
    auto gr = admin_->ViewBrokerStats(broker_addr(), "GROUP_GET_NUMS", "T_cons_rt@cg-rt");
    // Gets: at least the 6 consumed (a pull answered after a rebalance moved its queue is
    // dropped by the consumer and pulled again, but the broker did return it).
    if (pr.ok() && gr.ok() && pr->minute.sum == 9 && gr->minute.sum >= 6) {
      put = *pr;
      get = *gr;
      break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), stats_end)
        << "315 never showed 9 puts and 6 gets: " << pr.status() << " "
        << (pr.ok() ? pr->minute.sum : -1) << " " << gr.status() << " "
        << (gr.ok() ? gr->minute.sum : -1);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  // The minute window (Java's StatsItem: a new key's hour and day windows fill at the
  // next 10 min / 1 h mark, as there).
  EXPECT_DOUBLE_EQ(put.minute.avgpt, 1.0);  // one message per send
  EXPECT_GT(put.minute.tps, 0);
  EXPECT_GE(get.minute.avgpt, 1.0);  // messages per pull that found some
  p.Shutdown();
}

}  // namespace
}  // namespace rocketstore::client
