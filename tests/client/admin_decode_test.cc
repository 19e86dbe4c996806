// The admin client's decoders against the Java 4.9.8 broker's and name server's real
// replies (tests/protocol/vectors/java-4.9.8/admin-*.json, reset-offset.json): each body
// decoded field by field the way DefaultMQAdminExt reads it (fastjson shapes: bare numeric
// broker ids, MessageQueue objects as map keys).
#include <gtest/gtest.h>

#include <map>

#include "client/admin_client.h"
#include "client/admin_types.h"
#include "client/fastjson.h"
#include "protocol/java_vectors.h"
#include "testing/status_matchers.h"

namespace rocketstore::client {
namespace {

using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;

std::string Body(const protocol::testing::CapturedFrame& f) {
  std::vector<uint8_t> b = f.command.body.Flatten();
  return std::string(b.begin(), b.end());
}

TEST(AdminDecode, ClusterInfoWithBareBrokerIds) {
  auto frames = LoadFrames("java-4.9.8/admin-namesrv.json");
  ASSERT_OK_AND_ASSIGN(
      ClusterInfo ci,
      ClusterInfo::Decode(Body(FindFrame(frames, "GET_BROKER_CLUSTER_INFO", true))));
  ASSERT_EQ(ci.brokers.size(), 1u);
  EXPECT_EQ(ci.brokers.at("jbroker-a").MasterAddr(), "127.0.0.1:20911");
  EXPECT_EQ(ci.brokers.at("jbroker-a").cluster, "JavaCluster");
  EXPECT_EQ(ci.clusters.at("JavaCluster"), (std::vector<std::string>{"jbroker-a"}));
  EXPECT_EQ(ci.MasterAddrs("JavaCluster"), (std::vector<std::string>{"127.0.0.1:20911"}));
  EXPECT_TRUE(ci.MasterAddrs("Other").empty());
}

TEST(AdminDecode, TopicListsAndRouteAndNamesrvConfig) {
  auto frames = LoadFrames("java-4.9.8/admin-namesrv.json");
  ASSERT_OK_AND_ASSIGN(
      TopicList all,
      TopicList::Decode(Body(FindFrame(frames, "GET_ALL_TOPIC_LIST_FROM_NAMESERVER", true))));
  EXPECT_GT(all.topics.size(), 20u);
  EXPECT_NE(std::find(all.topics.begin(), all.topics.end(), "JV_adm"), all.topics.end());
  ASSERT_OK_AND_ASSIGN(TopicList by_cluster,
                       TopicList::Decode(Body(FindFrame(frames, "GET_TOPICS_BY_CLUSTER", true))));
  EXPECT_EQ(by_cluster.topics.size(), all.topics.size());
  ASSERT_OK_AND_ASSIGN(TopicRoute route,
                       TopicRoute::Decode(Body(FindFrame(frames, "GET_ROUTEINFO_BY_TOPIC", true))));
  EXPECT_EQ(route.WritableQueues("TBW102").size(), 8u);
  auto conf = ParseJavaProperties(Body(FindFrame(frames, "GET_NAMESRV_CONFIG", true)));
  EXPECT_EQ(conf.at("serverWorkerThreads"), "8");
  EXPECT_EQ(conf.at("configBlackList"), "configBlackList;configStorePath;kvConfigPath");
}

TEST(AdminDecode, ConsumeStatsWithQueueObjectKeys) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  ASSERT_OK_AND_ASSIGN(ConsumeStats cs,
                       ConsumeStats::Decode(Body(FindFrame(frames, "GET_CONSUME_STATS", true))));
  EXPECT_NEAR(cs.consume_tps, 0.016666, 1e-5);
  ASSERT_EQ(cs.offsets.size(), 5u);
  bool found = false;
  for (const auto& [q, o] : cs.offsets) {
    EXPECT_EQ(q.broker_name, "jbroker-a");
    if (q.topic == "JV_adm" && q.queue_id == 1) {
      found = true;
      EXPECT_EQ(o.broker_offset, 2);
      EXPECT_EQ(o.consumer_offset, 2);
      EXPECT_EQ(o.last_timestamp, 1796159162680);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(cs.TotalLag(), 0);
}

TEST(AdminDecode, TopicStatsConnectionsConfigsGroups) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  ASSERT_OK_AND_ASSIGN(TopicStats ts,
                       TopicStats::Decode(Body(FindFrame(frames, "GET_TOPIC_STATS_INFO", true))));
  ASSERT_EQ(ts.offsets.size(), 4u);
  int64_t max_total = 0;
  for (const auto& [q, o] : ts.offsets) max_total += o.max_offset;
  EXPECT_EQ(max_total, 2);

  ASSERT_OK_AND_ASSIGN(
      ConsumerConnection cc,
      ConsumerConnection::Decode(Body(FindFrame(frames, "GET_CONSUMER_CONNECTION_LIST", true))));
  ASSERT_EQ(cc.connections.size(), 1u);
  EXPECT_EQ(cc.connections[0].client_id, "127.0.0.1@adm-consumer");
  EXPECT_EQ(cc.connections[0].language, "JAVA");
  EXPECT_EQ(cc.connections[0].version, 409);
  EXPECT_EQ(cc.consume_type, "CONSUME_PASSIVELY");
  EXPECT_EQ(cc.message_model, "CLUSTERING");
  EXPECT_EQ(cc.consume_from_where, "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_EQ(cc.subscriptions.at("JV_adm"), "*");

  ASSERT_OK_AND_ASSIGN(
      ProducerConnection pc,
      ProducerConnection::Decode(Body(FindFrame(frames, "GET_PRODUCER_CONNECTION_LIST", true))));
  ASSERT_EQ(pc.connections.size(), 1u);
  EXPECT_EQ(pc.connections[0].client_id, "127.0.0.1@adm-producer");

  ASSERT_OK_AND_ASSIGN(
      TopicConfigTable tc,
      TopicConfigTable::Decode(Body(FindFrame(frames, "GET_ALL_TOPIC_CONFIG", true))));
  EXPECT_EQ(tc.data_version_counter, 27);
  EXPECT_EQ(tc.topics.at("JV_adm").read_queue_nums, 4);
  EXPECT_EQ(tc.topics.at("JavaCluster").perm, 7);
  EXPECT_EQ(tc.topics.at("JV_adm").topic_filter_type, "SINGLE_TAG");

  ASSERT_OK_AND_ASSIGN(SubscriptionGroupTable sg,
                       SubscriptionGroupTable::Decode(
                           Body(FindFrame(frames, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG", true))));
  EXPECT_EQ(sg.groups.at("CGV_hb_lite").retry_max_times, 16);
  EXPECT_TRUE(sg.groups.at("SELF_TEST_C_GROUP").consume_broadcast_enable);

  ASSERT_OK_AND_ASSIGN(KvTable rt,
                       KvTable::Decode(Body(FindFrame(frames, "GET_BROKER_RUNTIME_INFO", true))));
  EXPECT_EQ(rt.table.at("msgPutTotalTodayNow"), "58");
  EXPECT_EQ(rt.table.at("bootTimestamp"), "1796158317404");

  auto bc = ParseJavaProperties(Body(FindFrame(frames, "GET_BROKER_CONFIG", true)));
  EXPECT_EQ(bc.at("defaultTopicQueueNums"), "8");
  EXPECT_EQ(bc.at("autoCreateTopicEnable"), "true");
}

// fastjson reads LanguageCode from its ordinal as well as its name: a connection list
// written with numbers shows the names all the same (what mqadmin consumerConnection shows).
TEST(AdminDecode, ConnectionLanguageByNameOrOrdinal) {
  ASSERT_OK_AND_ASSIGN(
      ConsumerConnection cc,
      ConsumerConnection::Decode(
          R"({"connectionSet":[{"clientAddr":"a:1","clientId":"x","language":1,"version":479},)"
          R"({"clientAddr":"b:2","clientId":"y","language":"GO","version":409},)"
          R"({"clientAddr":"c:3","clientId":"z","language":99,"version":409}],)"
          R"("subscriptionTable":{}})"));
  ASSERT_EQ(cc.connections.size(), 3u);
  std::map<std::string, std::string> by_id;
  for (const auto& c : cc.connections) by_id[c.client_id] = c.language;
  EXPECT_EQ(by_id["x"], "CPP");
  EXPECT_EQ(by_id["y"], "GO");
  EXPECT_EQ(by_id["z"], "OTHER");
  ASSERT_OK_AND_ASSIGN(
      ProducerConnection pc,
      ProducerConnection::Decode(R"({"connectionSet":[{"clientAddr":"a:1",)"
                                 R"("clientId":"x","language":0,"version":409}]})"));
  ASSERT_EQ(pc.connections.size(), 1u);
  EXPECT_EQ(pc.connections[0].language, "JAVA");
}

TEST(AdminDecode, SubscriptionGroupBodyHasJavasFields) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  const std::string java = Body(FindFrame(frames, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", false));
  SubscriptionGroupConfig g;
  g.group_name = "CGV_adm_created";
  g.retry_max_times = 5;
  g.consume_broadcast_enable = false;
  std::vector<uint8_t> ours = g.Encode();
  // Field by field: both parse to the same members.
  ASSERT_OK_AND_ASSIGN(FjValue a, ParseFastjson(java));
  ASSERT_OK_AND_ASSIGN(FjValue b, ParseFastjson(std::string(ours.begin(), ours.end())));
  ASSERT_EQ(a.members.size(), b.members.size());
  for (const auto& [k, v] : a.members) {
    const FjValue* o = b.Find(k.text);
    ASSERT_NE(o, nullptr) << k.text;
    EXPECT_EQ(o->ToJson(), v.ToJson()) << k.text;
  }
}

TEST(AdminDecode, ResetOffsetAndConsumerStatus) {
  auto frames = LoadFrames("java-4.9.8/reset-offset.json");
  ASSERT_OK_AND_ASSIGN(
      QueueOffsets r,
      QueueOffsets::Decode(Body(FindFrame(frames, "INVOKE_BROKER_TO_RESET_OFFSET", true))));
  ASSERT_EQ(r.offsets.size(), 4u);
  std::map<int32_t, int64_t> by_queue;
  for (const auto& [q, off] : r.offsets) {
    EXPECT_EQ(q.topic, "JV_reset");
    by_queue[q.queue_id] = off;
  }
  EXPECT_EQ(by_queue, (std::map<int32_t, int64_t>{{0, 2}, {1, 1}, {2, 2}, {3, 3}}));
  ASSERT_OK_AND_ASSIGN(ConsumerStatusTable st,
                       ConsumerStatusTable::Decode(
                           Body(FindFrame(frames, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", true))));
  ASSERT_EQ(st.by_client.count("127.0.0.1@reset-consumer"), 1u);
  EXPECT_EQ(st.by_client.at("127.0.0.1@reset-consumer").size(), 4u);
}

TEST(AdminDecode, BrokenBodiesAreErrors) {
  EXPECT_FALSE(ConsumeStats::Decode("{\"offsetTable\":{{\"topic\":").ok());
  EXPECT_FALSE(ClusterInfo::Decode("[]").ok());
  EXPECT_FALSE(TopicList::Decode("").ok());
  protocol::RemotingCommand unsupported;
  unsupported.code = 3;
  unsupported.remark = " request type 208 not supported";
  Status s = CheckReply(unsupported, 208, "broker 1.2.3.4:10911");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("GET_CONSUME_STATS (208)"), std::string::npos);
  protocol::RemotingCommand nf;
  nf.code = 17;
  EXPECT_EQ(CheckReply(nf, 202, "b").code(), StatusCode::kNotFound);
  // A refusal is not a connectivity problem (the CLI prints its network hint only for
  // kUnavailable): NO_PERMISSION names itself and keeps the broker's remark.
  protocol::RemotingCommand refused;
  refused.code = 16;
  refused.remark = "the topic TBW102 is a system topic";
  s = CheckReply(refused, 17, "broker b");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("NO_PERMISSION (16): the topic TBW102 is a system topic"),
            std::string::npos)
      << s.message();
  protocol::RemotingCommand busy;
  busy.code = 2;
  EXPECT_EQ(CheckReply(busy, 17, "broker b").code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace rocketstore::client
