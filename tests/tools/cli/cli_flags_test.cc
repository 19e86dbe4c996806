// The operator CLI's flags, each run at least once against a real `rocketstore serve`
// (delays and timers, files, batches, --follow, every consume start and seek target,
// --remove-offset), a consumer group looked at and moved while a member is running, and
// the golden --format json document of every command not pinned in cli_test.cc.
// Waits poll with generous deadlines; nothing asserts how fast the machine is.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "client/admin_client.h"
#include "client/fastjson.h"

namespace rocketstore {
namespace {

using cli_testing::CliRun;
using cli_testing::CliTest;
using cli_testing::Lines;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Every line of a JSON Lines output, parsed.
std::vector<client::FjValue> JsonLines(const std::string& out) {
  std::vector<client::FjValue> v;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    auto parsed = client::ParseFastjson(line);
    EXPECT_TRUE(parsed.ok()) << line;
    if (parsed.ok()) v.push_back(*parsed);
  }
  return v;
}

TEST_F(CliTest, GoldenTopicListGroupListAndGroupDelete) {
  ASSERT_EQ(Cli("topic create gl-b --queues 1").code, 0);
  ASSERT_EQ(Cli("topic create gl-a --queues 1").code, 0);
  CliRun r = Cli("topic list --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(KeepOnlyMembers(KeepOnly(r.out, "topics", "gl-"), "types", "gl-"),
            Golden("topic_list.json"))
      << r.out;

  ASSERT_EQ(Cli("produce gl-a", "x\n").code, 0);
  ASSERT_EQ(Cli("consume gl-a --group gl-g2 --idle-timeout 800").code, 0);
  ASSERT_EQ(Cli("consume gl-a --group gl-g1 --idle-timeout 800").code, 0);
  r = Cli("group list --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(KeepOnly(r.out, "groups", "gl-"), Golden("group_list.json")) << r.out;

  // A member's heartbeat made %RETRY%gl-g1; delete takes it along once routed.
  ASSERT_TRUE(
      WaitFor([] { return Cli("topic list").out.find("%RETRY%gl-g1 ") != std::string::npos; }));
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  auto addrs = admin.MasterAddrs();
  ASSERT_TRUE(addrs.ok()) << addrs.status().ToString();
  auto has_offsets = [&](const std::string& group) {
    auto all = admin.GetAllConsumerOffsets(addrs->front());
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    return all.ok() && all->offsets.count("gl-a@" + group) == 1;
  };
  ASSERT_TRUE(has_offsets("gl-g1"));
  r = Cli("group delete gl-g1 --remove-offset --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, Golden("group_delete.json"));
  EXPECT_FALSE(has_offsets("gl-g1"));
  // Without --remove-offset the offsets stay (as mqadmin deleteSubGroup without -r).
  ASSERT_EQ(Cli("group delete gl-g2").code, 0);
  EXPECT_TRUE(has_offsets("gl-g2"));
  EXPECT_EQ(KeepOnly(Cli("group list --format json").out, "groups", "gl-"), "{\"groups\":[]}\n");
}

TEST_F(CliTest, GoldenConsumeLinesMessageGetFindAndClusterStatus) {
  ASSERT_EQ(Cli("topic create gm-t --queues 1").code, 0);
  CliRun p =
      Cli("produce gm-t --key gm-k --tag gm --property src=golden --format json", "one\ntwo\n");
  ASSERT_EQ(p.code, 0) << p.err;
  CliRun c = Cli("consume gm-t --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(Normalise(c.out), Golden("consume_lines.json"));
  const std::string id = Parse(p.out).Find("results")->items.at(1).Str("offsetMsgId");
  CliRun g = Cli("message get " + id + " --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(Normalise(g.out), Golden("message_get.json"));
  CliRun f = Cli("message find --topic gm-t --key gm-k --format json");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(Normalise(f.out), Golden("message_find.json"));
  CliRun s = Cli("cluster status --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(Normalise(s.out), Golden("cluster_status.json"));
}

// --delay-level, --delay-sec and --deliver-at: each message arrives, and never before its
// time (the store time of the delivered copy against the time the produce started).
TEST_F(CliTest, DelayedAndTimedMessagesArriveNotBeforeTheirTime) {
  ASSERT_EQ(Cli("topic create dl-t --queues 2").code, 0);
  const int64_t t_level = NowMs();
  ASSERT_EQ(Cli("produce dl-t --delay-level 1", "level\n").code, 0);  // level 1 = 1 s
  const int64_t t_sec = NowMs();
  ASSERT_EQ(Cli("produce dl-t --delay-sec 1", "sec\n").code, 0);
  const int64_t at = NowMs() + 1500;
  ASSERT_EQ(Cli("produce dl-t --deliver-at " + std::to_string(at), "at\n").code, 0);
  CliRun c = Cli("consume dl-t --count 3 --idle-timeout 30000 --format json");
  ASSERT_EQ(c.code, 0) << c.err;
  std::map<std::string, int64_t> stored;
  for (const auto& m : JsonLines(c.out)) stored[m.Str("body")] = m.Int("storeTimestamp");
  ASSERT_EQ(stored.size(), 3u) << c.out;
  EXPECT_GE(stored.at("level"), t_level + 1000);
  EXPECT_GE(stored.at("sec"), t_sec + 1000);
  EXPECT_GE(stored.at("at"), at);
}

TEST_F(CliTest, FilesBatchesAndFollow) {
  ASSERT_EQ(Cli("topic create ff-t --queues 1").code, 0);
  const std::string f1 = dir_->path() + "/one.txt", f2 = dir_->path() + "/two.bin";
  std::ofstream(f1) << "line 1\nline 2\n";
  std::ofstream(f2, std::ios::binary) << std::string("\x01\x02 two", 6);
  CliRun p = Cli("produce ff-t --file " + f1 + " --file " + f2 + " --format json");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(Parse(p.out).Int("sent"), 2);
  p = Cli("produce ff-t --batch --format json", "b1\nb2\nb3\n");
  ASSERT_EQ(p.code, 0) << p.err;
  client::FjValue batch = Parse(p.out);
  EXPECT_EQ(batch.Int("sent"), 3);
  ASSERT_EQ(batch.Find("results")->items.size(), 1u);  // one SEND_BATCH_MESSAGE
  const std::string ids = batch.Find("results")->items[0].Str("msgId");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), ','), 2) << ids;
  CliRun c = Cli("consume ff-t --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  std::vector<std::string> bodies;
  for (const auto& m : JsonLines(c.out)) bodies.push_back(m.Str("body"));
  ASSERT_EQ(bodies.size(), 5u) << c.out;
  EXPECT_EQ(bodies[0], "line 1\nline 2\n");  // a file is one message, newlines and all
  EXPECT_EQ(bodies[1], std::string("\x01\x02 two", 6));
  EXPECT_EQ(bodies[2], "b1");
  EXPECT_EQ(bodies[4], "b3");

  // --follow outlives --idle-timeout: a message sent well after it still arrives.
  ASSERT_EQ(Cli("topic create fo-t --queues 1").code, 0);
  const std::string out = dir_->path() + "/follow.out";
  const int pid =
      Background("consume fo-t --follow --count 1 --idle-timeout 200 --format json", out);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(Cli("produce fo-t", "late\n").code, 0);
  EXPECT_TRUE(WaitFor([&] { return Lines(Slurp(out)) == 1; })) << Slurp(out + ".err");
  EXPECT_EQ(Parse(Slurp(out)).Str("body"), "late");
  Stop(pid);  // it stops by itself after --count 1
}

// consume --from-beginning for a new group; group seek --to-latest and --to-time.
TEST_F(CliTest, FromBeginningToLatestAndToTime) {
  ASSERT_EQ(Cli("topic create tb-t --queues 1").code, 0);
  ASSERT_EQ(Cli("produce tb-t", "a\nb\nc\n").code, 0);
  CliRun c = Cli("consume tb-t --group tbg --from-beginning --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(Lines(c.out), 3) << c.out;
  CliRun s = Cli("group seek tbg --topic tb-t --to-earliest");
  ASSERT_EQ(s.code, 0) << s.err;
  s = Cli("group seek tbg --topic tb-t --to-latest --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(Parse(s.out).Find("queues")->items.at(0).Int("from"), 0);
  EXPECT_EQ(Parse(s.out).Find("queues")->items.at(0).Int("to"), 3);

  ASSERT_EQ(Cli("produce tb-t", "d\ne\n").code, 0);
  client::FjValue d = Describe("tbg", "tb-t", 5);
  EXPECT_EQ(d.Int("totalLag"), 2) << d.ToJson();
  // --to-time: the first message stored at or after d's store time, i.e. d's offset 3.
  c = Cli("consume tb-t --from-offset 3 --count 1 --format json --idle-timeout 3000");
  ASSERT_EQ(c.code, 0) << c.err;
  const int64_t d_time = Parse(c.out).Int("storeTimestamp");
  ASSERT_GT(d_time, 0) << c.out;
  s = Cli("group seek tbg --topic tb-t --to-earliest");
  ASSERT_EQ(s.code, 0) << s.err;
  s = Cli("group seek tbg --topic tb-t --to-time " + std::to_string(d_time) + " --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(Parse(s.out).Find("queues")->items.at(0).Int("to"), 3) << s.out;
  c = Cli("consume tb-t --group tbg --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  ASSERT_EQ(Lines(c.out), 2) << c.out;
  EXPECT_EQ(JsonLines(c.out)[0].Str("body"), "d");
}

// group describe and group seek while a member of the group runs: describe lists it; the
// dry run changes nothing; the real seek goes through the broker (222), which resets the
// live consumer, and the consumer reads the topic again.
TEST_F(CliTest, DescribeAndSeekAGroupWithALiveMember) {
  ASSERT_EQ(Cli("topic create live-t --queues 2").code, 0);
  ASSERT_EQ(Cli("produce live-t", "m1\nm2\nm3\nm4\n").code, 0);
  const std::string out = dir_->path() + "/live.out";
  const int pid = Background("consume live-t --group liveg --follow --format json", out);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitFor([&] { return Lines(Slurp(out)) == 4; })) << Slurp(out + ".err");
  // The member is listed, and its auto-commit (every 5 s) brings the lag to 0.
  client::FjValue d;
  ASSERT_TRUE(WaitFor([&] {
    CliRun r = Cli("group describe liveg --topic live-t --format json");
    if (r.code != 0) return false;
    d = Parse(r.out);
    return d.Find("members")->items.size() == 1 && d.Int("totalLag") == 0;
  })) << d.ToJson();
  // The member as mqadmin consumerConnection shows it: the language by name, the version
  // by MQVersion's name as well as its ordinal.
  const client::FjValue& m = d.Find("members")->items.at(0);
  EXPECT_EQ(m.Str("language"), "CPP");
  EXPECT_EQ(m.Int("version"), 479);
  EXPECT_EQ(m.Str("versionDesc"), "V5_3_3");
  CliRun table = Cli("group describe liveg --topic live-t");
  EXPECT_NE(table.out.find(" (CPP V5_3_3)\n"), std::string::npos) << table.out;

  CliRun s = Cli("group seek liveg --topic live-t --to-earliest --dry-run --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  client::FjValue dry = Parse(s.out);
  EXPECT_TRUE(dry.Bool("online"));
  EXPECT_TRUE(dry.Bool("dryRun"));
  for (const auto& q : dry.Find("queues")->items) EXPECT_EQ(q.Int("to"), 0);
  EXPECT_EQ(Parse(Cli("group describe liveg --topic live-t --format json").out).Int("totalLag"), 0);
  EXPECT_EQ(Lines(Slurp(out)), 4);

  s = Cli("group seek liveg --topic live-t --to-earliest --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(Parse(s.out).Bool("online"));
  // The live consumer was moved back: it reads the four messages again.
  EXPECT_TRUE(WaitFor([&] { return Lines(Slurp(out)) == 8; })) << Slurp(out);
  EXPECT_TRUE(Stop(pid));
}

}  // namespace
}  // namespace rocketstore
