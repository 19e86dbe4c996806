#include "store/segment/mapped_file_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <span>
#include <thread>

#include "io/fault_injection_file_system.h"
#include "store/segment/file_names.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

class MappedFileQueueTest : public ::testing::Test {
 protected:
  MappedFileQueue::Options Opts(int64_t size = 4096) {
    MappedFileQueue::Options o;
    o.file_size = size;
    o.file.reserve_chunk_bytes = 1024;
    o.prefault_window_bytes = 1024;
    return o;
  }
  void Append(MappedFileQueue& q, const std::string& bytes) {
    auto f = q.GetWritableFile(PhysicalOffset(0));
    ASSERT_OK(f.status());
    auto& file = *f;
    const int64_t pos = file->wrote_position();
    ASSERT_OK(file->Reserve(pos + static_cast<int64_t>(bytes.size())));
    std::memcpy(file->data() + pos, bytes.data(), bytes.size());
    file->Advance(pos + static_cast<int64_t>(bytes.size()), 1);
  }
  FaultInjectionFileSystem fs_;
};

TEST_F(MappedFileQueueTest, WrongSizeFileIsAClearLoadError) {
  ASSERT_OK(fs_.CreateDirs("/s"));
  OpenOptions oo;
  oo.create = oo.writable = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile("/s/00000000000000000000", oo));
  ASSERT_OK(f->Truncate(1000));
  f.reset();
  MappedFileQueue q(fs_, "/s", Opts());
  Status s = q.Load();
  EXPECT_THAT(s, StatusIs(StatusCode::kCorruption));
  EXPECT_NE(s.message().find("1000 bytes"), std::string::npos) << s;
}

TEST_F(MappedFileQueueTest, GapBetweenSegmentsIsALoadError) {
  ASSERT_OK(fs_.CreateDirs("/s"));
  OpenOptions oo;
  oo.create = oo.writable = true;
  for (const char* name : {"00000000000000000000", "00000000000000008192"}) {
    ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile(std::string("/s/") + name, oo));
    ASSERT_OK(f->Truncate(4096));
  }
  MappedFileQueue q(fs_, "/s", Opts());
  EXPECT_THAT(q.Load(), StatusIs(StatusCode::kCorruption));
}

TEST_F(MappedFileQueueTest, IgnoresNonSegmentNames) {
  ASSERT_OK(fs_.CreateDirs("/s"));
  OpenOptions oo;
  oo.create = oo.writable = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile("/s/notes.txt", oo));
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  EXPECT_TRUE(q.empty());
}

TEST_F(MappedFileQueueTest, RollsFindsAndTruncates) {
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  Append(q, std::string(4096, 'a'));  // fills file 0
  Append(q, std::string(100, 'b'));   // file 4096
  ASSERT_EQ(q.file_count(), 2u);
  EXPECT_EQ(q.MaxOffset().value(), 4196);
  EXPECT_EQ(q.FindFile(PhysicalOffset(4095))->start_offset().value(), 0);
  EXPECT_EQ(q.FindFile(PhysicalOffset(4096))->start_offset().value(), 4096);
  EXPECT_EQ(q.FindFile(PhysicalOffset(8192)), nullptr);
  EXPECT_TRUE(fs_.Exists("/s/00000000000000004096"));

  ASSERT_OK(q.TruncateTo(PhysicalOffset(3000)));
  EXPECT_EQ(q.file_count(), 1u);
  EXPECT_EQ(q.MaxOffset().value(), 3000);
  EXPECT_FALSE(fs_.Exists("/s/00000000000000004096"));
}

TEST_F(MappedFileQueueTest, FlushAdvancesAndPowerLossKeepsFlushedBytes) {
  {
    MappedFileQueue q(fs_, "/s", Opts());
    ASSERT_OK(q.Load());
    Append(q, "hello");
    EXPECT_TRUE(q.HasDirtyPages(0));
    EXPECT_FALSE(q.HasDirtyPages(1));
    ASSERT_OK_AND_ASSIGN(PhysicalOffset flushed, q.Flush(FlushMethod::kMsync));
    EXPECT_EQ(flushed.value(), 5);
    Append(q, "world");  // never flushed
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  ASSERT_OK_AND_ASSIGN(std::string content, fs_.ReadWholeFile("/s/00000000000000000000"));
  EXPECT_EQ(content.substr(0, 10), std::string("hello") + std::string(5, '\0'));
}

TEST_F(MappedFileQueueTest, FullDiskAtReservationIsAnError) {
  MappedFileQueue q(fs_, "/s", Opts(16384));
  ASSERT_OK(q.Load());
  fs_.SetCapacityBytes(8192);  // the sparse segment fits; two blocks may be allocated
  auto f = q.GetWritableFile(PhysicalOffset(0));
  ASSERT_OK(f.status());
  EXPECT_OK((*f)->Reserve(100));
  EXPECT_THAT((*f)->Reserve(12000), StatusIs(StatusCode::kNoSpace));
  EXPECT_OK((*f)->Reserve(8000));  // what fits still works
}

TEST_F(MappedFileQueueTest, PrepareNextCreatesTheFollowingSegmentAhead) {
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  Append(q, std::string(3000, 'x'));
  ASSERT_OK(q.PrepareNext());
  EXPECT_TRUE(fs_.Exists("/s/00000000000000004096"));
  EXPECT_EQ(q.file_count(), 1u);  // prepared, not yet part of the queue
  Append(q, std::string(1096, 'y'));
  Append(q, "z");
  EXPECT_EQ(q.file_count(), 2u);
  EXPECT_EQ(q.LastFile()->start_offset().value(), 4096);
}

// The preparer keeps the window ahead of the appender prefaulted; once the appender has
// caught up, it skips a lead ahead instead of faulting the pages the appender is on.
TEST_F(MappedFileQueueTest, PrefaultRunsAheadAndSkipsALeadPastACaughtUpAppender) {
  MappedFileQueue q(fs_, "/s", Opts(8192));  // window 1024, lead 256
  ASSERT_OK(q.Load());
  Append(q, std::string(100, 'a'));
  ASSERT_OK(q.PrepareNext());
  std::shared_ptr<MappedFile> f = q.LastFile();
  EXPECT_EQ(f->prefaulted_position(), 100 + 1024);
  EXPECT_GE(f->reserved_position(), 100 + 1024);
  Append(q, std::string(1900, 'b'));  // the appender overtakes the prefaulted range
  ASSERT_OK(q.PrepareNext());
  // [2000, 2256) is left to the appender; the preparer went on from 2256.
  EXPECT_EQ(f->prefaulted_position(), 2000 + 1024);
  EXPECT_GE(f->reserved_position(), 2000 + 1024);  // reservation has no gap
}

TEST_F(MappedFileQueueTest, WithoutPopulateThePreparerOnlyReserves) {
  MappedFileQueue::Options o = Opts(8192);
  o.populate_pages = false;
  MappedFileQueue q(fs_, "/s", o);
  ASSERT_OK(q.Load());
  Append(q, std::string(100, 'a'));
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(q.LastFile()->prefaulted_position(), 0);
  EXPECT_GE(q.LastFile()->reserved_position(), 100 + 1024);
}

// --- Zero fill (SYNC_FLUSH): the preparer writes and syncs zeros ahead of the writer ---

constexpr int64_t kMiB = 1 << 20;

MappedFileQueue::Options ZeroFillOpts() {
  MappedFileQueue::Options o;
  o.file_size = 8 * kMiB;
  o.file.reserve_chunk_bytes = kMiB;
  o.file.zero_fill_ahead = true;
  o.prefault_window_bytes = 2 * kMiB;
  o.populate_pages = false;
  o.zero_fill_window_bytes = 2 * kMiB;
  return o;
}

// The write-buffer path of the commit log: assign, write with pwrite, publish.
void WriteRecord(MappedFile& f, const std::string& bytes) {
  const int64_t pos = f.wrote_position();
  const int64_t end = pos + static_cast<int64_t>(bytes.size());
  ASSERT_OK(f.Reserve(end));
  f.AdvanceWrote(end);
  ASSERT_OK(f.Write(pos, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())));
  f.Commit(end, 1);
}

// Stale bytes past the recovered end (a torn tail) are overwritten with durable zeros,
// a whole step at a time; bytes before the end and past the window stay as they were.
TEST_F(MappedFileQueueTest, ZeroFillWritesDurableZerosAheadOfTheWriterInWholeSteps) {
  MappedFileQueue q(fs_, "/s", ZeroFillOpts());
  ASSERT_OK(q.Load());
  ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
  WriteRecord(*f, std::string(3 * kMiB, 'g'));
  ASSERT_OK(f->Flush(FlushMethod::kFdatasync));
  f->SetPositions(100);  // recovery: everything past byte 100 is garbage now
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(f->zero_filled_position(), 100 + 2 * kMiB);
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(f->path()));
  EXPECT_EQ(durable.substr(0, 100), std::string(100, 'g'));
  EXPECT_EQ(durable.substr(100, 2 * kMiB), std::string(2 * kMiB, '\0'));
  EXPECT_EQ(durable[100 + 2 * kMiB], 'g');
  // The writer moves on by less than a step: no zero write, no sync.
  WriteRecord(*f, std::string(1000, 'r'));
  const uint64_t ops = fs_.op_count();
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(fs_.op_count(), ops);
  // A whole step behind the window: one more step.
  WriteRecord(*f, std::string(kMiB, 's'));
  ASSERT_OK(q.PrepareNext());
  EXPECT_EQ(f->zero_filled_position(), 100 + 3 * kMiB);
  ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
  EXPECT_EQ(live.substr(100, 1000), std::string(1000, 'r'));
  EXPECT_EQ(live.substr(1100, kMiB), std::string(kMiB, 's'));
}

// Zeros never land on bytes the writer has assigned or written, even when the writer
// ran ahead of the zero filler or wrote above it.
TEST_F(MappedFileQueueTest, ZeroFillNeverOverwritesAssignedOrWrittenBytes) {
  MappedFileQueue q(fs_, "/s", ZeroFillOpts());
  ASSERT_OK(q.Load());
  ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
  WriteRecord(*f, std::string(kMiB + 10, 'a'));  // ahead of any zero fill
  // Assigned but still in the write buffer: [kMiB + 10, kMiB + 20).
  ASSERT_OK(f->Reserve(kMiB + 20));
  f->AdvanceWrote(kMiB + 20);
  ASSERT_OK(f->ZeroFill(2 * kMiB));
  EXPECT_EQ(f->zero_filled_position(), 2 * kMiB);
  const std::string b(10, 'b');
  ASSERT_OK(f->Write(kMiB + 10, std::span(reinterpret_cast<const uint8_t*>(b.data()), 10)));
  f->Commit(kMiB + 20, 1);
  // A Write() above the zero-filled range claims it first: zeros stop below its end.
  const std::string c(10, 'c');
  ASSERT_OK(f->Write(3 * kMiB, std::span(reinterpret_cast<const uint8_t*>(c.data()), 10)));
  ASSERT_OK(f->ZeroFill(4 * kMiB));
  ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
  EXPECT_EQ(live.substr(0, kMiB + 10), std::string(kMiB + 10, 'a'));
  EXPECT_EQ(live.substr(kMiB + 10, 10), b);
  EXPECT_EQ(live.substr(3 * kMiB, 10), c);
  EXPECT_EQ(live.substr(3 * kMiB + 10, kMiB - 10), std::string(kMiB - 10, '\0'));
}

// The kernel reports a writeback error to one sync only: when the zero filler's sync
// saw it, the flusher's next fdatasync would succeed. So the failure is sticky.
TEST_F(MappedFileQueueTest, AFailedZeroFillSyncFailsEveryLaterFlush) {
  MappedFileQueue q(fs_, "/s", ZeroFillOpts());
  ASSERT_OK(q.Load());
  ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
  WriteRecord(*f, "record");
  fs_.FailOpsOfKind(OpKind::kSync, EIO);
  EXPECT_THAT(q.PrepareNext(), StatusIs(StatusCode::kIOError));
  fs_.ClearFailures();
  EXPECT_THAT(f->Flush(FlushMethod::kFdatasync), StatusIs(StatusCode::kIOError));
  EXPECT_THAT(f->ZeroFill(4 * kMiB), StatusIs(StatusCode::kIOError));
  EXPECT_EQ(f->flushed_position(), 0);
}

TEST_F(MappedFileQueueTest, ZeroFillNeedsTheOption) {
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
  EXPECT_THAT(f->ZeroFill(1024), StatusIs(StatusCode::kFailedPrecondition));
}

// A writer and the zero filler at full speed: every record survives intact.
TEST_F(MappedFileQueueTest, ZeroFillRacingTheWriterNeverLosesARecord) {
  MappedFileQueue::Options o = ZeroFillOpts();
  o.file_size = 16 * kMiB;
  MappedFileQueue q(fs_, "/s", o);
  ASSERT_OK(q.Load());
  ASSERT_OK_AND_ASSIGN(auto f, q.GetWritableFile(PhysicalOffset(0)));
  std::atomic<bool> done{false};
  std::thread preparer([&] {
    while (!done.load()) ASSERT_OK(q.PrepareNext());
  });
  std::string expected;
  for (int i = 0; expected.size() + 70000 <= static_cast<size_t>(o.file_size); ++i) {
    std::string rec(static_cast<size_t>(1000 + (i * 7919) % 69000),
                    static_cast<char>('A' + i % 26));
    WriteRecord(*f, rec);
    expected += rec;
  }
  done.store(true);
  preparer.join();
  ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
  EXPECT_TRUE(live.compare(0, expected.size(), expected) == 0);
}

// SYNC_FLUSH turns readahead off for the segment being written (large folios would be
// rewritten whole at every flush) and back on once the segment is full.
TEST_F(MappedFileQueueTest, ReadaheadIsOffOnlyWhileASegmentIsWritten) {
  MappedFileQueue::Options o = Opts();
  o.file.readahead_while_writing = false;
  {
    MappedFileQueue q(fs_, "/s", o);
    ASSERT_OK(q.Load());
    Append(q, std::string(4096, 'a'));
    EXPECT_TRUE(q.LastFile()->readahead_disabled());
    Append(q, "b");  // rolls
    ASSERT_EQ(q.file_count(), 2u);
    EXPECT_TRUE(q.FirstFile()->readahead_disabled());  // until the preparer runs
    ASSERT_OK(q.PrepareNext());
    EXPECT_FALSE(q.FirstFile()->readahead_disabled());
    EXPECT_TRUE(q.LastFile()->readahead_disabled());
  }
  MappedFileQueue reloaded(fs_, "/s", o);
  ASSERT_OK(reloaded.Load());
  EXPECT_FALSE(reloaded.FirstFile()->readahead_disabled());
  EXPECT_TRUE(reloaded.LastFile()->readahead_disabled());  // appends continue there
  MappedFileQueue normal(fs_, "/s", Opts());
  ASSERT_OK(normal.Load());
  EXPECT_FALSE(normal.LastFile()->readahead_disabled());
}

TEST_F(MappedFileQueueTest, RemoveFilesBeforeDropsLeadingFilesButNeverTheLast) {
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  Append(q, std::string(4096, 'a'));
  Append(q, std::string(4096, 'b'));
  Append(q, std::string(100, 'c'));
  ASSERT_EQ(q.file_count(), 3u);
  std::shared_ptr<MappedFile> held = q.FirstFile();  // a reader still using file 0

  // Nothing ends at or before 4095.
  ASSERT_OK_AND_ASSIGN(int none, q.RemoveFilesBefore(PhysicalOffset(4095)));
  EXPECT_EQ(none, 0);
  EXPECT_EQ(q.file_count(), 3u);

  // Far past the end: everything but the last (active) file.
  ASSERT_OK_AND_ASSIGN(int removed, q.RemoveFilesBefore(PhysicalOffset(int64_t{1} << 40)));
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(q.file_count(), 1u);
  EXPECT_EQ(q.MinOffset().value(), 8192);
  EXPECT_EQ(q.MaxOffset().value(), 8292);
  EXPECT_EQ(q.FindFile(PhysicalOffset(0)), nullptr);
  EXPECT_EQ(q.FindFile(PhysicalOffset(4096)), nullptr);
  EXPECT_EQ(q.FindFile(PhysicalOffset(8200))->start_offset().value(), 8192);
  EXPECT_FALSE(fs_.Exists("/s/00000000000000000000"));
  EXPECT_FALSE(fs_.Exists("/s/00000000000000004096"));
  // The reader's mapping is still valid.
  EXPECT_EQ(held->data()[0], 'a');
  EXPECT_EQ(held->data()[4095], 'a');

  ASSERT_OK_AND_ASSIGN(int again, q.RemoveFilesBefore(PhysicalOffset(int64_t{1} << 40)));
  EXPECT_EQ(again, 0);  // the last file stays
  EXPECT_EQ(q.file_count(), 1u);

  // The removals were made durable (directory synced) and a reload sees the rest.
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  EXPECT_FALSE(fs_.Exists("/s/00000000000000000000"));
  MappedFileQueue reloaded(fs_, "/s", Opts());
  ASSERT_OK(reloaded.Load());
  EXPECT_EQ(reloaded.MinOffset().value(), 8192);
}

TEST_F(MappedFileQueueTest, RemoveFilesBeforeStopsAtAFailedUnlinkAndARetryFinishes) {
  MappedFileQueue q(fs_, "/s", Opts());
  ASSERT_OK(q.Load());
  Append(q, std::string(4096, 'a'));
  Append(q, std::string(4096, 'b'));
  Append(q, std::string(10, 'c'));
  fs_.FailOpsOfKind(OpKind::kRemove, EIO);
  EXPECT_THAT(q.RemoveFilesBefore(PhysicalOffset(8192)), StatusIs(StatusCode::kIOError));
  EXPECT_EQ(q.file_count(), 3u);  // nothing unlinked, nothing dropped
  EXPECT_EQ(q.MinOffset().value(), 0);
  fs_.ClearFailures();
  ASSERT_OK_AND_ASSIGN(int removed, q.RemoveFilesBefore(PhysicalOffset(8192)));
  EXPECT_EQ(removed, 2);
  EXPECT_EQ(q.MinOffset().value(), 8192);
}

}  // namespace
}  // namespace rocketstore
