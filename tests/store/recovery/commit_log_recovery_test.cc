// Recovery of the commit log from damaged files: each test writes messages, "crashes"
// (destroys the store without Close, so `abort` stays), damages the files the way a
// crash or a bad disk would, reopens, and checks what recovery decided and reported.
#include "store/recovery/commit_log_recovery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "io/fault_injection_file_system.h"
#include "io/posix_file_system.h"
#include "store/message_store.h"
#include "store/segment/file_names.h"
#include "testing/page_cache.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using EndKind = CommitLogRecoveryReport::EndKind;
using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::RecordMatches;
using ::rocketstore::testing::ResidentPages;
using ::rocketstore::testing::StatusIs;

class RecoveryTest : public ::testing::Test {
 protected:
  StoreOptions Options() {
    StoreOptions o;
    o.index_hash_slot_num = 256;  // small index files for in-memory tests
    o.index_num = 4096;
    o.consume_queue_units_per_file = 1024;
    o.root_dir = "/store";
    o.commit_log_segment_size = 4096;
    o.reserve_chunk_bytes = 1024;
    o.prefault_window_bytes = 1024;
    o.start_background_services = false;
    return o;
  }

  // Writes n messages and returns their offsets. Crashes (no Close) when `crash`.
  std::vector<PhysicalOffset> Write(int n, bool crash = true) {
    auto store = MessageStore::Open(Options(), fs_, clock_);
    EXPECT_OK(store.status());
    std::vector<PhysicalOffset> offsets;
    for (int i = 0; i < n; ++i) {
      auto m = MakeTestMessage(i);
      PutMessageResult r = (*store)->PutMessage(m.View());
      EXPECT_TRUE(r.ok()) << r.error;
      offsets.push_back(r.first.offset);
    }
    end_ = (*store)->commit_log().MaxOffset();
    if (!crash) {
      EXPECT_OK((*store)->Close());
    }
    return offsets;
  }

  std::unique_ptr<MessageStore> Reopen() {
    auto store = MessageStore::Open(Options(), fs_, clock_);
    EXPECT_OK(store.status());
    return store.ok() ? std::move(store).value() : nullptr;
  }

  std::string SegmentPath(PhysicalOffset offset) {
    return "/store/commitlog/" + SegmentFileName(offset.value() / 4096 * 4096);
  }
  uint64_t Pos(PhysicalOffset offset) { return static_cast<uint64_t>(offset.value() % 4096); }

  void ZeroRange(PhysicalOffset offset, size_t len) {
    auto content = fs_.ReadWholeFile(SegmentPath(offset));
    ASSERT_OK(content.status());
    for (size_t i = 0; i < len; ++i) {
      const auto b = static_cast<uint8_t>((*content)[Pos(offset) + i]);
      if (b != 0) ASSERT_OK(fs_.CorruptByte(SegmentPath(offset), Pos(offset) + i, b));
    }
  }

  void ExpectReadable(MessageStore& store, const std::vector<PhysicalOffset>& offsets, int n) {
    for (int i = 0; i < n; ++i) {
      auto rec = store.ReadRecord(offsets[static_cast<size_t>(i)]);
      ASSERT_OK(rec.status());
      std::string why;
      EXPECT_TRUE(RecordMatches(rec->bytes, MakeTestMessage(i), &why)) << i << ": " << why;
    }
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  PhysicalOffset end_;  // end of the log after Write()
};

TEST_F(RecoveryTest, TruncatedTailIsATornTail) {
  auto offsets = Write(10);
  const PhysicalOffset last = offsets.back();
  const int64_t last_size = end_ - last;
  // The writer died halfway through the last record: its second half never reached disk.
  ZeroRange(last + 40, 60);
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  const auto& report = store->recovery_report();
  EXPECT_TRUE(store->recovered_abnormally());
  EXPECT_EQ(report.end_kind, EndKind::kTornTail) << report.Summary();
  EXPECT_EQ(report.end, last);
  EXPECT_GT(report.dropped_bytes, 0);
  EXPECT_LE(report.dropped_bytes, last_size);
  ExpectReadable(*store, offsets, 9);
  // Appending continues where the torn record was.
  PutMessageResult r = store->PutMessage(MakeTestMessage(9).View());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.first.offset, last);
  EXPECT_EQ(r.first.queue_offset.value(), 2);  // message 9 is queue 1's third
}

TEST_F(RecoveryTest, ZeroFilledTailIsACleanEnd) {
  auto offsets = Write(10);
  const PhysicalOffset last = offsets.back();
  ZeroRange(last, static_cast<size_t>(end_ - last));
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  const auto& report = store->recovery_report();
  EXPECT_EQ(report.end, last) << report.Summary();
  ExpectReadable(*store, offsets, 9);
}

TEST_F(RecoveryTest, FlippedBodyByteMidSegmentIsCorruptionAndReported) {
  auto offsets = Write(10);
  // Flip a body byte of message 3 (its body starts 88 bytes into the record).
  ASSERT_OK(fs_.CorruptByte(SegmentPath(offsets[3]), Pos(offsets[3]) + 90, 0x01));
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  const auto& report = store->recovery_report();
  EXPECT_EQ(report.end_kind, EndKind::kCorruption) << report.Summary();
  EXPECT_EQ(report.end, offsets[3]);
  EXPECT_NE(report.detail.find("CRC"), std::string::npos) << report.detail;
  // Everything from message 3 on was dropped, and the report counts those bytes.
  EXPECT_GE(report.dropped_bytes, offsets[9] - offsets[3]);
  ExpectReadable(*store, offsets, 3);
}

TEST_F(RecoveryTest, CorruptionInsideAcknowledgedDurableDataIsRefused) {
  auto offsets = Write(10, /*crash=*/false);  // clean Close: checkpoint says all durable
  ASSERT_OK(fs_.CorruptByte(SegmentPath(offsets[3]), Pos(offsets[3]) + 90, 0x01));
  const std::string before = *fs_.ReadWholeFile(SegmentPath(offsets[3]));
  auto store = MessageStore::Open(Options(), fs_, clock_);
  EXPECT_THAT(store, StatusIs(StatusCode::kCorruption));
  EXPECT_NE(store.status().message().find("refusing"), std::string::npos) << store.status();
  // Nothing was truncated.
  EXPECT_EQ(*fs_.ReadWholeFile(SegmentPath(offsets[3])), before);
}

TEST_F(RecoveryTest, GarbageAfterTheLastRecordIsDropped) {
  auto offsets = Write(5);
  const PhysicalOffset store_end = end_;
  for (int i = 0; i < 37; ++i) {
    ASSERT_OK(fs_.CorruptByte(SegmentPath(store_end), Pos(store_end) + static_cast<uint64_t>(i),
                              static_cast<uint8_t>(0x5A + i)));
  }
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  const auto& report = store->recovery_report();
  EXPECT_EQ(report.end, store_end) << report.Summary();
  EXPECT_EQ(report.end_kind, EndKind::kTornTail);
  EXPECT_EQ(report.dropped_bytes, 37);
  ExpectReadable(*store, offsets, 5);
}

TEST_F(RecoveryTest, MissingCheckpointRecoversEverythingFromTheFirstSegment) {
  auto offsets = Write(100);  // ~25 segments
  ASSERT_OK(fs_.RemoveFile("/store/checkpoint"));
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->recovery_report().scan_start.value(), 0);
  EXPECT_EQ(store->recovery_report().records, 100);
  ExpectReadable(*store, offsets, 100);
}

TEST_F(RecoveryTest, CorruptCheckpointIsIgnoredAndEverythingRecovered) {
  auto offsets = Write(100);
  ASSERT_OK(fs_.CorruptByte("/store/checkpoint", 3, 0xFF));
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->recovery_report().scan_start.value(), 0);
  ExpectReadable(*store, offsets, 100);
}

TEST_F(RecoveryTest, CleanShutdownRecoversNormallyFromTheThirdLastSegment) {
  auto offsets = Write(100, /*crash=*/false);
  auto store = Reopen();
  ASSERT_NE(store, nullptr);
  EXPECT_FALSE(store->recovered_abnormally());
  const auto& report = store->recovery_report();
  EXPECT_EQ(report.end_kind, EndKind::kCleanEnd) << report.Summary();
  const int64_t last_segment = offsets.back().value() / 4096 * 4096;
  EXPECT_EQ(report.scan_start.value(), last_segment - 2 * 4096);
  ExpectReadable(*store, offsets, 100);
  // Queue offsets continue where they were.
  PutMessageResult r = store->PutMessage(MakeTestMessage(100).View());
  EXPECT_EQ(r.first.queue_offset.value(), 25);
}

TEST_F(RecoveryTest, AbortFileLifecycle) {
  Write(3, /*crash=*/false);
  EXPECT_FALSE(fs_.Exists("/store/abort"));
  {
    auto store = Reopen();
    EXPECT_TRUE(fs_.Exists("/store/abort"));  // present while running
  }                                           // destroyed without Close: a crash
  EXPECT_TRUE(fs_.Exists("/store/abort"));
  auto store = Reopen();
  EXPECT_TRUE(store->recovered_abnormally());
}

// Recovery looks past the end of the log for data (to tell a torn tail from corruption)
// but reads only what the file system says may hold data: the never-written rest of a
// segment is not read, so it does not fill the page cache (a restart used to fault in a
// whole 1 GiB segment of zeros) — and garbage beyond a hole is still found.
TEST(RecoveryOnDiskTest, UnwrittenTailIsNotReadButDataAfterAHoleIsFound) {
  ::rocketstore::testing::TempDir dir;
  StoreOptions o;
  o.root_dir = dir.path();
  o.commit_log_segment_size = 64 << 20;
  o.reserve_chunk_bytes = 1 << 20;
  o.prefault_window_bytes = 1 << 20;
  o.start_background_services = false;
  o.message_index_enable = false;
  FakeClock clock;
  PosixFileSystem& fs = PosixFileSystem::Default();
  PhysicalOffset end;
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
    end = store->commit_log().MaxOffset();
    ASSERT_OK(store->Close());
  }
  const std::string segment = dir.path() + "/commitlog/" + SegmentFileName(0);
  {  // Start cold: drop the segment's cached pages (it is synced).
    const int fd = ::open(segment.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    ::close(fd);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    EXPECT_EQ(store->recovery_report().end_kind, EndKind::kCleanEnd)
        << store->recovery_report().Summary();
    EXPECT_EQ(store->commit_log().MaxOffset(), end);
    const std::shared_ptr<MappedFile> f = store->commit_log().segments().Files().front();
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    // Past the data, the reserve chunk and the prefault window, nothing was read in.
    const size_t from = 8 << 20;
    EXPECT_LE(ResidentPages(f->data() + from, f->file_size() - from) * page, size_t{64} << 10)
        << "recovery read the unwritten tail of the segment";
    ASSERT_OK(store->Close());
  }
  // Garbage far past the end, behind a hole: found, and the tail is dropped as corrupt.
  {
    const int fd = ::open(segment.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "garbage", 7, 40 << 20), 7);
    ::close(fd);
  }
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  const auto& report = store->recovery_report();
  EXPECT_EQ(report.end, end) << report.Summary();
  EXPECT_EQ(report.dropped_bytes, (40 << 20) + 7 - end.value()) << report.Summary();
  EXPECT_EQ(report.end_kind, EndKind::kCorruption) << report.Summary();
}

}  // namespace
}  // namespace rocketstore
