// The part-B admin headers and bodies: failure paths first (bad JSON, wrong member
// types, missing required header fields), then the shapes fastjson gives the Java
// classes, and the captured Java bodies read back.
#include "protocol/bodies/admin_consumer_bodies.h"

#include <gtest/gtest.h>

#include "java_vectors.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "protocol/internal/json_tree.h"

namespace rocketstore::protocol {
namespace {

using testing::FindFrame;
using testing::LoadFrames;

std::string Text(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

TEST(QuoteBareKeysTest, RefusesUnbalancedInput) {
  EXPECT_FALSE(QuoteBareKeys("{{\"a\":1:2}", "X").ok());
  EXPECT_FALSE(QuoteBareKeys("{\"a\":\"unterminated}", "X").ok());
  EXPECT_FALSE(QuoteBareKeys("{\"a\":1}}", "X").ok());
  auto r = QuoteBareKeys("{\"a\":[", "X");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().rfind("X: ", 0), 0u);
}

TEST(QuoteBareKeysTest, QuotesObjectAndNumberKeysOnly) {
  auto r = QuoteBareKeys("{\"t\":{{\"q\":1,\"s\":\"}{\"}:5,7:[1,{}],\"k\":\"{x}\"}}", "X");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "{\"t\":{\"{\\\"q\\\":1,\\\"s\\\":\\\"}{\\\"}\":5,\"7\":[1,{}],\"k\":\"{x}\"}}");
  EXPECT_TRUE(internal::JsonTree::Parse(*r, "X").ok());
}

TEST(JsonWriterDoubleTest, WritesAsJavaDoubleToString) {
  auto text = [](double d) {
    std::vector<uint8_t> out;
    internal::JsonWriter(&out).Double(d);
    return Text(out);
  };
  EXPECT_EQ(text(0), "0.0");
  EXPECT_EQ(text(2), "2.0");
  EXPECT_EQ(text(0.016666666666666666), "0.016666666666666666");
  EXPECT_EQ(text(1.5e-5), "1.5E-5");
  EXPECT_EQ(text(1e7), "1.0E7");
  EXPECT_EQ(text(-0.25), "-0.25");
}

TEST(AdminConsumerHeadersTest, MissingRequiredFieldsAreNamed) {
  RemotingCommand empty = MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  auto reset = ResetOffsetRequestHeader::Decode(empty);
  ASSERT_FALSE(reset.ok());
  EXPECT_NE(reset.status().message().find("topic"), std::string::npos);
  empty.SetField("topic", "T");
  empty.SetField("group", "G");
  empty.SetField("timestamp", "soon");
  reset = ResetOffsetRequestHeader::Decode(empty);
  ASSERT_FALSE(reset.ok());
  EXPECT_NE(reset.status().message().find("timestamp"), std::string::npos);
  EXPECT_FALSE(GetConsumerRunningInfoRequestHeader::Decode(empty).ok());
  EXPECT_FALSE(ViewBrokerStatsDataRequestHeader::Decode(empty).ok());
  EXPECT_FALSE(GetConsumeStatsInBrokerHeader::Decode(empty).ok());
}

TEST(AdminConsumerHeadersTest, RoundTripAsTheJavaToolSendsThem) {
  ResetOffsetRequestHeader h{"JV_reset", "CGV_reset", 1796159180452, true};
  RemotingCommand cmd = MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  h.EncodeTo(cmd);
  EXPECT_EQ(cmd.FindField("isForce"), "true");
  auto back = ResetOffsetRequestHeader::Decode(cmd);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, h);
  const auto frames = LoadFrames("java-4.9.8/reset-offset.json");
  auto java = ResetOffsetRequestHeader::Decode(
      FindFrame(frames, "INVOKE_BROKER_TO_RESET_OFFSET", false).command);
  ASSERT_TRUE(java.ok()) << java.status();
  EXPECT_EQ(*java, h);
  auto status = GetConsumerStatusRequestHeader::Decode(
      FindFrame(frames, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", false).command);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->client_addr, "");
}

TEST(AdminConsumerBodiesTest, DecodersRefuseWrongShapes) {
  EXPECT_FALSE(ConsumeStatsBody::Decode("not json").ok());
  EXPECT_FALSE(ConsumeStatsBody::Decode("{\"offsetTable\":[]}").ok());
  EXPECT_FALSE(ConsumeStatsBody::Decode("{\"offsetTable\":{{\"topic\":\"T\"}:{}}}").ok());
  EXPECT_FALSE(ResetOffsetBody::Decode(
                   "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:\"x\"}}")
                   .ok());
  auto bad = GetConsumerStatusBody::Decode("{\"consumerTable\":{\"c\":[]}}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("GetConsumerStatusBody"), std::string::npos);
  EXPECT_FALSE(GroupListBody::Decode("{\"groupList\":[1]}").ok());
}

TEST(AdminConsumerBodiesTest, EncodesFastjsonShapesWithBareQueueKeys) {
  ResetOffsetBody reset;
  reset.offset_table[{"T", "b", 1}] = 7;
  reset.offset_table[{"T", "b", 0}] = 3;
  EXPECT_EQ(Text(reset.Encode()),
            "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:3,"
            "{\"brokerName\":\"b\",\"queueId\":1,\"topic\":\"T\"}:7}}");
  auto back = ResetOffsetBody::Decode(Text(reset.Encode()));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->offset_table, reset.offset_table);
  ResetOffsetBodyForC c{reset.offset_table};
  EXPECT_EQ(Text(c.Encode()),
            "{\"offsetTable\":[{\"brokerName\":\"b\",\"offset\":3,\"queueId\":0,\"topic\":\"T\"},"
            "{\"brokerName\":\"b\",\"offset\":7,\"queueId\":1,\"topic\":\"T\"}]}");
  ConsumeStatsBody stats;
  stats.consume_tps = 0;
  stats.offset_table[{"T", "b", 0}] = {5, 2, 99};
  EXPECT_EQ(Text(stats.Encode()),
            "{\"consumeTps\":0.0,\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":"
            "\"T\"}:{\"brokerOffset\":5,\"consumerOffset\":2,\"lastTimestamp\":99}}}");
  ConsumeStatsListBody list;
  list.broker_addr = "1.2.3.4:10911";
  list.total_diff = 3;
  list.consume_stats_list.push_back({"G", {stats}});
  list.consume_stats_list.push_back({"H", {}});
  const std::string text = Text(list.Encode());
  EXPECT_EQ(text, "{\"brokerAddr\":\"1.2.3.4:10911\",\"consumeStatsList\":[{\"G\":[" +
                      Text(stats.Encode()) + "]},{\"H\":[]}],\"totalDiff\":3}");
  BrokerStatsDataBody data;
  data.stats_minute = {3, 0.05, 1.0};
  EXPECT_EQ(Text(data.Encode()),
            "{\"statsDay\":{\"avgpt\":0.0,\"sum\":0,\"tps\":0.0},\"statsHour\":{\"avgpt\":0.0,"
            "\"sum\":0,\"tps\":0.0},\"statsMinute\":{\"avgpt\":1.0,\"sum\":3,\"tps\":0.05}}");
}

TEST(AdminConsumerBodiesTest, ReadsTheJavaBrokersBodies) {
  const auto admin = LoadFrames("java-4.9.8/admin-broker.json");
  auto stats = ConsumeStatsBody::Decode(FindFrame(admin, "GET_CONSUME_STATS", true).body_text);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->offset_table.size(), 5u);
  EXPECT_EQ(stats->offset_table.at({"JV_adm", "jbroker-a", 1}),
            (OffsetWrapperBody{2, 2, 1796159162680}));
  EXPECT_DOUBLE_EQ(stats->consume_tps, 0.016666666666666666);
  const auto reset = LoadFrames("java-4.9.8/reset-offset.json");
  auto status = GetConsumerStatusBody::Decode(
      FindFrame(reset, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", true).body_text);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->consumer_table.at("127.0.0.1@reset-consumer").at({"JV_reset", "jbroker-a", 3}),
            4);
  // Written back and read again: the same tables.
  auto again = GetConsumerStatusBody::Decode(Text(status->Encode()));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->consumer_table, status->consumer_table);
  EXPECT_EQ(again->message_queue_table, status->message_queue_table);
}

}  // namespace
}  // namespace rocketstore::protocol
