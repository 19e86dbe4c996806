// Pure parts of the client library: AllocateAveragely against Java's results, the
// fastjson reader (bare and object keys), route decoding, properties, message ids.
#include <gtest/gtest.h>

#include <set>

#include "base/clock.h"
#include "client/allocate.h"
#include "client/fastjson.h"
#include "client/message.h"
#include "client/route.h"
#include "client/unique_id.h"
#include "store/format/properties.h"
#include "testing/status_matchers.h"

namespace rocketstore::client {
namespace {

std::vector<MessageQueue> Qs(int n) {
  std::vector<MessageQueue> out;
  for (int i = n - 1; i >= 0; --i) out.push_back({"T", "b", i});  // unsorted on purpose
  return out;
}
std::vector<int> Ids(const std::vector<MessageQueue>& qs) {
  std::vector<int> out;
  for (const auto& q : qs) out.push_back(q.queue_id);
  return out;
}

TEST(AllocateAveragely, MatchesJava) {
  // 8 queues, 3 consumers: Java gives [0,1,2] [3,4,5] [6,7].
  const std::vector<std::string> cids = {"c", "a", "b"};
  EXPECT_EQ(Ids(AllocateAveragely(Qs(8), cids, "a")), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Ids(AllocateAveragely(Qs(8), cids, "b")), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(Ids(AllocateAveragely(Qs(8), cids, "c")), (std::vector<int>{6, 7}));
  // More consumers than queues: one each, the rest nothing.
  const std::vector<std::string> five = {"a", "b", "c", "d", "e"};
  EXPECT_EQ(Ids(AllocateAveragely(Qs(3), five, "c")), (std::vector<int>{2}));
  EXPECT_TRUE(AllocateAveragely(Qs(3), five, "d").empty());
  // Unknown consumer id: nothing.
  EXPECT_TRUE(AllocateAveragely(Qs(4), cids, "zz").empty());
  // Every queue exactly once across the members.
  std::multiset<int> all;
  for (const auto& c : cids) {
    for (int q : Ids(AllocateAveragely(Qs(10), cids, c))) all.insert(q);
  }
  EXPECT_EQ(all.size(), 10u);
  EXPECT_EQ(std::set<int>(all.begin(), all.end()).size(), 10u);
}

TEST(Fastjson, RejectsBrokenJson) {
  EXPECT_FALSE(ParseFastjson("{\"a\":").ok());
  EXPECT_FALSE(ParseFastjson("{\"a\" 1}").ok());
  EXPECT_FALSE(ParseFastjson("[1,2").ok());
  EXPECT_FALSE(ParseFastjson("{} x").ok());
  EXPECT_FALSE(ParseFastjson("\"abc").ok());
  EXPECT_FALSE(ParseFastjson(std::string(200, '[')).ok());  // too deep
}

TEST(Fastjson, BareNumberAndObjectKeys) {
  ASSERT_OK_AND_ASSIGN(
      FjValue v,
      ParseFastjson(
          R"({"addrs":{0:"127.0.0.1:10911",1:"x"},"t":{{"brokerName":"b","queueId":3,)"
          R"("topic":"T"}:{"brokerOffset":7}},"s":"a\u00e9\n","n":-12,"f":1.5,"ok":true})"));
  const FjValue* addrs = v.Find("addrs");
  ASSERT_NE(addrs, nullptr);
  EXPECT_EQ(addrs->Str("0"), "127.0.0.1:10911");
  const FjValue* t = v.Find("t");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->members.size(), 1u);
  EXPECT_EQ(t->members[0].first.Int("queueId"), 3);
  EXPECT_EQ(t->members[0].second.Int("brokerOffset"), 7);
  EXPECT_EQ(v.Str("s"), "a\xc3\xa9\n");
  EXPECT_EQ(v.Int("n"), -12);
  EXPECT_DOUBLE_EQ(v.Double("f"), 1.5);
  EXPECT_TRUE(v.Bool("ok"));
  EXPECT_EQ(v.Int("missing"), 0);
  // Re-serialised as standard JSON.
  ASSERT_OK_AND_ASSIGN(FjValue again, ParseFastjson(addrs->ToJson()));
  EXPECT_EQ(again.Str("1"), "x");
}

TEST(TopicRoute, DecodesBareAndQuotedBrokerIds) {
  const char* body =
      R"({"brokerDatas":[{"brokerAddrs":{0:"10.0.0.2:10911",1:"10.0.0.3:10911"},"brokerName":"b2",)"
      R"("cluster":"C"},{"brokerAddrs":{"0":"10.0.0.1:10911"},"brokerName":"b1","cluster":"C"},)"
      R"({"brokerAddrs":{"1":"10.0.0.9:10911"},"brokerName":"slaveonly","cluster":"C"}],)"
      R"("queueDatas":[{"brokerName":"b2","perm":6,"readQueueNums":2,"writeQueueNums":2,)"
      R"("topicSysFlag":0},{"brokerName":"b1","perm":6,"readQueueNums":1,"writeQueueNums":1},)"
      R"({"brokerName":"slaveonly","perm":6,"readQueueNums":4,"writeQueueNums":4},)"
      R"({"brokerName":"ro","perm":4,"readQueueNums":4,"writeQueueNums":4}]})";
  ASSERT_OK_AND_ASSIGN(TopicRoute r, TopicRoute::Decode(body));
  ASSERT_EQ(r.broker_datas.size(), 3u);
  EXPECT_EQ(r.FindBroker("b2")->MasterAddr(), "10.0.0.2:10911");
  EXPECT_EQ(r.FindBroker("slaveonly")->MasterAddr(), "");
  auto w = r.WritableQueues("T");
  // b1 before b2 (sorted); no master → no queues; read-only broker not writable.
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].broker_name, "b1");
  EXPECT_EQ(w[1].broker_name, "b2");
  EXPECT_EQ(w[2].queue_id, 1);
  EXPECT_FALSE(TopicRoute::Decode(R"({"brokerDatas":[{"brokerAddrs":{"x":"a"}}]})").ok());
  EXPECT_FALSE(TopicRoute::Decode("[]").ok());
}

TEST(BuildProperties, JavaOrderAndValidation) {
  Message m{.topic = "T", .body = "b", .tags = "TagA", .keys = {"k1", "k2"}, .delay_level = 3};
  ASSERT_OK_AND_ASSIGN(std::string props, BuildProperties(m, "UNIQ"));
  EXPECT_EQ(format::FindProperty(props, "KEYS").value_or(""), "k1 k2");
  EXPECT_EQ(format::FindProperty(props, "TAGS").value_or(""), "TagA");
  EXPECT_EQ(format::FindProperty(props, "DELAY").value_or(""), "3");
  EXPECT_EQ(format::FindProperty(props, "UNIQ_KEY").value_or(""), "UNIQ");
  EXPECT_EQ(format::FindProperty(props, "WAIT").value_or(""), "true");
  // The same order as Java's HashMap<String,String> (PropertiesBuilder mirrors it).
  format::PropertiesBuilder b(format::PropertiesFormat::RocketMq4_9_8());
  b.Put("KEYS", "k1 k2");
  b.Put("TAGS", "TagA");
  b.Put("DELAY", "3");
  b.Put("WAIT", "true");
  b.Put("UNIQ_KEY", "UNIQ");
  EXPECT_EQ(props, b.Build());
  Message timer{.topic = "T", .body = "b", .deliver_time_ms = 1700000000000};
  ASSERT_OK_AND_ASSIGN(std::string tp, BuildProperties(timer, ""));
  EXPECT_EQ(format::FindProperty(tp, "TIMER_DELIVER_MS").value_or(""), "1700000000000");
  EXPECT_FALSE(BuildProperties(Message{.topic = "", .body = "b"}, "").ok());
  EXPECT_FALSE(BuildProperties(Message{.topic = "T", .body = "b", .delay_level = -1}, "").ok());
  Message bad{.topic = "T", .body = "b"};
  bad.properties["a\x01"] = "v";
  EXPECT_FALSE(BuildProperties(bad, "").ok());
}

TEST(UniqueId, LayoutAndUniqueness) {
  FakeClock clock(1700000000123);
  UniqueIdGenerator g(clock);
  const std::string a = g.Next(), b = g.Next();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 20), b.substr(0, 20));  // the fixed part
  // Milliseconds since the month start, big-endian hex at [20, 28).
  const int64_t since = 1700000000123 - UniqueIdGenerator::MonthStartMillis(1700000000123);
  EXPECT_EQ(std::stoll(a.substr(20, 8), nullptr, 16), since);
  EXPECT_EQ(UniqueIdGenerator::MonthStartMillis(1700000000123), 1698796800000);  // 2023-11-01
  EXPECT_EQ(SplitNamesrvAddrs("a:1;b:2, c:3"), (std::vector<std::string>{"a:1", "b:2", "c:3"}));
}

}  // namespace
}  // namespace rocketstore::client
