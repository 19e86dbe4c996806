// AdminClient's typed calls against an in-process name server and broker (ClusterFixture):
// each call's request reaches our server and its real reply decodes into the fields the
// Java admin classes read. Failure paths first (unknown groups/topics, bad versions).
#include <gtest/gtest.h>

#include <algorithm>

#include "client/admin_client.h"
#include "client/producer.h"
#include "client_fixture.h"

namespace rocketstore::client {
namespace {

class AdminCallsTest : public testing::ClusterFixture {
 protected:
  void SetUp() override {
    ClusterFixture::SetUp();
    admin_ = std::make_unique<AdminClient>(AdminOptions{{namesrv_addr()}, 3000});
  }
  void TearDown() override {
    admin_.reset();
    ClusterFixture::TearDown();
  }
  // Sends n messages to topic (queue 0..) and waits for the consume queue to show them.
  void Produce(const std::string& topic, int n) {
    ProducerOptions po;
    po.namesrv_addrs = {namesrv_addr()};
    po.group = "admin-test-producer";
    po.start_runner = false;
    Producer p(po);
    ASSERT_OK(p.Start());
    for (int i = 0; i < n; ++i) {
      Message m;
      m.topic = topic;
      m.body = "body-" + std::to_string(i);
      ASSERT_OK(p.SendToQueue(m, MessageQueue{topic, "broker-a", 0}).status());
    }
    BrokerCall b{&transport_, broker_addr(), 3000};
    for (int i = 0; i < 200; ++i) {
      auto mx = b.MaxOffset(MessageQueue{topic, "broker-a", 0});
      if (mx.ok() && *mx == n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "consume queue of " << topic << " never reached " << n;
  }
  std::unique_ptr<AdminClient> admin_;
};

TEST_F(AdminCallsTest, NameServerWriteParamAndDataVersion) {
  CreateTopic("adm-ns", 2);
  // An unknown broker: zero topics changed, not an error (as Java's name server).
  ASSERT_OK_AND_ASSIGN(int32_t none, admin_->WipeWritePermOfBroker(namesrv_addr(), "no-broker"));
  EXPECT_EQ(none, 0);
  ASSERT_OK_AND_ASSIGN(int32_t wiped, admin_->WipeWritePermOfBroker(namesrv_addr(), "broker-a"));
  EXPECT_GT(wiped, 0);
  ASSERT_OK_AND_ASSIGN(auto route, admin_->GetRoute("adm-ns"));
  EXPECT_TRUE(route->WritableQueues("adm-ns").empty());
  ASSERT_OK_AND_ASSIGN(int32_t added, admin_->AddWritePermOfBroker(namesrv_addr(), "broker-a"));
  EXPECT_EQ(added, wiped);
  ASSERT_OK_AND_ASSIGN(route, admin_->GetRoute("adm-ns"));
  EXPECT_EQ(route->WritableQueues("adm-ns").size(), 2u);

  // A version the name server has never seen: changed, and its own version comes back.
  ASSERT_OK_AND_ASSIGN(DataVersionAnswer a,
                       admin_->QueryDataVersion(namesrv_addr(), "TestCluster", "broker-a",
                                                broker_addr(), 0, DataVersionValue{999999, 1}));
  EXPECT_TRUE(a.changed);
  ASSERT_TRUE(a.has_version);
  EXPECT_GT(a.namesrv_version.timestamp, 0);
  // Asking again with the name server's own version: unchanged.
  ASSERT_OK_AND_ASSIGN(DataVersionAnswer b,
                       admin_->QueryDataVersion(namesrv_addr(), "TestCluster", "broker-a",
                                                broker_addr(), 0, a.namesrv_version));
  EXPECT_FALSE(b.changed);

  ASSERT_OK_AND_ASSIGN(auto conf, admin_->GetNamesrvConfig());
  EXPECT_FALSE(conf.empty());
  ASSERT_OK_AND_ASSIGN(TopicList all, admin_->GetAllTopics());
  EXPECT_NE(std::find(all.topics.begin(), all.topics.end(), "adm-ns"), all.topics.end());
}

TEST_F(AdminCallsTest, OffsetsCloneAndConsumeQueue) {
  CreateTopic("adm-off", 1);
  Produce("adm-off", 3);
  BrokerCall b{&transport_, broker_addr(), 3000};
  const MessageQueue q{"adm-off", "broker-a", 0};
  ASSERT_OK(b.UpdateConsumerOffset("adm-src", q, 2));
  // The commit is oneway in Java; wait until the broker has it.
  for (int i = 0; i < 200; ++i) {
    auto c = b.ConsumerOffset("adm-src", q);
    if (c.ok() && *c == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_OK_AND_ASSIGN(ConsumerOffsetTable t, admin_->GetAllConsumerOffsets(broker_addr()));
  ASSERT_EQ(t.offsets.count("adm-off@adm-src"), 1u);
  EXPECT_EQ(t.offsets.at("adm-off@adm-src").at(0), 2);

  ASSERT_OK(admin_->CloneGroupOffset(broker_addr(), "adm-src", "adm-dst", "adm-off", false));
  ASSERT_OK_AND_ASSIGN(t, admin_->GetAllConsumerOffsets(broker_addr()));
  ASSERT_EQ(t.offsets.count("adm-off@adm-dst"), 1u);
  EXPECT_EQ(t.offsets.at("adm-off@adm-dst").at(0), 2);

  // Three entries from index 0, each naming where its message is in the commit log.
  ASSERT_OK_AND_ASSIGN(ConsumeQueueView v,
                       admin_->QueryConsumeQueue(broker_addr(), "adm-off", 0, 0, 3, ""));
  ASSERT_EQ(v.entries.size(), 3u);
  EXPECT_EQ(v.min_queue_index, 0);
  EXPECT_EQ(v.max_queue_index, 3);
  EXPECT_EQ(v.entries[0].physic_offset, 0);
  EXPECT_GT(v.entries[0].physic_size, 0);
  EXPECT_EQ(v.entries[1].physic_offset, v.entries[0].physic_size);
  // An index past the queue's end: the broker answers without a body, which is kNotFound;
  // a queue that does not exist is an error too (never an empty success).
  EXPECT_EQ(admin_->QueryConsumeQueue(broker_addr(), "adm-off", 0, 100, 3, "").status().code(),
            StatusCode::kNotFound);
  EXPECT_FALSE(admin_->QueryConsumeQueue(broker_addr(), "adm-off", 7, 0, 3, "").ok());

  ASSERT_OK(admin_->CleanExpiredConsumeQueue(broker_addr()));
  ASSERT_OK(admin_->DeleteExpiredCommitLog(broker_addr()));
}

TEST_F(AdminCallsTest, TopicAndGroupAdmin) {
  CreateTopic("adm-del", 1);
  SubscriptionGroupConfig g;
  g.group_name = "adm-group";
  g.retry_max_times = 5;
  ASSERT_OK(admin_->CreateOrUpdateGroup(broker_addr(), g));
  ASSERT_OK_AND_ASSIGN(SubscriptionGroupTable groups, admin_->GetAllGroups(broker_addr()));
  ASSERT_EQ(groups.groups.count("adm-group"), 1u);
  EXPECT_EQ(groups.groups.at("adm-group").retry_max_times, 5);
  ASSERT_OK(admin_->DeleteGroup(broker_addr(), "adm-group", true));
  ASSERT_OK_AND_ASSIGN(groups, admin_->GetAllGroups(broker_addr()));
  EXPECT_EQ(groups.groups.count("adm-group"), 0u);

  ASSERT_OK_AND_ASSIGN(TopicConfigTable topics, admin_->GetAllTopicConfig(broker_addr()));
  ASSERT_EQ(topics.topics.count("adm-del"), 1u);
  ASSERT_OK(admin_->DeleteTopicInBroker(broker_addr(), "adm-del"));
  ASSERT_OK(admin_->DeleteTopicInNamesrv("adm-del"));
  ASSERT_OK_AND_ASSIGN(topics, admin_->GetAllTopicConfig(broker_addr()));
  EXPECT_EQ(topics.topics.count("adm-del"), 0u);
  EXPECT_EQ(admin_->GetRoute("adm-del").status().code(), StatusCode::kNotFound);

  ASSERT_OK_AND_ASSIGN(KvTable rt, admin_->GetBrokerRuntimeInfo(broker_addr()));
  EXPECT_EQ(rt.table.at("brokerVersionDesc"), "V4_9_8");
  EXPECT_EQ(rt.table.count("dispatchBehindBytes"), 1u);
}

TEST_F(AdminCallsTest, ProducerHeartbeatShowsInConnectionsAndProducerInfo) {
  CreateTopic("adm-prod", 1);
  // Nobody of the group yet: CONSUMER_NOT_ONLINE-like "not found", never an empty success.
  EXPECT_FALSE(admin_->GetProducerConnections(broker_addr(), "hb-group").ok());
  ProducerOptions po;
  po.namesrv_addrs = {namesrv_addr()};
  po.group = "hb-group";
  po.start_runner = false;  // RunOnce is driven here
  Producer p(po);
  ASSERT_OK(p.Start());
  EXPECT_EQ(p.client_id().rfind(LocalClientIp() + "@", 0), 0u) << p.client_id();
  Message m;
  m.topic = "adm-prod";
  m.body = "x";
  ASSERT_OK(p.Send(m).status());  // the first route names the broker: heartbeat sent
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    auto pc = admin_->GetProducerConnections(broker_addr(), "hb-group");
    seen = pc.ok() && pc->connections.size() == 1 && pc->connections[0].client_id == p.client_id();
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(seen);
  ASSERT_OK_AND_ASSIGN(ProducerConnection pc,
                       admin_->GetProducerConnections(broker_addr(), "hb-group"));
  EXPECT_EQ(pc.connections[0].language, "CPP");
  ASSERT_OK_AND_ASSIGN(ProducerTable all, admin_->GetAllProducerInfo(broker_addr()));
  ASSERT_EQ(all.groups.count("hb-group"), 1u);
  EXPECT_EQ(all.groups.at("hb-group")[0].client_id, p.client_id());
  // The periodic step: due at once, then not again within the interval.
  EXPECT_OK(p.RunOnce(1000));
  EXPECT_OK(p.RunOnce(2000));
  p.Shutdown();  // UNREGISTER_CLIENT with the producer group
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = !admin_->GetProducerConnections(broker_addr(), "hb-group").ok();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone);
}

}  // namespace
}  // namespace rocketstore::client
