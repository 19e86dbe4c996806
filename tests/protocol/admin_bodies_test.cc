// The admin part A headers and bodies (protocol/headers/admin_headers.h,
// protocol/bodies/admin_bodies.h): decode the Java broker's bodies of admin-broker.json,
// encode as fastjson does (bare MessageQueue keys, sorted members, nulls left out), and
// the decoders' errors.
#include "protocol/bodies/admin_bodies.h"

#include <gtest/gtest.h>

#include "java_vectors.h"
#include "protocol/headers/admin_headers.h"
#include "protocol/json_util.h"

namespace rocketstore::protocol {
namespace {

using testing::CommandWith;
using testing::FindFrame;
using testing::LoadFrames;

std::string Text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

TEST(QuoteBareObjectKeysTest, QuotesObjectKeysOnly) {
  EXPECT_EQ(QuoteBareObjectKeys(R"({"a":{{"q":0,"t":"x"}:5,"b":[{"c":1}]}})"),
            R"({"a":{"{\"q\":0,\"t\":\"x\"}":5,"b":[{"c":1}]}})");
  // Values that are objects, arrays of objects and strings holding braces are untouched.
  const std::string plain = R"({"k":{"x":1},"l":[{"y":2},{"z":"{q}:"}]})";
  EXPECT_EQ(QuoteBareObjectKeys(plain), plain);
  // Unbalanced text: returned as far as it goes (the parser then reports it).
  EXPECT_NO_FATAL_FAILURE((void)QuoteBareObjectKeys(R"({{"a":1)"));
}

TEST(AdminBodiesTest, TopicStatsTableReadsJavasBodyAndWritesBareKeys) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  const auto& java = FindFrame(frames, "GET_TOPIC_STATS_INFO", true);
  auto t = TopicStatsTable::Decode(java.body_text);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->offset_table.size(), 4u);
  bool saw_q1 = false;
  for (const auto& [mq, off] : t->offset_table) {
    EXPECT_EQ(mq.topic, "JV_adm");
    EXPECT_EQ(mq.broker_name, "jbroker-a");
    if (mq.queue_id == 1) {
      saw_q1 = true;
      EXPECT_EQ(off.max_offset, 2);
      EXPECT_EQ(off.last_update_timestamp, 1796159162680);
    }
  }
  EXPECT_TRUE(saw_q1);
  // Written back, it is Java's text byte for byte (same entry order, fastjson's members).
  EXPECT_EQ(Text(t->Encode()), java.body_text);
}

TEST(AdminBodiesTest, KVTableReadsJavasRuntimeInfo) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  auto t = KVTable::Decode(FindFrame(frames, "GET_BROKER_RUNTIME_INFO", true).body_text);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->table.at("brokerVersionDesc"), "V4_9_8");
  auto again = KVTable::Decode(Text(t->Encode()));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->table, t->table);
  EXPECT_FALSE(KVTable::Decode(R"({"table":{"a":1}})").ok());
  EXPECT_FALSE(KVTable::Decode("[]").ok());
}

TEST(AdminBodiesTest, SubscriptionGroupConfigAsTheAdminClientSendsIt) {
  auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  const auto& req = FindFrame(frames, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", false);
  auto c = SubscriptionGroupConfigBody::Decode(req.body_text);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->group_name, "CGV_adm_created");
  EXPECT_EQ(c->retry_max_times, 5);
  EXPECT_FALSE(c->consume_broadcast_enable);
  EXPECT_EQ(Text(c->Encode()), req.body_text);
  auto bad = SubscriptionGroupConfigBody::Decode(R"({"retryQueueNums":true})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("retryQueueNums is not an int"), std::string::npos);
  // Absent members keep Java's defaults.
  auto empty = SubscriptionGroupConfigBody::Decode("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->retry_max_times, 16);
  EXPECT_TRUE(empty->consume_enable);
}

TEST(AdminBodiesTest, TopicListAndQueryConsumeQueueShapes) {
  TopicList l;
  l.topic_list = {"A", "B"};
  EXPECT_EQ(Text(l.Encode()), R"({"topicList":["A","B"]})");
  auto back = TopicList::Decode(R"({"brokerAddr":null,"topicList":["A"]})");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->topic_list, std::vector<std::string>{"A"});
  EXPECT_FALSE(back->broker_addr);

  QueryConsumeQueueResponseBody b;
  b.max_queue_index = 3;
  ConsumeQueueData u;
  u.physic_offset = 100;
  u.physic_size = 80;
  u.tags_code = 7;
  b.queue_data.emplace().push_back(u);
  EXPECT_EQ(
      Text(b.Encode()),
      R"({"maxQueueIndex":3,"minQueueIndex":0,"queueData":[{"eval":false,"physicOffset":100,"physicSize":80,"tagsCode":7}]})");
  SubscriptionData s;
  s.topic = "T";
  s.sub_string = "*";
  b.subscription_data = s;
  b.filter_data = "null";
  auto d = QueryConsumeQueueResponseBody::Decode(Text(b.Encode()));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->subscription_data->topic, "T");
  EXPECT_EQ(d->filter_data, "null");
  EXPECT_EQ(d->queue_data->at(0).physic_size, 80);
  EXPECT_FALSE(QueryConsumeQueueResponseBody::Decode(R"({"queueData":[1]})").ok());
}

TEST(AdminHeadersTest, DecodeAsJavaDeclaresThem) {
  auto del = DeleteSubscriptionGroupRequestHeader::Decode(CommandWith(207, {}));
  ASSERT_FALSE(del.ok());
  EXPECT_NE(del.status().message().find("groupName"), std::string::npos);
  auto d2 = DeleteSubscriptionGroupRequestHeader::Decode(
      CommandWith(207, {{"groupName", "G"}, {"removeOffset", "true"}}));
  ASSERT_TRUE(d2.ok());
  EXPECT_TRUE(d2->remove_offset);
  auto clone = CloneGroupOffsetRequestHeader::Decode(
      CommandWith(314, {{"srcGroup", "S"}, {"destGroup", "D"}}));
  ASSERT_TRUE(clone.ok());
  EXPECT_FALSE(clone->topic);
  EXPECT_FALSE(clone->offline);
  EXPECT_FALSE(CloneGroupOffsetRequestHeader::Decode(CommandWith(314, {{"srcGroup", "S"}})).ok());
  auto q = QueryConsumeQueueRequestHeader::Decode(CommandWith(321, {{"topic", "T"}}));
  ASSERT_TRUE(q.ok());  // no @CFNotNull: absent numbers are 0
  EXPECT_EQ(q->count, 0);
  EXPECT_FALSE(QueryConsumeQueueRequestHeader::Decode(CommandWith(321, {{"index", "1.5"}})).ok());
  EXPECT_FALSE(TopicRequestHeader::Decode(CommandWith(202, {})).ok());
  RemotingCommand resp;
  GetBrokerConfigResponseHeader{R"({"counter":1})"}.EncodeTo(resp);
  EXPECT_EQ(GetBrokerConfigResponseHeader::Decode(resp)->version, R"({"counter":1})");
}

}  // namespace
}  // namespace rocketstore::protocol
