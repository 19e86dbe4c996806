// The delay-level pieces without a store: the messageDelayLevel table, the consume-queue
// tags code of SCHEDULE_TOPIC_XXXX records, DelayLevelHook's rewrite, refusals and caps,
// and config/delayOffset.json in RocketMQ's shape.
#include <gtest/gtest.h>

#include "broker/broker_conf.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/hooks/delay_level_hook.h"
#include "broker/schedule/delay_level_table.h"
#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "store/dispatch/dispatcher.h"
#include "store/format/properties.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

// ---- the table ----

TEST(DelayLevelTableTest, BadValuesAreConfigErrorsNamingTheKey) {
  for (std::string_view bad :
       {"", "   ", "1s 5x", "1s s", "1s -5s", "1s 5", "1.5s", "1s 5ss", "99999999999999999d"}) {
    auto t = DelayLevelTable::Parse(bad);
    ASSERT_FALSE(t.ok()) << "accepted \"" << bad << "\"";
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find("messageDelayLevel"), std::string::npos)
        << t.status().message();
  }
}

TEST(DelayLevelTableTest, DefaultHasRocketMqsEighteenLevels) {
  DelayLevelTable t = DelayLevelTable::Default();
  ASSERT_EQ(t.max_level(), 18);
  const int64_t s = 1000, m = 60 * s, h = 60 * m;
  const int64_t want[] = {1 * s, 5 * s, 10 * s, 30 * s, 1 * m,  2 * m,  3 * m,  4 * m, 5 * m,
                          6 * m, 7 * m, 8 * m,  9 * m,  10 * m, 20 * m, 30 * m, 1 * h, 2 * h};
  for (int level = 1; level <= 18; ++level) EXPECT_EQ(t.DelayMs(level), want[level - 1]) << level;
}

TEST(DelayLevelTableTest, UnitsAsJavaIncludingDaysAndZero) {
  ASSERT_OK_AND_ASSIGN(DelayLevelTable t, DelayLevelTable::Parse("0s 2m  3h 1d"));
  ASSERT_EQ(t.max_level(), 4);
  EXPECT_EQ(t.DelayMs(1), 0);
  EXPECT_EQ(t.DelayMs(2), 120000);
  EXPECT_EQ(t.DelayMs(3), 3 * 3600000);
  EXPECT_EQ(t.DelayMs(4), 86400000);
  EXPECT_EQ(t.DeliverTimestamp(2, 1000), 121000);
  EXPECT_EQ(t.DeliverTimestamp(9, 1000), 2000) << "unknown level: store time + 1 s, as Java";
}

TEST(DelayLevelTableTest, BrokerConfKeyIsCheckedWhenRead) {
  BrokerOptions o;
  std::vector<std::string> ignored;
  Status s = ApplyBrokerConf("messageDelayLevel=1s 2q\n", o, &ignored);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("messageDelayLevel"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("line 1"), std::string::npos) << s.message();
  EXPECT_EQ(o.message_delay_level, kDefaultMessageDelayLevel);
  ASSERT_OK(
      ApplyBrokerConf("messageDelayLevel = 1s 1s 1s\nflushDelayOffsetInterval=500\n", o, &ignored));
  EXPECT_EQ(o.message_delay_level, "1s 1s 1s");
  EXPECT_EQ(o.flush_delay_offset_interval_ms, 500);
  EXPECT_TRUE(ignored.empty());
}

TEST(DelayLevelTableTest, ParseDelayLevelIsJavasParseInt) {
  EXPECT_EQ(ParseDelayLevel("3"), 3);
  EXPECT_EQ(ParseDelayLevel("+3"), 3);
  EXPECT_EQ(ParseDelayLevel("-1"), -1);
  for (std::string_view bad : {"", "+", "3a", " 3", "+-3", "99999999999"}) {
    EXPECT_FALSE(ParseDelayLevel(bad).has_value()) << bad;
  }
}

// ---- the tags code ----

DispatchRequest Request(std::string_view topic, std::string_view props) {
  DispatchRequest r;
  r.topic = topic;
  r.properties = props;
  r.tags = format::FindProperty(props, "TAGS").value_or("");
  r.store_timestamp = 1796158392297;
  return r;
}

TEST(DelayTagsCodeTest, ScheduleRecordsCarryTheirDeliverTimeOthersTheTagHash) {
  const DelayLevelTable t = DelayLevelTable::Default();
  const std::string delayed =
      "TAGS\x01TagA\x02"
      "DELAY\x01"
      "3\x02REAL_TOPIC\x01T\x02REAL_QID\x01"
      "2";
  EXPECT_EQ(t.TagsCode(Request("SCHEDULE_TOPIC_XXXX", delayed)), 1796158392297 + 10000);
  EXPECT_EQ(t.TagsCode(Request("T", delayed)), DefaultTagsCode(Request("T", delayed)))
      << "only the schedule topic";
  EXPECT_NE(DefaultTagsCode(Request("T", delayed)), 0);
  const std::string past_max =
      "TAGS\x01TagA\x02"
      "DELAY\x01"
      "40";
  EXPECT_EQ(t.TagsCode(Request("SCHEDULE_TOPIC_XXXX", past_max)), 1796158392297 + 7200000)
      << "capped at the last level, as CommitLog.checkMessageAndReturnSize";
  for (std::string p : {std::string("TAGS\x01TagA"),
                        std::string("TAGS\x01TagA\x02"
                                    "DELAY\x01"
                                    "0"),
                        std::string("TAGS\x01TagA\x02"
                                    "DELAY\x01x")}) {
    EXPECT_EQ(t.TagsCode(Request("SCHEDULE_TOPIC_XXXX", p)),
              DefaultTagsCode(Request("SCHEDULE_TOPIC_XXXX", p)));
  }
}

// ---- the hook ----

class DelayLevelHookTest : public ::testing::Test {
 protected:
  Verdict Run(PutOrigin origin, std::string topic, std::string props, int queue = 5,
              int32_t sys_flag = 0, bool batch = false) {
    draft_ = DraftMessage();
    draft_.SetTopic(std::move(topic));
    draft_.SetProperties(std::move(props));
    draft_.queue_id = queue;
    draft_.sys_flag = sys_flag;
    PutContext c;
    c.origin = origin;
    c.batch = batch;
    return hook_.BeforePut(c, draft_);
  }
  std::string Prop(std::string_view name) const {
    return std::string(format::FindProperty(draft_.properties(), name).value_or("<none>"));
  }

  DelayLevelHook hook_{*DelayLevelTable::Parse("1s 5s 10s")};
  DraftMessage draft_;
};

TEST_F(DelayLevelHookTest, ClientsBadDelayIsRefusedNamingThePropertyAndTheLimit) {
  for (std::string bad : {"abc", "-1", "4", "2147483647", "99999999999"}) {
    Verdict v = Run(PutOrigin::kClient, "T",
                    "TAGS\x01"
                    "a\x02"
                    "DELAY\x01" +
                        bad);
    EXPECT_EQ(v.outcome, Outcome::kMessageIllegal) << bad;
    EXPECT_NE(v.remark.find("DELAY"), std::string::npos) << v.remark;
    EXPECT_NE(v.remark.find("3 delay levels"), std::string::npos) << v.remark;
    EXPECT_EQ(draft_.topic(), "T") << "unchanged";
  }
  Verdict v = Run(PutOrigin::kClient, "T",
                  "DELAY\x01"
                  "2",
                  0, 0, /*batch=*/true);
  EXPECT_EQ(v.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(v.remark.find("batch"), std::string::npos);
}

TEST_F(DelayLevelHookTest, RewritesToTheLevelsQueueWithTheRealTopicAndQueue) {
  ASSERT_TRUE(Run(PutOrigin::kClient, "T",
                  "KEYS\x01k\x02"
                  "DELAY\x01"
                  "3\x02TAGS\x01"
                  "a",
                  5)
                  .ok());
  EXPECT_EQ(draft_.topic(), "SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(draft_.queue_id, 2);
  EXPECT_EQ(draft_.properties(), std::string("REAL_TOPIC\x01T\x02KEYS\x01k\x02"
                                             "DELAY\x01"
                                             "3\x02TAGS\x01"
                                             "a\x02REAL_QID\x01"
                                             "5"))
      << "REAL_TOPIC / REAL_QID put into the HashMap as 4.9.8's CommitLog does (buckets 1 "
         "and 15: the order of delay.json's stored SCHEDULE_TOPIC_XXXX record)";
}

TEST_F(DelayLevelHookTest, DelayWinsOverTimerPropertiesAndReplacesStaleRealTopic) {
  ASSERT_TRUE(Run(PutOrigin::kSendBack, "%RETRY%G",
                  "REAL_TOPIC\x01old\x02TIMER_DELAY_SEC\x01"
                  "9\x02"
                  "DELAY\x01"
                  "1\x02REAL_QID\x01"
                  "7",
                  0)
                  .ok());
  EXPECT_EQ(draft_.topic(), "SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(draft_.queue_id, 0);
  EXPECT_EQ(Prop("REAL_TOPIC"), "%RETRY%G");
  EXPECT_EQ(Prop("REAL_QID"), "0");
  EXPECT_EQ(Prop("TIMER_DELAY_SEC"), "<none>");
  EXPECT_EQ(format::ParseProperties(draft_.properties()).size(), 3u) << "no duplicates";
}

TEST_F(DelayLevelHookTest, RetryTopicsAndSendBacksAreCappedAtTheLastLevel) {
  ASSERT_TRUE(Run(PutOrigin::kClient, "%RETRY%G",
                  "DELAY\x01"
                  "19",
                  1)
                  .ok())
      << "the client's fallback path sends 3 + reconsumeTimes";
  EXPECT_EQ(draft_.queue_id, 2);
  EXPECT_EQ(Prop("DELAY"), "3");
  ASSERT_TRUE(Run(PutOrigin::kSendBack, "%RETRY%G",
                  "DELAY\x01"
                  "17",
                  1)
                  .ok());
  EXPECT_EQ(draft_.topic(), "SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(draft_.queue_id, 2);
  EXPECT_EQ(Prop("DELAY"), "3");
  EXPECT_EQ(Run(PutOrigin::kClient, "%RETRY%G", "DELAY\x01x", 1).outcome, Outcome::kMessageIllegal);
}

TEST_F(DelayLevelHookTest, ZeroNegativeSendBackScheduledAndHalvesAreDeliveredAsIs) {
  struct Case {
    PutOrigin origin;
    std::string props;
    int32_t sys_flag;
  };
  const Case cases[] = {
      {PutOrigin::kClient,
       "DELAY\x01"
       "0",
       0},
      {PutOrigin::kClient,
       "TAGS\x01"
       "a",
       0},
      {PutOrigin::kSendBack, "DELAY\x01-1", 0},
      {PutOrigin::kScheduled,
       "DELAY\x01"
       "2\x02REAL_TOPIC\x01T\x02REAL_QID\x01"
       "5",
       0},
      {PutOrigin::kScheduled,
       "DELAY\x01"
       "99",
       0},
      {PutOrigin::kClient,
       "DELAY\x01"
       "2",
       format::kTransactionPrepared},
      {PutOrigin::kClient,
       "DELAY\x01"
       "2",
       format::kTransactionRollback},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(Run(c.origin, "T", c.props, 5, c.sys_flag).ok()) << c.props;
    EXPECT_EQ(draft_.topic(), "T");
    EXPECT_EQ(draft_.queue_id, 5);
    EXPECT_EQ(draft_.properties(), c.props);
  }
  ASSERT_TRUE(Run(PutOrigin::kSystem, "T",
                  "DELAY\x01"
                  "2",
                  5, format::kTransactionCommit)
                  .ok());
  EXPECT_EQ(draft_.topic(), "SCHEDULE_TOPIC_XXXX") << "a committed transaction is delayed";
}

// ---- delayOffset.json ----

class DelayOffsetFileTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  const std::string path_ = "/s/config/delayOffset.json";

  void Write(std::string_view text) {
    ASSERT_OK(fs_.CreateDirs("/s/config"));
    (void)fs_.RemoveFile(path_);
    ASSERT_OK(WriteFileAtomically(fs_, path_, text));
  }
};

TEST_F(DelayOffsetFileTest, BadEntriesAreCorruption) {
  for (std::string_view bad :
       {R"({"offsetTable":{x:1}})", R"({"offsetTable":{"1":"a"}})", R"({"offsetTable":[1]})"}) {
    Write(bad);
    DelayOffsetManager m(fs_, clock_, path_);
    EXPECT_EQ(m.Load().code(), StatusCode::kCorruption) << bad;
  }
}

TEST_F(DelayOffsetFileTest, ReadsBareAndQuotedKeysWritesFastjsonsBareKeys) {
  Write(R"({"offsetTable":{1:5,"2":0,18:123},"dataVersion":{"counter":3}})");
  DelayOffsetManager m(fs_, clock_, path_);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.Query(1), 5);
  EXPECT_EQ(m.Query(2), 0);
  EXPECT_EQ(m.Query(18), 123);
  EXPECT_EQ(m.Query(3), -1);
  m.Commit(3, 7);
  EXPECT_TRUE(m.dirty());
  ASSERT_OK(m.Persist());
  auto text = fs_.ReadDurableFile(path_);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, R"({"dataVersion":{"counter":3},"offsetTable":{1:5,2:0,3:7,18:123}})");
  DelayOffsetManager again(fs_, clock_, path_);
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.All(), m.All());
}

TEST_F(DelayOffsetFileTest, EmptyTableIsWhatJavaWrites) {
  DelayOffsetManager m(fs_, clock_, path_);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.ToJson(), R"({"offsetTable":{}})");
}

}  // namespace
}  // namespace rocketstore::broker
