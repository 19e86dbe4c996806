// WriteFileAtomically / ReadFileOrBackup (io/atomic_file.h) on the fault-injecting file
// system: failures leave the old content, a crash at every op of a write leaves the old
// or the new content readable, and the .bak fallback.
#include "io/atomic_file.h"

#include <gtest/gtest.h>

#include "base/clock.h"
#include "io/fault_injection_file_system.h"
#include "io/posix_file_system.h"
#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

constexpr char kPath[] = "/cfg/topics.json";

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_.CreateDirs("/cfg")); }

  // Ops one WriteFileAtomically makes, measured on a fresh file system holding `before`.
  uint64_t OpsOfOneWrite() {
    FaultInjectionFileSystem probe(clock_);
    EXPECT_OK(probe.CreateDirs("/cfg"));
    EXPECT_OK(WriteFileAtomically(probe, kPath, "v1"));
    const uint64_t start = probe.op_count();
    EXPECT_OK(WriteFileAtomically(probe, kPath, "v2"));
    return probe.op_count() - start;
  }

  std::string Primary() {
    auto r = fs_.ReadWholeFile(kPath);
    return r.ok() ? *r : "<" + r.status().ToString() + ">";
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
};

TEST_F(AtomicFileTest, EioAtEveryOpReturnsTheErrorAndKeepsTheOldContent) {
  const uint64_t ops = OpsOfOneWrite();
  ASSERT_GE(ops, 8u);  // tmp: open truncate write sync; bak: same; rename; syncdir
  for (int err : {EIO, ENOSPC}) {
    for (uint64_t n = 1; n <= ops; ++n) {
      SCOPED_TRACE("errno " + std::to_string(err) + " at op " + std::to_string(n));
      FaultInjectionFileSystem fs(clock_);
      ASSERT_OK(fs.CreateDirs("/cfg"));
      ASSERT_OK(WriteFileAtomically(fs, kPath, "old"));
      fs.FailOpAt(n, err);
      Status s = WriteFileAtomically(fs, kPath, "new");
      EXPECT_THAT(s, StatusIs(err == EIO ? StatusCode::kIOError : StatusCode::kNoSpace));
      // Only the last op (the directory sync) fails after the rename took effect.
      EXPECT_EQ(*fs.ReadWholeFile(kPath), n < ops ? "old" : "new");
      // The next attempt succeeds and leaves the new content with the old as .bak.
      ASSERT_OK(WriteFileAtomically(fs, kPath, "new"));
      EXPECT_EQ(*fs.ReadWholeFile(kPath), "new");
      EXPECT_EQ(*fs.ReadWholeFile(std::string(kPath) + ".bak"), n < ops ? "old" : "new");
    }
  }
}

TEST_F(AtomicFileTest, CrashAtEveryOpLeavesOldOrNewNeverNeither) {
  const uint64_t ops = OpsOfOneWrite();
  for (CrashMode mode : {CrashMode::kProcessCrash, CrashMode::kPowerLoss}) {
    for (uint64_t n = 1; n <= ops + 1; ++n) {
      SCOPED_TRACE("crash at op " + std::to_string(n));
      FaultInjectionFileSystem fs(clock_);
      ASSERT_OK(fs.CreateDirs("/cfg"));
      ASSERT_OK(WriteFileAtomically(fs, kPath, "version-one"));
      ASSERT_OK(WriteFileAtomically(fs, kPath, "version-two"));
      fs.CrashAtOp(n, mode);
      Status s = WriteFileAtomically(fs, kPath, "version-three");
      if (!fs.crashed()) {
        ASSERT_EQ(n, ops + 1);  // the write has `ops` ops: this one ran to the end
        ASSERT_OK(s);
        ASSERT_OK(fs.CrashNow(mode));
      } else {
        EXPECT_THAT(s, StatusIs(StatusCode::kAborted));
      }
      ASSERT_OK(fs.Reboot());
      ASSERT_OK_AND_ASSIGN(FileWithBackup got, ReadFileOrBackup(fs, kPath));
      EXPECT_FALSE(got.from_backup) << got.primary_problem;  // the target is never torn
      EXPECT_TRUE(got.content == "version-two" || got.content == "version-three") << got.content;
      if (n > ops) {
        EXPECT_EQ(got.content, "version-three");  // an OK write is durable
      }
    }
  }
}

TEST_F(AtomicFileTest, TornTargetFallsBackToBackupAndSaysSo) {
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "{\"a\":1}"));
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "{\"a\":2}"));
  ASSERT_OK(fs_.TruncateTo(kPath, 3));  // torn, as a non-atomic writer leaves it
  ContentCheck whole = [](std::string_view c) {
    return c.ends_with("}") ? Status::OK() : Corruption("truncated");
  };
  ASSERT_OK_AND_ASSIGN(FileWithBackup got, ReadFileOrBackup(fs_, kPath, whole));
  EXPECT_TRUE(got.from_backup);
  EXPECT_EQ(got.path, std::string(kPath) + ".bak");
  EXPECT_EQ(got.content, "{\"a\":1}");
  EXPECT_NE(got.primary_problem.find("truncated"), std::string::npos) << got.primary_problem;

  ASSERT_OK(fs_.TruncateTo(kPath, 0));  // empty: also falls back
  ASSERT_OK_AND_ASSIGN(got, ReadFileOrBackup(fs_, kPath, whole));
  EXPECT_TRUE(got.from_backup);
  EXPECT_NE(got.primary_problem.find("empty"), std::string::npos) << got.primary_problem;

  ASSERT_OK(fs_.RemoveFile(kPath));  // missing: also falls back
  ASSERT_OK_AND_ASSIGN(got, ReadFileOrBackup(fs_, kPath, whole));
  EXPECT_TRUE(got.from_backup);
  EXPECT_NE(got.primary_problem.find("missing"), std::string::npos) << got.primary_problem;
}

TEST_F(AtomicFileTest, NeitherUsableIsCorruptionNeitherPresentIsNotFound) {
  EXPECT_THAT(ReadFileOrBackup(fs_, kPath), StatusIs(StatusCode::kNotFound));
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "garbage-1"));
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "garbage-2"));
  ContentCheck reject = [](std::string_view) { return Corruption("not JSON"); };
  auto r = ReadFileOrBackup(fs_, kPath, reject);
  EXPECT_THAT(r, StatusIs(StatusCode::kCorruption));
  EXPECT_NE(r.status().message().find(".bak is unusable"), std::string::npos) << r.status();
}

TEST_F(AtomicFileTest, ReadErrorIsReturnedNotFallenBackFrom) {
  // A directory where the file should be: reading it fails, and that is not "missing".
  ASSERT_OK(fs_.CreateDirs(kPath));
  ASSERT_OK(WriteFileAtomically(fs_, std::string(kPath) + ".bak", "older"));
  auto r = ReadFileOrBackup(fs_, kPath);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().code(), StatusCode::kNotFound);
}

TEST_F(AtomicFileTest, NoBackupWhenAskedOrNothingToKeep) {
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "first"));
  EXPECT_FALSE(fs_.Exists(std::string(kPath) + ".bak"));  // nothing to keep yet
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "second", AtomicWriteOptions{.keep_backup = false}));
  EXPECT_FALSE(fs_.Exists(std::string(kPath) + ".bak"));
  EXPECT_EQ(Primary(), "second");
  ASSERT_OK(WriteFileAtomically(fs_, kPath, "third"));
  EXPECT_EQ(*fs_.ReadDurableFile(std::string(kPath) + ".bak"), "second");
  EXPECT_EQ(*fs_.ReadDurableFile(kPath), "third");
}

TEST(AtomicFilePosixTest, RoundTripOnRealFiles) {
  testing::TempDir dir;
  PosixFileSystem& fs = PosixFileSystem::Default();
  const std::string path = dir.path() + "/x.json";
  ASSERT_OK(WriteFileAtomically(fs, path, "one"));
  ASSERT_OK(WriteFileAtomically(fs, path, "two"));
  ASSERT_OK_AND_ASSIGN(FileWithBackup got, ReadFileOrBackup(fs, path));
  EXPECT_EQ(got.content, "two");
  EXPECT_FALSE(got.from_backup);
  ASSERT_OK(fs.RemoveFile(path));
  ASSERT_OK_AND_ASSIGN(got, ReadFileOrBackup(fs, path));
  EXPECT_EQ(got.content, "one");
  EXPECT_TRUE(got.from_backup);
  EXPECT_EQ(ParentDir(path), dir.path());
  EXPECT_EQ(ParentDir("x.json"), ".");
  EXPECT_EQ(ParentDir("/x.json"), "/");
}

}  // namespace
}  // namespace rocketstore
