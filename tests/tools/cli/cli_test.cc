// The operator CLI end to end: a real `rocketstore serve` process, the `rocketstore`
// binary run as a user would (stdin, stdout, stderr, exit code), and its --format json
// output compared with golden files (tests/tools/cli/golden/) after the fields that vary
// (ids, timestamps, ports) are normalised. The fixture is cli_fixture.h; the flags and
// golden documents of every command are in cli_flags_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "cli_fixture.h"
#include "client/admin_client.h"
#include "client/fastjson.h"
#include "client/transport.h"
#include "protocol/headers/namesrv_headers.h"
#include "protocol/request_code.h"
#include "store/format/index_layout.h"

namespace rocketstore {
namespace {

using cli_testing::CliRun;
using cli_testing::CliTest;
using cli_testing::Lines;

TEST_F(CliTest, UsageErrorsExitTwo) {
  CliRun r = Cli("produce");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("TOPIC is required"), std::string::npos) << r.err;
  r = Cli("consume t --from-offset 1 --from-beginning");
  EXPECT_EQ(r.code, 2) << r.err;
  r = Cli("topic describe t --format yaml");
  EXPECT_EQ(r.code, 2) << r.err;
  r = Cli("produce some-topic", "");  // nothing on stdin
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing to send"), std::string::npos) << r.err;
  r = Cli("group seek g --topic t");  // no target
  EXPECT_EQ(r.code, 2) << r.err;
}

TEST_F(CliTest, NotFoundExitsThreeAndSaysWhatToDo) {
  CliRun r = Cli("topic describe no-such-topic");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("rocketstore topic create no-such-topic"), std::string::npos) << r.err;
  r = Cli("consume no-such-topic --idle-timeout 200");
  EXPECT_EQ(r.code, 3) << r.err;
}

TEST_F(CliTest, UnreachableNameServerExitsOneWithAHint) {
  CliRun r = Cli("topic describe x --namesrv 127.0.0.1:1 --timeout 500");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hint:"), std::string::npos) << r.err;
}

TEST_F(CliTest, ABrokersRefusalIsNotReportedAsANetworkProblem) {
  // The broker refuses to create a system topic: exit 1 with its reason, and no hint to
  // check that the servers are reachable (they answered).
  CliRun r = Cli("topic create SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.find("reachable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SCHEDULE_TOPIC_XXXX"), std::string::npos) << r.err;
}

// Producing to a read-only topic is a refusal with its reason (exit 1), not a network
// problem: no hint to check that the servers are reachable.
TEST_F(CliTest, ProduceToAReadOnlyTopicSaysWhy) {
  ASSERT_EQ(Cli("topic create readonly --queues 1 --perm 4").code, 0);
  CliRun r = Cli("produce readonly", "x\n");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("readonly has no writable queue"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("perm 4 (read only)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("reachable"), std::string::npos) << r.err;
}

TEST_F(CliTest, HelpHasExamples) {
  CliRun r = Cli("produce --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos) << r.out;
  // Every command, parents included, shows at least one example.
  for (const char* cmd :
       {"topic",        "topic create",   "topic list", "topic describe", "topic delete",
        "topic alter",  "group",          "group list", "group describe", "group seek",
        "group delete", "consume",        "message",    "message get",    "message find",
        "cluster",      "cluster status", "bench",      "bench produce",  "bench consume"}) {
    CliRun h = Cli(std::string(cmd) + " --help");
    EXPECT_EQ(h.code, 0) << cmd << ": " << h.err;
    EXPECT_NE(h.out.find("Example"), std::string::npos) << cmd << ":\n" << h.out;
  }
}

TEST_F(CliTest, TopicCreateAndDescribeGolden) {
  CliRun r = Cli("topic create golden --queues 2 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, Golden("topic_create.json"));
  r = Cli("topic describe golden --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Normalise(r.out), Golden("topic_describe_empty.json"));
}

TEST_F(CliTest, ProduceConsumeAndLag) {
  ASSERT_EQ(Cli("topic create lagt --queues 2").code, 0);
  CliRun p = Cli("produce lagt --key order-1 --tag created --property src=cli --format json",
                 "m1\nm2\nm3\nm4\nm5\n");
  ASSERT_EQ(p.code, 0) << p.err;
  client::FjValue pv = Parse(p.out);
  EXPECT_EQ(pv.Int("sent"), 5);
  ASSERT_EQ(pv.Find("results")->items.size(), 5u);
  EXPECT_EQ(Normalise(p.out), Golden("produce.json"));

  // Before anyone consumed: every message is lag.
  client::FjValue d = Describe("g1", "lagt", 5);
  EXPECT_EQ(d.Int("totalLag"), 5) << d.ToJson();

  CliRun c = Cli("consume lagt --group g1 --count 3 --format json --idle-timeout 3000");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 3) << c.out;
  client::FjValue first = Parse(c.out.substr(0, c.out.find('\n')));
  EXPECT_EQ(first.Str("tags"), "created");
  EXPECT_EQ(first.Str("keys"), "order-1");
  EXPECT_EQ(first.Find("properties")->Str("src"), "cli");
  d = Describe("g1", "lagt", 5);
  EXPECT_EQ(d.Int("totalLag"), 2) << d.ToJson();

  c = Cli("consume lagt --group g1 --format json --idle-timeout 1500");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 2) << c.out;
  std::string text;
  d = Describe("g1", "lagt", 5, &text);
  EXPECT_EQ(d.Int("totalLag"), 0) << text;
  EXPECT_EQ(Normalise(text), Golden("group_describe_caught_up.json"));

  // seek --dry-run shows the move and changes nothing.
  CliRun s = Cli("group seek g1 --topic lagt --to-earliest --dry-run --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.out, Golden("group_seek_dry_run.json"));
  d = Describe("g1", "lagt", 5);
  EXPECT_EQ(d.Int("totalLag"), 0) << d.ToJson();
  // The real seek does.
  s = Cli("group seek g1 --topic lagt --to-earliest");
  ASSERT_EQ(s.code, 0) << s.err;
  d = Describe("g1", "lagt", 5);
  EXPECT_EQ(d.Int("totalLag"), 5) << d.ToJson();

  // Raw reads commit nothing and can start anywhere.
  CliRun raw = Cli("consume lagt --from-offset 2 --format json --idle-timeout 800");
  ASSERT_EQ(raw.code, 0) << raw.err;
  EXPECT_EQ(std::count(raw.out.begin(), raw.out.end(), '\n'), 1) << raw.out;  // queue 0: m5

  // message get by the broker's offset id, and find by key.
  const std::string id = pv.Find("results")->items[1].Str("offsetMsgId");
  CliRun g = Cli("message get " + id + " --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  client::FjValue gv = Parse(g.out);
  EXPECT_EQ(gv.Find("message")->Str("body"), "m2");
  EXPECT_NE(gv.Str("location").find("commitlog/00000000000000000000 at position"),
            std::string::npos);
  // The broker's own segment size (GET_BROKER_CONFIG), not a guess.
  EXPECT_NE(gv.Str("location").find("1048576-byte segment size"), std::string::npos)
      << gv.Str("location");
  const int64_t m2_offset = gv.Find("message")->Int("commitLogOffset");
  g = Cli("message get " + id + " --segment-size 64 --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  std::string file = std::to_string(m2_offset / 64 * 64);
  file.insert(0, 20 - file.size(), '0');
  EXPECT_NE(Parse(g.out)
                .Str("location")
                .find("commitlog/" + file + " at position " + std::to_string(m2_offset % 64) + " "),
            std::string::npos)
      << g.out;
  const std::string uniq = pv.Find("results")->items[2].Str("msgId");
  g = Cli("message get " + uniq + " --topic lagt --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(Parse(g.out).Find("message")->Str("body"), "m3");
  CliRun f = Cli("message find --topic lagt --key order-1 --format json");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(Parse(f.out).Find("messages")->items.size(), 5u);
  EXPECT_EQ(Cli("message find --topic lagt --key nope").code, 3);
  EXPECT_EQ(Cli("message get nothex").code, 2);
}

// --from-latest / --from-time choose where a NEW group starts (the broker is asked with
// setZeroIfNotFound=false, so "no offset" is not read as a commit at 0); for a group with
// offsets they would do nothing, so they are refused (exit 2) with the seek to use.
TEST_F(CliTest, ConsumeFromFlagsApplyToANewGroupAndAreRefusedForAnOldOne) {
  ASSERT_EQ(Cli("topic create fromt --queues 2").code, 0);
  CliRun p = Cli("produce fromt --format json", "a1\na2\na3\n");
  ASSERT_EQ(p.code, 0) << p.err;
  CliRun c = Cli("consume fromt --group latestg --from-latest --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(Lines(c.out), 0) << c.out;  // started at the end
  ASSERT_EQ(Cli("produce fromt", "b1\n").code, 0);
  c = Cli("consume fromt --group latestg --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  ASSERT_EQ(Lines(c.out), 1) << c.out;
  EXPECT_EQ(Parse(c.out).Str("body"), "b1");
  for (const char* flag : {"--from-latest", "--from-beginning", "--from-time -1h"}) {
    CliRun r = Cli(std::string("consume fromt --group latestg ") + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find("already has offsets on fromt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rocketstore group seek latestg --topic fromt"), std::string::npos)
        << r.err;
  }

  // --from-time: the store time just after the a's, asked of the broker.
  c = Cli("consume fromt --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  int64_t after_a = 0;
  std::istringstream lines(c.out);
  for (std::string line; std::getline(lines, line);) {
    client::FjValue m = Parse(line);
    if (m.Str("body")[0] == 'a') after_a = std::max(after_a, m.Int("storeTimestamp") + 1);
  }
  ASSERT_GT(after_a, 0) << c.out;
  ASSERT_EQ(Cli("produce fromt", "c1\n").code, 0);  // a later process: a later store time
  c = Cli("consume fromt --group timeg --from-time " + std::to_string(after_a) +
          " --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  std::string bodies;
  std::istringstream got(c.out);
  for (std::string line; std::getline(got, line);) bodies += Parse(line).Str("body") + " ";
  EXPECT_EQ(bodies.find('a'), std::string::npos) << bodies;
  EXPECT_NE(bodies.find("b1"), std::string::npos) << bodies;
  EXPECT_NE(bodies.find("c1"), std::string::npos) << bodies;
}

TEST_F(CliTest, ConsumeQueueWithAGroupIsRefusedAndRawReadsFilterTags) {
  ASSERT_EQ(Cli("topic create exprt --queues 1").code, 0);
  ASSERT_EQ(Cli("produce exprt --tag keep", "k1\nk2\n").code, 0);
  ASSERT_EQ(Cli("produce exprt --tag drop", "d1\n").code, 0);
  CliRun r = Cli("consume exprt --group qg --queue 0");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--queue is for raw reads"), std::string::npos) << r.err;

  r = Cli("consume exprt --expression keep --format json --idle-timeout 800");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(Lines(r.out), 2) << r.out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(Parse(line).Str("tags"), "keep");
  r = Cli("consume exprt --expression 'drop || other' --queue 0 --format json --idle-timeout 800");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(Lines(r.out), 1) << r.out;
  EXPECT_EQ(Parse(r.out).Str("body"), "d1");
}

// group seek on a name with no config and no offsets (a typo) would create that group
// with code 15: exit 3 and nothing written; --to-offset must lie in the queue's
// [min, max] (refused otherwise, as RocketMQ's resetOffset does).
TEST_F(CliTest, GroupSeekChecksTheGroupAndTheOffset) {
  ASSERT_EQ(Cli("topic create seekt --queues 1").code, 0);
  ASSERT_EQ(Cli("produce seekt", "s0\ns1\ns2\n").code, 0);
  for (const char* dry : {"", " --dry-run"}) {
    CliRun r = Cli(std::string("group seek typo-group --topic seekt --to-earliest") + dry);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(r.err.find("group typo-group does not exist"), std::string::npos) << r.err;
  }
  CliRun l = Cli("group list --format json");
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_EQ(l.out.find("typo-group"), std::string::npos) << l.out;

  ASSERT_EQ(Cli("consume seekt --group seekg --idle-timeout 800").code, 0);  // commits 3
  CliRun r = Cli("group seek seekg --topic seekt --to-offset 4");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("its range is [0, 3]"), std::string::npos) << r.err;
  r = Cli("group seek seekg --topic seekt --to-offset 1 --queue 0 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const client::FjValue q = Parse(r.out).Find("queues")->items.at(0);
  EXPECT_EQ(q.Int("from"), 3);
  EXPECT_EQ(q.Int("to"), 1);
  CliRun c = Cli("consume seekt --group seekg --format json --idle-timeout 800");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(Lines(c.out), 2) << c.out;  // s1, s2 again
}

// A well-formed offset message id with no message at its offset: not found (exit 3).
TEST_F(CliTest, MessageGetOfAnIdWithNoMessageExitsThree) {
  ASSERT_EQ(Cli("topic create nomsg --queues 1").code, 0);
  CliRun p = Cli("produce nomsg --format json", "x\n");
  ASSERT_EQ(p.code, 0) << p.err;
  const std::string id = Parse(p.out).Find("results")->items.at(0).Str("offsetMsgId");
  ASSERT_EQ(id.size(), 32u) << id;
  const std::string absent = id.substr(0, 16) + "00000000FFFFFF00";  // same broker, far offset
  CliRun r = Cli("message get " + absent);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("can not find message"), std::string::npos) << r.err;
  EXPECT_EQ(Cli("message get " + id).code, 0);
}

// message get/find say where a message lives in each of the broker's files: the
// commit-log segment, the consume-queue file and unit, and (for a lookup through the
// index) the key's hash slot, with the broker's own geometry (GET_BROKER_CONFIG).
TEST_F(CliTest, MessageLocationNamesTheQueueUnitAndTheIndexSlot) {
  ASSERT_EQ(Cli("topic create wheret --queues 1").code, 0);
  std::string input;
  for (int i = 0; i < 12; ++i) input += "w" + std::to_string(i) + "\n";
  CliRun p = Cli("produce wheret --key where-k --format json", input);
  ASSERT_EQ(p.code, 0) << p.err;
  const client::FjValue last = Parse(p.out).Find("results")->items.at(11);
  ASSERT_EQ(last.Int("queueOffset"), 11);
  // Unit 11 is byte 220 of the queue: file 200 (10 units of 20 bytes), position 20.
  CliRun g = Cli("message get " + last.Str("offsetMsgId") + " --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string cq = Parse(g.out).Str("consumeQueueLocation");
  EXPECT_NE(cq.find("consumequeue/wheret/0/00000000000000000200 at position 20 "),
            std::string::npos)
      << cq;
  EXPECT_NE(cq.find("200-byte file size"), std::string::npos) << cq;
  g = Cli("message get " + last.Str("offsetMsgId"));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_NE(g.out.find("queue unit:     consumequeue/wheret/0/00000000000000000200"),
            std::string::npos)
      << g.out;

  const int32_t hash = format::IndexKeyHash("wheret#where-k");
  const int32_t slot = hash % 97;
  const std::string expect = "slot " + std::to_string(hash) + " % 97 = " + std::to_string(slot) +
                             " at byte " + std::to_string(40 + 4 * slot) + " ";
  CliRun f = Cli("message find --topic wheret --key where-k --format json");
  ASSERT_EQ(f.code, 0) << f.err;
  const client::FjValue v = Parse(f.out);
  ASSERT_EQ(v.Find("messages")->items.size(), 12u) << f.out;
  for (const auto& m : v.Find("messages")->items) {
    ASSERT_EQ(m.Find("indexLocation")->items.size(), 1u) << f.out;
    const std::string idx = m.Find("indexLocation")->items[0].text;
    EXPECT_NE(idx.find("key wheret#where-k: keyHash |String.hashCode()| = " + std::to_string(hash)),
              std::string::npos)
        << idx;
    EXPECT_NE(idx.find(expect), std::string::npos) << idx;
  }
  // By client id (UNIQ_KEY), the index explanation is the unique key's.
  g = Cli("message get " + last.Str("msgId") + " --topic wheret --format json");
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_NE(
      Parse(g.out).Find("indexLocation")->items.at(0).text.find("wheret#" + last.Str("msgId")),
      std::string::npos)
      << g.out;
}

TEST_F(CliTest, BenchProducesAndReportsPercentiles) {
  CliRun b = Cli("bench produce benchtopic --count 500 --size 100 --no-progress --format json");
  ASSERT_EQ(b.code, 0) << b.err;
  client::FjValue v = Parse(b.out);
  EXPECT_EQ(v.Int("messages"), 500);
  EXPECT_EQ(v.Int("errors"), 0);
  EXPECT_GT(v.Find("latencyUs")->Int("p99"), 0);
  b = Cli("bench consume benchtopic --count 500 --no-progress --format json");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(Parse(b.out).Int("messages"), 500);
}

// Raw reads (`consume` without --group) and `bench consume` commit nothing: no group of
// theirs appears in `group list` (201) and the broker holds no offsets for them
// (GET_ALL_CONSUMER_OFFSET 43), so no tool shows lag for them.
TEST_F(CliTest, RawReadsAndBenchConsumeLeaveNoGroupBehind) {
  ASSERT_EQ(Cli("topic create rawonly --queues 2").code, 0);
  ASSERT_EQ(Cli("produce rawonly", "a\nb\nc\n").code, 0);
  CliRun r = Cli("consume rawonly --format json --idle-timeout 800");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;
  r = Cli("bench consume rawonly --count 3 --no-progress --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Parse(r.out).Int("messages"), 3);

  r = Cli("group list --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* phantom : {"rocketstore_cli_reader", "rocketstore_bench_consumer"}) {
    EXPECT_EQ(r.out.find(phantom), std::string::npos) << r.out;
  }
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  auto addrs = admin.MasterAddrs();
  ASSERT_TRUE(addrs.ok()) << addrs.status().ToString();
  for (const auto& a : *addrs) {
    auto offsets = admin.GetAllConsumerOffsets(a);
    ASSERT_TRUE(offsets.ok()) << offsets.status().ToString();
    for (const auto& [key, queues] : offsets->offsets) {
      EXPECT_NE(key.rfind("rawonly@", 0), 0u) << key;
      EXPECT_EQ(key.find("@TOOLS_CONSUMER"), std::string::npos) << key;
    }
  }
  // Without offsets the reader's group has nothing to describe.
  EXPECT_EQ(Cli("group describe TOOLS_CONSUMER").code, 3);
}

TEST_F(CliTest, TopicListDeleteAndGroupDeleteExitCodes) {
  // Absent things exit 3 and say how to list what exists.
  CliRun r = Cli("topic delete no-such-topic");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("rocketstore topic list"), std::string::npos) << r.err;
  r = Cli("group delete no-such-group");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(Cli("group describe no-such-group").code, 3);

  ASSERT_EQ(Cli("topic create deltopic --queues 1").code, 0);
  r = Cli("topic list --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"deltopic\""), std::string::npos) << r.out;
  r = Cli("topic delete deltopic --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"topic\":\"deltopic\",\"deleted\":true,\"brokers\":1,"
            "\"orderTopicConfDeleted\":false}\n");
  r = Cli("topic list --format json");
  EXPECT_EQ(r.out.find("\"deltopic\""), std::string::npos) << r.out;
  EXPECT_EQ(Cli("topic describe deltopic").code, 3);
}

TEST_F(CliTest, TopicAlterChangesQueuesAndPermAndRefusesBadValues) {
  ASSERT_EQ(Cli("topic create altert --queues 2").code, 0);
  CliRun a = Cli("topic alter altert --write-queues 1 --perm 4 --format json");
  ASSERT_EQ(a.code, 0) << a.err;
  client::FjValue d = Parse(Cli("topic describe altert --format json").out);
  ASSERT_EQ(d.Find("brokers")->items.size(), 1u);
  EXPECT_EQ(d.Find("brokers")->items[0].Int("readQueues"), 2);
  EXPECT_EQ(d.Find("brokers")->items[0].Int("writeQueues"), 1);
  EXPECT_EQ(d.Find("brokers")->items[0].Int("perm"), 4);
  for (const char* bad : {"--read-queues 0", "--perm 5", ""}) {
    CliRun r = Cli(std::string("topic alter altert ") + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
  }
  d = Parse(Cli("topic describe altert --format json").out);
  EXPECT_EQ(d.Find("brokers")->items[0].Int("perm"), 4);  // the refusals changed nothing
  // A group that consumed is listed.
  ASSERT_EQ(Cli("topic alter altert --perm 6").code, 0);
  ASSERT_EQ(Cli("produce altert", "x\n").code, 0);
  ASSERT_EQ(Cli("consume altert --group listedg --idle-timeout 800").code, 0);
  CliRun l = Cli("group list --format json");
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_NE(l.out.find("\"listedg\""), std::string::npos) << l.out;
}

// alter changes only the fields given, starting from each broker's own TopicConfig (21):
// a read-only broker (brokerPermission=4) masks the perm in the route, which must not be
// persisted; an ordered topic stays ordered. The JSON is one document.
TEST_F(CliTest, TopicAlterKeepsOrderAndTheTopicsOwnPerm) {
  ASSERT_EQ(Cli("topic create alterg --queues 2").code, 0);
  CliRun a = Cli("topic alter alterg --read-queues 4 --format json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, Golden("topic_alter.json"));

  ASSERT_EQ(Cli("topic create orderedt --queues 2 --order").code, 0);
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  auto addrs = admin.MasterAddrs();
  ASSERT_TRUE(addrs.ok() && addrs->size() == 1u) << addrs.status().ToString();
  const std::string addr = addrs->front();
  ASSERT_OK(admin.UpdateBrokerConfig(addr, {{"brokerPermission", "4"}}));
  int64_t routed_perm = -1;
  for (int i = 0; i < 100 && routed_perm != 4; ++i) {
    CliRun d = Cli("topic describe orderedt --format json");
    ASSERT_EQ(d.code, 0) << d.err;
    routed_perm = Parse(d.out).Find("brokers")->items[0].Int("perm");
    if (routed_perm != 4) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(routed_perm, 4);  // the name server's route is masked

  a = Cli("topic alter orderedt --read-queues 8 --format json");
  ASSERT_EQ(a.code, 0) << a.err;
  const client::FjValue b = Parse(a.out).Find("brokers")->items.at(0);
  EXPECT_EQ(b.Int("readQueues"), 8);
  EXPECT_EQ(b.Int("perm"), 6);
  EXPECT_TRUE(b.Bool("order"));
  auto configs = admin.GetAllTopicConfig(addr);
  ASSERT_TRUE(configs.ok()) << configs.status().ToString();
  const client::TopicConfig& c = configs->topics.at("orderedt");
  EXPECT_EQ(c.read_queue_nums, 8);
  EXPECT_EQ(c.write_queue_nums, 2);
  EXPECT_EQ(c.perm, 6);  // not the broker's mask
  EXPECT_TRUE(c.order);
  EXPECT_EQ(c.topic_filter_type, "SINGLE_TAG");
  ASSERT_OK(admin.UpdateBrokerConfig(addr, {{"brokerPermission", "6"}}));
}

// `topic create --order` writes the order conf to the name servers (PUT_KV_CONFIG,
// ORDER_TOPIC_CONFIG, "broker:queues" as mqadmin updateTopic -o) so routes carry
// orderTopicConf; alter keeps it true; delete removes it; --perm is checked as for alter.
TEST_F(CliTest, OrderTopicsPutTheirConfOnTheNameServers) {
  EXPECT_EQ(Cli("topic create badperm --perm 5").code, 2);
  EXPECT_EQ(Cli("topic list").out.find("badperm"), std::string::npos);

  CliRun r = Cli("topic create ordkv --queues 3 --order --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Parse(r.out).Str("orderTopicConf"), "broker-a:3");
  // As Java's, the name server routes the conf only with orderMessageEnable=true.
  EXPECT_NE(r.err.find("orderMessageEnable=true"), std::string::npos) << r.err;
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  ASSERT_OK(admin.UpdateNamesrvConfig({{"orderMessageEnable", "true"}}));
  auto route = admin.GetRoute("ordkv");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ((*route)->order_topic_conf, "broker-a:3");

  r = Cli("topic alter ordkv --write-queues 2 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Parse(r.out).Str("orderTopicConf"), "broker-a:2");
  auto kv = admin.GetKvConfig("ORDER_TOPIC_CONFIG", "ordkv");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(*kv, "broker-a:2");

  r = Cli("topic delete ordkv --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Parse(r.out).Bool("orderTopicConfDeleted")) << r.out;
  EXPECT_EQ(admin.GetKvConfig("ORDER_TOPIC_CONFIG", "ordkv").status().code(),
            StatusCode::kNotFound);
}

// `topic delete --cluster C` sends clusterName with DELETE_TOPIC_IN_NAMESRV (216), as
// mqadmin deleteTopic does: the name server drops only C's brokers from the route, and a
// broker of another cluster keeps routing the topic.
TEST_F(CliTest, TopicDeleteOfOneClusterKeepsTheOthersRoute) {
  ASSERT_EQ(Cli("topic create twoclusters --queues 1").code, 0);
  const std::string cluster =
      Parse(Cli("cluster status --format json").out).Find("clusters")->items.at(0).Str("name");
  ASSERT_FALSE(cluster.empty());
  // A broker of another cluster that routes the topic too (a registration only).
  client::Transport t;
  protocol::RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kRegisterBroker);
  protocol::RegisterBrokerRequestHeader h;
  h.broker_name = "broker-z";
  h.broker_addr = "127.0.0.1:1";
  h.cluster_name = "OtherCluster";
  h.ha_server_addr = "127.0.0.1:1";
  h.EncodeTo(req);
  req.body.Assign(
      std::string_view("{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{\"dataVersion\":"
                       "{\"counter\":1,\"timestamp\":1},\"topicConfigTable\":{\"twoclusters\":{"
                       "\"topicName\":\"twoclusters\",\"readQueueNums\":1,\"writeQueueNums\":1,"
                       "\"perm\":6,\"topicFilterType\":\"SINGLE_TAG\",\"topicSysFlag\":0,"
                       "\"order\":false}}}}"));
  auto resp = t.Invoke(serve_->namesrv_addr(), std::move(req), 3000);
  ASSERT_TRUE(resp.ok()) << resp.status().ToString();
  ASSERT_EQ(resp->code, 0) << resp->remark.value_or("");

  CliRun r = Cli("topic delete twoclusters --cluster " + cluster);
  ASSERT_EQ(r.code, 0) << r.err;
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  auto route = admin.GetRoute("twoclusters");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  ASSERT_EQ((*route)->queue_datas.size(), 1u);
  EXPECT_EQ((*route)->queue_datas[0].broker_name, "broker-z");
}

TEST_F(CliTest, ClusterStatusListsTheBroker) {
  CliRun r = Cli("cluster status --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  client::FjValue v = Parse(r.out);
  ASSERT_EQ(v.Find("clusters")->items.size(), 1u);
  const client::FjValue& b = v.Find("clusters")->items[0].Find("brokers")->items[0];
  EXPECT_EQ(b.Str("name"), "broker-a");
  EXPECT_TRUE(b.Bool("reachable"));
  EXPECT_EQ(b.Str("version"), "V4_9_8");  // from GET_BROKER_RUNTIME_INFO (28)
  EXPECT_NE(b.Str("dispatchBehindBytes"), "-");
  EXPECT_NE(b.Str("flushBehindBytes"), "-");
  // The table shows the rates with one decimal (the JSON keeps the broker's string).
  r = Cli("cluster status");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t row = r.out.find("broker-a");
  ASSERT_NE(row, std::string::npos) << r.out;
  std::vector<std::string> cells;
  size_t i = row;
  while (i < r.out.size() && r.out[i] != '\n') {
    const size_t b = r.out.find_first_not_of(' ', i);
    if (b == std::string::npos || r.out[b] == '\n') break;
    size_t e = r.out.find_first_of(" \n", b);
    if (e == std::string::npos) e = r.out.size();
    cells.push_back(r.out.substr(b, e - b));
    i = e;
  }
  // broker-a, id, addr, version, put tps, get tps, ...
  ASSERT_GE(cells.size(), 6u) << r.out;
  for (size_t c : {4u, 5u}) {
    const std::string& tps = cells[c];
    const size_t dot = tps.find('.');
    EXPECT_TRUE(dot != std::string::npos && dot + 2 == tps.size()) << tps << "\n" << r.out;
  }
}

// `topic list` types every topic as rocketmq-dashboard sorts them and the brokers know
// their system topics (304 and 305): the cluster's reply topic, cluster and broker names,
// TBW102 are SYSTEM; %RETRY% / %DLQ% by prefix; the rest NORMAL. --type keeps some.
TEST_F(CliTest, TopicListTypesEveryTopic) {
  ASSERT_EQ(Cli("topic create tl-normal --queues 1").code, 0);
  ASSERT_EQ(Cli("topic create %DLQ%tl-g --queues 1").code, 0);
  ASSERT_EQ(Cli("topic create %RETRY%tl-g --queues 1").code, 0);
  ASSERT_TRUE(
      WaitFor([] { return Cli("topic list").out.find("%RETRY%tl-g ") != std::string::npos; }));
  CliRun r = Cli("topic list --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  client::FjValue v = Parse(r.out);
  const client::FjValue* types = v.Find("types");
  ASSERT_NE(types, nullptr) << r.out;
  const std::string cluster =
      Parse(Cli("cluster status --format json").out).Find("clusters")->items.at(0).Str("name");
  EXPECT_EQ(types->Str(cluster + "_REPLY_TOPIC"), "SYSTEM");
  EXPECT_EQ(types->Str(cluster), "SYSTEM");
  EXPECT_EQ(types->Str("broker-a"), "SYSTEM");
  EXPECT_EQ(types->Str("TBW102"), "SYSTEM");
  EXPECT_EQ(types->Str("tl-normal"), "NORMAL");
  EXPECT_EQ(types->Str("%DLQ%tl-g"), "DLQ");
  EXPECT_EQ(types->Str("%RETRY%tl-g"), "RETRY");
  // Every listed topic has its type.
  EXPECT_EQ(types->members.size(), v.Find("topics")->items.size());

  r = Cli("topic list --type normal --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  v = Parse(r.out);
  for (const auto& t : v.Find("topics")->items) EXPECT_EQ(v.Find("types")->Str(t.text), "NORMAL");
  EXPECT_EQ(r.out.find("_REPLY_TOPIC"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tl-normal\""), std::string::npos) << r.out;
  r = Cli("topic list --type DLQ --type retry");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("%DLQ%tl-g"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("%RETRY%tl-g"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tl-normal"), std::string::npos) << r.out;
  EXPECT_EQ(Cli("topic list --type bogus").code, 2);
}

// `cluster status` judges every broker from its own answers, not only the one next to the
// name server: a second process's broker (brokerPermission=4 in its broker.conf),
// registered with this name server, is "read only"; once it is gone, "unreachable" and
// exit 1.
TEST_F(CliTest, ClusterStatusJudgesARemoteBrokerFromItsOwnAnswers) {
  testing::TempDir remote_dir;
  testing::ServeProcess::Options o;
  o.binary = ROCKETSTORE_BINARY;
  o.store_dir = remote_dir.path() + "/store";
  o.log_file = remote_dir.path() + "/serve.log";
  o.config_file = remote_dir.path() + "/broker.conf";
  std::ofstream(o.config_file) << "brokerPermission=4\n";
  o.extra_args = {"--broker-name", "broker-r", "--cluster", "RemoteCluster"};
  testing::ServeProcess remote(o);
  ASSERT_OK(remote.Start());
  // Registered with this suite's name server too (a registration only; its own process
  // registers with its own name server).
  auto t = std::make_unique<client::Transport>();
  protocol::RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kRegisterBroker);
  protocol::RegisterBrokerRequestHeader h;
  h.broker_name = "broker-r";
  h.broker_addr = remote.broker_addr();
  h.cluster_name = "RemoteCluster";
  h.ha_server_addr = remote.broker_addr();
  h.EncodeTo(req);
  req.body.Assign(
      std::string_view("{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{\"dataVersion\":"
                       "{\"counter\":1,\"timestamp\":1},\"topicConfigTable\":{}}}"));
  auto resp = t->Invoke(serve_->namesrv_addr(), std::move(req), 3000);
  ASSERT_TRUE(resp.ok()) << resp.status().ToString();
  ASSERT_EQ(resp->code, 0) << resp->remark.value_or("");

  auto broker = [](const client::FjValue& doc, const std::string& name) {
    for (const auto& c : doc.Find("clusters")->items) {
      for (const auto& b : c.Find("brokers")->items) {
        if (b.Str("name") == name) return b;
      }
    }
    return client::FjValue{};
  };
  CliRun r = Cli("cluster status --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  client::FjValue doc = Parse(r.out);
  client::FjValue remote_b = broker(doc, "broker-r");
  EXPECT_TRUE(remote_b.Bool("reachable")) << r.out;
  EXPECT_EQ(remote_b.Str("health"), "read only") << r.out;
  EXPECT_FALSE(remote_b.Bool("writable"));
  EXPECT_NE(remote_b.Str("healthReason").find("brokerPermission 4"), std::string::npos) << r.out;
  client::FjValue local_b = broker(doc, "broker-a");
  EXPECT_EQ(local_b.Str("health"), "ok") << r.out;
  EXPECT_TRUE(local_b.Bool("writable"));
  r = Cli("cluster status");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("read only"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("broker-r (" + remote.broker_addr() + ", id 0): brokerPermission 4"),
            std::string::npos)
      << r.out;

  remote.Terminate();
  r = Cli("cluster status --format json");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("warning: broker broker-r"), std::string::npos) << r.err;
  remote_b = broker(Parse(r.out), "broker-r");
  EXPECT_FALSE(remote_b.Bool("reachable"));
  EXPECT_EQ(remote_b.Str("health"), "unreachable");
  EXPECT_FALSE(remote_b.Bool("writable"));
  // The registration's connection closes: the name server forgets broker-r.
  t.reset();
  EXPECT_TRUE(WaitFor([] {
    return Cli("cluster status --format json").out.find("broker-r") == std::string::npos;
  }));
}

// What the name server knows counts too: WIPE_WRITE_PERM_OF_BROKER (205) leaves the broker
// "wiped" until ADD_WRITE_PERM_OF_BROKER (327).
TEST_F(CliTest, ClusterStatusShowsAWipedBroker) {
  client::AdminClient admin(client::AdminOptions{{serve_->namesrv_addr()}, 3000});
  auto health = [] {
    return Parse(Cli("cluster status --format json").out)
        .Find("clusters")
        ->items.at(0)
        .Find("brokers")
        ->items.at(0)
        .Str("health");
  };
  ASSERT_EQ(health(), "ok");
  ASSERT_TRUE(admin.CallNamesrvAt(serve_->namesrv_addr(), 205, {{"brokerName", "broker-a"}}).ok());
  const std::string wiped = health();
  ASSERT_TRUE(admin.CallNamesrvAt(serve_->namesrv_addr(), 327, {{"brokerName", "broker-a"}}).ok());
  EXPECT_EQ(wiped, "wiped");
  EXPECT_EQ(health(), "ok");
}

}  // namespace
}  // namespace rocketstore
