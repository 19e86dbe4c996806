// FaultInjectionFileSystem: injected errors, disk space (capacity counts allocated
// blocks), writes through a mapping into holes, locks, which operations are counted, and
// mappings and buffers. Crash modes are in fault_injection_file_system_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "base/clock.h"
#include "fault_injection_fixture.h"  // this directory
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using fault_injection_testing::FaultInjectionFileSystemTest;
using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// ---- Error injection ----

TEST_F(FaultInjectionFileSystemTest, FailOpAtEioFailsOnlyThatOpWithoutEffect) {
  auto f = Create("/d/f");
  fs_.FailOpAt(2, EIO);
  ASSERT_OK(f->PWrite(0, "a", 1));
  Status s = f->PWrite(1, "b", 1);
  EXPECT_THAT(s, StatusIs(StatusCode::kIOError));
  EXPECT_EQ(s.error_number(), EIO);
  EXPECT_THAT(s.message(), HasSubstr("/d/f"));
  EXPECT_EQ(Read("/d/f"), "a");
  ASSERT_OK(f->PWrite(1, "c", 1));
  EXPECT_EQ(Read("/d/f"), "ac");
  EXPECT_FALSE(fs_.crashed());
}

TEST_F(FaultInjectionFileSystemTest, FailOpAtEnospcIsNoSpace) {
  auto f = Create("/d/f");
  fs_.FailOpAt(1, ENOSPC);
  EXPECT_THAT(f->Allocate(0, 4096), StatusIs(StatusCode::kNoSpace));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 0u);
  EXPECT_OK(f->Allocate(0, 4096));
}

TEST_F(FaultInjectionFileSystemTest, FailOpAtRenameHasNoEffect) {
  CreateDurable("/d/a", "A");
  fs_.FailOpAt(1, EIO);
  EXPECT_THAT(fs_.Rename("/d/a", "/d/b"), StatusIs(StatusCode::kIOError));
  EXPECT_TRUE(fs_.Exists("/d/a"));
  EXPECT_FALSE(fs_.Exists("/d/b"));
}

TEST_F(FaultInjectionFileSystemTest, FailOpsOfKindSyncUntilCleared) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(4096));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  fs_.FailOpsOfKind(OpKind::kSync, EIO);
  for (int i = 0; i < 3; ++i) EXPECT_THAT(f->Sync(), StatusIs(StatusCode::kIOError));
  EXPECT_OK(m->Sync(0, 4096));  // kMapSync is another kind
  EXPECT_OK(fs_.SyncDir("/d"));
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile("/d/f"));
  EXPECT_EQ(durable.size(), 4096u);  // from the msync only
  fs_.ClearFailures();
  EXPECT_OK(f->Sync());
}

// ---- Disk space: capacity counts allocated blocks ----

constexpr uint64_t kBlock = 4096;

TEST_F(FaultInjectionFileSystemTest, CapacityCountsAllocatedBlocks) {
  fs_.SetCapacityBytes(4 * kBlock + 100);
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 8000));  // 2 blocks
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.total_bytes, 4 * kBlock + 100);
  EXPECT_EQ(u.free_bytes, 2 * kBlock + 100);
  EXPECT_EQ(Allocated("/d/f"), 2 * kBlock);
  // Allocate past the capacity: ENOSPC, and nothing changes (size, allocation, usage).
  auto g = Create("/d/g");
  Status s = g->Allocate(0, 3 * kBlock);
  EXPECT_THAT(s, StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(s.error_number(), ENOSPC);
  ASSERT_OK_AND_ASSIGN(uint64_t size, g->Size());
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(Allocated("/d/g"), uint64_t{0});
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 2 * kBlock + 100);
  // PWrite allocates the blocks it touches, with the same limit.
  const std::string big(2 * kBlock + 1, 'x');  // touches 3 blocks
  EXPECT_THAT(g->PWrite(0, big.data(), big.size()), StatusIs(StatusCode::kNoSpace));
  ASSERT_OK_AND_ASSIGN(size, g->Size());
  EXPECT_EQ(size, 0u);
  ASSERT_OK(g->PWrite(kBlock, big.data(), 2 * kBlock));  // blocks 1 and 2; 0 is a hole
  ASSERT_OK_AND_ASSIGN(size, g->Size());
  EXPECT_EQ(size, 3 * kBlock);
  EXPECT_EQ(Allocated("/d/g"), 2 * kBlock);
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 100u);
  EXPECT_THAT(g->PWrite(0, "h", 1), StatusIs(StatusCode::kNoSpace));  // the hole
  EXPECT_OK(g->PWrite(5000, "y", 1));                                 // allocated: free
  // Removing the last link frees the file's blocks; a retry then works.
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, 2 * kBlock + 100);
  EXPECT_OK(g->PWrite(0, "h", 1));
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, kBlock + 100);
}

TEST_F(FaultInjectionFileSystemTest, SparseTruncateLargerThanCapacitySucceeds) {
  fs_.SetCapacityBytes(16 * kBlock);
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(uint64_t{16} << 20));  // 16 MiB, 256 times the capacity
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.size, uint64_t{16} << 20);
  EXPECT_EQ(Allocated("/d/f"), uint64_t{0});
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 16 * kBlock);
  // Allocating inside the existing size is what fails on a full disk.
  ASSERT_OK(f->Allocate(kBlock, 16 * kBlock));
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 0u);
  EXPECT_THAT(f->Allocate(0, 1), StatusIs(StatusCode::kNoSpace));
  // Partly allocated range with one missing block: refused as a whole, no effect.
  EXPECT_THAT(f->Allocate(kBlock, 17 * kBlock), StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(Allocated("/d/f"), 16 * kBlock);
  // Shrinking frees the blocks wholly past the new size (the partial last one stays).
  ASSERT_OK(f->Truncate(2 * kBlock + 1));
  EXPECT_EQ(Allocated("/d/f"), 2 * kBlock);  // blocks 1, 2
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 14 * kBlock);
  // Growing again allocates nothing; the freed blocks are holes (zeros).
  ASSERT_OK(f->Truncate(8 * kBlock));
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 14 * kBlock);
  EXPECT_EQ(Read("/d/f"), std::string(8 * kBlock, '\0'));
}

TEST_F(FaultInjectionFileSystemTest, AllocatingAnAllocatedRangeCostsNothing) {
  fs_.SetCapacityBytes(2 * kBlock);
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 2 * kBlock));
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 0u);
  EXPECT_OK(f->Allocate(0, 2 * kBlock));
  EXPECT_OK(f->Allocate(100, 5000));
  EXPECT_OK(f->Allocate(2 * kBlock - 1, 1));
  const std::string all(2 * kBlock, 'z');
  EXPECT_OK(f->PWrite(0, all.data(), all.size()));
  EXPECT_THAT(f->Allocate(2 * kBlock - 1, 2), StatusIs(StatusCode::kNoSpace));  // block 2
  EXPECT_THAT(f->PWrite(2 * kBlock, "!", 1), StatusIs(StatusCode::kNoSpace));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 2 * kBlock);
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/d"));
  EXPECT_EQ(u.free_bytes, 0u);
  EXPECT_EQ(u.total_bytes, 2 * kBlock);
}

TEST_F(FaultInjectionFileSystemTest, PWriteAllocatesOnlyTheBlocksItTouches) {
  auto f = Create("/d/f");
  ASSERT_OK(f->PWrite(2 * kBlock + 10, "z", 1));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 2 * kBlock + 11);
  EXPECT_EQ(Allocated("/d/f"), kBlock);       // blocks 0, 1: holes
  ASSERT_OK(f->PWrite(kBlock - 1, "ab", 2));  // blocks 0 and 1
  EXPECT_EQ(Allocated("/d/f"), 3 * kBlock);
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, FaultInjectionFileSystem::kDefaultCapacityBytes - 3 * kBlock);
}

TEST_F(FaultInjectionFileSystemTest, RemovalFreesBlocksEvenWithOpenHandles) {
  fs_.SetCapacityBytes(4 * kBlock);
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 3 * kBlock));
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, 4 * kBlock);
  ASSERT_OK(f->PWrite(3 * kBlock, "x", 1));  // the unlinked file no longer counts
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, 4 * kBlock);
  auto g = Create("/d/g");
  EXPECT_OK(g->Allocate(0, 4 * kBlock));
}

TEST_F(FaultInjectionFileSystemTest, RenameOverFileFreesItsSpace) {
  fs_.SetCapacityBytes(4 * kBlock);
  CreateDurable("/d/a", std::string(40, 'a'));    // 1 block
  CreateDurable("/d/b", std::string(5000, 'b'));  // 2 blocks
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, kBlock);
  ASSERT_OK(fs_.Rename("/d/a", "/d/b"));
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, 3 * kBlock);
  Crash(CrashMode::kPowerLoss);  // rename undone: both files again
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, kBlock);
}

TEST_F(FaultInjectionFileSystemTest, AllocationSurvivesCrashesWithinTheSurvivingSize) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->Allocate(0, 2 * kBlock));
  ASSERT_OK(f->Sync());                            // durable size 2 blocks
  ASSERT_OK(f->Allocate(2 * kBlock, 2 * kBlock));  // size 4 blocks, not durable
  ASSERT_OK(f->Truncate(5 * kBlock));              // a sparse fifth block
  f.reset();
  Crash(CrashMode::kProcessCrash);  // as it is
  EXPECT_EQ(Allocated("/d/f"), 4 * kBlock);
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, FaultInjectionFileSystem::kDefaultCapacityBytes - 4 * kBlock);
  Crash(CrashMode::kPowerLoss);  // the unsynced tail is gone with its blocks
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.size, 2 * kBlock);
  EXPECT_EQ(Allocated("/d/f"), 2 * kBlock);
  ASSERT_OK_AND_ASSIGN(u, fs_.GetDiskUsage("/"));
  EXPECT_EQ(u.free_bytes, FaultInjectionFileSystem::kDefaultCapacityBytes - 2 * kBlock);
}

// ---- Writes through a mapping into holes ----

TEST_F(FaultInjectionFileSystemTest, MappedWriteIntoHoleFailsSyncs) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->Truncate(3 * kBlock));
  ASSERT_OK(f->Allocate(kBlock, kBlock));    // block 1
  ASSERT_OK(f->PWrite(2 * kBlock, "p", 1));  // block 2
  ASSERT_OK(f->Sync());
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 3 * kBlock, /*writable=*/true));
  // Allocated or PWritten blocks: fine.
  std::memcpy(m->data() + kBlock + 10, "alloc", 5);
  std::memcpy(m->data() + 2 * kBlock + 10, "pwrite", 6);
  ASSERT_OK(m->Sync(kBlock, 2 * kBlock));
  ASSERT_OK(f->Sync());
  // Block 0 is a hole: a write there would SIGBUS on a full disk.
  std::memcpy(m->data() + 100, "hole", 4);
  ASSERT_OK(m->Sync(kBlock, kBlock));  // another range: not checked
  Status s = m->Sync(0, 200);
  EXPECT_THAT(s, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(s.message(), HasSubstr("unallocated block 0"));
  EXPECT_THAT(s.message(), HasSubstr("SIGBUS"));
  EXPECT_THAT(f->Sync(), StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile("/d/f"));
  EXPECT_EQ(durable.substr(100, 4), std::string(4, '\0'));  // no effect
  // Once the block is allocated the syncs work.
  ASSERT_OK(f->Allocate(0, 1));
  ASSERT_OK(m->Sync(0, 200));
  ASSERT_OK(f->Sync());
  Crash(CrashMode::kPowerLoss);
  ASSERT_OK_AND_ASSIGN(std::string got, fs_.ReadWholeFile("/d/f"));
  EXPECT_EQ(got.substr(100, 4), "hole");
  EXPECT_EQ(got.substr(kBlock + 10, 5), "alloc");
  EXPECT_EQ(got.substr(2 * kBlock + 10, 6), "pwrite");
}

TEST_F(FaultInjectionFileSystemTest, FileSyncFindsAHoleWriteAfterTheMappingIsGone) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(2 * kBlock));
  {
    ASSERT_OK_AND_ASSIGN(auto m, f->Map(kBlock, kBlock, /*writable=*/true));
    m->data()[7] = 'w';
  }
  EXPECT_THAT(f->Sync(), StatusIs(StatusCode::kFailedPrecondition));
  fs_.SetCheckMappedWritesAllocated(false);
  EXPECT_OK(f->Sync());
  // A process crash keeps the page: its block is allocated afterwards.
  Crash(CrashMode::kProcessCrash);
  EXPECT_EQ(Allocated("/d/f"), kBlock);
  fs_.SetCheckMappedWritesAllocated(true);
  auto g = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(g.status());
  ASSERT_OK_AND_ASSIGN(auto m, (*g)->Map(0, 2 * kBlock, /*writable=*/true));
  EXPECT_OK(m->Sync(0, 2 * kBlock));
  EXPECT_OK((*g)->Sync());
}

// ---- Locks ----

TEST_F(FaultInjectionFileSystemTest, LockConflictsAndIsReleasedByReboot) {
  ASSERT_OK_AND_ASSIGN(auto lock, fs_.LockFile("/d/lock"));
  EXPECT_THAT(fs_.LockFile("/d//lock"), StatusIs(StatusCode::kAlreadyExists));
  ASSERT_OK(fs_.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs_.Reboot());
  // The process that held the lock died: the new one can take it...
  ASSERT_OK_AND_ASSIGN(auto lock2, fs_.LockFile("/d/lock"));
  // ...and destroying the dead process's FileLock does not release the new one.
  lock.reset();
  EXPECT_THAT(fs_.LockFile("/d/lock"), StatusIs(StatusCode::kAlreadyExists));
  lock2.reset();
  EXPECT_OK(fs_.LockFile("/d/lock"));
}

// ---- Counting ----

TEST_F(FaultInjectionFileSystemTest, OpCountCountsOnlyMutatingOps) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(8192));
  const uint64_t start = fs_.op_count();
  // Not counted.
  char buf[8];
  ASSERT_OK(f->PRead(0, buf, sizeof(buf)));
  ASSERT_OK(f->Size());
  ASSERT_OK(fs_.Stat("/d/f"));
  EXPECT_TRUE(fs_.Exists("/d/f"));
  ASSERT_OK(fs_.ListDir("/d"));
  ASSERT_OK(fs_.GetDiskUsage("/d"));
  ASSERT_OK(fs_.OpenFile("/d/f", OpenOptions{}));
  ASSERT_OK_AND_ASSIGN(auto ro, f->Map(0, 4096, /*writable=*/false));
  ASSERT_OK(ro->Prefault(0, 4096));
  ASSERT_OK(fs_.ReadWholeFile("/d/f"));
  ASSERT_OK(fs_.CorruptByte("/d/f", 0, 1));
  ASSERT_OK(fs_.TruncateTo("/d/f", 8192));
  EXPECT_EQ(fs_.op_count(), start);
  // Counted: one each.
  ASSERT_OK(fs_.OpenFile("/d/f", OpenOptions{.writable = true}));              // 1
  ASSERT_OK(f->Truncate(8192));                                                // 2
  ASSERT_OK(f->Allocate(0, 8192));                                             // 3
  ASSERT_OK(f->PWrite(0, "x", 1));                                             // 4
  ASSERT_OK(f->Sync());                                                        // 5
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));                         // 6
  ASSERT_OK(m->Sync(0, 1));                                                    // 7
  ASSERT_OK(m->Prefault(0, 4096));                                             // (not counted)
  ASSERT_OK(m->Unmap(0, 4096));                                                // (not counted)
  ASSERT_OK(f->DropCache(0, 4096));                                            // (not counted)
  ASSERT_OK(fs_.CreateDirs("/d/e"));                                           // 8
  ASSERT_OK(fs_.Rename("/d/e", "/d/e2"));                                      // 9
  ASSERT_OK(fs_.RemoveDir("/d/e2"));                                           // 10
  ASSERT_OK(fs_.SyncDir("/d"));                                                // 11
  ASSERT_OK(fs_.SetMTime("/d/f", 1));                                          // 12
  ASSERT_OK_AND_ASSIGN(auto lock, fs_.LockFile("/d/lock"));                    // 13
  ASSERT_OK(fs_.RemoveFile("/d/lock"));                                        // 14
  EXPECT_THAT(fs_.RemoveFile("/d/missing"), StatusIs(StatusCode::kNotFound));  // 15
  EXPECT_EQ(fs_.op_count(), start + 15);
}

// ---- Mappings and buffers ----

TEST_F(FaultInjectionFileSystemTest, LiveMappingPinsTheBuffer) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 4096));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  Status grow = f->Allocate(0, 1 << 20);
  EXPECT_THAT(grow, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(grow.message(), HasSubstr("mapping"));
  EXPECT_THAT(f->Truncate(100), StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 4096u);
  m.reset();
  ASSERT_OK(f->Allocate(0, 1 << 20));
  ASSERT_OK(f->Truncate(100));
}

TEST_F(FaultInjectionFileSystemTest, GrowthWithinCapacityWhileMapped) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 4096));
  ASSERT_OK(f->Truncate(100));  // capacity stays 4096
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 100, true));
  ASSERT_OK(f->PWrite(100, "tail", 4));  // within the buffer: fine
  m->data()[0] = 'h';
  EXPECT_EQ(Read("/d/f"), "h" + std::string(99, '\0') + "tail");
}

TEST_F(FaultInjectionFileSystemTest, UnlinkedFileStaysUsableThroughHandles) {
  auto f = Create("/d/f");
  ASSERT_OK(f->PWrite(0, "abc", 3));
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  ASSERT_OK(f->PWrite(3, "d", 1));
  char buf[4];
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(0, buf, 4));
  EXPECT_EQ(std::string(buf, n), "abcd");
}

// One appender writing through a mapping, one flusher msyncing what was published, one
// thread doing metadata ops: the contract of io/file_system.h, run under the sanitizers.
TEST_F(FaultInjectionFileSystemTest, ConcurrentAppendFlushAndMetadata) {
  constexpr size_t kRecord = 64;
  constexpr size_t kRecords = 1024;
  auto f = Create("/d/log");
  ASSERT_OK(f->Allocate(0, kRecord * kRecords));
  ASSERT_OK(f->Sync());
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, kRecord * kRecords, true));
  std::atomic<size_t> published{0};
  std::atomic<bool> done{false};
  std::thread appender([&] {
    for (size_t i = 0; i < kRecords; ++i) {
      std::memset(m->data() + i * kRecord, static_cast<int>('a' + i % 26), kRecord);
      published.store((i + 1) * kRecord, std::memory_order_release);
    }
  });
  std::thread flusher([&] {
    size_t synced = 0;
    while (synced < kRecord * kRecords) {
      const size_t pos = published.load(std::memory_order_acquire);
      if (pos > synced) {
        EXPECT_OK(m->Sync(synced, pos - synced));
        synced = pos;
      }
    }
    done.store(true);
  });
  std::thread meta([&] {
    for (int i = 0; !done.load(); ++i) {
      const std::string name = "/d/other" + std::to_string(i % 4);
      EXPECT_OK(fs_.OpenFile(name, OpenOptions{.create = true}));
      EXPECT_OK(fs_.ListDir("/d"));
      EXPECT_OK(fs_.Stat("/d/log"));
    }
  });
  appender.join();
  flusher.join();
  meta.join();
  m.reset();
  Crash(CrashMode::kPowerLoss);
  ASSERT_OK_AND_ASSIGN(std::string s, fs_.ReadWholeFile("/d/log"));
  ASSERT_EQ(s.size(), kRecord * kRecords);
  for (size_t i = 0; i < kRecords; ++i) {
    ASSERT_EQ(s[i * kRecord + kRecord - 1], static_cast<char>('a' + i % 26)) << i;
  }
}

// ---- Helpers, mtime ----

TEST_F(FaultInjectionFileSystemTest, CorruptByteAndTruncateToAffectLiveAndDurable) {
  CreateDurable("/d/f", "hello");
  ASSERT_OK(fs_.CorruptByte("/d/f", 1, 0x20));
  EXPECT_EQ(Read("/d/f"), "hEllo");
  EXPECT_THAT(fs_.CorruptByte("/d/f", 5, 1), StatusIs(StatusCode::kOutOfRange));
  ASSERT_OK(fs_.TruncateTo("/d/f", 3));
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "hEl");
  EXPECT_THAT(fs_.ReadWholeFile("/d/missing"), StatusIs(StatusCode::kNotFound));
}

TEST_F(FaultInjectionFileSystemTest, MTimeFollowsTheClock) {
  auto f = Create("/d/f");
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.mtime_millis, clock_.NowMillis());
  clock_.AdvanceMillis(1000);
  ASSERT_OK(f->PWrite(0, "x", 1));
  ASSERT_OK_AND_ASSIGN(info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.mtime_millis, clock_.NowMillis());
  clock_.AdvanceMillis(1000);
  ASSERT_OK(f->Truncate(4096));
  ASSERT_OK_AND_ASSIGN(info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.mtime_millis, clock_.NowMillis());
  clock_.AdvanceMillis(1000);
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  ASSERT_OK(m->Sync(0, 1));
  ASSERT_OK_AND_ASSIGN(info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.mtime_millis, clock_.NowMillis());
  ASSERT_OK(fs_.SetMTime("/d/f", 42));
  ASSERT_OK_AND_ASSIGN(info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.mtime_millis, 42);
}

}  // namespace
}  // namespace rocketstore
