// FaultInjectionFileSystem: what survives a process crash and a power loss, and crashing
// at the Nth operation. Error injection, disk space, mappings, locks and counting are in
// fault_injection_resources_test.cc.
#include "io/fault_injection_file_system.h"

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
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using fault_injection_testing::FaultInjectionFileSystemTest;
using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// ---- Crash modes ----

TEST_F(FaultInjectionFileSystemTest, UnsyncedPWriteLostOnPowerLoss) {
  CreateDurable("/d/f", "durable");
  auto f = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(f.status());
  ASSERT_OK((*f)->PWrite(7, "+volatile", 9));
  ASSERT_OK((*f)->PWrite(0, "D", 1));
  EXPECT_EQ(Read("/d/f"), "Durable+volatile");
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile("/d/f"));
  EXPECT_EQ(durable, "durable");
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "durable");
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat("/d/f"));
  EXPECT_EQ(info.size, 7u);
}

TEST_F(FaultInjectionFileSystemTest, UnsyncedPWriteKeptOnProcessCrashButStillNotDurable) {
  CreateDurable("/d/f", "durable");
  auto f = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(f.status());
  ASSERT_OK((*f)->PWrite(7, "+volatile", 9));
  Crash(CrashMode::kProcessCrash);
  EXPECT_EQ(Read("/d/f"), "durable+volatile");
  // The page cache survived the process, but nobody synced it: a power loss now drops it.
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "durable");
}

TEST_F(FaultInjectionFileSystemTest, FileSyncMakesDataAndSizeDurable) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->PWrite(0, "abc", 3));
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Truncate(1));  // not synced: undone by a power loss
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "abc");
}

TEST_F(FaultInjectionFileSystemTest, MsyncedRangeSurvivesPowerLossUnsyncedDoesNot) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Allocate(0, 8192));
  ASSERT_OK(f->Sync());  // durable size 8192, all zeros
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 8192, /*writable=*/true));
  std::memcpy(m->data() + 100, "synced", 6);
  std::memcpy(m->data() + 5000, "lost", 4);
  ASSERT_OK(m->Sync(100, 6));
  Crash(CrashMode::kPowerLoss);
  ASSERT_OK_AND_ASSIGN(std::string s, fs_.ReadWholeFile("/d/f"));
  ASSERT_EQ(s.size(), 8192u);
  EXPECT_EQ(s.substr(100, 6), "synced");
  EXPECT_EQ(s.substr(5000, 4), std::string(4, '\0'));
}

// msync(MS_SYNC) writes a changed inode size like fdatasync: the whole current size
// becomes durable, not just the end of the synced range.
TEST_F(FaultInjectionFileSystemTest, MsyncMakesTheCurrentSizeDurable) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->Truncate(4096));     // size change not synced by File::Sync
  ASSERT_OK(f->Allocate(0, 4096));  // the size stays 4096
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  std::memcpy(m->data(), "hello", 5);
  ASSERT_OK(m->Sync(0, 5));
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile("/d/f"));
  EXPECT_EQ(durable.size(), 4096u);
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "hello" + std::string(4091, '\0'));
}

// The same without the Allocate (and so without the hole check): the size is durable.
TEST_F(FaultInjectionFileSystemTest, MsyncMakesTheSizeDurableAfterSparseTruncate) {
  fs_.SetCheckMappedWritesAllocated(false);
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->Truncate(4096));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  std::memcpy(m->data(), "hello", 5);
  ASSERT_OK(m->Sync(0, 5));
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "hello" + std::string(4091, '\0'));
}

TEST_F(FaultInjectionFileSystemTest, MsyncMakesAShrunkSizeDurable) {
  CreateDurable("/d/f", std::string(8192, 'a'));
  auto f = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(f.status());
  ASSERT_OK((*f)->Truncate(4096));  // not synced
  ASSERT_OK_AND_ASSIGN(auto m, (*f)->Map(0, 4096, true));
  m->data()[0] = 'b';
  ASSERT_OK(m->Sync(0, 1));
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "b" + std::string(4095, 'a'));
}

TEST_F(FaultInjectionFileSystemTest, MapWritesKeptOnProcessCrash) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(4096));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  std::memcpy(m->data(), "page-cache", 10);
  Crash(CrashMode::kProcessCrash);
  EXPECT_EQ(Read("/d/f").substr(0, 10), "page-cache");
}

TEST_F(FaultInjectionFileSystemTest, CreatedFileWithoutSyncDirVanishesOnPowerLoss) {
  auto f = Create("/d/new");
  ASSERT_OK(f->PWrite(0, "x", 1));
  ASSERT_OK(f->Sync());  // data synced, but the directory entry is not
  Crash(CrashMode::kPowerLoss);
  EXPECT_FALSE(fs_.Exists("/d/new"));
  ASSERT_OK_AND_ASSIGN(auto names, fs_.ListDir("/d"));
  EXPECT_TRUE(names.empty());
}

TEST_F(FaultInjectionFileSystemTest, CreatedFileKeptOnProcessCrash) {
  ASSERT_NE(Create("/d/new"), nullptr);
  Crash(CrashMode::kProcessCrash);
  EXPECT_TRUE(fs_.Exists("/d/new"));
  Crash(CrashMode::kPowerLoss);  // still not durable
  EXPECT_FALSE(fs_.Exists("/d/new"));
}

TEST_F(FaultInjectionFileSystemTest, CreatedFileWithSyncDirButNoFileSyncIsEmpty) {
  auto f = Create("/d/new");
  ASSERT_OK(fs_.SyncDir("/d"));
  ASSERT_OK(f->PWrite(0, "data", 4));
  Crash(CrashMode::kPowerLoss);
  EXPECT_TRUE(fs_.Exists("/d/new"));
  EXPECT_EQ(Read("/d/new"), "");
}

TEST_F(FaultInjectionFileSystemTest, RenameUndoneOnPowerLossWithoutSyncDir) {
  CreateDurable("/d/a", "A");
  CreateDurable("/d/b", "B");
  ASSERT_OK(fs_.Rename("/d/a", "/d/b"));
  EXPECT_FALSE(fs_.Exists("/d/a"));
  EXPECT_EQ(Read("/d/b"), "A");
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/a"), "A");
  EXPECT_EQ(Read("/d/b"), "B");
}

TEST_F(FaultInjectionFileSystemTest, RenameDurableAfterSyncDir) {
  CreateDurable("/d/a", "A");
  CreateDurable("/d/b", "B");
  ASSERT_OK(fs_.Rename("/d/a", "/d/b"));
  ASSERT_OK(fs_.SyncDir("/d"));
  Crash(CrashMode::kPowerLoss);
  EXPECT_FALSE(fs_.Exists("/d/a"));
  EXPECT_EQ(Read("/d/b"), "A");
}

TEST_F(FaultInjectionFileSystemTest, RemovalUndoneOnPowerLossWithoutSyncDir) {
  CreateDurable("/d/f", "still here");
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  EXPECT_FALSE(fs_.Exists("/d/f"));
  Crash(CrashMode::kPowerLoss);
  EXPECT_EQ(Read("/d/f"), "still here");
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  ASSERT_OK(fs_.SyncDir("/d"));
  Crash(CrashMode::kPowerLoss);
  EXPECT_FALSE(fs_.Exists("/d/f"));
}

TEST_F(FaultInjectionFileSystemTest, RemovalKeptOnProcessCrash) {
  CreateDurable("/d/f", "x");
  ASSERT_OK(fs_.RemoveFile("/d/f"));
  Crash(CrashMode::kProcessCrash);
  EXPECT_FALSE(fs_.Exists("/d/f"));
}

TEST_F(FaultInjectionFileSystemTest, CreateDirsIsDurable) {
  ASSERT_OK(fs_.CreateDirs("/d/x/y"));
  Crash(CrashMode::kPowerLoss);
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat("/d/x/y"));
  EXPECT_TRUE(info.is_directory);
}

TEST_F(FaultInjectionFileSystemTest, PathsAreNormalised) {
  ASSERT_NE(Create("d//f"), nullptr);
  EXPECT_TRUE(fs_.Exists("/d/f"));
  EXPECT_TRUE(fs_.Exists("/d/./f"));
  EXPECT_TRUE(fs_.Exists("/d/"));
  EXPECT_THAT(fs_.Stat("/d/../d"), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(auto root, fs_.ListDir("/"));
  EXPECT_THAT(root, UnorderedElementsAre("d"));
}

// ---- CrashAtOp ----

TEST_F(FaultInjectionFileSystemTest, CrashAtOpStopsExactlyAtOpN) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  const uint64_t before = fs_.op_count();
  fs_.CrashAtOp(3, CrashMode::kProcessCrash);
  EXPECT_OK(f->PWrite(0, "1", 1));
  EXPECT_OK(f->PWrite(1, "2", 1));
  EXPECT_FALSE(fs_.crashed());
  Status s = f->PWrite(2, "3", 1);
  EXPECT_THAT(s, StatusIs(StatusCode::kAborted));
  EXPECT_THAT(s.message(), HasSubstr("simulated crash"));
  EXPECT_TRUE(fs_.crashed());
  EXPECT_EQ(fs_.op_count(), before + 3);
  EXPECT_THAT(f->PWrite(3, "4", 1), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(f->Sync(), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(fs_.SyncDir("/d"), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(fs_.OpenFile("/d/g", OpenOptions{.create = true}), StatusIs(StatusCode::kAborted));
  EXPECT_EQ(fs_.op_count(), before + 3);  // refused ops are not counted
  // Reads keep working on the live state while crashed.
  char buf[4];
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(0, buf, sizeof(buf)));
  EXPECT_EQ(std::string(buf, n), "12");
  EXPECT_OK(fs_.OpenFile("/d/f", OpenOptions{}));
  EXPECT_OK(fs_.Stat("/d/f"));
  ASSERT_OK(fs_.Reboot());
  EXPECT_EQ(Read("/d/f"), "12");
  // Old handles are detached.
  EXPECT_THAT(f->PWrite(0, "x", 1), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(f->PRead(0, buf, 1), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(f->Size(), StatusIs(StatusCode::kAborted));
  // New ones work.
  auto g = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(g.status());
  EXPECT_OK((*g)->PWrite(2, "3", 1));
  EXPECT_EQ(Read("/d/f"), "123");
}

TEST_F(FaultInjectionFileSystemTest, CrashAtOpPowerLossSnapshotsDurableStateBeforeOpN) {
  auto f = Create("/d/f");
  ASSERT_OK(fs_.SyncDir("/d"));
  fs_.CrashAtOp(3, CrashMode::kPowerLoss);
  EXPECT_OK(f->PWrite(0, "ab", 2));
  EXPECT_OK(f->Sync());
  EXPECT_THAT(f->PWrite(2, "cd", 2), StatusIs(StatusCode::kAborted));
  ASSERT_OK(fs_.Reboot());
  EXPECT_EQ(Read("/d/f"), "ab");
}

TEST_F(FaultInjectionFileSystemTest, WritesThroughOldMapsDoNotReachRebootedState) {
  auto f = Create("/d/f");
  ASSERT_OK(f->Truncate(4096));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 4096, true));
  std::memcpy(m->data(), "before", 6);
  fs_.CrashAtOp(1, CrashMode::kProcessCrash);
  EXPECT_THAT(m->Sync(0, 6), StatusIs(StatusCode::kAborted));  // op 1: crash
  std::memcpy(m->data(), "during", 6);                         // after the snapshot: not in it
  ASSERT_OK(fs_.Reboot());
  std::memcpy(m->data(), "after!", 6);  // a detached mapping: harmless
  EXPECT_THAT(m->Sync(0, 6), StatusIs(StatusCode::kAborted));
  EXPECT_THAT(m->Prefault(0, 6), StatusIs(StatusCode::kAborted));
  EXPECT_EQ(Read("/d/f").substr(0, 6), "before");
  // The old mapping and file are destroyed after the reboot without harm; the new state
  // can be mapped and grown freely (the old mapping does not pin the new inode).
  m.reset();
  f.reset();
  auto g = fs_.OpenFile("/d/f", OpenOptions{.writable = true});
  ASSERT_OK(g.status());
  ASSERT_OK((*g)->Truncate(1 << 20));
}

TEST_F(FaultInjectionFileSystemTest, CrashAtOpAndRebootErrors) {
  EXPECT_THAT(fs_.Reboot(), StatusIs(StatusCode::kFailedPrecondition));
  fs_.CrashAtOp(5, CrashMode::kPowerLoss);
  ASSERT_OK(fs_.SyncDir("/d"));
  Status s = fs_.Reboot();
  EXPECT_THAT(s, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(s.message(), HasSubstr("armed"));
  fs_.CrashAtOp(0, CrashMode::kPowerLoss);  // disarm
  for (int i = 0; i < 10; ++i) ASSERT_OK(fs_.SyncDir("/d"));
  EXPECT_FALSE(fs_.crashed());
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  EXPECT_THAT(fs_.CrashNow(CrashMode::kPowerLoss), StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK(fs_.Reboot());
}

// The boot id survives a process crash (the kernel, and its page cache, kept running)
// and changes with every reboot after a power loss.
TEST_F(FaultInjectionFileSystemTest, BootIdChangesOnlyAfterAPowerLoss) {
  ASSERT_OK_AND_ASSIGN(const std::string first, fs_.BootId());
  EXPECT_FALSE(first.empty());
  ASSERT_OK(fs_.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs_.Reboot());
  EXPECT_EQ(*fs_.BootId(), first);
  fs_.CrashAtOp(1, CrashMode::kProcessCrash);
  EXPECT_FALSE(fs_.SyncDir("/d").ok());
  ASSERT_OK(fs_.Reboot());
  EXPECT_EQ(*fs_.BootId(), first);
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  ASSERT_OK_AND_ASSIGN(const std::string second, fs_.BootId());
  EXPECT_NE(second, first);
  fs_.CrashAtOp(1, CrashMode::kPowerLoss);
  EXPECT_FALSE(fs_.SyncDir("/d").ok());
  ASSERT_OK(fs_.Reboot());
  EXPECT_NE(*fs_.BootId(), second);
  EXPECT_NE(*fs_.BootId(), first);
}

// The usage example of the header: an atomic "write temp, sync, rename, sync dir"
// protocol checked at every crash point under power loss.
Status WriteFileAtomically(FileSystem& fs, const std::string& content) {
  OpenOptions o;
  o.create = true;
  RS_ASSIGN_OR_RETURN(auto f, fs.OpenFile("/store/config.tmp", o));
  RS_RETURN_IF_ERROR(f->PWrite(0, content.data(), content.size()));
  RS_RETURN_IF_ERROR(f->Sync());
  RS_RETURN_IF_ERROR(fs.Rename("/store/config.tmp", "/store/config"));
  return fs.SyncDir("/store");
}

TEST(FaultInjectionCrashLoopTest, AtomicWriteIsAllOrNothingAtEveryCrashPoint) {
  FakeClock clock;
  uint64_t points = 0;
  for (uint64_t n = 1;; ++n) {
    FaultInjectionFileSystem fs(clock);
    ASSERT_OK(fs.CreateDirs("/store"));
    ASSERT_OK(WriteFileAtomically(fs, "v1"));
    fs.CrashAtOp(n, CrashMode::kPowerLoss);
    Status s = WriteFileAtomically(fs, "version-2");
    if (!fs.crashed()) {
      ASSERT_OK(s);
      break;
    }
    EXPECT_THAT(s, StatusIs(StatusCode::kAborted));
    ASSERT_OK(fs.Reboot());
    ASSERT_OK_AND_ASSIGN(std::string got, fs.ReadWholeFile("/store/config"));
    EXPECT_TRUE(got == "v1" || got == "version-2") << "crash at op " << n << ": " << got;
    ++points;
  }
  EXPECT_EQ(points, 5u);  // open, pwrite, sync, rename, syncdir
}

}  // namespace
}  // namespace rocketstore
