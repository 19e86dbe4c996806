// TimerIndex on the fault-injecting file system with a fake clock, fed DispatchRequests
// by hand (a fake commit log of timer records): ordering, far -> near splitting, a year
// ahead, late entries, re-dispatch after a restart, torn files, rolling tombstones.
#include "timer/timer_index.h"

#include <gtest/gtest.h>

#include <map>

#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"
#include "timer/timer_scan.h"

namespace rocketstore::timer {
namespace {

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kSec = 1000, kMin = 60 * kSec, kHour = 60 * kMin, kDay = 24 * kHour;

struct Record {
  int64_t offset;
  int32_t size;
  std::string props;
  std::string uniq;
};

class TimerIndexTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    TimerIndexOptions o;
    o.dir = "/store/timer";
    index_ = std::make_unique<TimerIndex>(fs_, clock_, o);
    ASSERT_OK(index_->PrepareRecovery());
    SinkRecoveryContext ctx;
    ctx.commit_log_min = PhysicalOffset(0);
    ctx.commit_log_end = PhysicalOffset(next_offset_);
    ASSERT_OK_AND_ASSIGN(PhysicalOffset resume, index_->Recover(ctx));
    resume_ = resume.value();
  }

  // Appends a timer record to the fake log and dispatches it.
  int64_t Add(int64_t deliver_ms, const std::string& uniq, std::string extra = "") {
    Record r{next_offset_, 100,
             "TIMER_OUT_MS\x01" + std::to_string(deliver_ms) + "\x02REAL_TOPIC\x01T\x02" + extra,
             uniq};
    next_offset_ += 100;
    log_.push_back(r);
    EXPECT_OK(Dispatch(r));
    return r.offset;
  }
  Status Dispatch(const Record& r, std::string_view topic = "rmq_sys_wheel_timer") {
    DispatchRequest q;
    q.topic = topic;
    q.commit_log_offset = PhysicalOffset(r.offset);
    q.size = r.size;
    q.properties = r.props;
    q.uniq_key = r.uniq;
    return index_->Dispatch(q);
  }
  // Re-dispatches the fake log from `from` (what the store does after Recover).
  void Redispatch(int64_t from) {
    for (const Record& r : log_) {
      if (r.offset >= from) ASSERT_OK(Dispatch(r));
    }
  }

  // Steps the index like the service does, from now to `until`, every `tick` ms.
  std::vector<TimerEntry> RunUntil(int64_t until, int64_t tick = 100) {
    std::vector<TimerEntry> out;
    while (clock_.NowMillis() <= until) {
      EXPECT_OK(index_->Advance(clock_.NowMillis()));
      for (const TimerEntry& e : index_->PopDue(clock_.NowMillis(), 1 << 20)) {
        EXPECT_GE(clock_.NowMillis(), e.deliver_ms);
        EXPECT_LT(clock_.NowMillis() - e.deliver_ms, tick) << "late by more than a tick";
        out.push_back(e);
      }
      clock_.AdvanceMillis(tick);
    }
    return out;
  }

  std::map<int, int> FilesPerLevel() {
    std::map<int, int> m;
    auto names = fs_.ListDir("/store/timer");
    EXPECT_TRUE(names.ok());
    for (const auto& n : *names) {
      if (auto b = ParseBucketFileName(n)) ++m[b->level];
    }
    return m;
  }

  FakeClock clock_{kT0};
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<TimerIndex> index_;
  std::vector<Record> log_;
  int64_t next_offset_ = 0;
  int64_t resume_ = -1;
};

TEST_F(TimerIndexTest, RecordsOfOtherTopicsAndWithoutTimeAreNotFiled) {
  Record plain{0, 50,
               "TIMER_OUT_MS\x01"
               "1700000001000\x02",
               "u"};
  ASSERT_OK(Dispatch(plain, "T"));
  Record bad{50, 50, "TIMER_OUT_MS\x01soon\x02", "u"};
  ASSERT_OK(Dispatch(bad));
  EXPECT_EQ(index_->Stats().ignored_records, 1);
  EXPECT_TRUE(FilesPerLevel().empty());
  EXPECT_TRUE(RunUntil(kT0 + kMin).empty());
  EXPECT_EQ(index_->SnapshotProgress().filed_below, 100);  // both passed the sink
}

TEST_F(TimerIndexTest, DeliversInTimeOrderWithinOneTick) {
  const int64_t c = Add(kT0 + 30 * kSec, "c");
  const int64_t a = Add(kT0 + 500, "a");
  const int64_t b = Add(kT0 + 7 * kSec, "b");
  const int64_t d = Add(kT0 + 7 * kSec, "d");  // same time: commit-log order
  std::vector<TimerEntry> got = RunUntil(kT0 + kMin);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].offset, a);
  EXPECT_EQ(got[1].offset, b);
  EXPECT_EQ(got[2].offset, d);
  EXPECT_EQ(got[3].offset, c);
}

TEST_F(TimerIndexTest, FarTimersSplitTowardsFineBucketsAndOnlyNearOnesAreInMemory) {
  Add(kT0 + 3 * kDay + 5 * kSec, "far");
  Add(kT0 + 2 * kHour, "mid");
  Add(kT0 + 365 * kDay, "year");  // a year ahead
  EXPECT_EQ(FilesPerLevel(), (std::map<int, int>{{1, 1}, {2, 2}}));
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  EXPECT_EQ(index_->Stats().in_memory, 0);

  clock_.SetMillis(kT0 + 2 * kHour - 9 * kMin);  // "mid" is within level 0's horizon
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  EXPECT_EQ(FilesPerLevel(), (std::map<int, int>{{0, 1}, {2, 2}}));
  EXPECT_EQ(index_->Stats().in_memory, 0);  // not yet within the load-ahead window
  EXPECT_EQ(RunUntil(kT0 + 2 * kHour).size(), 1u);

  clock_.SetMillis(kT0 + 2 * kDay + 6 * kHour);  // "far" is within a day: level 1
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  EXPECT_EQ(FilesPerLevel()[1], 1);
  EXPECT_EQ(FilesPerLevel()[2], 1);  // the year-ahead one stays coarse
  clock_.SetMillis(kT0 + 3 * kDay);
  std::vector<TimerEntry> got = RunUntil(kT0 + 3 * kDay + 6 * kSec);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].deliver_ms, kT0 + 3 * kDay + 5 * kSec);

  clock_.SetMillis(kT0 + 365 * kDay - 10 * kSec);
  got = RunUntil(kT0 + 365 * kDay);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].deliver_ms, kT0 + 365 * kDay);
  EXPECT_EQ(index_->Stats().in_memory, 0);
}

TEST_F(TimerIndexTest, CancelIsPoppedWithTheAddsOfItsTickAndBeforeThem) {
  const int64_t add = Add(kT0 + 3 * kSec, "m");
  Add(kT0 + 2 * kSec, "earlier");
  const int64_t cancel = Add(kT0 + 3 * kSec, "r", "TIMER_DEL_UNIQKEY\x01T+m\x02");
  std::vector<TimerEntry> got = RunUntil(kT0 + 5 * kSec);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].offset, cancel);
  EXPECT_EQ(got[1].kind, TimerEntryKind::kCancel);
  EXPECT_EQ(got[2].offset, add);
  EXPECT_EQ(got[1].key_hash, got[2].key_hash);  // the service compares the real keys
  // A tick is never split by the batch limit.
  Add(kT0 + 10 * kSec, "x");
  Add(kT0 + 10 * kSec, "y");
  clock_.SetMillis(kT0 + 10 * kSec);
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  EXPECT_EQ(index_->PopDue(clock_.NowMillis(), 1).size(), 2u);
}

TEST_F(TimerIndexTest, EntryFiledAfterItsTimeIsDueAtOnce) {
  RunUntil(kT0 + 10 * kSec);
  const int64_t late = Add(kT0 + 2 * kSec, "late");  // the dispatcher lagged
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  std::vector<TimerEntry> got = index_->PopDue(clock_.NowMillis(), 100);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].offset, late);
}

TEST_F(TimerIndexTest, NotPoppedBeyondTheLoadedWindowEvenIfStepsWereMissed) {
  Add(kT0 + 20 * kMin, "x");
  // No Advance for a long time: PopDue must not claim times whose files are not loaded.
  EXPECT_TRUE(index_->PopDue(kT0 + kHour, 100).empty());
  EXPECT_LT(index_->SnapshotProgress().delivered_through_ms, kT0 + 20 * kMin);
  clock_.SetMillis(kT0 + kHour);
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  EXPECT_EQ(index_->PopDue(clock_.NowMillis(), 100).size(), 1u);
}

TEST_F(TimerIndexTest, RestartSkipsWhatWasDeliveredAndRedeliversTheRest) {
  const int64_t a = Add(kT0 + 1 * kSec, "a");
  Add(kT0 + 2 * kMin, "b");
  ASSERT_OK(index_->FlushForCheckpoint());
  std::vector<TimerEntry> got = RunUntil(kT0 + 5 * kSec);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].offset, a);
  ASSERT_OK(index_->PersistProgress(index_->SnapshotProgress()));
  Add(kT0 + 3 * kMin, "c");  // not flushed: re-dispatched after the restart
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  Open();
  EXPECT_LE(resume_, 200);  // at most from "c"
  Redispatch(resume_);
  got = RunUntil(kT0 + 4 * kMin);
  ASSERT_EQ(got.size(), 2u);  // b and c once each, a not again
  EXPECT_EQ(got[0].deliver_ms, kT0 + 2 * kMin);
  EXPECT_EQ(got[1].deliver_ms, kT0 + 3 * kMin);
}

TEST_F(TimerIndexTest, RedispatchedDuplicatesAreDeliveredOnce) {
  Add(kT0 + 30 * kSec, "a");
  Add(kT0 + 2 * kDay, "b");
  Redispatch(0);  // as after a restart that resumes early
  Redispatch(0);
  EXPECT_EQ(RunUntil(kT0 + kMin).size(), 1u);
  clock_.SetMillis(kT0 + 2 * kDay - kMin);
  EXPECT_EQ(RunUntil(kT0 + 2 * kDay).size(), 1u);
}

TEST_F(TimerIndexTest, TornBucketTailAndEntriesOfLostRecordsAreCutOnRecovery) {
  Add(kT0 + 5 * kMin, "a");
  ASSERT_OK(index_->FlushForCheckpoint());
  Add(kT0 + 5 * kMin, "b");  // its record will be "lost" with the commit-log tail
  const std::string path = "/store/timer/" + BucketFileName(0, kT0 + 5 * kMin);
  ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile(path, OpenOptions{true}));
  ASSERT_OK(f->PWrite(64, "torn", 4));  // half an entry
  f.reset();
  ASSERT_OK(fs_.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs_.Reboot());
  next_offset_ = 100;  // the commit log recovered only the first record
  log_.resize(1);
  Open();
  ASSERT_OK_AND_ASSIGN(BucketContents c, ReadBucketFile(fs_, path));
  EXPECT_EQ(c.entries.size(), 1u);
  EXPECT_EQ(c.bad_bytes, 0u);
  clock_.SetMillis(kT0 + 5 * kMin - kSec);
  EXPECT_EQ(RunUntil(kT0 + 5 * kMin).size(), 1u);
}

TEST_F(TimerIndexTest, FullyDeliveredFineBucketsAreDeletedWithProgress) {
  Add(kT0 + 1 * kSec, "a");
  Add(kT0 + 5 * kMin, "b");
  RunUntil(kT0 + 15 * kSec);
  ASSERT_OK(index_->PersistProgress(index_->SnapshotProgress()));
  EXPECT_EQ(FilesPerLevel(), (std::map<int, int>{{0, 1}}));  // only b's bucket is left
}

TEST_F(TimerIndexTest, RollTombstoneSupersedesTheOldAddAndCompactsTheBucket) {
  const int64_t old = Add(kT0 + 10 * kDay, "m");
  Add(kT0 + 10 * kDay, "other");
  ASSERT_OK_AND_ASSIGN(auto cands, index_->CollectRollCandidates(old + 1, 100));
  ASSERT_EQ(cands.size(), 1u);
  EXPECT_EQ(cands[0].offset, old);
  index_->MarkRolled(old);
  ASSERT_OK_AND_ASSIGN(cands, index_->CollectRollCandidates(old + 1, 100));
  EXPECT_TRUE(cands.empty());  // being rolled: not picked twice
  // The rolled copy, as the service re-appends it.
  const int64_t copy =
      Add(kT0 + 10 * kDay, "m", "TIMER_ROLLED_FROM\x01" + std::to_string(old) + "\x02");
  ASSERT_OK_AND_ASSIGN(cands, index_->CollectRollCandidates(old + 1, 100));
  EXPECT_TRUE(cands.empty());
  ASSERT_OK_AND_ASSIGN(TimerDirSummary s, SummarizeTimerDir(fs_, "/store/timer"));
  EXPECT_EQ(s.pending, 2);
  ASSERT_EQ(s.buckets.size(), 1u);
  EXPECT_EQ(s.buckets[0].adds, 2);  // compacted: the old add and its tombstone are gone
  EXPECT_EQ(s.buckets[0].tombstones, 0);
  clock_.SetMillis(kT0 + 10 * kDay - kMin);
  std::vector<TimerEntry> got = RunUntil(kT0 + 10 * kDay);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].offset, old);
  EXPECT_NE(got[1].offset, old);
  EXPECT_TRUE(got[0].offset == copy || got[1].offset == copy);
}

TEST_F(TimerIndexTest, TombstoneWithoutCompactionStillDropsTheOldAddOnLoad) {
  const int64_t old = Add(kT0 + 3 * kDay, "m");
  clock_.SetMillis(kT0 + 2 * kDay + 12 * kHour);  // the old add moves to level 1 ...
  ASSERT_OK(index_->Advance(clock_.NowMillis()));
  Add(kT0 + 3 * kDay, "m", "TIMER_ROLLED_FROM\x01" + std::to_string(old) + "\x02");
  clock_.SetMillis(kT0 + 3 * kDay - kMin);
  std::vector<TimerEntry> got = RunUntil(kT0 + 3 * kDay);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].offset, old);
}

TEST_F(TimerIndexTest, ManyTimersFewFiles) {
  for (int i = 0; i < 20000; ++i)
    Add(kT0 + kMin + int64_t{i} * 1579 * kSec, "k" + std::to_string(i));
  // 20000 timers over ~1 year: bounded by the levels' geometry, not the count.
  int files = 0;
  for (auto [level, n] : FilesPerLevel()) files += n;
  // At most horizon/window files per level: 60 + 144 + one per day of the span (+ edges).
  EXPECT_LE(files, 60 + 144 + 367 + 3);
  EXPECT_GT(files, 300);
  ASSERT_OK_AND_ASSIGN(TimerDirSummary s, SummarizeTimerDir(fs_, "/store/timer"));
  EXPECT_EQ(s.pending, 20000);
  EXPECT_EQ(s.next_due_ms, kT0 + kMin);
}

}  // namespace
}  // namespace rocketstore::timer
