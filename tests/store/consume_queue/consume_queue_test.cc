// ConsumeQueue: failure paths, the golden bytes, rolling, reads, initialisation at an
// offset, time search, deletion and concurrent readers. Recovery and crashes are in
// consume_queue_recovery_test.cc.
#include "store/consume_queue/consume_queue.h"

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
#include "store/segment/file_names.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;
using namespace consume_queue_testing;  // NOLINT(build/namespaces): the shared fixture

TEST_F(ConsumeQueueTest, GapIsRefusedAndLeavesTheQueueUnchanged) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 5);
  Status s = PutExpected(*cq, 6);
  EXPECT_THAT(s, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_NE(s.message().find("gap"), std::string::npos) << s;
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(5));
  // Across a file boundary too.
  PutRange(*cq, 5, 10);
  EXPECT_THAT(PutExpected(*cq, 11), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_EQ(cq->file_count(), 1u);
  ASSERT_OK(PutExpected(*cq, 10));
  ExpectUnits(*cq, 0, 11);
}

TEST_F(ConsumeQueueTest, InvalidUnitsAreRejected) {
  auto cq = OpenQueue();
  EXPECT_THAT(cq->PutUnit(PhysicalOffset(0), 0, 0, QueueOffset(0)),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cq->PutUnit(PhysicalOffset(-1), 10, 0, QueueOffset(0)),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cq->PutUnit(PhysicalOffset(0), 10, 0, QueueOffset(-1)),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cq->PutUnit(PhysicalOffset(0), 10, 0, QueueOffset(INT64_MAX / 4)),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cq->InitializeWithOffset(QueueOffset(-1)), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->file_count(), 0u);
}

TEST_F(ConsumeQueueTest, PhysicalOffsetsMustIncrease) {
  auto cq = OpenQueue();
  ASSERT_OK(cq->PutUnit(PhysicalOffset(1000), 100, 0, QueueOffset(0)));
  // Ends past the last record (not a replay) but starts inside it.
  EXPECT_THAT(cq->PutUnit(PhysicalOffset(500), 700, 0, QueueOffset(1)),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(1));
}

TEST_F(ConsumeQueueTest, LoadedQueueMustBeRecoveredBeforeWriting) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 3);
  }
  auto cq = OpenQueue();
  EXPECT_THAT(PutExpected(*cq, 3), StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK(cq->Recover());
  ASSERT_OK(PutExpected(*cq, 3));
  ExpectUnits(*cq, 0, 4);
}

TEST_F(ConsumeQueueTest, WrongSizeFileFailsToLoad) {
  {
    auto cq = OpenQueue();
    PutRange(*cq, 0, 12);
  }
  ASSERT_OK(fs_.TruncateTo(FilePath(200), 150));  // a torn file: not a consume-queue file
  auto cq = ConsumeQueue::Open(fs_, kRoot, kTopic, 0, Tiny());
  EXPECT_THAT(cq, StatusIs(StatusCode::kCorruption));
  // The configured size matters too.
  auto other = ConsumeQueue::Open(fs_, kRoot, kTopic, 0, Tiny(20));
  EXPECT_THAT(other, StatusIs(StatusCode::kCorruption));
}

TEST_F(ConsumeQueueTest, BadTopicNamesAndQueueIdsAreRejected) {
  const std::string too_long(128, 't');
  for (const std::string& topic :
       {std::string(), std::string("."), std::string(".."), std::string("a/b"), std::string("../x"),
        std::string("a\0b", 3), too_long}) {
    EXPECT_THAT(ConsumeQueue::Open(fs_, kRoot, topic, 0, Tiny()),
                StatusIs(StatusCode::kInvalidArgument))
        << "topic '" << topic << "'";
    EXPECT_THAT(ValidateTopicDirName(topic), StatusIs(StatusCode::kInvalidArgument));
  }
  EXPECT_THAT(ConsumeQueue::Open(fs_, kRoot, kTopic, -1, Tiny()),
              StatusIs(StatusCode::kInvalidArgument));
  // Nothing was created anywhere.
  EXPECT_FALSE(fs_.Exists(kRoot));
  EXPECT_OK(ConsumeQueue::Open(fs_, kRoot, std::string(127, 't'), 0, Tiny()));
  EXPECT_OK(ConsumeQueue::Open(fs_, kRoot, "...", 0, Tiny()));  // a plain name
}

TEST_F(ConsumeQueueTest, BadOptionsAreRejected) {
  EXPECT_THAT(ConsumeQueue::Open(fs_, kRoot, kTopic, 0, Tiny(0)),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ConsumeQueue::Open(fs_, kRoot, kTopic, 0, Tiny(int64_t{1} << 40)),
              StatusIs(StatusCode::kInvalidArgument));
  ConsumeQueue::Options o = Tiny();
  o.reserve_chunk_bytes = 0;
  EXPECT_THAT(ConsumeQueue::Open(fs_, kRoot, kTopic, 0, o), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(ConsumeQueueTest, FullDiskIsAnErrorAndARetryContinues) {
  auto cq = OpenQueue();
  fs_.SetCapacityBytes(0);  // the sparse file can be created; no block can be reserved
  EXPECT_THAT(PutExpected(*cq, 0), StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  PutRange(*cq, 0, 10);
  fs_.SetCapacityBytes(0);
  EXPECT_THAT(PutExpected(*cq, 10), StatusIs(StatusCode::kNoSpace));  // the next file
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(10));
  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  PutRange(*cq, 10, 12);
  ExpectUnits(*cq, 0, 12);
}

TEST_F(ConsumeQueueTest, FullDiskDuringPreFillThenRetry) {
  auto cq = OpenQueue();
  fs_.SetCapacityBytes(0);
  EXPECT_THAT(PutExpected(*cq, 13), StatusIs(StatusCode::kNoSpace));
  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  ASSERT_OK(PutExpected(*cq, 13));  // the empty file made by the failed try is reused
  EXPECT_EQ(cq->MinOffset(), QueueOffset(13));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(14));
  ExpectUnits(*cq, 13, 14);
}

// ---- format on disk ---------------------------------------------------------------------

TEST_F(ConsumeQueueTest, GoldenUnitsOfExampleCByteForByte) {
  auto cq = OpenQueue(Tiny(300000));
  const int64_t tag_a = JavaStringHash("TagA");
  ASSERT_OK(cq->PutUnit(PhysicalOffset(0), 122, tag_a, QueueOffset(0)));
  ASSERT_OK(cq->PutUnit(PhysicalOffset(256), 187, tag_a, QueueOffset(1)));
  const std::string file = FilePath(0);
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat(file));
  EXPECT_EQ(info.size, 6000000u);
  EXPECT_EQ(FileBytes(file, 0, 20),
            "0000000000000000"
            "0000007A"
            "000000000027A807");
  EXPECT_EQ(FileBytes(file, 20, 20),
            "0000000000000100"
            "000000BB"
            "000000000027A807");
  EXPECT_EQ(FileBytes(file, 40, 20), std::string(40, '0'));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(2));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(443));
  ASSERT_OK_AND_ASSIGN(Unit u1, cq->GetUnit(QueueOffset(1)));
  EXPECT_EQ(u1, (Unit{PhysicalOffset(256), 187, 2598919}));
}

TEST_F(ConsumeQueueTest, FilesRollAndAreNamedByLogicalByteOffset) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  EXPECT_EQ(cq->file_count(), 3u);
  for (int64_t start : {0, 200, 400}) {
    ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat(FilePath(start)));
    EXPECT_EQ(info.size, 200u) << start;
  }
  // Unit 10 opens file 200: record 1000 (0x3E8), 100 bytes, tag 10.
  EXPECT_EQ(FileBytes(FilePath(200), 0, 20),
            "00000000000003E8"
            "00000064"
            "000000000000000A");
  EXPECT_EQ(cq->MinOffset(), QueueOffset(0));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(25));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(2500));
  EXPECT_EQ(cq->RollNextFile(QueueOffset(5)), QueueOffset(10));
  EXPECT_EQ(cq->RollNextFile(QueueOffset(10)), QueueOffset(20));
  ExpectUnits(*cq, 0, 25);
}

TEST_F(ConsumeQueueTest, GetUnitsIsAZeroCopyViewEndingAtTheFileEnd) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  ASSERT_OK_AND_ASSIGN(ConsumeQueue::UnitRange r, cq->GetUnits(QueueOffset(5), 100));
  EXPECT_EQ(r.first, QueueOffset(5));
  EXPECT_EQ(r.size(), 5);  // units 5..9: the rest of file 0
  EXPECT_EQ(r.end(), QueueOffset(10));
  EXPECT_EQ(r.bytes.data(), r.file->data() + 5 * 20);  // points into the map
  for (int i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], Expected(5 + i));

  ASSERT_OK_AND_ASSIGN(r, cq->GetUnits(QueueOffset(10), 3));
  EXPECT_EQ(r.size(), 3);
  ASSERT_OK_AND_ASSIGN(r, cq->GetUnits(QueueOffset(22), 100));
  EXPECT_EQ(r.size(), 3);  // the readable part of the last file

  EXPECT_THAT(cq->GetUnits(QueueOffset(25), 1), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(cq->GetUnits(QueueOffset(1000), 1), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(cq->GetUnits(QueueOffset(-1), 1), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(cq->GetUnits(QueueOffset(0), 0), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cq->GetUnit(QueueOffset(25)), StatusIs(StatusCode::kOutOfRange));
}

TEST_F(ConsumeQueueTest, EmptyQueue) {
  auto cq = OpenQueue();
  EXPECT_EQ(cq->MinOffset(), QueueOffset(0));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
  EXPECT_THAT(cq->GetUnit(QueueOffset(0)), StatusIs(StatusCode::kOutOfRange));
  ASSERT_OK(cq->Recover());
  ASSERT_OK(cq->TruncateDirty(PhysicalOffset(0)));
  cq->CorrectMinOffset(PhysicalOffset(100));
  ASSERT_OK(cq->DeleteFilesBelow(PhysicalOffset(100)));
  EXPECT_FALSE(cq->HasDirtyPages(0));
  ASSERT_OK_AND_ASSIGN(PhysicalOffset flushed, cq->Flush(FlushMethod::kMsync));
  EXPECT_EQ(flushed, PhysicalOffset(0));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
}

TEST_F(ConsumeQueueTest, DestroyRemovesEveryFile) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  ASSERT_OK(cq->Destroy());
  EXPECT_EQ(cq->file_count(), 0u);
  EXPECT_FALSE(fs_.Exists(FilePath(0)));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(0));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
  PutRange(*cq, 30, 32);  // starts afresh, pre-filled
  EXPECT_EQ(cq->MinOffset(), QueueOffset(30));
  ExpectUnits(*cq, 30, 32);
}

// ---- pre-fill ---------------------------------------------------------------------------

TEST_F(ConsumeQueueTest, FirstUnitAtOffset100IsPreFilled) {
  {
    auto cq = OpenQueue(Tiny(30));  // 600-byte files; unit 100 is at 2000 in file 1800
    ASSERT_OK(cq->PutUnit(PhysicalOffset(5000), 100, 7, QueueOffset(100)));
    EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(101));
    EXPECT_EQ(cq->file_count(), 1u);
    EXPECT_THAT(cq->GetUnit(QueueOffset(95)), StatusIs(StatusCode::kNotFound));  // blank
    EXPECT_THAT(cq->GetUnit(QueueOffset(0)), StatusIs(StatusCode::kNotFound));
    ASSERT_OK(cq->Flush(FlushMethod::kMsync));
  }
  const std::string file = FilePath(1800);
  ASSERT_TRUE(fs_.Exists(file));
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(FileBytes(file, i * 20, 20),
              "0000000000000000"
              "7FFFFFFF"
              "0000000000000000")
        << "blank unit " << i;
  }
  EXPECT_EQ(FileBytes(file, 200, 20),
            "0000000000001388"
            "00000064"
            "0000000000000007");

  auto cq = Reopen(Tiny(30));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(101));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(5100));  // blank units do not count
  cq->CorrectMinOffset(PhysicalOffset(0));  // blank units point at 0 but are not messages
  EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
  ASSERT_OK(cq->PutUnit(PhysicalOffset(5100), 100, 7, QueueOffset(101)));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(102));
}

// RocketMQ's ConsumeQueueTest.testFillBankThenCorrectMinOffset.
TEST_F(ConsumeQueueTest, InitializeWithOffsetSurvivesReload) {
  {
    auto cq = OpenQueue(Tiny(30));
    PutRange(*cq, 0, 3);
    ASSERT_OK(cq->InitializeWithOffset(QueueOffset(100)));
    EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(100));
    EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(-1));
    EXPECT_FALSE(fs_.Exists(FilePath(0)));
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));  // it was flushed
  ASSERT_OK(fs_.Reboot());
  auto cq = Reopen(Tiny(30));
  cq->CorrectMinOffset(PhysicalOffset(1));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(100));
  cq->CorrectMinOffset(PhysicalOffset(0));  // RocketMQ's commented-out TODO case
  EXPECT_EQ(cq->MinOffset(), QueueOffset(100));
  EXPECT_OK(PutExpected(*cq, 99));  // before the start: already "written"
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(100));
  ASSERT_OK(PutExpected(*cq, 100));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(101));
  ExpectUnits(*cq, 100, 101);
}

TEST_F(ConsumeQueueTest, InitializeAtAFileBoundaryKeepsAnEmptyFile) {
  {
    auto cq = OpenQueue();
    ASSERT_OK(cq->InitializeWithOffset(QueueOffset(20)));
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(20));
  }
  auto cq = Reopen();
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_EQ(cq->MinOffset(), QueueOffset(20));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(20));
  EXPECT_THAT(PutExpected(*cq, 21), StatusIs(StatusCode::kOk));  // no unit yet: may start later
  EXPECT_EQ(cq->MinOffset(), QueueOffset(21));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(22));
}

// ---- recovery ---------------------------------------------------------------------------

TEST_F(ConsumeQueueTest, RePuttingIsIdempotent) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 15);
  ASSERT_OK_AND_ASSIGN(std::string before, fs_.ReadWholeFile(FilePath(200)));
  ASSERT_OK(PutExpected(*cq, 5));   // already dispatched (offset + size <= end)
  ASSERT_OK(PutExpected(*cq, 14));  // the last one
  // Same position, a record past the end: the position is taken, nothing is written.
  ASSERT_OK(cq->PutUnit(PhysicalOffset(9000), 10, 0, QueueOffset(3)));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(15));
  EXPECT_EQ(cq->LastPhysicalEnd(), PhysicalOffset(1500));
  ASSERT_OK_AND_ASSIGN(std::string after, fs_.ReadWholeFile(FilePath(200)));
  EXPECT_EQ(before, after);

  cq.reset();
  cq = Reopen();
  PutRange(*cq, 0, 20);  // the dispatcher replays from an earlier point
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(20));
  ExpectUnits(*cq, 0, 20);
}

TEST_F(ConsumeQueueTest, OffsetByTimeFindsTheFirstUnitAtOrAfterTheTime) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 20);
  // Unit q was stored at 1000 + 10 * (q / 2): pairs share a timestamp.
  std::atomic<int> calls{0};
  auto store_time = [&](PhysicalOffset offset, int32_t size) -> Result<int64_t> {
    ++calls;
    EXPECT_EQ(size, 100);
    return 1000 + 10 * (offset.value() / 100 / 2);
  };
  auto at = [&](int64_t ts) {
    auto r = cq->OffsetByTime(ts, store_time);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->value() : -1;
  };
  EXPECT_EQ(at(1030), 6);   // exact: the first of the pair
  EXPECT_EQ(at(1035), 8);   // between: the next one
  EXPECT_EQ(at(0), 0);      // before the first
  EXPECT_EQ(at(1090), 18);  // the last pair
  EXPECT_EQ(at(5000), 20);  // after the last: max
  calls = 0;
  at(1035);
  EXPECT_LE(calls.load(), 6);  // a binary search, not a scan

  cq->CorrectMinOffset(PhysicalOffset(1200));
  EXPECT_EQ(at(0), 12);  // clamped to min
  // Records that are gone count as older than anything.
  auto partly_gone = [&](PhysicalOffset offset, int32_t size) -> Result<int64_t> {
    if (offset.value() < 1600) return NotFound("removed");
    return store_time(offset, size);
  };
  ASSERT_OK_AND_ASSIGN(QueueOffset q, cq->OffsetByTime(0, partly_gone));
  EXPECT_EQ(q, QueueOffset(16));
  // Other errors are passed on.
  auto failing = [](PhysicalOffset, int32_t) -> Result<int64_t> { return Corruption("bad"); };
  EXPECT_THAT(cq->OffsetByTime(1030, failing), StatusIs(StatusCode::kCorruption));

  auto empty = ConsumeQueue::Open(fs_, kRoot, kTopic, 1, Tiny());
  ASSERT_OK(empty.status());
  ASSERT_OK_AND_ASSIGN(q, (*empty)->OffsetByTime(1030, store_time));
  EXPECT_EQ(q, QueueOffset(0));
}

TEST_F(ConsumeQueueTest, OffsetByTimeRocketMq498SkipsRecordsThatAreGone) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 20);
  auto store_time = [](PhysicalOffset offset, int32_t) -> Result<int64_t> {
    if (offset.value() < 800) return NotFound("removed");  // units 0..7
    return 1000 + 10 * (offset.value() / 100);
  };
  auto at = [&](int64_t ts) {
    auto r = cq->OffsetByTimeRocketMq498(ts, store_time);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->value() : -1;
  };
  EXPECT_EQ(at(0), 8);                         // the first unit whose record is still there
  EXPECT_EQ(at(1100), 10);                     // exact
  EXPECT_EQ(at(1104), 10);                     // closer before
  EXPECT_EQ(at(1106), 11);                     // closer after
  EXPECT_EQ(at(9999), 19);                     // the last unit
  cq->CorrectMinOffset(PhysicalOffset(1200));  // min offset 12, in the second file
  EXPECT_EQ(at(1150), 15);
  EXPECT_EQ(at(1115), 12);  // the search starts at the min offset, not at unit 11 (1110)
  auto failing = [](PhysicalOffset, int32_t) -> Result<int64_t> { return Corruption("bad"); };
  EXPECT_THAT(cq->OffsetByTimeRocketMq498(1100, failing), StatusIs(StatusCode::kCorruption));
}

// ---- retention ------------------------------------------------------------------------------

TEST_F(ConsumeQueueTest, DeleteFilesBelowKeepsTheLastFile) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  ASSERT_OK(cq->DeleteFilesBelow(PhysicalOffset(1000)));  // file 0 ends with record 900
  EXPECT_EQ(cq->file_count(), 2u);
  EXPECT_FALSE(fs_.Exists(FilePath(0)));
  EXPECT_EQ(cq->MinOffset(), QueueOffset(10));
  EXPECT_THAT(cq->GetUnit(QueueOffset(5)), StatusIs(StatusCode::kNotFound));
  ExpectUnits(*cq, 10, 25);
  PutRange(*cq, 25, 27);  // the writer carries on in the reloaded last file

  ASSERT_OK(cq->DeleteFilesBelow(PhysicalOffset(1950)));  // file 200 ends with 1900
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_EQ(cq->MinOffset(), QueueOffset(20));

  ASSERT_OK(cq->DeleteFilesBelow(PhysicalOffset(100000)));  // never the last file
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_EQ(cq->MinOffset(), QueueOffset(27));
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(27));
  PutRange(*cq, 27, 29);
  ExpectUnits(*cq, 27, 29);
  // Written units were made durable before the files were reloaded.
  cq.reset();
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  cq = Reopen();
  EXPECT_GE(cq->MaxOffset(), QueueOffset(27));
  cq->CorrectMinOffset(PhysicalOffset(100000));
  EXPECT_EQ(cq->MinOffset(), cq->MaxOffset());
}

TEST_F(ConsumeQueueTest, DeleteFilesBelowRetriesAfterAFailedRemoval) {
  auto cq = OpenQueue();
  PutRange(*cq, 0, 25);
  fs_.FailOpsOfKind(OpKind::kRemove, EIO);
  EXPECT_THAT(cq->DeleteFilesBelow(PhysicalOffset(2000)), StatusIs(StatusCode::kIOError));
  fs_.ClearFailures();
  ExpectUnits(*cq, 0, 25);  // still readable
  ASSERT_OK(cq->DeleteFilesBelow(PhysicalOffset(2000)));
  EXPECT_EQ(cq->file_count(), 1u);
  EXPECT_EQ(cq->MinOffset(), QueueOffset(20));
}

// ---- concurrency ----------------------------------------------------------------------------

TEST_F(ConsumeQueueTest, ConcurrentReadersNeverSeeTornUnits) {
  auto cq = OpenQueue(Tiny(100));
  constexpr int64_t kUnits = 20000;
  std::atomic<bool> done{false};
  std::atomic<bool> failed{false};
  std::atomic<int> deletions{0};
  std::thread writer([&] {
    for (int64_t q = 0; q < kUnits && !failed.load(); ++q) {
      // Halfway, let the cleaner delete at least once, so that deletion really overlaps
      // the reads even when the scheduler runs the writer to the end in one go.
      while (q == kUnits / 2 && deletions.load() == 0 && !failed.load()) {
        std::this_thread::yield();
      }
      Status s = PutExpected(*cq, q);
      if (!s.ok()) {
        ADD_FAILURE() << s;
        failed = true;
      }
    }
    done = true;
  });
  std::thread cleaner([&] {
    // Retention runs concurrently: files are deleted and reloaded under the readers.
    int64_t min_phys = 0;
    while (!done.load() && !failed.load()) {
      min_phys = std::min<int64_t>(min_phys + 5000, cq->LastPhysicalEnd().value() - 50000);
      if (min_phys <= 0) {
        std::this_thread::yield();
        continue;
      }
      Status s = cq->DeleteFilesBelow(PhysicalOffset(min_phys));
      if (!s.ok()) {
        ADD_FAILURE() << s;
        failed = true;
      }
      if (cq->MinOffset() > QueueOffset(0)) deletions.fetch_add(1);
    }
  });
  // The reader (this thread) follows the writer, checking every unit it gets.
  int64_t next = 0;
  int64_t checked = 0;
  while (!failed.load()) {
    const bool finished = done.load();
    const QueueOffset min = cq->MinOffset();
    const QueueOffset max = cq->MaxOffset();
    if (min > max) {
      ADD_FAILURE() << "min " << min << " > max " << max;
      failed = true;
      break;
    }
    next = std::max(next, min.value());
    if (next >= max.value()) {
      if (finished) break;
      std::this_thread::yield();
      continue;
    }
    auto range = cq->GetUnits(QueueOffset(next), 64);
    if (!range.ok()) {
      if (range.status().code() != StatusCode::kNotFound) {  // deleted meanwhile is fine
        ADD_FAILURE() << range.status();
        failed = true;
      }
      continue;
    }
    for (int i = 0; i < range->size(); ++i) {
      if ((*range)[i] != Expected(next + i)) {
        ADD_FAILURE() << "torn or wrong unit at queue offset " << next + i;
        failed = true;
        break;
      }
    }
    next += range->size();
    checked += range->size();
  }
  writer.join();
  cleaner.join();
  EXPECT_FALSE(failed.load());
  EXPECT_EQ(next, kUnits);
  EXPECT_GT(checked, 0);
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(kUnits));
  EXPECT_GT(cq->MinOffset(), QueueOffset(0));  // files were deleted under the reader
}

// ---- crashes --------------------------------------------------------------------------------

}  // namespace
}  // namespace rocketstore
