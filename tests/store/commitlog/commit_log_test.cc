#include "store/commitlog/commit_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "base/coding.h"
#include "io/fault_injection_file_system.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using format::HostAddress;
using format::MessageToStore;
using ::rocketstore::testing::StatusIs;

constexpr char kPropsA[] = "KEYS\x01k1\x02TAGS\x01TagA";  // §12.1, 17 bytes
constexpr char kPropsB[] =                                // §12.3 record B, 82 bytes
    "KEYS\x01k1\x02UNIQ_KEY\x01"
    "7F00000112340BADCAFE0001E2400001\x02"
    "CLUSTER\x01"
    "DefaultCluster\x02TAGS\x01TagA";

MessageToStore SpecMessage(std::string_view props = kPropsA) {
  MessageToStore m;
  m.topic = "TopicTest";
  m.queue_id = 0;
  m.body = "hello";
  m.properties = props;
  m.born_timestamp = 1700000000000;
  m.born_host = HostAddress::V4(127, 0, 0, 1, 5555);
  m.store_host = HostAddress::V4(127, 0, 0, 1, 10911);
  return m;
}

class CommitLogTest : public ::testing::Test {
 protected:
  void Open(int64_t segment_size = 256) {
    CommitLogOptions o;
    o.dir = "/store/commitlog";
    o.segment_size = segment_size;
    o.reserve_chunk_bytes = 4096;
    o.prefault_window_bytes = 4096;
    o.max_message_body_bytes = max_body_;
    o.append_with_pwrite = append_with_pwrite_;
    auto log = CommitLog::Open(fs_, o, clock_, health_);
    ASSERT_OK(log.status());
    log_ = std::move(log).value();
  }

  std::string FileBytes(const std::string& name) {
    auto content = fs_.ReadWholeFile("/store/commitlog/" + name);
    EXPECT_OK(content.status());
    return content.ok() ? *content : "";
  }

  FakeClock clock_{1700000000123};
  FaultInjectionFileSystem fs_{clock_};
  StoreHealth health_;
  size_t max_body_ = 4 << 20;
  bool append_with_pwrite_ = false;
  std::unique_ptr<CommitLog> log_;
};

// Spec §12.3: with 256-byte segments, record A (122 bytes) fills file 0 up to 122; record
// B (187 bytes) does not fit (187 + 8 > 134), so a BLANK `00000086 CBD43194` closes file 0
// and B is written at position 0 of file 00000000000000000256.
TEST_F(CommitLogTest, Spec12_3_RollWritesBlankAndMovesRecordToNextSegment) {
  Open(256);
  PutMessageResult a = log_->Put(SpecMessage(kPropsA));
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.first.offset.value(), 0);
  EXPECT_EQ(a.first.size, 122);
  EXPECT_EQ(a.first.queue_offset.value(), 0);

  PutMessageResult b = log_->Put(SpecMessage(kPropsB));
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_EQ(b.first.offset.value(), 256);
  EXPECT_EQ(b.first.size, 187);
  EXPECT_EQ(b.first.queue_offset.value(), 1);
  EXPECT_EQ(format::EncodeOffsetMsgId(HostAddress::V4(127, 0, 0, 1, 10911), b.first.offset.value()),
            "7F00000100002A9F0000000000000100");

  std::string f0 = FileBytes("00000000000000000000");
  ASSERT_EQ(f0.size(), 256u);
  EXPECT_EQ(HexUpper(f0.data() + 122, 8), "00000086CBD43194");
  EXPECT_EQ(f0.substr(130), std::string(126, '\0'));  // the rest is not written

  std::string f1 = FileBytes("00000000000000000256");
  ASSERT_EQ(f1.size(), 256u);
  auto decoded = format::DecodeRecord(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(f1.data()), f1.size()), true);
  ASSERT_EQ(decoded.outcome, format::DecodeOutcome::kRecord) << decoded.error;
  const format::RecordView& r = decoded.record;
  EXPECT_EQ(r.total_size, 187);
  EXPECT_EQ(r.physical_offset, 256);
  EXPECT_EQ(r.queue_offset, 1);
  EXPECT_EQ(r.queue_id, 0);
  EXPECT_EQ(r.body_crc, 907060870u);
  EXPECT_EQ(r.store_timestamp, 1700000000123);
  EXPECT_EQ(r.born_timestamp, 1700000000000);
  EXPECT_EQ(r.born_host.ToString(), "127.0.0.1:5555");
  EXPECT_EQ(r.store_host.ToString(), "127.0.0.1:10911");
  EXPECT_EQ(r.body, "hello");
  EXPECT_EQ(r.topic, "TopicTest");
  EXPECT_EQ(r.properties, std::string_view(kPropsB, 82));

  // Record A is byte-identical to the §12.1 example.
  auto ra = log_->ReadRecord(PhysicalOffset(0));
  ASSERT_OK(ra.status());
  EXPECT_EQ(HexUpper(ra->bytes.data(), 16), "0000007ADAA320A73610A68600000000");
  // And the blank is where readers are told to roll.
  EXPECT_EQ(log_->NextSegmentStart(PhysicalOffset(122)).value(), 256);
}

// Every put check answers with its status and leaves the files untouched.
class PutCheckTest : public CommitLogTest {
 protected:
  void SetUp() override {
    max_body_ = 1024;
    Open(4096);
    ASSERT_TRUE(log_->Put(SpecMessage()).ok());
    before_ = FileBytes("00000000000000000000");
    max_before_ = log_->MaxOffset();
  }
  void ExpectRejected(const MessageToStore& m, PutMessageStatus want) {
    PutMessageResult r = log_->Put(m);
    EXPECT_EQ(r.status, want) << PutMessageStatusName(r.status) << ": " << r.error;
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(FileBytes("00000000000000000000"), before_);
    EXPECT_EQ(log_->MaxOffset(), max_before_);
  }
  std::string before_;
  PhysicalOffset max_before_;
};

TEST_F(PutCheckTest, TopicTooLongIsIllegal) {
  std::string topic(128, 't');
  MessageToStore m = SpecMessage();
  m.topic = topic;
  ExpectRejected(m, PutMessageStatus::kMessageIllegal);
  std::string ok_topic(127, 't');
  m.topic = ok_topic;
  EXPECT_TRUE(log_->Put(m).ok());
}

TEST_F(PutCheckTest, BodyTooLargeIsIllegal) {
  std::string body(1025, 'b');
  MessageToStore m = SpecMessage();
  m.body = body;
  ExpectRejected(m, PutMessageStatus::kMessageIllegal);
  std::string max_body(1024, 'b');
  m.body = max_body;
  EXPECT_TRUE(log_->Put(m).ok());
}

TEST_F(PutCheckTest, PropertiesTooLargeAreRejected) {
  std::string props = "K\x01" + std::string(32766, 'v');  // 32768 bytes
  MessageToStore m = SpecMessage();
  m.properties = props;
  ExpectRejected(m, PutMessageStatus::kPropertiesSizeExceeded);
}

TEST_F(PutCheckTest, RecordLargerThanASegmentIsIllegal) {
  max_body_ = 8192;
  Open(4096);  // reopened: no recovery here, so the loaded segment counts as full
  before_ = FileBytes("00000000000000000000");
  max_before_ = log_->MaxOffset();
  std::string body(4096, 'b');
  MessageToStore m = SpecMessage();
  m.body = body;
  ExpectRejected(m, PutMessageStatus::kMessageIllegal);
}

TEST_F(PutCheckTest, NotWritableIsServiceNotAvailable) {
  health_.SetFatalIoError(ErrnoStatus("fsync x", EIO));
  ExpectRejected(SpecMessage(), PutMessageStatus::kServiceNotAvailable);
}

TEST_F(PutCheckTest, ShutdownIsServiceNotAvailable) {
  health_.SetShutdown();
  ExpectRejected(SpecMessage(), PutMessageStatus::kServiceNotAvailable);
}

TEST_F(PutCheckTest, SlaveRoleIsServiceNotAvailable) {
  health_.SetReadOnly("broker role is SLAVE");
  PutMessageResult r = log_->Put(SpecMessage());
  EXPECT_EQ(r.status, PutMessageStatus::kServiceNotAvailable);
  EXPECT_NE(r.error.find("SLAVE"), std::string::npos);
}

// A file system that parks the thread creating a file until released: the first put
// creates the first segment inside the append lock, so it holds the lock while parked.
class ParkingFileSystem : public FileSystem {
 public:
  explicit ParkingFileSystem(FileSystem& base) : base_(base) {}
  Result<std::unique_ptr<File>> OpenFile(const std::string& path, const OpenOptions& o) override {
    if (o.create) {
      std::unique_lock<std::mutex> l(mu_);
      parked_ = true;
      cv_.notify_all();
      cv_.wait(l, [this] { return released_; });
    }
    return base_.OpenFile(path, o);
  }
  void WaitParked() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return parked_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }
  Status CreateDirs(const std::string& p) override { return base_.CreateDirs(p); }
  Result<std::vector<std::string>> ListDir(const std::string& p) override {
    return base_.ListDir(p);
  }
  Result<FileInfo> Stat(const std::string& p) override { return base_.Stat(p); }
  Status RemoveFile(const std::string& p) override { return base_.RemoveFile(p); }
  Status RemoveDir(const std::string& p) override { return base_.RemoveDir(p); }
  Status Rename(const std::string& a, const std::string& b) override { return base_.Rename(a, b); }
  Status SyncDir(const std::string& p) override { return base_.SyncDir(p); }
  Status SetMTime(const std::string& p, int64_t t) override { return base_.SetMTime(p, t); }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& p) override {
    return base_.LockFile(p);
  }
  Result<DiskUsage> GetDiskUsage(const std::string& p) override { return base_.GetDiskUsage(p); }
  Result<std::string> BootId() override { return base_.BootId(); }

 private:
  FileSystem& base_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool parked_ = false;
  bool released_ = false;
};

TEST_F(CommitLogTest, LockHeldOverOneSecondIsPageCacheBusy) {
  ParkingFileSystem parking(fs_);
  CommitLogOptions o;
  o.dir = "/store/commitlog";
  o.segment_size = 4096;
  auto log = CommitLog::Open(parking, o, clock_, health_);
  ASSERT_OK(log.status());
  EXPECT_FALSE((*log)->IsOsPageCacheBusy());  // idle never counts as busy

  PutMessageResult first;
  std::thread holder([&] { first = (*log)->Put(SpecMessage()); });
  parking.WaitParked();  // the holder is inside the append lock now
  clock_.AdvanceMillis(999);
  EXPECT_FALSE((*log)->IsOsPageCacheBusy());
  clock_.AdvanceMillis(2);
  PutMessageResult busy = (*log)->Put(SpecMessage());
  EXPECT_EQ(busy.status, PutMessageStatus::kOsPageCacheBusy) << busy.error;
  parking.Release();
  holder.join();
  EXPECT_TRUE(first.ok()) << first.error;
  EXPECT_FALSE((*log)->IsOsPageCacheBusy());
  EXPECT_TRUE((*log)->Put(SpecMessage()).ok());
}

TEST_F(CommitLogTest, FullDiskAtReservationFailsThePutAndWritesNothing) {
  Open(1 << 20);
  ASSERT_TRUE(log_->Put(SpecMessage()).ok());
  fs_.FailOpsOfKind(OpKind::kAllocate, ENOSPC);
  std::string body(8192, 'x');
  MessageToStore m = SpecMessage();
  m.body = body;
  PhysicalOffset before = log_->MaxOffset();
  PutMessageResult r = log_->Put(m);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status, PutMessageStatus::kServiceNotAvailable);
  EXPECT_NE(r.error.find("No space"), std::string::npos) << r.error;
  EXPECT_EQ(log_->MaxOffset(), before);
  fs_.ClearFailures();
  EXPECT_TRUE(log_->Put(m).ok());  // space freed: puts work again
}

// SYNC_FLUSH appends through a write buffer and one pwrite() per commit
// (CommitLogOptions::append_with_pwrite): the files must come out byte for byte as when
// records are stored into the map, roll and BLANK included; a buffered record is
// invisible to readers until committed, then readable through the map.
TEST_F(CommitLogTest, AppendWithPwriteWritesTheSameBytesAsTheMap) {
  std::vector<std::string> files[2];
  for (int mode = 0; mode < 2; ++mode) {
    FakeClock clock{1700000000123};
    FaultInjectionFileSystem fs{clock};
    StoreHealth health;
    CommitLogOptions o;
    o.dir = "/store/commitlog";
    o.segment_size = 512;
    o.reserve_chunk_bytes = 4096;
    o.append_with_pwrite = mode == 1;
    ASSERT_OK_AND_ASSIGN(auto log, CommitLog::Open(fs, o, clock, health));
    for (int i = 0; i < 6; ++i) {
      PutMessageResult r = log->Put(SpecMessage(i % 2 ? kPropsB : kPropsA));
      ASSERT_TRUE(r.ok()) << r.error;
      if (mode == 1) {
        EXPECT_TRUE(log->HasPending());
        EXPECT_FALSE(log->ReadRecord(r.first.offset).ok());  // not committed yet
        ASSERT_OK(log->CommitPending());
        EXPECT_FALSE(log->HasPending());
      }
      ASSERT_OK_AND_ASSIGN(CommitLogBytes read, log->ReadRecord(r.first.offset));
      EXPECT_EQ(read.bytes.size(), static_cast<size_t>(r.first.size));
    }
    const std::vector<MessageToStore> batch = {SpecMessage(), SpecMessage()};
    ASSERT_TRUE(log->PutBatch(batch).ok());
    ASSERT_TRUE(log->Put(SpecMessage(kPropsB)).ok());  // buffered across a roll
    ASSERT_OK(log->CommitPending());
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> names, fs.ListDir("/store/commitlog"));
    std::sort(names.begin(), names.end());
    EXPECT_GE(names.size(), 3u);  // rolled twice
    for (const std::string& n : names) {
      ASSERT_OK_AND_ASSIGN(std::string bytes, fs.ReadWholeFile("/store/commitlog/" + n));
      files[mode].push_back(n + ":" + bytes);
    }
  }
  EXPECT_EQ(files[0], files[1]);
}

TEST_F(CommitLogTest, FailedCommitIsStickyAndPublishesNothing) {
  append_with_pwrite_ = true;
  Open(4096);
  PutMessageResult first = log_->Put(SpecMessage());
  ASSERT_TRUE(first.ok());
  ASSERT_OK(log_->CommitPending());
  PutMessageResult second = log_->Put(SpecMessage());
  ASSERT_TRUE(second.ok());  // buffered: nothing acknowledged it as durable
  fs_.FailOpsOfKind(OpKind::kWrite, EIO);
  Status s = log_->CommitPending();
  EXPECT_THAT(s, StatusIs(StatusCode::kIOError));
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s;
  EXPECT_FALSE(health_.Writable());
  EXPECT_TRUE(log_->ReadRecord(first.first.offset).ok());
  EXPECT_FALSE(log_->ReadRecord(second.first.offset).ok());  // never published
  fs_.ClearFailures();
  EXPECT_EQ(log_->Put(SpecMessage()).status, PutMessageStatus::kServiceNotAvailable);
}

TEST_F(CommitLogTest, FullDiskWhenCreatingASegmentIsCreateMappedFileFailed) {
  fs_.FailOpsOfKind(OpKind::kOpen, ENOSPC);
  Open(4096);
  PutMessageResult r = log_->Put(SpecMessage());
  EXPECT_EQ(r.status, PutMessageStatus::kCreateMappedFileFailed);
  fs_.ClearFailures();
  EXPECT_TRUE(log_->Put(SpecMessage()).ok());
}

TEST_F(CommitLogTest, StoreTimestampNeverDecreasesWhenTheClockStepsBack) {
  Open(4096);
  auto a = log_->Put(SpecMessage());
  clock_.AdvanceMillis(-5000);
  auto b = log_->Put(SpecMessage());
  EXPECT_GE(b.first.store_timestamp, a.first.store_timestamp);
}

TEST_F(CommitLogTest, TransactionPreparedAndRollbackTakeNoQueueOffset) {
  Open(4096);
  MessageToStore m = SpecMessage();
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 0);
  m.sys_flag = format::kTransactionPrepared;
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 0);
  m.sys_flag = format::kTransactionRollback;
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 0);
  m.sys_flag = format::kTransactionCommit;
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 1);
  m.sys_flag = 0;
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 2);
  m.queue_id = 3;
  EXPECT_EQ(log_->Put(m).first.queue_offset.value(), 0);
}

TEST_F(CommitLogTest, BatchIsContiguousWithConsecutiveQueueOffsets) {
  Open(4096);
  std::vector<MessageToStore> batch(3, SpecMessage());
  PutMessageResult r = log_->PutBatch(batch);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.count, 3);
  EXPECT_EQ(r.total_bytes, 3 * 122);
  for (int i = 0; i < 3; ++i) {
    auto rec = log_->ReadRecord(PhysicalOffset(122 * i));
    ASSERT_OK(rec.status());
    auto d = format::DecodeRecord(rec->bytes, true);
    ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
    EXPECT_EQ(d.record.queue_offset, i);
    EXPECT_EQ(d.record.store_timestamp, r.first.store_timestamp);
  }
  batch[1].queue_id = 7;
  EXPECT_EQ(log_->PutBatch(batch).status, PutMessageStatus::kMessageIllegal);
}

TEST_F(CommitLogTest, ReadsOutsideTheWrittenRangeAreErrors) {
  Open(4096);
  ASSERT_TRUE(log_->Put(SpecMessage()).ok());
  EXPECT_THAT(log_->Read(PhysicalOffset(100), 100), StatusIs(StatusCode::kOutOfRange));
  EXPECT_THAT(log_->Read(PhysicalOffset(8192), 10), StatusIs(StatusCode::kOutOfRange));
  EXPECT_OK(log_->Read(PhysicalOffset(0), 122).status());
}

// Many producers: per-queue offsets unique and contiguous, store timestamps non-decreasing
// along the log, and every record decodes with a valid CRC.
TEST_F(CommitLogTest, ConcurrentProducers) {
  Open(64 * 1024);
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  constexpr int kQueues = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string body = "body-" + std::to_string(t);
      for (int i = 0; i < kPerThread; ++i) {
        MessageToStore m = SpecMessage();
        m.body = body;
        m.queue_id = (t + i) % kQueues;
        if (i % 50 == 0) clock_.AdvanceMillis(1);
        PutMessageResult r = log_->Put(m);
        ASSERT_TRUE(r.ok()) << r.error;
      }
    });
  }
  for (auto& th : threads) th.join();

  std::map<int, std::set<int64_t>> offsets;
  int64_t last_ts = 0;
  int records = 0;
  PhysicalOffset pos = log_->MinOffset();
  while (pos < log_->MaxOffset()) {
    auto bytes = log_->ReadToSegmentEnd(pos);
    ASSERT_OK(bytes.status());
    auto d = format::DecodeRecord(bytes->bytes, true);
    if (d.outcome == format::DecodeOutcome::kBlank) {
      pos = log_->NextSegmentStart(pos);
      continue;
    }
    ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error << " at " << pos;
    EXPECT_EQ(d.record.physical_offset, pos.value());
    EXPECT_GE(d.record.store_timestamp, last_ts);
    last_ts = d.record.store_timestamp;
    EXPECT_TRUE(offsets[d.record.queue_id].insert(d.record.queue_offset).second);
    pos += d.record.total_size;
    ++records;
  }
  EXPECT_EQ(records, kThreads * kPerThread);
  for (auto& [q, set] : offsets) {
    EXPECT_EQ(*set.begin(), 0);
    EXPECT_EQ(*set.rbegin(), static_cast<int64_t>(set.size()) - 1);  // contiguous
    EXPECT_EQ(log_->NextQueueOffset("TopicTest", q).value(), static_cast<int64_t>(set.size()));
  }
}

}  // namespace
}  // namespace rocketstore
