// The console's JSON API over a real broker: bad input first (a table of requests, each
// must answer 4xx with a JSON error that says what to do), read-only mode, then the
// answers: lag as GET_CONSUME_STATS computes it, create/delete topic, find by key and
// where the message lives, reset offset dry run.
#include <thread>

#include "console/group_stats.h"
#include "console_fixture.h"

namespace rocketstore::console {
namespace {

using Params = std::map<std::string, std::string>;

TEST_F(ConsoleFixture, BadInputAnswers4xxWithJsonError) {
  struct Case {
    const char* method;
    const char* path;
    Params params;
    int status;
  };
  const std::string huge(100000, 'x');
  const Case cases[] = {
      {"GET", "/api/nothing", {}, 404},
      {"GET", "/", {}, 404},
      {"DELETE", "/api/topics", {}, 405},
      {"PUT", "/api/cluster", {}, 405},
      {"GET", "/api/topic", {}, 400},
      {"GET", "/api/topic", {{"topic", "NoSuch"}}, 404},
      {"POST", "/api/topics", {}, 400},
      {"POST", "/api/topics", {{"topic", "bad name"}}, 400},
      {"POST", "/api/topics", {{"topic", huge}}, 400},
      {"POST", "/api/topics", {{"topic", "T2"}, {"readQueueNums", "0"}}, 400},
      {"POST", "/api/topics", {{"topic", "T2"}, {"readQueueNums", "4x"}}, 400},
      {"POST", "/api/topics", {{"topic", "T2"}, {"readQueueNums", "99999999999999999999"}}, 400},
      {"POST", "/api/topics", {{"topic", "T2"}, {"perm", "X"}}, 400},
      {"POST", "/api/topics", {{"topic", "TBW102"}}, 403},
      {"POST", "/api/topics/delete", {{"topic", "SCHEDULE_TOPIC_XXXX"}}, 403},
      {"POST", "/api/topics/delete", {{"topic", "NoSuch"}}, 404},
      {"GET", "/api/group", {}, 400},
      {"GET", "/api/group", {{"group", "NoSuchGroup"}}, 404},
      {"POST", "/api/groups/reset-offset", {{"group", "G1"}}, 400},
      {"POST",
       "/api/groups/reset-offset",
       {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "yesterday"}},
       400},
      {"POST",
       "/api/groups/reset-offset",
       {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "1"}, {"dryRun", "maybe"}},
       400},
      {"POST",
       "/api/groups/reset-offset",
       {{"group", "G1"}, {"topic", "NoSuch"}, {"timestamp", "1"}},
       404},
      {"GET", "/api/messages/by-key", {{"topic", "TopicTest"}}, 400},
      {"GET", "/api/messages/by-key", {{"topic", "NoSuch"}, {"key", "k1"}}, 404},
      {"GET", "/api/messages/by-key", {{"topic", "TopicTest"}, {"key", "k1"}, {"max", "0"}}, 400},
      {"GET",
       "/api/messages/by-key",
       {{"topic", "TopicTest"}, {"key", "k1"}, {"begin", "5"}, {"end", "4"}},
       400},
      {"GET", "/api/messages/by-id", {{"msgId", "zz"}}, 400},
      {"GET", "/api/messages/by-id", {{"msgId", "7F00000100002A9F00000000FFFFFFFF"}}, 404},
      {"GET",
       "/api/messages/by-time",
       {{"topic", "TopicTest"}, {"begin", "2026-13-01T00:00"}},
       400},
      {"GET", "/api/message", {}, 400},
      {"GET", "/api/message", {{"offset", "-1"}}, 400},
      {"GET", "/api/message", {{"offset", "1"}}, 404},  // inside the log, not a record start
      {"GET", "/api/message", {{"offset", "999999999"}}, 404},
      {"POST", "/api/messages/resend-dlq", {{"offset", "0"}}, 400},  // not a DLQ message
  };
  for (const Case& c : cases) {
    HttpReply r = Call(c.method, c.path, c.params);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.path << " -> " << r.body.substr(0, 300);
    rapidjson::Document d = Json(r);
    ASSERT_TRUE(d.IsObject() && d.HasMember("error") && d["error"].IsString()) << r.body;
    EXPECT_GT(d["error"].GetStringLength(), 10u) << r.body;
  }
}

TEST_F(ConsoleFixture, ReadOnlyRefusesChangesButAllowsReadsAndDryRuns) {
  api_ = MakeApi(true);
  for (const char* path : {"/api/topics", "/api/topics/delete", "/api/groups/reset-offset",
                           "/api/messages/resend-dlq"}) {
    HttpReply r = Call("POST", path, {{"topic", "TopicTest"}});
    EXPECT_EQ(r.status, 403) << path;
    EXPECT_NE(Json(r)["error"].GetString(), std::string()) << path;
  }
  // dryRun=true does not open a route that has no dry run (it would be ignored and the
  // change made): create, delete and resend stay refused.
  for (const char* path : {"/api/topics", "/api/topics/delete", "/api/messages/resend-dlq"}) {
    HttpReply r =
        Call("POST", path, {{"topic", "DryRunTopic"}, {"offset", "0"}, {"dryRun", "true"}});
    EXPECT_EQ(r.status, 403) << path << " " << r.body;
  }
  HttpReply del = Call("POST", "/api/topics/delete", {{"topic", "TopicTest"}, {"dryRun", "true"}});
  EXPECT_EQ(del.status, 403) << del.body;
  EXPECT_FALSE(broker_->topics().Find("DryRunTopic"));  // nothing created
  EXPECT_TRUE(broker_->topics().Find("TopicTest"));     // nothing deleted
  EXPECT_EQ(Call("GET", "/api/topics").status, 200);
  HttpReply dry =
      Call("POST", "/api/groups/reset-offset",
           {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}, {"dryRun", "true"}});
  EXPECT_EQ(dry.status, 200) << dry.body;
}

TEST_F(ConsoleFixture, GroupLagIsConsumeStatsDiffTotal) {
  // 12 messages over 4 queues (3 each); G1 committed 1 on queue 0 only.
  const GroupStats s = ComputeGroupStats(*broker_, "G1");
  ASSERT_EQ(s.queues.size(), 4u);
  EXPECT_EQ(s.diff_total, 12 - 1);
  HttpReply r = Call("GET", "/api/group", {{"group", "G1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_EQ(d["diffTotal"].GetInt64(), 11);
  EXPECT_EQ(d["queues"][0]["consumerOffset"].GetInt64(), 1);
  EXPECT_EQ(d["queues"][0]["brokerOffset"].GetInt64(), 3);
  EXPECT_GT(d["queues"][0]["lastTimestamp"].GetInt64(), 0);
  HttpReply list = Call("GET", "/api/groups");
  EXPECT_NE(list.body.find("\"group\":\"G1\",\"members\":0,\"messageModel\":\"\",\"lag\":11"),
            std::string::npos)
      << list.body;
}

TEST_F(ConsoleFixture, CreateAndDeleteTopic) {
  HttpReply c = Call("POST", "/api/topics", {{"topic", "NewTopic"}, {"readQueueNums", "2"}});
  ASSERT_EQ(c.status, 200) << c.body;
  auto t = broker_->topics().Find("NewTopic");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->read_queue_nums, 2);
  EXPECT_EQ(t->write_queue_nums, 2);
  HttpReply del = Call("POST", "/api/topics/delete", {{"topic", "NewTopic"}});
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_FALSE(broker_->topics().Find("NewTopic"));
  EXPECT_EQ(Call("POST", "/api/topics/delete", {{"topic", "NewTopic"}}).status, 404);
}

TEST_F(ConsoleFixture, FindByKeyAndWhereItLives) {
  HttpReply r = Call("GET", "/api/messages/by-key", {{"topic", "TopicTest"}, {"key", "k5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  ASSERT_EQ(d["messages"].Size(), 1u) << r.body;
  const int64_t off = d["messages"][0]["offset"].GetInt64();
  EXPECT_EQ(d["messages"][0]["keys"].GetString(), std::string("k5"));
  HttpReply m = Call("GET", "/api/message", {{"offset", std::to_string(off)}});
  ASSERT_EQ(m.status, 200) << m.body;
  auto md = Json(m);
  const auto& where = md["where"];
  EXPECT_EQ(where["commitLog"]["position"].GetInt64(), off);  // first 4 MiB segment
  EXPECT_EQ(where["commitLog"]["file"].GetString(),
            dir_.path() + "/store/commitlog/00000000000000000000");
  EXPECT_TRUE(where["consumeQueue"]["unitPointsHere"].GetBool()) << m.body;
  EXPECT_EQ(where["consumeQueue"]["queueId"].GetInt(), 1);  // message 5 -> queue 1
  EXPECT_EQ(where["consumeQueue"]["unit"].GetInt64(), 1);
  EXPECT_EQ(where["consumeQueue"]["position"].GetInt64(), 20);
  // The index walk of `inspect key`: the key line, an index file, an entry matching here.
  ASSERT_GE(where["index"].Size(), 1u);
  const auto& steps = where["index"][0]["steps"];
  ASSERT_GE(steps.Size(), 3u) << m.body;
  EXPECT_EQ(steps[0]["type"].GetString(), std::string("key"));
  bool matched_here = false;
  for (const auto& s : steps.GetArray()) {
    // Lines without "type" are the records the candidates name (WriteRecordJsonLine).
    if (s.HasMember("type") && std::string(s["type"].GetString()) == "entry" &&
        s["matched"].GetBool() && s["physicalOffset"].GetInt64() == off) {
      matched_here = true;
    }
  }
  EXPECT_TRUE(matched_here) << m.body;
  EXPECT_EQ(md["bodyText"].GetString(), testing::MakeTestMessage(5).body);
  EXPECT_EQ(md["properties"]["KEYS"].GetString(), std::string("k5"));
}

TEST_F(ConsoleFixture, ResetOffsetDryRunChangesNothing) {
  HttpReply r =
      Call("POST", "/api/groups/reset-offset",
           {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}, {"dryRun", "true"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_EQ(d["queues"][0]["currentOffset"].GetInt64(), 1);
  EXPECT_EQ(d["queues"][0]["newOffset"].GetInt64(), 0);
  EXPECT_EQ(broker_->offsets().Query("G1", "TopicTest", 0), 1);
  HttpReply apply = Call("POST", "/api/groups/reset-offset",
                         {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}});
  ASSERT_EQ(apply.status, 200) << apply.body;
  EXPECT_EQ(broker_->offsets().Query("G1", "TopicTest", 0), 0);
}

TEST_F(ConsoleFixture, ClusterAndTopicsShowTheStore) {
  HttpReply c = Call("GET", "/api/cluster");
  ASSERT_EQ(c.status, 200) << c.body;
  auto d = Json(c);
  const auto& b = d["brokers"][0];
  EXPECT_TRUE(b["health"]["writable"].GetBool());
  EXPECT_GT(b["commitLog"]["maxOffset"].GetInt64(), 0);
  EXPECT_EQ(b["disk"]["diskMaxUsedSpaceRatio"].GetInt(), 75);
  HttpReply t = Call("GET", "/api/topic", {{"topic", "TopicTest"}});
  ASSERT_EQ(t.status, 200) << t.body;
  EXPECT_EQ(Json(t)["queues"][2]["maxOffset"].GetInt64(), 3);
}

}  // namespace
}  // namespace rocketstore::console
