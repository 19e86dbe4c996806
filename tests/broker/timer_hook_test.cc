// TimerHook alone: each property, precedence, rounding, limits and errors.
#include "broker/hooks/timer_hook.h"

#include <gtest/gtest.h>

#include "broker/system_topics.h"
#include "store/format/properties.h"

namespace rocketstore::broker {
namespace {

constexpr int64_t kNow = 1700000000000;

class TimerHookTest : public ::testing::Test {
 protected:
  Verdict Run(const std::string& props, PutOrigin origin = PutOrigin::kClient, bool batch = false) {
    draft_ = DraftMessage();
    draft_.SetTopic("T");
    draft_.queue_id = 3;
    draft_.SetProperties("UNIQ_KEY\x01u1\x02" + props);
    PutContext c;
    c.origin = origin;
    c.batch = batch;
    return hook_.BeforePut(c, draft_);
  }
  std::string Prop(std::string_view name) {
    return std::string(format::FindProperty(draft_.properties(), name).value_or("<none>"));
  }

  FakeClock clock_{kNow};
  TimerHookOptions options_;
  TimerHook hook_{clock_, options_};
  DraftMessage draft_;
};

TEST_F(TimerHookTest, NonNumericValueIsRefusedNamingTheProperty) {
  for (const char* name : {"TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS"}) {
    Verdict v = Run(std::string(name) + "\x01" + "12x\x02");
    EXPECT_EQ(v.outcome, Outcome::kMessageIllegal) << name;
    EXPECT_NE(v.remark.find(name), std::string::npos) << v.remark;
    EXPECT_NE(v.remark.find("'12x'"), std::string::npos) << v.remark;
    EXPECT_EQ(draft_.topic(), "T");
  }
}

TEST_F(TimerHookTest, NegativeValueIsRefused) {
  for (const char* name : {"TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS"}) {
    Verdict v = Run(std::string(name) + "\x01-5\x02");
    EXPECT_EQ(v.outcome, Outcome::kMessageIllegal) << name;
    EXPECT_NE(v.remark.find(std::string(name) + " must not be negative"), std::string::npos)
        << v.remark;
  }
}

TEST_F(TimerHookTest, BeyondTheLimitIsRefusedNamingTheLimit) {
  const int64_t max_sec = options_.max_delay_sec;
  for (const std::string& p :
       {"TIMER_DELAY_SEC\x01" + std::to_string(max_sec + 1) + "\x02",
        "TIMER_DELAY_MS\x01" + std::to_string(max_sec * 1000 + 1) + "\x02",
        "TIMER_DELIVER_MS\x01" + std::to_string(kNow + max_sec * 1000 + 1) + "\x02",
        std::string("TIMER_DELAY_SEC\x01") + "99999999999999999\x02"}) {
    Verdict v = Run(p);
    EXPECT_EQ(v.outcome, Outcome::kMessageIllegal) << p;
    EXPECT_NE(v.remark.find("timerMaxDelaySec"), std::string::npos) << v.remark;
    EXPECT_NE(v.remark.find("366 days"), std::string::npos) << v.remark;
  }
  // Exactly at the limit (a year and a day) is accepted.
  EXPECT_TRUE(Run("TIMER_DELAY_SEC\x01" + std::to_string(max_sec) + "\x02").ok());
  EXPECT_EQ(draft_.topic(), kTimerTopic);
}

TEST_F(TimerHookTest, BatchWithTimerIsRefused) {
  Verdict v =
      Run("TIMER_DELAY_SEC\x01"
          "10\x02",
          PutOrigin::kClient, /*batch=*/true);
  EXPECT_EQ(v.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(v.remark.find("batch"), std::string::npos);
}

TEST_F(TimerHookTest, EachPropertyFilesTheMessageUnderTheTimerTopic) {
  struct Case {
    std::string props;
    int64_t want_out;
  } cases[] = {
      {"TIMER_DELAY_SEC\x01"
       "10\x02",
       kNow + 10000},
      {"TIMER_DELAY_MS\x01"
       "2500\x02",
       kNow + 2500},
      {"TIMER_DELIVER_MS\x01" + std::to_string(kNow + 60000) + "\x02", kNow + 60000},
      // Precedence as HookUtils: DELAY_SEC, then DELAY_MS, then DELIVER_MS.
      {"TIMER_DELIVER_MS\x01" + std::to_string(kNow + 60000) +
           "\x02TIMER_DELAY_SEC\x01"
           "5\x02",
       kNow + 5000},
      {"TIMER_DELIVER_MS\x01" + std::to_string(kNow + 60000) +
           "\x02TIMER_DELAY_MS\x01"
           "700\x02",
       kNow + 700},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(Run(c.props).ok()) << c.props;
    EXPECT_EQ(draft_.topic(), kTimerTopic);
    EXPECT_EQ(draft_.queue_id, 0);
    EXPECT_EQ(Prop("TIMER_OUT_MS"), std::to_string(c.want_out)) << c.props;
    EXPECT_EQ(Prop("REAL_TOPIC"), "T");
    EXPECT_EQ(Prop("REAL_QID"), "3");
    EXPECT_EQ(Prop("UNIQ_KEY"), "u1");
  }
}

TEST_F(TimerHookTest, TimeIsRoundedUpToThePrecision) {
  ASSERT_TRUE(Run("TIMER_DELAY_MS\x01"
                  "1234\x02")
                  .ok());
  EXPECT_EQ(Prop("TIMER_OUT_MS"), std::to_string(kNow + 1300));
  ASSERT_TRUE(Run("TIMER_DELAY_MS\x01"
                  "1300\x02")
                  .ok());  // a multiple stays
  EXPECT_EQ(Prop("TIMER_OUT_MS"), std::to_string(kNow + 1300));
  TimerHookOptions fine;
  fine.precision_ms = 10;
  TimerHook h(clock_, fine);
  draft_.SetTopic("T");
  draft_.SetProperties(
      "TIMER_DELAY_MS\x01"
      "1234\x02");
  ASSERT_TRUE(h.BeforePut({}, draft_).ok());
  EXPECT_EQ(Prop("TIMER_OUT_MS"), std::to_string(kNow + 1240));
}

TEST_F(TimerHookTest, WithinOneTickOrPastIsAPlainMessage) {
  for (const std::string& p : {std::string("TIMER_DELAY_MS\x01"
                                           "100\x02"),
                               std::string("TIMER_DELAY_SEC\x01"
                                           "0\x02"),
                               "TIMER_DELIVER_MS\x01" + std::to_string(kNow - 5000) + "\x02"}) {
    ASSERT_TRUE(Run(p).ok()) << p;
    EXPECT_EQ(draft_.topic(), "T") << p;
    EXPECT_EQ(draft_.queue_id, 3);
    EXPECT_EQ(Prop("TIMER_OUT_MS"), "<none>");
  }
  ASSERT_TRUE(Run("TIMER_DELAY_MS\x01"
                  "101\x02")
                  .ok());
  EXPECT_EQ(draft_.topic(), kTimerTopic);
}

TEST_F(TimerHookTest, DelayLevelWinsAndTimerPropertiesAreRemoved) {
  ASSERT_TRUE(Run("DELAY\x01"
                  "3\x02TIMER_DELAY_SEC\x01"
                  "10\x02TIMER_DELIVER_MS\x01"
                  "5\x02"
                  "TIMER_DELAY_MS\x01"
                  "9\x02")
                  .ok());
  EXPECT_EQ(draft_.topic(), "T");
  EXPECT_EQ(Prop("TIMER_DELAY_SEC"), "<none>");
  EXPECT_EQ(Prop("TIMER_DELIVER_MS"), "<none>");
  EXPECT_EQ(Prop("TIMER_DELAY_MS"), "<none>");
  EXPECT_EQ(Prop("DELAY"), "3");
  // DELAY=0 is no delay level: the timer applies.
  ASSERT_TRUE(Run("DELAY\x01"
                  "0\x02TIMER_DELAY_SEC\x01"
                  "10\x02")
                  .ok());
  EXPECT_EQ(draft_.topic(), kTimerTopic);
}

TEST_F(TimerHookTest, BrokerRePutsAndExistingTimerRecordsAreUntouched) {
  for (PutOrigin o : {PutOrigin::kScheduled, PutOrigin::kSendBack}) {
    ASSERT_TRUE(Run("TIMER_DELAY_SEC\x01"
                    "10\x02",
                    o)
                    .ok());
    EXPECT_EQ(draft_.topic(), "T");
  }
  ASSERT_TRUE(Run("TIMER_DELAY_SEC\x01"
                  "10\x02TIMER_OUT_MS\x01"
                  "1\x02")
                  .ok());
  EXPECT_EQ(draft_.topic(), "T");  // RocketMQ's "double check"
  // Garbage in an already-filed record is not re-validated either.
  ASSERT_TRUE(Run("TIMER_DELAY_SEC\x01x\x02TIMER_OUT_MS\x01"
                  "1\x02")
                  .ok());
}

TEST_F(TimerHookTest, DisabledTimersAreRefused) {
  TimerHookOptions off;
  off.enabled = false;
  TimerHook h(clock_, off);
  draft_.SetTopic("T");
  draft_.SetProperties(
      "TIMER_DELAY_SEC\x01"
      "10\x02");
  Verdict v = h.BeforePut({}, draft_);
  EXPECT_EQ(v.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(v.remark.find("timerWheelEnable"), std::string::npos);
}

}  // namespace
}  // namespace rocketstore::broker
