// Behaviour every FileSystem must share, run against PosixFileSystem (in a TempDir) and
// FaultInjectionFileSystem, so the in-memory model answers like the real thing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "io/file_system.h"
#include "io/posix_file_system.h"
#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::UnorderedElementsAre;

struct Env {
  std::optional<rocketstore::testing::TempDir> tmp;  // posix only
  std::unique_ptr<FileSystem> fs;
  std::string root;
};

struct Impl {
  std::string name;
  std::function<std::unique_ptr<Env>()> make;
};

std::ostream& operator<<(std::ostream& os, const Impl& impl) { return os << impl.name; }

class FileSystemConformanceTest : public ::testing::TestWithParam<Impl> {
 protected:
  void SetUp() override {
    env_ = GetParam().make();
    fs_ = env_->fs.get();
  }

  std::string P(const std::string& name) const { return JoinPath(env_->root, name); }

  std::unique_ptr<File> Create(const std::string& name) {
    OpenOptions o;
    o.create = true;
    auto f = fs_->OpenFile(P(name), o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? std::move(f).value() : nullptr;
  }

  std::unique_ptr<File> Open(const std::string& name, bool writable) {
    OpenOptions o;
    o.writable = writable;
    auto f = fs_->OpenFile(P(name), o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? std::move(f).value() : nullptr;
  }

  std::string ReadAll(File& f) {
    auto size = f.Size();
    EXPECT_TRUE(size.ok());
    std::string s(size.ok() ? *size : 0, '\0');
    auto n = f.PRead(0, s.data(), s.size());
    EXPECT_TRUE(n.ok());
    return s;
  }

  std::unique_ptr<Env> env_;
  FileSystem* fs_ = nullptr;
};

// ---- Failure paths first ----

TEST_P(FileSystemConformanceTest, OpenMissingIsNotFound) {
  EXPECT_THAT(fs_->OpenFile(P("missing"), OpenOptions{}), StatusIs(StatusCode::kNotFound));
  OpenOptions w;
  w.writable = true;
  EXPECT_THAT(fs_->OpenFile(P("missing"), w), StatusIs(StatusCode::kNotFound));
  OpenOptions c;
  c.create = true;
  EXPECT_THAT(fs_->OpenFile(P("no/such/dir/file"), c), StatusIs(StatusCode::kNotFound));
}

TEST_P(FileSystemConformanceTest, CreateMustNotExistOnExistingIsAlreadyExists) {
  ASSERT_NE(Create("f"), nullptr);
  OpenOptions o;
  o.create = true;
  o.must_not_exist = true;
  EXPECT_THAT(fs_->OpenFile(P("f"), o), StatusIs(StatusCode::kAlreadyExists));
  EXPECT_OK(fs_->OpenFile(P("g"), o));
}

TEST_P(FileSystemConformanceTest, OpenDirectoryAsFileFails) {
  ASSERT_OK(fs_->CreateDirs(P("d")));
  EXPECT_THAT(fs_->OpenFile(P("d"), OpenOptions{}), StatusIs(StatusCode::kIOError));
}

TEST_P(FileSystemConformanceTest, StatListRemoveMissingAreNotFound) {
  EXPECT_THAT(fs_->Stat(P("missing")), StatusIs(StatusCode::kNotFound));
  EXPECT_FALSE(fs_->Exists(P("missing")));
  EXPECT_THAT(fs_->ListDir(P("missing")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->RemoveFile(P("missing")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->RemoveDir(P("missing")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->Rename(P("missing"), P("x")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->SyncDir(P("missing")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->SetMTime(P("missing"), 1000), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(fs_->GetDiskUsage(P("missing")), StatusIs(StatusCode::kNotFound));
}

TEST_P(FileSystemConformanceTest, WritesToReadOnlyFileFail) {
  {
    auto w = Create("f");
    ASSERT_OK(w->PWrite(0, "abc", 3));
  }
  auto f = Open("f", /*writable=*/false);
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->PWrite(0, "x", 1), StatusIs(StatusCode::kIOError));
  EXPECT_THAT(f->Truncate(10), StatusIs(StatusCode::kIOError));
  EXPECT_THAT(f->Map(0, 3, /*writable=*/true), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_EQ(ReadAll(*f), "abc");
}

TEST_P(FileSystemConformanceTest, MapRangeChecks) {
  auto f = Create("f");
  ASSERT_OK(f->Truncate(100));
  EXPECT_THAT(f->Map(0, 101, true), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(f->Map(101, 1, true), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(f->Map(0, 0, true), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(10, 90, true));
  EXPECT_THAT(m->Sync(0, 91), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(m->Prefault(91, 0), StatusIs(StatusCode::kOutOfRange));
  EXPECT_OK(m->Sync(90, 0));
}

TEST_P(FileSystemConformanceTest, RemoveDirNonEmptyFails) {
  ASSERT_OK(fs_->CreateDirs(P("d")));
  ASSERT_NE(Create("d/f"), nullptr);
  EXPECT_THAT(fs_->RemoveDir(P("d")), StatusIs(StatusCode::kIOError));
  EXPECT_THAT(fs_->RemoveFile(P("d")), StatusIs(StatusCode::kIOError));  // EISDIR
  ASSERT_OK(fs_->RemoveFile(P("d/f")));
  ASSERT_OK(fs_->RemoveDir(P("d")));
  EXPECT_FALSE(fs_->Exists(P("d")));
}

TEST_P(FileSystemConformanceTest, CreateDirsOverFileFails) {
  ASSERT_NE(Create("f"), nullptr);
  EXPECT_FALSE(fs_->CreateDirs(P("f")).ok());
  EXPECT_FALSE(fs_->CreateDirs(P("f/sub")).ok());
}

TEST_P(FileSystemConformanceTest, LockFileTwiceIsAlreadyExistsUntilReleased) {
  const std::string lock_path = P("lock");
  ASSERT_OK_AND_ASSIGN(auto lock, fs_->LockFile(lock_path));
  EXPECT_TRUE(fs_->Exists(lock_path));  // created
  auto again = fs_->LockFile(lock_path);
  EXPECT_THAT(again, StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(again.status().message(), ::testing::HasSubstr(lock_path));
  EXPECT_THAT(again.status().message(), ::testing::HasSubstr("another process"));
  lock.reset();
  ASSERT_OK_AND_ASSIGN(auto relocked, fs_->LockFile(lock_path));
}

// ---- Data ----

TEST_P(FileSystemConformanceTest, PWritePReadRoundTripAndShortReadAtEof) {
  auto f = Create("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path(), P("f"));
  ASSERT_OK(f->PWrite(0, "hello", 5));
  ASSERT_OK(f->PWrite(5, " world", 6));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 11u);
  char buf[32];
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(6, buf, sizeof(buf)));
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(std::string(buf, n), "world");
  ASSERT_OK_AND_ASSIGN(n, f->PRead(11, buf, sizeof(buf)));
  EXPECT_EQ(n, 0u);
  ASSERT_OK_AND_ASSIGN(n, f->PRead(100, buf, sizeof(buf)));
  EXPECT_EQ(n, 0u);
  // A write past the end leaves a zero-filled hole.
  ASSERT_OK(f->PWrite(20, "!", 1));
  EXPECT_EQ(ReadAll(*f), std::string("hello world") + std::string(9, '\0') + "!");
  ASSERT_OK(f->Sync());
}

TEST_P(FileSystemConformanceTest, TruncateGrowsWithZerosAndShrinks) {
  auto f = Create("f");
  ASSERT_OK(f->PWrite(0, "abcdef", 6));
  ASSERT_OK(f->Truncate(3));
  ASSERT_OK(f->Truncate(6));
  EXPECT_EQ(ReadAll(*f), std::string("abc\0\0\0", 6));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->Stat(P("f")));
  EXPECT_EQ(info.size, 6u);
  EXPECT_FALSE(info.is_directory);
}

TEST_P(FileSystemConformanceTest, AllocateGrowsSizeButNeverShrinks) {
  auto f = Create("f");
  ASSERT_OK(f->Allocate(0, 8192));
  ASSERT_OK_AND_ASSIGN(uint64_t size, f->Size());
  EXPECT_EQ(size, 8192u);
  ASSERT_OK(f->Allocate(0, 100));
  ASSERT_OK_AND_ASSIGN(size, f->Size());
  EXPECT_EQ(size, 8192u);
  ASSERT_OK(f->Allocate(8192, 4096));
  ASSERT_OK_AND_ASSIGN(size, f->Size());
  EXPECT_EQ(size, 12288u);
  EXPECT_EQ(ReadAll(*f), std::string(12288, '\0'));
}

TEST_P(FileSystemConformanceTest, MapWriteSyncReopenReadsBack) {
  {
    auto f = Create("f");
    ASSERT_OK(f->Allocate(0, 3 * 4096));
    ASSERT_OK_AND_ASSIGN(auto m, f->Map(0, 3 * 4096, /*writable=*/true));
    EXPECT_EQ(m->size(), 3u * 4096);
    std::memcpy(m->data() + 5000, "mapped", 6);
    ASSERT_OK(m->Sync(5000, 6));
    ASSERT_OK(m->Sync(0, m->size()));
    // Visible to PRead at once (same page cache).
    char buf[6];
    ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(5000, buf, 6));
    EXPECT_EQ(std::string(buf, n), "mapped");
  }
  auto f = Open("f", /*writable=*/false);
  char buf[6];
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(5000, buf, 6));
  EXPECT_EQ(std::string(buf, n), "mapped");
  ASSERT_OK_AND_ASSIGN(auto ro, f->Map(4096, 4096, /*writable=*/false));
  EXPECT_EQ(std::memcmp(ro->data() + 904, "mapped", 6), 0);
}

TEST_P(FileSystemConformanceTest, MapAtNonPageAlignedOffset) {
  auto f = Create("f");
  std::string content(10000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>('a' + i % 26);
  ASSERT_OK(f->PWrite(0, content.data(), content.size()));
  const uint64_t offset = 4096 + 123;
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(offset, 5000, /*writable=*/true));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(m->data()), 5000),
            content.substr(offset, 5000));
  m->data()[0] = 'X';
  m->data()[4999] = 'Y';
  ASSERT_OK(m->Sync(0, 1));
  ASSERT_OK(m->Sync(4999, 1));
  ASSERT_OK(m->Prefault(0, 5000));
  ASSERT_OK(m->SetReadahead(false));  // a hint: bytes unchanged either way
  ASSERT_OK(m->SetReadahead(true));
  char c;
  ASSERT_OK_AND_ASSIGN(size_t n, f->PRead(offset, &c, 1));
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(c, 'X');
  ASSERT_OK_AND_ASSIGN(n, f->PRead(offset + 4999, &c, 1));
  EXPECT_EQ(c, 'Y');
}

TEST_P(FileSystemConformanceTest, PrefaultDoesNotChangeBytes) {
  auto f = Create("f");
  ASSERT_OK(f->Allocate(0, 4 * 4096));
  std::string pattern(4 * 4096, '\0');
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 7);
  ASSERT_OK(f->PWrite(0, pattern.data(), pattern.size()));
  ASSERT_OK_AND_ASSIGN(auto w, f->Map(100, pattern.size() - 100, /*writable=*/true));
  ASSERT_OK(w->Prefault(0, w->size()));
  ASSERT_OK(w->Prefault(5000, 10));
  ASSERT_OK_AND_ASSIGN(auto r, f->Map(0, pattern.size(), /*writable=*/false));
  ASSERT_OK(r->Prefault(0, r->size()));
  EXPECT_EQ(ReadAll(*f), pattern);
  EXPECT_EQ(std::memcmp(r->data(), pattern.data(), pattern.size()), 0);
}

// Unmap and DropCache are hints: whatever they drop comes back with the same bytes,
// through the mapping and through reads, including bytes written through the mapping
// and synced, and partial pages at the ends of a non-page-aligned mapping.
TEST_P(FileSystemConformanceTest, UnmapAndDropCacheDoNotChangeBytes) {
  auto f = Create("f");
  ASSERT_OK(f->Allocate(0, 4 * 4096));
  std::string pattern(4 * 4096, '\0');
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 7);
  ASSERT_OK(f->PWrite(0, pattern.data(), pattern.size()));
  ASSERT_OK_AND_ASSIGN(auto w, f->Map(100, pattern.size() - 100, /*writable=*/true));
  std::memcpy(w->data() + 5000, "through the map", 15);
  pattern.replace(5100, 15, "through the map");
  ASSERT_OK(w->Sync(0, w->size()));
  ASSERT_OK(w->Unmap(0, w->size()));
  ASSERT_OK(w->Unmap(3, 10));  // no whole page inside: nothing to do
  ASSERT_OK(f->DropCache(0, pattern.size()));
  ASSERT_OK(f->DropCache(0, 0));
  EXPECT_EQ(std::memcmp(w->data(), pattern.data() + 100, w->size()), 0);
  EXPECT_EQ(ReadAll(*f), pattern);
  EXPECT_THAT(w->Unmap(0, w->size() + 1), StatusIs(StatusCode::kOutOfRange));
}

// Bytes just written are in the page cache (or, in memory, simply there); the count never
// exceeds the range asked about, and a range past the mapping is refused.
TEST_P(FileSystemConformanceTest, ResidentBytesCountsWrittenPages) {
  auto f = Create("f");
  std::string pattern(4 * 4096, 'r');
  ASSERT_OK(f->PWrite(0, pattern.data(), pattern.size()));
  ASSERT_OK_AND_ASSIGN(auto m, f->Map(100, pattern.size() - 100, /*writable=*/false));
  ASSERT_OK_AND_ASSIGN(size_t all, m->ResidentBytes(0, m->size()));
  EXPECT_EQ(all, m->size());
  ASSERT_OK_AND_ASSIGN(size_t some, m->ResidentBytes(10, 100));
  EXPECT_EQ(some, 100u);
  ASSERT_OK_AND_ASSIGN(size_t none, m->ResidentBytes(5, 0));
  EXPECT_EQ(none, 0u);
  EXPECT_THAT(m->ResidentBytes(1, m->size()), StatusIs(StatusCode::kOutOfRange));
}

// NextDataRange is a hint with one hard rule: what it skips reads as zero. Data written
// anywhere (before, between and after holes) is never skipped.
TEST_P(FileSystemConformanceTest, NextDataRangeSkipsOnlyZeros) {
  constexpr uint64_t kSize = 4 << 20;
  auto f = Create("f");
  ASSERT_OK(f->Truncate(kSize));                      // sparse
  ASSERT_OK(f->Allocate(1 << 20, 1 << 20));           // reserved, never written
  ASSERT_OK(f->PWrite(0, "head", 4));                 // data at the start
  ASSERT_OK(f->PWrite((3 << 20) + 17, "island", 6));  // data after the holes
  const std::string all = ReadAll(*f);
  ASSERT_EQ(all.size(), kSize);
  for (uint64_t from :
       {uint64_t{0}, uint64_t{4}, uint64_t{4096}, uint64_t{1} << 20, uint64_t{3} << 20,
        (uint64_t{3} << 20) + 23, kSize - 1, kSize, kSize + 4096}) {
    ASSERT_OK_AND_ASSIGN(File::DataRange r, f->NextDataRange(from));
    const uint64_t start = std::min(from, kSize);
    ASSERT_GE(r.start, start) << from;
    ASSERT_LE(r.start, r.end) << from;
    ASSERT_LE(r.end, kSize) << from;
    // The rule itself: [start, r.start) is all zeros, and data right at `from` is kept.
    for (uint64_t i = start; i < r.start; ++i) ASSERT_EQ(all[i], '\0') << from << " @" << i;
    if (start < kSize && all[start] != '\0') {
      EXPECT_EQ(r.start, start);
    }
  }
  // Walking the ranges finds both pieces of data.
  std::string found;
  for (uint64_t pos = 0; pos < kSize;) {
    ASSERT_OK_AND_ASSIGN(File::DataRange r, f->NextDataRange(pos));
    if (r.start >= kSize || r.end <= r.start) break;
    for (uint64_t i = r.start; i < r.end; ++i) {
      if (all[i] != '\0') found.push_back(all[i]);
    }
    pos = r.end;
  }
  EXPECT_EQ(found, "headisland");
}

TEST_P(FileSystemConformanceTest, MappingOutlivesItsFile) {
  std::unique_ptr<MappedRegion> m;
  {
    auto f = Create("f");
    ASSERT_OK(f->Allocate(0, 4096));  // allocate before writing through a mapping
    ASSERT_OK_AND_ASSIGN(m, f->Map(0, 4096, true));
  }
  std::memcpy(m->data(), "kept", 4);
  ASSERT_OK(m->Sync(0, 4));
  auto f = Open("f", false);
  EXPECT_EQ(ReadAll(*f).substr(0, 4), "kept");
}

// ---- Namespace ----

TEST_P(FileSystemConformanceTest, CreateDirsListDirStat) {
  ASSERT_OK(fs_->CreateDirs(P("a/b//c/")));
  ASSERT_OK(fs_->CreateDirs(P("a/b/c")));  // idempotent
  ASSERT_NE(Create("a/f1"), nullptr);
  ASSERT_NE(Create("a/f2"), nullptr);
  ASSERT_OK_AND_ASSIGN(auto names, fs_->ListDir(P("a")));
  EXPECT_THAT(names, UnorderedElementsAre("b", "f1", "f2"));
  ASSERT_OK_AND_ASSIGN(auto empty, fs_->ListDir(P("a/b/c")));
  EXPECT_TRUE(empty.empty());
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->Stat(P("a/b")));
  EXPECT_TRUE(info.is_directory);
  EXPECT_TRUE(fs_->Exists(P("a/f1")));
}

TEST_P(FileSystemConformanceTest, RenameReplacesTarget) {
  auto a = Create("a");
  ASSERT_OK(a->PWrite(0, "new", 3));
  auto b = Create("b");
  ASSERT_OK(b->PWrite(0, "old-content", 11));
  ASSERT_OK(fs_->Rename(P("a"), P("b")));
  EXPECT_FALSE(fs_->Exists(P("a")));
  auto f = Open("b", false);
  EXPECT_EQ(ReadAll(*f), "new");
  ASSERT_OK_AND_ASSIGN(auto names, fs_->ListDir(env_->root));
  EXPECT_THAT(names, UnorderedElementsAre("b"));
  // The old handle of "b" still reads its (now unlinked) inode.
  EXPECT_EQ(ReadAll(*b), "old-content");
  ASSERT_OK(fs_->SyncDir(env_->root));
}

TEST_P(FileSystemConformanceTest, RenameAcrossDirectories) {
  ASSERT_OK(fs_->CreateDirs(P("x")));
  ASSERT_OK(fs_->CreateDirs(P("y")));
  ASSERT_NE(Create("x/f"), nullptr);
  ASSERT_OK(fs_->Rename(P("x/f"), P("y/g")));
  EXPECT_FALSE(fs_->Exists(P("x/f")));
  EXPECT_TRUE(fs_->Exists(P("y/g")));
  ASSERT_OK(fs_->SyncDir(P("x")));
  ASSERT_OK(fs_->SyncDir(P("y")));
}

TEST_P(FileSystemConformanceTest, SetMTimeRoundTrip) {
  ASSERT_NE(Create("f"), nullptr);
  const int64_t t = 1600000000123;
  ASSERT_OK(fs_->SetMTime(P("f"), t));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_->Stat(P("f")));
  EXPECT_EQ(info.mtime_millis, t);
}

TEST_P(FileSystemConformanceTest, DiskUsageIsSane) {
  ASSERT_OK_AND_ASSIGN(DiskUsage u, fs_->GetDiskUsage(env_->root));
  EXPECT_GT(u.total_bytes, 0u);
  EXPECT_LE(u.free_bytes, u.total_bytes);
}

INSTANTIATE_TEST_SUITE_P(Impls, FileSystemConformanceTest,
                         ::testing::Values(Impl{"Posix",
                                                [] {
                                                  auto env = std::make_unique<Env>();
                                                  env->tmp.emplace();
                                                  env->root = env->tmp->path();
                                                  env->fs = std::make_unique<PosixFileSystem>();
                                                  return env;
                                                }},
                                           Impl{"FaultInjection",
                                                [] {
                                                  auto env = std::make_unique<Env>();
                                                  env->fs =
                                                      std::make_unique<FaultInjectionFileSystem>();
                                                  env->root = "/data";
                                                  Status s = env->fs->CreateDirs(env->root);
                                                  if (!s.ok()) std::abort();
                                                  return env;
                                                }}),
                         [](const ::testing::TestParamInfo<Impl>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace rocketstore
