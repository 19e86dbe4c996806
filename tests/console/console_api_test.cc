// The console's JSON API over a real broker: bad input first (a table of requests, each
// must answer 4xx with a JSON error that says what to do), read-only mode, then the
// answers: lag as GET_CONSUME_STATS computes it, create/delete topic, find by key and
// where the message lives, reset offset (dry run, offline group, a live PullConsumer).
#include <chrono>
#include <map>
#include <thread>

#include "broker/service/broker_config_service.h"
#include "client/pull_consumer.h"
#include "console/group_stats.h"
#include "console_fixture.h"

namespace rocketstore::console {
namespace {

using Params = std::map<std::string, std::string>;

// Polls until n messages arrived or 10 s passed.
std::vector<client::MessageExt> PollN(client::PullConsumer& c, size_t n) {
  std::vector<client::MessageExt> all;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (all.size() < n && std::chrono::steady_clock::now() < end) {
    auto r = c.Poll(500);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) break;
    for (auto& m : *r) all.push_back(std::move(m));
  }
  return all;
}

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
       {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "1"}, {"force", "x"}},
       400},
      // G1 has a committed offset on queue 0 only: the broker's service (222) refuses.
      {"POST",
       "/api/groups/reset-offset",
       {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "1"}, {"dryRun", "true"}},
       409},
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

TEST_F(ConsoleFixture, ConsoleInfoSaysWhetherReadOnly) {
  HttpReply rw = Call("GET", "/api/console");
  ASSERT_EQ(rw.status, 200) << rw.body;
  EXPECT_FALSE(Json(rw)["readOnly"].GetBool());
  EXPECT_EQ(Json(rw)["version"].GetString(), std::string("test"));
  api_ = MakeApi(true);
  EXPECT_TRUE(Json(Call("GET", "/api/console"))["readOnly"].GetBool());
  EXPECT_EQ(Call("POST", "/api/console").status, 405);
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
  for (int32_t q = 1; q < 4; ++q) broker_->offsets().Commit("G1", "TopicTest", q, 0);
  for (const char* yes : {"true", "1"}) {
    HttpReply dry =
        Call("POST", "/api/groups/reset-offset",
             {{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}, {"dryRun", yes}});
    EXPECT_EQ(dry.status, 200) << yes << " " << dry.body;
  }
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
  broker_->offsets().Commit("G9", "NewTopic", 0, 1);
  HttpReply del = Call("POST", "/api/topics/delete", {{"topic", "NewTopic"}});
  ASSERT_EQ(del.status, 200) << del.body;
  EXPECT_FALSE(broker_->topics().Find("NewTopic"));
  // DELETE_TOPIC_IN_BROKER's (215) path: the offsets on the topic go with it.
  EXPECT_LT(broker_->offsets().Query("G9", "NewTopic", 0), 0);
  EXPECT_EQ(Call("POST", "/api/topics/delete", {{"topic", "NewTopic"}}).status, 404);
  EXPECT_EQ(Call("POST", "/api/topics/delete", {{"topic", "bad name"}}).status, 400);
  // Topics the broker names after itself are system topics too (TopicService refuses
  // them): 403, not the SYSTEM_ERROR's 500.
  for (const std::string& own : {broker_->options().cluster_name, broker_->options().broker_name,
                                 std::string("SCHEDULE_TOPIC_XXXX")}) {
    EXPECT_EQ(Call("POST", "/api/topics/delete", {{"topic", own}}).status, 403) << own;
    EXPECT_EQ(Call("POST", "/api/topics", {{"topic", own}}).status, 403) << own;
  }
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

// An offline group: the preview lists per queue the committed and the new offset and
// changes nothing; the reset (the 222 service) commits them, since no member is online.
TEST_F(ConsoleFixture, ResetOffsetOfAnOfflineGroupPreviewsThenCommits) {
  const Params reset{{"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}};
  HttpReply refused = Call("POST", "/api/groups/reset-offset", reset);
  ASSERT_EQ(refused.status, 409) << refused.body;  // offsets on queue 0 only
  EXPECT_NE(refused.body.find("THe consumer group <G1> not exist"), std::string::npos)
      << refused.body;
  EXPECT_NE(refused.body.find("commit first"), std::string::npos) << refused.body;
  for (int32_t q = 1; q < 4; ++q) broker_->offsets().Commit("G1", "TopicTest", q, 2);
  Params dry_params = reset;
  dry_params["dryRun"] = "true";
  HttpReply r = Call("POST", "/api/groups/reset-offset", dry_params);
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_TRUE(d["dryRun"].GetBool());
  EXPECT_EQ(d["membersOnline"].GetUint64(), 0u);
  ASSERT_EQ(d["queues"].Size(), 4u);
  EXPECT_EQ(d["queues"][0]["currentOffset"].GetInt64(), 1);
  EXPECT_EQ(d["queues"][0]["newOffset"].GetInt64(), 0);
  EXPECT_EQ(d["queues"][3]["currentOffset"].GetInt64(), 2);
  EXPECT_EQ(d["queues"][3]["newOffset"].GetInt64(), 0);
  EXPECT_EQ(broker_->offsets().Query("G1", "TopicTest", 0), 1);
  EXPECT_EQ(broker_->offsets().Query("G1", "TopicTest", 3), 2);
  // force=false moves a queue only backwards: a time after every message keeps them.
  dry_params["force"] = "false";
  dry_params["timestamp"] = "4102444800000";  // 2100
  auto kept = Json(Call("POST", "/api/groups/reset-offset", dry_params));
  EXPECT_EQ(kept["queues"][0]["newOffset"].GetInt64(), 1)
      << kept["queues"][0]["newOffset"].GetInt64();
  HttpReply apply = Call("POST", "/api/groups/reset-offset", reset);
  ASSERT_EQ(apply.status, 200) << apply.body;
  EXPECT_FALSE(Json(apply)["pushedToMembers"].GetBool());
  for (int32_t q = 0; q < 4; ++q) EXPECT_EQ(broker_->offsets().Query("G1", "TopicTest", q), 0);
}

// A group with a member online: the preview tells nobody; the reset goes through the
// broker's INVOKE_BROKER_TO_RESET_OFFSET service, which pushes RESET_CONSUMER_CLIENT_OFFSET
// (220) to the live C++ PullConsumer, and the consumer resumes from the new offsets.
TEST_F(ConsoleFixture, ResetOffsetMovesALiveConsumer) {
  ASSERT_TRUE(broker_->RegisterAll().ok());
  client::PullConsumer c(ManualConsumerOptions("LiveGroup"));
  ASSERT_TRUE(c.Subscribe("TopicTest").ok());
  ASSERT_TRUE(c.Start().ok());
  ASSERT_EQ(PollN(c, 12).size(), 12u);
  ASSERT_TRUE(c.Commit().ok());
  std::vector<client::MessageQueue> queues;
  for (const auto& q : c.Assignment()) {
    if (q.topic == "TopicTest") queues.push_back(q);
  }
  ASSERT_EQ(queues.size(), 4u);
  for (const auto& q : queues) ASSERT_EQ(c.Position(q).value_or(-1), 3);
  for (int32_t q = 0; q < 4; ++q)
    ASSERT_EQ(broker_->offsets().Query("LiveGroup", "TopicTest", q), 3);

  const Params reset{{"group", "LiveGroup"}, {"topic", "TopicTest"}, {"timestamp", "0"}};
  Params dry_params = reset;
  dry_params["dryRun"] = "true";
  HttpReply dry = Call("POST", "/api/groups/reset-offset", dry_params);
  ASSERT_EQ(dry.status, 200) << dry.body;
  auto d = Json(dry);
  EXPECT_EQ(d["membersOnline"].GetUint64(), 1u);
  EXPECT_FALSE(d["pushedToMembers"].GetBool());
  ASSERT_EQ(d["queues"].Size(), 4u);
  for (const auto& q : d["queues"].GetArray()) {
    EXPECT_EQ(q["currentOffset"].GetInt64(), 3);
    EXPECT_EQ(q["newOffset"].GetInt64(), 0);
  }
  // Nothing told, nothing committed: the consumer has nothing new to poll.
  auto none = c.Poll(300);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  for (const auto& q : queues) EXPECT_EQ(c.Position(q).value_or(-1), 3);
  for (int32_t q = 0; q < 4; ++q)
    EXPECT_EQ(broker_->offsets().Query("LiveGroup", "TopicTest", q), 3);

  HttpReply apply = Call("POST", "/api/groups/reset-offset", reset);
  ASSERT_EQ(apply.status, 200) << apply.body;
  auto a = Json(apply);
  EXPECT_TRUE(a["pushedToMembers"].GetBool());
  EXPECT_EQ(a["membersOnline"].GetUint64(), 1u);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto all_at_zero = [&] {
    for (const auto& q : queues) {
      if (c.Position(q).value_or(-1) != 0) return false;
    }
    return true;
  };
  while (!all_at_zero() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(all_at_zero());
  // It resumes from the new offsets: every message again, each queue from offset 0.
  auto again = PollN(c, 12);
  ASSERT_EQ(again.size(), 12u);
  std::map<int32_t, int64_t> first;
  for (const auto& m : again) first.emplace(m.queue_id, m.queue_offset);
  ASSERT_EQ(first.size(), 4u);
  for (const auto& [q, off] : first) EXPECT_EQ(off, 0) << "queue " << q;
  ASSERT_TRUE(c.Commit().ok());
  for (int32_t q = 0; q < 4; ++q)
    EXPECT_EQ(broker_->offsets().Query("LiveGroup", "TopicTest", q), 3);
  c.Shutdown();
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

// The watermarks shown are the ones retention uses now: UPDATE_BROKER_CONFIG (25) changes
// them at run time, and the Cluster screen must not keep showing the start-up values.
TEST_F(ConsoleFixture, ClusterShowsRetentionSettingsChangedAtRunTime) {
  ASSERT_NE(broker_->broker_config(), nullptr);
  const broker::Verdict v = broker_->broker_config()->Update(
      "diskMaxUsedSpaceRatio=60\ndiskSpaceCleanForciblyRatio=70\n"
      "diskSpaceWarningLevelRatio=80\nfileReservedTime=24\n");
  ASSERT_TRUE(v.ok()) << v.remark;
  auto d = Json(Call("GET", "/api/cluster"));
  const auto& disk = d["brokers"][0]["disk"];
  EXPECT_EQ(disk["diskMaxUsedSpaceRatio"].GetInt(), 60);
  EXPECT_EQ(disk["diskSpaceCleanForciblyRatio"].GetInt(), 70);
  EXPECT_EQ(disk["diskSpaceWarningLevelRatio"].GetInt(), 80);
  EXPECT_EQ(disk["fileReservedTimeHours"].GetInt64(), 24);
}

}  // namespace
}  // namespace rocketstore::console
