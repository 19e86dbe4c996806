// The preparer's page-cache recycling (MappedFileQueue::Options::resident_window_bytes,
// MappedFile::DropCache): which bytes it drops — only flushed ones, only further behind
// the writer than the window, in whole 2 MiB steps — that no byte changes, and, on the
// real file system, that the pages really leave the page cache.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "io/posix_file_system.h"
#include "store/segment/mapped_file_queue.h"
#include "testing/page_cache.h"
#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

constexpr int64_t kMiB = 1 << 20;

MappedFileQueue::Options Opts(int64_t resident_window) {
  MappedFileQueue::Options o;
  o.file_size = 8 * kMiB;
  o.file.reserve_chunk_bytes = kMiB;
  o.prefault_window_bytes = kMiB;
  o.resident_window_bytes = resident_window;
  return o;
}

// Appends `n` bytes of a position-dependent pattern through the map.
void Append(MappedFileQueue& q, int64_t n) {
  while (n > 0) {
    ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
    if (f->remaining() == 0) {
      ASSERT_OK_AND_ASSIGN(f, q.GetWritableFile(f->end_offset()));
    }
    const int64_t pos = f->wrote_position();
    const int64_t take = std::min(n, f->remaining());
    ASSERT_OK(f->Reserve(pos + take));
    for (int64_t i = 0; i < take; ++i) {
      f->data()[pos + i] = static_cast<uint8_t>((f->start_offset().value() + pos + i) * 7 % 251);
    }
    f->Advance(pos + take, 1);
    n -= take;
  }
}

void ExpectPattern(const MappedFile& f, int64_t upto) {
  for (int64_t i = 0; i < upto; ++i) {
    const auto want = static_cast<uint8_t>((f.start_offset().value() + i) * 7 % 251);
    if (f.data()[i] != want) {
      FAIL() << f.path() << " byte " << i << " changed";
    }
  }
}

TEST(DropCacheTest, DropsOnlyFlushedBytesBehindTheWindowInWholeSteps) {
  FaultInjectionFileSystem fs;
  MappedFileQueue q(fs, "/s", Opts(2 * kMiB));
  ASSERT_OK(q.Load());
  Append(q, 5 * kMiB);
  std::shared_ptr<MappedFile> first = q.FirstFile();
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(first->dropped_position(), 0) << "nothing is flushed yet";

  ASSERT_OK(first->Flush(FlushMethod::kMsync).status());
  ASSERT_OK(q.PrepareNext());
  // The window ends 3 MiB in; whole 2 MiB steps only.
  EXPECT_EQ(first->dropped_position(), 2 * kMiB);

  Append(q, kMiB / 2);  // the window moves by less than a step: nothing to do
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(first->dropped_position(), 2 * kMiB);

  Append(q, kMiB);  // 6.5 MiB written, 5 MiB flushed: flushed bytes bound the drop
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(first->dropped_position(), 4 * kMiB);

  // Into the second segment; once the first is flushed and behind the window, it goes to
  // its end (its last step may be partial).
  Append(q, 4 * kMiB);
  ASSERT_OK(first->Flush(FlushMethod::kMsync).status());
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(first->dropped_position(), 8 * kMiB);
  std::shared_ptr<MappedFile> second = q.LastFile();
  ASSERT_NE(second, first);
  EXPECT_EQ(second->dropped_position(), 0);

  ExpectPattern(*first, 8 * kMiB);
  ExpectPattern(*second, second->wrote_position());
}

TEST(DropCacheTest, AWindowOfZeroKeepsEverything) {
  FaultInjectionFileSystem fs;
  MappedFileQueue q(fs, "/s", Opts(0));
  ASSERT_OK(q.Load());
  Append(q, 12 * kMiB);
  for (const auto& f : q.Files()) ASSERT_OK(f->Flush(FlushMethod::kMsync).status());
  ASSERT_OK(q.PrepareNext());
  for (const auto& f : q.Files()) EXPECT_EQ(f->dropped_position(), 0) << f->path();
}

TEST(DropCacheTest, ANeverFlushedFileIsNeverDropped) {
  FaultInjectionFileSystem fs;
  MappedFileQueue q(fs, "/s", Opts(kMiB));
  ASSERT_OK(q.Load());
  Append(q, 12 * kMiB);
  ASSERT_OK(q.PrepareNext());
  for (const auto& f : q.Files()) EXPECT_EQ(f->dropped_position(), 0) << f->path();
}

// Handles from before a simulated crash are detached by the reboot: dropping through
// them fails the preparer step and drops nothing.
TEST(DropCacheTest, NothingIsDroppedThroughDetachedHandles) {
  FaultInjectionFileSystem fs;
  MappedFileQueue q(fs, "/s", Opts(2 * kMiB));
  ASSERT_OK(q.Load());
  Append(q, 6 * kMiB);
  ASSERT_OK(q.FirstFile()->Flush(FlushMethod::kMsync).status());
  ASSERT_OK(fs.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs.Reboot());
  EXPECT_THAT(q.PrepareNext(), StatusIs(StatusCode::kAborted));
  EXPECT_EQ(q.FirstFile()->dropped_position(), 0);
}

// The preparer's two halves are independent: a full disk stops the reserving ahead (and
// is reported) but not the dropping behind.
TEST(DropCacheTest, AFailureAheadDoesNotStopTheDropBehind) {
  FaultInjectionFileSystem fs;
  MappedFileQueue q(fs, "/s", Opts(2 * kMiB));
  ASSERT_OK(q.Load());
  Append(q, 6 * kMiB);
  ASSERT_OK(q.FirstFile()->Flush(FlushMethod::kMsync).status());
  fs.FailOpsOfKind(OpKind::kAllocate, ENOSPC);
  EXPECT_FALSE(q.PrepareNext().ok());
  EXPECT_EQ(q.FirstFile()->dropped_position(), 4 * kMiB);
}

using ::rocketstore::testing::OnTmpfs;
using ::rocketstore::testing::ResidentPages;

TEST(DropCacheTest, DroppedPagesLeaveThePageCacheAndReadBackUnchanged) {
  testing::TempDir dir;
  if (OnTmpfs(dir.path())) GTEST_SKIP() << "tmpfs keeps its pages: nothing to drop";
  MappedFileQueue q(PosixFileSystem::Default(), dir.path() + "/commitlog", Opts(0));
  ASSERT_OK(q.Load());
  Append(q, 6 * kMiB);
  std::shared_ptr<MappedFile> f = q.FirstFile();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(ResidentPages(f->data(), 6 * kMiB), 6 * kMiB / page);

  // Not flushed: nothing may go.
  ASSERT_OK_AND_ASSIGN(int64_t dropped, f->DropCache(4 * kMiB));
  EXPECT_EQ(dropped, 0);
  ASSERT_OK(f->Flush(FlushMethod::kMsync).status());
  ASSERT_OK_AND_ASSIGN(dropped, f->DropCache(5 * kMiB));  // rounded down to 4 MiB
  EXPECT_EQ(dropped, 4 * kMiB);
  EXPECT_EQ(ResidentPages(f->data(), 4 * kMiB), 0u);
  EXPECT_EQ(ResidentPages(f->data() + 4 * kMiB, 2 * kMiB), 2 * kMiB / page);
  ExpectPattern(*f, 6 * kMiB);  // read back from the file
}

}  // namespace
}  // namespace rocketstore
