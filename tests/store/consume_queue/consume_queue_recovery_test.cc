// ConsumeQueue recovery (§6.3): where the scan ends (zeroed or torn units, file
// boundaries), dirty-tail truncation, the min offset, and what survives a process crash
// or a power loss at every operation.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/coding.h"
#include "base/java_hash.h"
#include "consume_queue_fixture.h"  // this directory
#include "io/fault_injection_file_system.h"
#include "store/consume_queue/consume_queue.h"
#include "store/segment/file_names.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;
using namespace consume_queue_testing;  // NOLINT(build/namespaces): the shared fixture

TEST_F(ConsumeQueueTest, RecoveryEndsAtAZeroedUnit) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 25);
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  WriteBytes(FilePath(400), 40, std::string(20, '\0'));  // unit 22
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(22));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(2200));
  EXPECT_EQ(cq->file_count(), 3u);
  ExpectUnits(*cq, 0, 22);
  EXPECT_THAT(cq->GetUnit(QueueOffset(22)), StatusIs(StatusCode::kOutOfRange));
  PutRange(*cq, 22, 30);
  ExpectUnits(*cq, 0, 30);
}

TEST_F(ConsumeQueueTest, RecoveryEndsAtATornUnitAndClearsWhatFollows) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 9);
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  // Unit 6 half written: its offset, no size yet; units 7 and 8 follow it.
  WriteBytes(FilePath(0), 6 * 20 + 8, std::string(12, '\0'));
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(6));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(600));
  ExpectUnits(*cq, 0, 6);
  // The torn unit and the run after it are cleared on disk: if appends later stopped
  // short of them and a crash followed, they must not rejoin the queue.
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(FilePath(0)));
  EXPECT_EQ(durable.substr(6 * 20), std::string(200 - 6 * 20, '\0'));
  PutRange(*cq, 6, 7);
  cq.reset();
  ASSERT_OK(fs_.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs_.Reboot());
  cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(7));
  PutRange(*cq, 7, 12);
  ExpectUnits(*cq, 0, 12);
}

TEST_F(ConsumeQueueTest, RecoveryScansFromTheThirdLastFile) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 50);  // 5 files
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  // Damage in the first file is outside the scan (RocketMQ's rule) ...
  WriteBytes(FilePath(0), 3 * 20 + 8, std::string(4, '\0'));
  // ... damage in the third-last file ends the queue there.
  {
    auto cq = Reopen();
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(50));
  }
  WriteBytes(FilePath(400), 5 * 20, std::string(20, '\0'));
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(25));
  EXPECT_EQ(cq->file_count(), 3u);
  EXPECT_FALSE(fs_.Exists(FilePath(600)));
  EXPECT_FALSE(fs_.Exists(FilePath(800)));
}

TEST_F(ConsumeQueueTest, RecoveryAtAFileBoundaryDropsTheFollowingFile) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 15);
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  WriteBytes(FilePath(200), 0, std::string(20, '\0'));
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(10));
  EXPECT_EQ(cq->file_count(), 1u);
  PutRange(*cq, 10, 12);
  ExpectUnits(*cq, 0, 12);
}

TEST_F(ConsumeQueueTest, RecoveryWithoutAnyValidUnitKeepsAnEmptyFirstFile) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 3);
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  WriteBytes(FilePath(0), 0, std::string(60, '\0'));
  auto cq = Reopen();
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
  PutRange(*cq, 0, 3);
  ExpectUnits(*cq, 0, 3);
}

// ---- truncation against the commit log ----------------------------------------------------

TEST_F(ConsumeQueueTest, TruncateDirtyInsideTheLastFile) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  ASSERT_OK(cq->TruncateDirty(PhysicalOffset(2250)));  // records 23, 24 are gone
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(23));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(2300));
  EXPECT_EQ(cq->file_count(), 3u);
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(FilePath(400)));
  EXPECT_EQ(durable.substr(60), std::string(140, '\0'));  // dropped units cleared
  ExpectUnits(*cq, 0, 23);
  // The commit log continues at 2300 with a different record for queue offset 23.
  ASSERT_OK(cq->PutUnit(PhysicalOffset(2300), 50, 1, QueueOffset(23)));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(2350));
}

TEST_F(ConsumeQueueTest, TruncateDirtyRemovesWholeFiles) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  ASSERT_OK(cq->TruncateDirty(PhysicalOffset(1000)));  // first units of 200 and 400 >= 1000
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_FALSE(fs_.Exists(FilePath(200)));
  EXPECT_FALSE(fs_.Exists(FilePath(400)));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(10));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(1000));
  PutRange(*cq, 10, 11);

  ASSERT_OK(cq->TruncateDirty(PhysicalOffset(0)));  // nothing survives
  EXPECT_EQ(cq->file_count(), 0u);
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
  PutRange(*cq, 0, 2);
}

TEST_F(ConsumeQueueTest, TruncateDirtyAfterRecoveryKeepsMinOffsetInRange) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 25);
    cq->CorrectMinOffset(PhysicalOffset(2100));
    EXPECT_EQ(cq->MinOffset(), QueueOffset(21));
  }
  auto cq = Reopen();
  cq->CorrectMinOffset(PhysicalOffset(2100));
  ASSERT_OK(cq->TruncateDirty(PhysicalOffset(1500)));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(15));
  EXPECT_LE(cq->MinOffset(), cq->MaxOffset());
}

// ---- offsets ------------------------------------------------------------------------------

// RocketMQ 5.x ConsumeQueueTest.testCorrectMinOffset.
TEST_F(ConsumeQueueTest, CorrectMinOffsetCases) {
  auto cq = OpenQueue(Tiny(3000));
  constexpr int64_t kMax = 10000;
  PutRange(*cq, 0, kMax);
  cq->CorrectMinOffset(PhysicalOffset(0));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(0));
  cq->CorrectMinOffset(PhysicalOffset(2000));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(20));
  cq->CorrectMinOffset(PhysicalOffset(2050));  // inside record 20: the next one
  EXPECT_EQ(cq->MinOffset(), QueueOffset(21));
  cq->CorrectMinOffset(PhysicalOffset(0));  // never backwards
  EXPECT_EQ(cq->MinOffset(), QueueOffset(21));
  cq->CorrectMinOffset(PhysicalOffset(654321));  // in a later file
  EXPECT_EQ(cq->MinOffset(), QueueOffset(6544));
  EXPECT_THAT(cq->GetUnit(QueueOffset(6543)), StatusIs(StatusCode::kNotFound));
  ExpectUnits(*cq, 6544, 6545);
  cq->CorrectMinOffset(PhysicalOffset(kMax * 100));  // every unit below: min = max
  EXPECT_EQ(cq->MinOffset(), QueueOffset(kMax));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(kMax));
  cq->CorrectMinOffset(PhysicalOffset(kMax * 100));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(kMax));
}

// RocketMQ ConsumeQueueTest.testPutMessagePositionInfo_buildCQRepeatedly, and the replay
// after a restart.
TEST_F(ConsumeQueueTest, PowerLossKeepsFlushedUnitsOnly) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 15);
    ASSERT_TRUE(cq->HasDirtyPages(0));
    ASSERT_OK_AND_ASSIGN(PhysicalOffset flushed, cq->Flush(FlushMethod::kMsync));
    EXPECT_EQ(flushed, PhysicalOffset(15 * 20));
    EXPECT_FALSE(cq->HasDirtyPages(0));
    PutRange(*cq, 15, 32);  // never flushed; two more files
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(15));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(1500));
  ExpectUnits(*cq, 0, 15);
  PutRange(*cq, 15, 20);
  ExpectUnits(*cq, 0, 20);
}

TEST_F(ConsumeQueueTest, ProcessCrashKeepsEverythingWritten) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 23);
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs_.Reboot());
  {
    auto cq = Reopen();
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(23));
  }
  // Recovery made them durable: a power loss now keeps them.
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  auto cq = Reopen();
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(23));
  ExpectUnits(*cq, 0, 23);
}

// Crash (power loss) at every file-system operation of a workload that pre-fills, rolls
// files and flushes now and then: recovery always leaves a valid prefix that holds at least
// the flushed units, and writing continues right after it.
TEST(ConsumeQueueCrashTest, PowerLossAtEveryOpLeavesAValidPrefix) {
  constexpr int64_t kFirst = 7;
  constexpr int64_t kLast = 40;
  uint64_t crashes = 0;
  for (uint64_t n = 1;; ++n) {
    FaultInjectionFileSystem fs;
    ASSERT_OK(fs.CreateDirs(kRoot));
    fs.CrashAtOp(n, CrashMode::kPowerLoss);
    int64_t flushed_units = kFirst;  // units below this are known durable
    {
      auto cq = ConsumeQueue::Open(fs, kRoot, kTopic, 0, Tiny());
      if (cq.ok()) {
        for (int64_t q = kFirst; q < kLast; ++q) {
          if (!PutExpected(**cq, q).ok()) break;
          if (q % 6 == 0) {
            if (!(*cq)->Flush(FlushMethod::kMsync).ok()) break;
            flushed_units = q + 1;
          }
        }
      }
    }
    if (!fs.crashed()) break;  // the workload has fewer than n ops
    ++crashes;
    SCOPED_TRACE("crash at op " + std::to_string(n));
    ASSERT_OK(fs.Reboot());
    auto reopened = ConsumeQueue::Open(fs, kRoot, kTopic, 0, Tiny());
    ASSERT_OK(reopened.status());
    ConsumeQueue& cq = **reopened;
    ASSERT_OK(cq.Recover());
    const int64_t max = cq.MaxOffset().value();
    if (flushed_units > kFirst) {
      ASSERT_GE(max, flushed_units);
    }
    ASSERT_LE(max, kLast);
    if (max > 0) {
      ASSERT_GT(max, kFirst);  // pre-fill never alone
      EXPECT_EQ(cq.MinOffset(), QueueOffset(kFirst));
      for (int64_t q = kFirst; q < max; ++q) {
        auto u = cq.GetUnit(QueueOffset(q));
        ASSERT_TRUE(u.ok()) << "unit " << q << ": " << u.status();
        ASSERT_EQ(*u, Expected(q)) << "unit " << q;
      }
    }
    // The dispatcher replays from the start; the queue ends up complete.
    for (int64_t q = kFirst; q < kLast; ++q) {
      ASSERT_OK(PutExpected(cq, q));
    }
    ASSERT_EQ(cq.MaxOffset(), QueueOffset(kLast));
  }
  // 4 files created (7 ops each with the directory sync), blocks reserved, 6 flushes.
  EXPECT_GT(crashes, 30u);
}

}  // namespace
}  // namespace rocketstore
