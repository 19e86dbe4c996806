// Timer messages end to end through the broker's services (SendService -> TimerHook ->
// store -> TimerIndex -> TimerService -> the real topic), stepped with a fake clock:
// due order and lateness, recall, restart, retention rolls, and a refused send.
#include <gtest/gtest.h>

#include "store/segment/file_names.h"
#include "timer/recall_handle.h"
#include "timer_fixture.h"

namespace rocketstore::broker {
namespace {

using testing::kT0;
using testing::TimerFixture;

class TimerServiceTest : public TimerFixture {};

TEST_F(TimerServiceTest, RefusedTimerStoresNothing) {
  const PhysicalOffset before = store_->MaxPhysicalOffset();
  SendResult r = Send("bad", "TIMER_DELAY_SEC\x01soon\x02");
  EXPECT_EQ(r.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(r.verdict.remark.find("TIMER_DELAY_SEC"), std::string::npos) << r.verdict.remark;
  r = SendAt("far", kT0 + int64_t{400} * 86400 * 1000);
  EXPECT_EQ(r.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(r.verdict.remark.find("timerMaxDelaySec"), std::string::npos);
  EXPECT_EQ(store_->MaxPhysicalOffset(), before);
}

TEST_F(TimerServiceTest, DeliversToTheRealQueueInDueOrderWithinOneTick) {
  SendAt("c", kT0 + 2950, 1);
  SendAt("a", kT0 + 420, 0);
  SendAt("b", kT0 + 1000, 1);
  SendAt("now", kT0 + 50, 0);  // within a tick: a plain message at once
  ASSERT_OK(store_->RunDispatchStep().status());
  ASSERT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"now", 1}}));
  RunFor(4000);
  std::vector<Delivered> got = DeliveredToT();
  ASSERT_EQ(got.size(), 4u);
  std::map<std::string, Delivered> by;
  for (const auto& d : got) by[d.uniq] = d;
  EXPECT_EQ(by["a"].queue, 0);
  EXPECT_EQ(by["b"].queue, 1);
  EXPECT_EQ(by["c"].queue, 1);
  EXPECT_LT(by["a"].store_ms, by["b"].store_ms);
  EXPECT_LT(by["b"].store_ms, by["c"].store_ms);
  for (const char* k : {"a", "b", "c"}) {
    const Delivered& d = by[k];
    const int64_t out =
        timer::ParseLong(format::FindProperty(d.properties, "TIMER_OUT_MS").value_or("")).value();
    EXPECT_GE(d.store_ms, out) << k << ": never early";
    EXPECT_LE(d.store_ms - out, 100) << k << ": late by at most one tick";
    EXPECT_FALSE(format::FindProperty(d.properties, "REAL_TOPIC").has_value());
    EXPECT_FALSE(format::FindProperty(d.properties, "REAL_QID").has_value());
    EXPECT_TRUE(format::FindProperty(d.properties, "TIMER_DELIVER_MS").has_value());
    EXPECT_TRUE(format::FindProperty(d.properties, "TIMER_DEQUEUE_MS").has_value());
  }
  EXPECT_EQ(timer_service_->stats().delivered, 3);
}

TEST_F(TimerServiceTest, TimerAtTenMillisecondPrecision) {
  hook_options_.precision_ms = 10;
  pipeline_ = PutPipeline();
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  SendAt("x", kT0 + 1234);
  RunFor(1300, 10);
  std::vector<Delivered> got = DeliveredToT();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_GE(got[0].store_ms, kT0 + 1234);
  EXPECT_LE(got[0].store_ms, kT0 + 1234 + 10 + 10);
}

TEST_F(TimerServiceTest, RecallCancelsAPendingTimerOnly) {
  SendResult keep = SendAt("keep", kT0 + 60000);
  SendResult gone = SendAt("gone", kT0 + 60000);
  ASSERT_FALSE(gone.recall_handle.empty());
  ASSERT_OK_AND_ASSIGN(timer::RecallHandle h, timer::DecodeRecallHandle(gone.recall_handle));
  EXPECT_EQ(h.topic, "T");
  EXPECT_EQ(h.broker_name, "broker-a");
  EXPECT_EQ(h.timestamp, std::to_string(kT0 + 60000 + 1));  // TIMER_OUT_MS + 1, as RocketMQ
  EXPECT_EQ(h.message_id, "gone");
  RunFor(1000);

  RecallRequest bad{"T", "garbage", "P", {}};
  EXPECT_EQ(timer_service_->Recall(bad, clock_.NowMillis()).verdict.outcome,
            Outcome::kIllegalOperation);
  RecallRequest wrong_topic{"U", gone.recall_handle, "P", {}};
  RecallResult r = timer_service_->Recall(wrong_topic, clock_.NowMillis());
  EXPECT_EQ(r.verdict.remark, "recall failed, topic not match");
  RecallRequest ok{"T", gone.recall_handle, "P", {}};
  r = timer_service_->Recall(ok, clock_.NowMillis());
  ASSERT_TRUE(r.verdict.ok()) << r.verdict.remark;
  EXPECT_EQ(r.msg_id, "gone");

  RunFor(60000, 500);
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"keep", 1}}));
  EXPECT_EQ(timer_service_->stats().recalled, 1);
  // Too late: the handle's time has passed.
  EXPECT_EQ(timer_service_->Recall(ok, clock_.NowMillis()).verdict.remark,
            "recall failed, timestamp invalid");
}

TEST_F(TimerServiceTest, RecallSurvivesARestart) {
  SendResult gone = SendAt("gone", kT0 + 30000);
  SendAt("keep", kT0 + 30000);
  RecallRequest ok{"T", gone.recall_handle, "P", {}};
  ASSERT_TRUE(timer_service_->Recall(ok, clock_.NowMillis()).verdict.ok());
  RunFor(1000);
  ASSERT_OK(store_->Close());
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  RunFor(31000, 500);
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"keep", 1}}));
}

TEST_F(TimerServiceTest, PendingTimersAreDeliveredAfterACleanRestart) {
  SendAt("soon", kT0 + 500);
  SendAt("later", kT0 + 20 * 60 * 1000);            // a level-1 bucket
  SendAt("days", kT0 + int64_t{2} * 86400 * 1000);  // a level-2 bucket
  RunFor(1000);
  ASSERT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"soon", 1}}));
  ASSERT_OK(store_->Close());
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  clock_.SetMillis(kT0 + 20 * 60 * 1000 - 5000);
  RunFor(6000);
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"later", 1}, {"soon", 1}}));
  clock_.SetMillis(kT0 + int64_t{2} * 86400 * 1000 - 5000);
  RunFor(6000);
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"days", 1}, {"later", 1}, {"soon", 1}}));
}

// rocketmq_timer_enqueue_total / _dequeue_total / rocketmq_timing_messages: per real
// topic; timers filed before a restart are delivered (dequeue) but were never counted as
// filed by this run, so they do not leave the timing gauge; a recall settles its timer.
TEST_F(TimerServiceTest, TimerCountsAreByTopicAndTimingCountsOnlyThisRunsTimers) {
  TopicConfig u;
  u.name = "U";
  u.read_queue_nums = u.write_queue_nums = 1;
  topics_.Upsert(u);
  SendAt("old", kT0 + 1000);  // filed before the restart, with no counting
  ASSERT_OK(Step());
  ASSERT_OK(store_->Close());
  BrokerStats stats;
  stats_ = &stats;
  ASSERT_NO_FATAL_FAILURE(OpenStore());  // "the broker started": new counters
  SendAt("a", kT0 + 2000);
  SendResult gone = SendAt("gone", kT0 + 2000);
  SendRequest r;  // one timer of topic U
  r.producer_group = "P";
  r.topic = "U";
  r.born_timestamp = clock_.NowMillis();
  const std::string props = "UNIQ_KEY\x01u\x02TIMER_DELIVER_MS\x01" + std::to_string(kT0 + 60000);
  const SendEntry entry{0, "u", props};
  r.messages = std::span<const SendEntry>(&entry, 1);
  ASSERT_TRUE(send_->Send(RequestContext{}, r, [](SendResult) {})->stored());
  ASSERT_OK(Step());
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.timers.at("T").enqueued, 2u);
  EXPECT_EQ(s.timers.at("T").Timing(), 2u);
  EXPECT_EQ(s.timers.at("U").Timing(), 1u);
  EXPECT_EQ(s.timers.at("T").dequeued, 0u);

  RunFor(1500);  // "old" is due: delivered, but it was not filed by this run
  s = stats.Collect();
  EXPECT_EQ(s.timers.at("T").dequeued, 1u);
  EXPECT_EQ(s.timers.at("T").Timing(), 2u);

  RecallRequest recall{"T", gone.recall_handle, "P", {}};
  ASSERT_TRUE(timer_service_->Recall(recall, clock_.NowMillis()).verdict.ok());
  RunFor(1500);  // "a" delivered, "gone" recalled
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"a", 1}, {"old", 1}}));
  s = stats.Collect();
  EXPECT_EQ(s.timers.at("T").enqueued, 2u);
  EXPECT_EQ(s.timers.at("T").dequeued, 2u);
  EXPECT_EQ(s.timers.at("T").settled, 2u);
  EXPECT_EQ(s.timers.at("T").Timing(), 0u);
  EXPECT_EQ(s.timers.at("U").enqueued, 1u);
  EXPECT_EQ(s.timers.at("U").Timing(), 1u);
  EXPECT_EQ(timer_service_->stats().recalled, 1);
  ASSERT_OK(store_->Close());
  stats_ = nullptr;
}

TEST(CommitLogRollBoundaryTest, FirstSegmentYoungerThanTheAgeElseTheNewest) {
  FakeClock clock(kT0);
  FaultInjectionFileSystem fs(clock);
  EXPECT_EQ(CommitLogRollBoundary(fs, "/missing", kT0, 1000), 0);  // unreadable: no roll
  ASSERT_OK(fs.CreateDirs("/cl"));
  const int64_t seg = 1 << 20;
  for (int i = 0; i < 3; ++i) {
    OpenOptions o;
    o.create = true;
    ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile("/cl/" + SegmentFileName(i * seg), o));
    ASSERT_OK(fs.SetMTime("/cl/" + SegmentFileName(i * seg), kT0 - (3 - i) * 10000));
  }
  ASSERT_OK(fs.SetMTime("/cl/" + SegmentFileName(0), kT0 - 30000));
  EXPECT_EQ(CommitLogRollBoundary(fs, "/cl", kT0, 25000), seg);      // segment 0 is old
  EXPECT_EQ(CommitLogRollBoundary(fs, "/cl", kT0, 15000), 2 * seg);  // 0 and 1 are old
  EXPECT_EQ(CommitLogRollBoundary(fs, "/cl", kT0, 5000), 2 * seg);   // never past the newest
  EXPECT_EQ(CommitLogRollBoundary(fs, "/cl", kT0, 60000), 0);        // nothing is old
}

// Retention: a timer five days ahead outlives its commit-log segment (fileReservedTime
// 72 h). With rolling it is re-appended before the segment goes and delivered once;
// without, its message is gone (the control: this test can fail).
class TimerRollTest : public TimerFixture, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    segment_size_ = 64 << 10;
    if (GetParam()) {
      roll_below_ = [this](int64_t) { return store_->MaxPhysicalOffset().value(); };
    }
    TimerFixture::SetUp();
  }
  void Fill() {  // plain messages until the log has moved to a new segment
    const int64_t seg = store_->MaxPhysicalOffset().value() / segment_size_;
    while (store_->MaxPhysicalOffset().value() / segment_size_ == seg) {
      ASSERT_TRUE(Send("fill", "").stored());
    }
    ASSERT_TRUE(Send("fill", "").stored());
  }
};

TEST_P(TimerRollTest, FarTimerOutlivesItsSegment) {
  constexpr int64_t kDay = 86400 * 1000;
  SendAt("far", kT0 + 5 * kDay);
  Fill();
  RunFor(61000, 1000);  // a roll check
  Fill();
  clock_.SetMillis(kT0 + 2 * kDay);
  RunFor(61000, 1000);  // rolled again: the first copy's segment is old too
  Fill();
  clock_.SetMillis(kT0 + 4 * kDay);
  store_->ExecuteDeleteFilesManually();
  ASSERT_OK_AND_ASSIGN(RetentionReport rep, store_->RunRetentionStep());
  ASSERT_GT(store_->MinPhysicalOffset().value(), 0);  // the timer's first segment is gone
  clock_.SetMillis(kT0 + 5 * kDay - 10000);
  RunFor(11000, 1000);
  std::map<std::string, int> counts = DeliveryCounts();
  if (GetParam()) {
    EXPECT_EQ(counts["far"], 1);
    EXPECT_GE(timer_service_->stats().rolled, 2);  // every check rolls what is below the end
    EXPECT_EQ(timer_service_->stats().lost, 0);
    for (const auto& d : DeliveredToT()) {
      if (d.uniq != "far") continue;
      EXPECT_EQ(format::FindProperty(d.properties, "TIMER_ROLL_TIMES").value_or(""),
                std::to_string(timer_service_->stats().rolled));
      EXPECT_FALSE(format::FindProperty(d.properties, "TIMER_ROLLED_FROM").has_value());
    }
  } else {
    EXPECT_EQ(counts.count("far"), 0u);
    EXPECT_EQ(timer_service_->stats().lost, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutRolling, TimerRollTest, ::testing::Bool());

// A rolled copy is judged by the record it was rolled from: the copy of a timer filed
// before the start does not leave the timing gauge; the copy of this run's timer does.
class TimerRollCountTest : public TimerFixture {
 protected:
  void SetUp() override {
    segment_size_ = 64 << 10;
    roll_below_ = [this](int64_t) { return store_->MaxPhysicalOffset().value(); };
    TimerFixture::SetUp();
  }
};

TEST_F(TimerRollCountTest, ARolledCopyCountsAsTheTimerItWasRolledFrom) {
  SendAt("pre", kT0 + 5 * 60 * 1000);
  ASSERT_OK(Step());
  ASSERT_OK(store_->Close());
  BrokerStats stats;
  stats_ = &stats;
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  SendAt("new", kT0 + 5 * 60 * 1000);
  RunFor(30000, 1000);  // one roll check: both are re-appended
  ASSERT_EQ(timer_service_->stats().rolled, 2);
  clock_.SetMillis(kT0 + 5 * 60 * 1000 - 1000);
  RunFor(2000);
  EXPECT_EQ(DeliveryCounts(), (std::map<std::string, int>{{"new", 1}, {"pre", 1}}));
  const TimerTotals t = stats.Collect().timers.at("T");
  EXPECT_EQ(t.enqueued, 1u);
  EXPECT_EQ(t.dequeued, 2u);
  EXPECT_EQ(t.settled, 1u);
  EXPECT_EQ(t.Timing(), 0u);
  ASSERT_OK(store_->Close());
}

}  // namespace
}  // namespace rocketstore::broker
