// PosixFileSystem behaviour beyond the shared conformance suite. (ENOSPC cannot be
// produced portably in a unit test; FaultInjectionFileSystem covers that path.)
#include "io/posix_file_system.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;

TEST(PosixFileSystemTest, ErrorsNameTheOperationAndPathAndKeepErrno) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  const std::string missing = JoinPath(tmp.path(), "missing");
  auto r = fs.Stat(missing);
  ASSERT_THAT(r, StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(r.status().error_number(), ENOENT);
  EXPECT_THAT(r.status().message(), HasSubstr("stat " + missing));
}

// RocketMQ's Java broker locks with FileChannel.tryLock: a classic (process-associated)
// fcntl lock. Our OFD lock must conflict with it.
TEST(PosixFileSystemTest, LockConflictsWithClassicFcntlLockOfAnotherProcess) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  const std::string path = JoinPath(tmp.path(), "lock");
  int to_parent[2];
  int to_child[2];
  ASSERT_EQ(pipe(to_parent), 0);
  ASSERT_EQ(pipe(to_child), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: take a classic F_SETLK write lock, report, wait to be told to exit.
    int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
    struct flock fl;
    std::memset(&fl, 0, sizeof(fl));
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_len = 1;
    char ok = (fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0) ? '1' : '0';
    (void)!write(to_parent[1], &ok, 1);
    char c;
    (void)!read(to_child[0], &c, 1);
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(to_parent[0], &ok, 1), 1);
  ASSERT_EQ(ok, '1');
  auto held = fs.LockFile(path);
  EXPECT_THAT(held, StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(held.status().message(), HasSubstr("another process"));
  char c = 'x';
  ASSERT_EQ(write(to_child[1], &c, 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) close(fd);
  // The child died: its lock is gone.
  ASSERT_OK_AND_ASSIGN(auto lock, fs.LockFile(path));
}

TEST(PosixFileSystemTest, PrefaultFallbackWithoutMadviseDoesNotChangeBytes) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs(PosixFileSystemOptions{.prefault_with_madvise = false});
  OpenOptions o;
  o.create = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile(JoinPath(tmp.path(), "f"), o));
  std::string pattern(3 * 4096 + 17, '\0');
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 13 + 1);
  ASSERT_OK(f->PWrite(0, pattern.data(), pattern.size()));
  ASSERT_OK_AND_ASSIGN(auto w, f->Map(5, pattern.size() - 5, /*writable=*/true));
  ASSERT_OK(w->Prefault(0, w->size()));
  ASSERT_OK_AND_ASSIGN(auto r, f->Map(0, pattern.size(), /*writable=*/false));
  ASSERT_OK(r->Prefault(4000, 200));
  std::string back(pattern.size(), '\0');
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(0, back.data(), back.size()));
  EXPECT_EQ(n, pattern.size());
  EXPECT_EQ(back, pattern);
}

// mincore: the pages of a hole were never brought in; written pages are.
TEST(PosixFileSystemTest, ResidentBytesSeesOnlyPagesInTheCache) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  OpenOptions o;
  o.create = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile(JoinPath(tmp.path(), "f"), o));
  constexpr size_t kSize = 1 << 20;
  ASSERT_OK(f->Truncate(kSize));  // sparse: no page of it is cached
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, kSize, /*writable=*/false));
  ASSERT_OK_AND_ASSIGN(size_t before, m->ResidentBytes(0, kSize));
  EXPECT_EQ(before, 0u);
  const std::string two_pages(2 * 4096, 'w');
  ASSERT_OK(f->PWrite(64 * 4096, two_pages.data(), two_pages.size()));
  ASSERT_OK_AND_ASSIGN(size_t after, m->ResidentBytes(0, kSize));
  EXPECT_EQ(after, two_pages.size());
}

// On a file system with SEEK_DATA (ext4, xfs, tmpfs) holes and reserved-but-unwritten
// blocks are skipped, so recovery does not read them.
TEST(PosixFileSystemTest, NextDataRangeSkipsHolesAndUnwrittenBlocks) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  OpenOptions o;
  o.create = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile(JoinPath(tmp.path(), "f"), o));
  ASSERT_OK(f->Truncate(8 << 20));
  ASSERT_OK(f->PWrite(0, "head", 4));
  ASSERT_OK(f->Allocate(1 << 20, 2 << 20));  // unwritten extents (ext4, xfs)
  ASSERT_OK(f->PWrite(6 << 20, "tail", 4));
  ASSERT_OK(f->Sync());  // written back: no page cache standing in for the extents
  ASSERT_OK_AND_ASSIGN(File::DataRange r, f->NextDataRange(64 << 10));
  if (r.start == (64 << 10)) GTEST_SKIP() << "this file system reports holes as data";
  EXPECT_GE(r.start, uint64_t{3} << 20);  // the hole and the reserved blocks are skipped
  EXPECT_LE(r.start, uint64_t{6} << 20);
  EXPECT_GT(r.end, uint64_t{6} << 20);
  ASSERT_OK_AND_ASSIGN(r, f->NextDataRange((6 << 20) + 4096));
  EXPECT_EQ(r.start, uint64_t{8} << 20);  // only a hole after the tail: nothing
  EXPECT_EQ(r.end, uint64_t{8} << 20);
}

TEST(PosixFileSystemTest, CreateDirsWorksWithRelativeLookingDuplicateSlashes) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  ASSERT_OK(fs.CreateDirs(tmp.path() + "//a///b/./c/"));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs.Stat(JoinPath(tmp.path(), "a/b/c")));
  EXPECT_TRUE(info.is_directory);
}

TEST(PosixFileSystemTest, BootIdIsTheKernelsAndStable) {
  ASSERT_OK_AND_ASSIGN(const std::string id, PosixFileSystem::Default().BootId());
  EXPECT_EQ(id.size(), 36u) << id;  // a UUID, without the newline
  EXPECT_EQ(id.find('\n'), std::string::npos);
  EXPECT_EQ(*PosixFileSystem::Default().BootId(), id);
}

TEST(PosixFileSystemTest, DefaultIsASingleton) {
  EXPECT_EQ(&PosixFileSystem::Default(), &PosixFileSystem::Default());
}

TEST(PosixFileSystemTest, MTimeBeforeTheEpochRoundTrips) {
  rocketstore::testing::TempDir tmp;
  PosixFileSystem fs;
  const std::string path = JoinPath(tmp.path(), "f");
  OpenOptions o;
  o.create = true;
  ASSERT_OK(fs.OpenFile(path, o));
  ASSERT_OK(fs.SetMTime(path, -1500));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs.Stat(path));
  // st_mtim is {-2 s, 500 ms}; the floor-based conversion gives back -1500.
  EXPECT_EQ(info.mtime_millis, -1500);
}

}  // namespace
}  // namespace rocketstore
