// Retention (spec §8): every rule of RetentionService::RunOnce, driven with a FakeClock, a
// fake disk-usage source and segment mtimes set on a FaultInjectionFileSystem, over a
// real MessageStore opened without background services.
#include "store/cleanup/retention.h"

#include <gtest/gtest.h>

#include <ctime>
#include <set>
#include <string>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::RecordMatches;
using ::rocketstore::testing::StatusIs;

constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kSegment = 4096;

// ms since the epoch of 2026-01-15 hour:30 local time.
int64_t LocalMillis(int hour) {
  std::tm t{};
  t.tm_year = 2026 - 1900;
  t.tm_mon = 0;
  t.tm_mday = 15;
  t.tm_hour = hour;
  t.tm_min = 30;
  t.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&t)) * 1000;
}

class RetentionTest : public ::testing::Test {
 protected:
  RetentionTest() : fs_(clock_) { clock_.SetMillis(LocalMillis(12)); }

  StoreOptions Options() {
    StoreOptions o;
    o.root_dir = "/store";
    o.commit_log_segment_size = kSegment;
    o.consume_queue_units_per_file = 1024;
    o.index_hash_slot_num = 256;
    o.index_num = 4096;
    o.reserve_chunk_bytes = 1024;
    o.prefault_window_bytes = 1024;
    o.start_background_services = false;
    return o;
  }

  void OpenStore(const StoreOptions& options) {
    ASSERT_OK_AND_ASSIGN(store_, MessageStore::Open(options, fs_, clock_));
  }
  void OpenStore() { OpenStore(Options()); }

  // The store's health, writable: the retention service sets DISK_FULL on it.
  StoreHealth& Health() { return const_cast<StoreHealth&>(store_->health()); }

  std::unique_ptr<RetentionService> Service(RetentionOptions o = {}) {
    o.consume_queue_dir = "/store/consumequeue";
    return std::make_unique<RetentionService>(store_->commit_log(), store_->consume_queues(),
                                              store_->index(), Health(), fs_, clock_, o,
                                              [this](const std::string& path) -> Result<double> {
                                                paths_seen_.insert(path);
                                                return usage_;
                                              });
  }

  // Puts messages (all to queue 0) until the log has `n` segments; returns their offsets.
  void FillSegments(size_t n) {
    while (store_->commit_log().segments().file_count() < n) {
      auto m = MakeTestMessage(next_, 1);
      PutMessageResult r = store_->PutMessage(m.View());
      ASSERT_TRUE(r.ok()) << r.error;
      offsets_.push_back(r.first.offset);
      ++next_;
    }
  }

  std::vector<std::string> SegmentPaths() {
    std::vector<std::string> paths;
    for (const auto& f : store_->commit_log().segments().Files()) paths.push_back(f->path());
    return paths;
  }
  // Sets the mtime of segment i (oldest first) to `age_ms` before now.
  void SetAge(size_t i, int64_t age_ms) {
    ASSERT_OK(fs_.SetMTime(SegmentPaths().at(i), clock_.NowMillis() - age_ms));
  }
  void SetAllAges(int64_t age_ms) {
    for (size_t i = 0; i < SegmentPaths().size(); ++i) SetAge(i, age_ms);
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_;
  std::unique_ptr<MessageStore> store_;
  double usage_ = 0.50;
  std::set<std::string> paths_seen_;
  std::vector<PhysicalOffset> offsets_;
  int next_ = 0;
};

TEST(RetentionStatic, DeleteWhenIsASemicolonListOfHours) {
  EXPECT_TRUE(RetentionService::IsDeleteHour("04", 4));
  EXPECT_FALSE(RetentionService::IsDeleteHour("04", 5));
  EXPECT_TRUE(RetentionService::IsDeleteHour("01;04", 1));
  EXPECT_TRUE(RetentionService::IsDeleteHour("01;04", 4));
  EXPECT_TRUE(RetentionService::IsDeleteHour("4;16", 16));
  EXPECT_FALSE(RetentionService::IsDeleteHour("", 0));
  EXPECT_FALSE(RetentionService::IsDeleteHour("x;", 0));
}

TEST(RetentionStatic, FileSystemDiskUsageRoundsUpToAWholePercent) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  fs.SetCapacityBytes(1000 * 4096);
  ASSERT_OK(fs.CreateDirs("/d"));
  DiskUsageSource usage = FileSystemDiskUsage(fs);
  ASSERT_OK_AND_ASSIGN(double empty, usage("/d"));
  EXPECT_DOUBLE_EQ(empty, 0.0);
  OpenOptions oo;
  oo.create = oo.writable = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile("/d/f", oo));
  ASSERT_OK(f->Allocate(0, 2 * 4096));  // 0.2 % -> 1 %
  ASSERT_OK_AND_ASSIGN(double small, usage("/d"));
  EXPECT_DOUBLE_EQ(small, 0.01);
  ASSERT_OK(f->Allocate(0, 10 * 4096));  // exactly 1 %
  ASSERT_OK_AND_ASSIGN(double one, usage("/d"));
  EXPECT_DOUBLE_EQ(one, 0.01);
  ASSERT_OK(f->Allocate(0, 905 * 4096));  // 90.5 % -> 91 %
  ASSERT_OK_AND_ASSIGN(double high, usage("/d"));
  EXPECT_DOUBLE_EQ(high, 0.91);
}

TEST_F(RetentionTest, NothingTriggersAtNoonWithAHealthyDisk) {
  OpenStore();
  FillSegments(3);
  SetAllAges(100 * kHour);  // expired, but neither hour nor space nor manual
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_FALSE(r.time_up || r.space_full || r.manual || r.clean_immediately);
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "no trigger");
  EXPECT_EQ(store_->commit_log().segments().file_count(), 3u);
  EXPECT_DOUBLE_EQ(r.disk_used_ratio, 0.50);
  // Both the commit-log and the consume-queue directory were checked.
  EXPECT_EQ(paths_seen_, (std::set<std::string>{"/store/commitlog", "/store/consumequeue"}));
}

TEST_F(RetentionTest, SegmentsYoungerThanTheReservedTimeAreKeptAtTheDeleteHour) {
  clock_.SetMillis(LocalMillis(4));
  OpenStore();
  FillSegments(3);
  SetAllAges(71 * kHour);
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.time_up);
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "not expired");
  EXPECT_EQ(store_->commit_log().MinOffset().value(), 0);
}

TEST_F(RetentionTest, TheDeleteHourDeletesExpiredSegmentsOldestFirstWithoutHoles) {
  clock_.SetMillis(LocalMillis(4));
  OpenStore();
  FillSegments(5);
  const std::vector<std::string> paths = SegmentPaths();
  SetAge(0, 73 * kHour);
  SetAge(1, 72 * kHour);  // exactly the reserved time: expired (now >= mtime + reserved)
  SetAge(2, 1 * kHour);   // not expired: deletion stops here
  SetAge(3, 80 * kHour);  // expired, but behind a kept one (no holes)
  SetAge(4, 80 * kHour);  // the active segment
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.time_up);
  EXPECT_EQ(r.deleted_segments, (std::vector<std::string>{paths[0], paths[1]}));
  EXPECT_EQ(r.stop_reason, "not expired");
  EXPECT_EQ(r.commit_log_min.value(), 2 * kSegment);
  EXPECT_FALSE(fs_.Exists(paths[0]));
  EXPECT_FALSE(fs_.Exists(paths[1]));
  EXPECT_TRUE(fs_.Exists(paths[2]));
  EXPECT_EQ(store_->commit_log().MinOffset().value(), 2 * kSegment);

  // An hour later the delete hour is over: nothing more goes, even expired.
  clock_.AdvanceMillis(kHour);
  SetAge(2, 100 * kHour);
  ASSERT_OK_AND_ASSIGN(RetentionReport later, service->RunOnce());
  EXPECT_FALSE(later.time_up);
  EXPECT_TRUE(later.deleted_segments.empty());
}

TEST_F(RetentionTest, DeleteWhenAcceptsSeveralHours) {
  clock_.SetMillis(LocalMillis(16));
  OpenStore();
  FillSegments(2);
  SetAllAges(73 * kHour);
  RetentionOptions o;
  o.delete_when = "04;16";
  auto service = Service(o);
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.time_up);
  EXPECT_EQ(r.deleted_segments.size(), 1u);
}

TEST_F(RetentionTest, DiskAboveMaxUsedRatioDeletesExpiredSegmentsAtAnyHour) {
  OpenStore();
  FillSegments(4);
  SetAge(0, 73 * kHour);
  SetAge(1, 73 * kHour);
  usage_ = 0.76;  // > 75 %, < 85 %: only expired segments
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_FALSE(r.time_up);
  EXPECT_TRUE(r.space_full);
  EXPECT_FALSE(r.clean_immediately);
  EXPECT_EQ(r.deleted_segments.size(), 2u);
  EXPECT_EQ(r.stop_reason, "not expired");
  EXPECT_TRUE(store_->health().Writable());

  // Exactly at the ratio is not above it.
  usage_ = 0.75;
  SetAge(0, 73 * kHour);
  ASSERT_OK_AND_ASSIGN(RetentionReport at, service->RunOnce());
  EXPECT_FALSE(at.space_full);
  EXPECT_TRUE(at.deleted_segments.empty());
}

TEST_F(RetentionTest, MaxUsedRatioIsConfigurableAndClamped) {
  OpenStore();
  FillSegments(3);
  SetAllAges(73 * kHour);
  RetentionOptions o;
  o.disk_max_used_space_ratio = 40;
  usage_ = 0.45;
  auto service = Service(o);
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.space_full);
  EXPECT_EQ(r.deleted_segments.size(), 2u);

  RetentionOptions clamped;
  clamped.disk_max_used_space_ratio = 1;
  EXPECT_EQ(Service(clamped)->options().disk_max_used_space_ratio, 10);
  clamped.disk_max_used_space_ratio = 99;
  EXPECT_EQ(Service(clamped)->options().disk_max_used_space_ratio, 95);
}

TEST_F(RetentionTest, UnknownDiskUsageCountsAsFull) {
  OpenStore();
  FillSegments(2);
  SetAllAges(73 * kHour);
  RetentionOptions o;
  auto service = std::make_unique<RetentionService>(
      store_->commit_log(), store_->consume_queues(), store_->index(), Health(), fs_, clock_, o,
      [](const std::string& path) -> Result<double> {
        return Status(StatusCode::kIOError, "statfs " + path);
      });
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.space_full);
  EXPECT_FALSE(r.clean_immediately);
  EXPECT_EQ(r.deleted_segments.size(), 1u);
  EXPECT_TRUE(store_->health().Writable());
}

TEST_F(RetentionTest, AboveTheForcedRatioEvenFreshSegmentsGoInBoundedBatches) {
  OpenStore();
  FillSegments(14);  // all fresh (mtime = now)
  usage_ = 0.86;
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.clean_immediately);
  EXPECT_EQ(r.deleted_segments.size(), 10u);  // delete_files_batch_max
  EXPECT_EQ(r.stop_reason, "batch max");
  EXPECT_EQ(store_->commit_log().MinOffset().value(), 10 * kSegment);
  EXPECT_TRUE(store_->health().Writable());  // 86 % is below the warning ratio

  ASSERT_OK_AND_ASSIGN(RetentionReport next, service->RunOnce());
  EXPECT_EQ(next.deleted_segments.size(), 3u);  // all but the active segment
  EXPECT_EQ(next.stop_reason, "active segment");
  EXPECT_EQ(store_->commit_log().segments().file_count(), 1u);
}

TEST_F(RetentionTest, ForcedCleaningRespectsCleanFileForciblyEnableAndBatchMax) {
  OpenStore();
  FillSegments(5);
  usage_ = 0.86;
  RetentionOptions off;
  off.clean_file_forcibly_enable = false;
  ASSERT_OK_AND_ASSIGN(RetentionReport r, Service(off)->RunOnce());
  EXPECT_TRUE(r.deleted_segments.empty());  // none expired, forcing disabled
  EXPECT_EQ(r.stop_reason, "not expired");

  RetentionOptions two;
  two.delete_files_batch_max = 2;
  ASSERT_OK_AND_ASSIGN(RetentionReport b, Service(two)->RunOnce());
  EXPECT_EQ(b.deleted_segments.size(), 2u);
}

TEST_F(RetentionTest, TheActiveSegmentIsNeverDeleted) {
  clock_.SetMillis(LocalMillis(4));
  OpenStore();
  FillSegments(1);
  SetAllAges(1000 * kHour);
  usage_ = 0.99;
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "active segment");
  EXPECT_EQ(store_->commit_log().segments().file_count(), 1u);
  ASSERT_OK(store_->ReadRecord(offsets_.at(0)));
}

TEST_F(RetentionTest, ManualDeleteRemovesExpiredSegmentsForTwentyRuns) {
  OpenStore();
  FillSegments(3);
  SetAge(0, 73 * kHour);
  SetAge(1, 1 * kHour);
  auto service = Service();
  service->RequestManualDelete();
  EXPECT_EQ(service->pending_manual_runs(), 20);
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.manual);
  EXPECT_EQ(r.deleted_segments.size(), 1u);  // manual deletes expired segments only
  EXPECT_EQ(service->pending_manual_runs(), 19);

  clock_.AdvanceMillis(72 * kHour);  // now segment 1 has expired too
  ASSERT_OK_AND_ASSIGN(RetentionReport again, service->RunOnce());
  EXPECT_TRUE(again.manual);
  EXPECT_EQ(again.deleted_segments.size(), 1u);
  for (int i = 0; i < 18; ++i) ASSERT_OK(service->RunOnce());
  EXPECT_EQ(service->pending_manual_runs(), 0);
  ASSERT_OK_AND_ASSIGN(RetentionReport done, service->RunOnce());
  EXPECT_FALSE(done.manual);
}

TEST_F(RetentionTest, AboveTheWarningRatioTheStoreRefusesWritesUntilSpaceIsFreed) {
  OpenStore();
  FillSegments(2);
  auto service = Service();
  usage_ = 0.91;
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_TRUE(r.disk_full);
  EXPECT_TRUE(r.clean_immediately);
  EXPECT_FALSE(store_->health().Writable());
  const std::string reason = store_->health().Reason();
  EXPECT_NE(reason.find("91%"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/store/"), std::string::npos) << reason;
  EXPECT_NE(reason.find("diskSpaceWarningLevelRatio 90%"), std::string::npos) << reason;
  EXPECT_EQ(r.deleted_segments.size(), 1u);  // cleaned at once (all but the active one)

  const int64_t max_before = store_->MaxPhysicalOffset().value();
  PutMessageResult refused = store_->PutMessage(MakeTestMessage(1000, 1).View());
  EXPECT_EQ(refused.status, PutMessageStatus::kServiceNotAvailable);
  EXPECT_NE(refused.error.find("diskSpaceWarningLevelRatio"), std::string::npos) << refused.error;
  EXPECT_EQ(store_->MaxPhysicalOffset().value(), max_before);  // nothing written

  // Between the forced and the warning ratio DISK_FULL stays (hysteresis).
  usage_ = 0.88;
  ASSERT_OK(service->RunOnce());
  EXPECT_FALSE(store_->health().Writable());

  usage_ = 0.80;  // space freed
  ASSERT_OK_AND_ASSIGN(RetentionReport ok, service->RunOnce());
  EXPECT_FALSE(ok.disk_full);
  EXPECT_TRUE(store_->health().Writable());
  EXPECT_EQ(store_->health().Reason(), "");
  PutMessageResult accepted = store_->PutMessage(MakeTestMessage(1001, 1).View());
  EXPECT_TRUE(accepted.ok()) << accepted.error;
}

TEST_F(RetentionTest, DeletingFreesSpaceAndResumesWritesInTheSameRun) {
  OpenStore();
  FillSegments(3);
  auto service = std::make_unique<RetentionService>(
      store_->commit_log(), store_->consume_queues(), store_->index(), Health(), fs_, clock_,
      RetentionOptions{}, [this](const std::string&) -> Result<double> {
        // Usage follows the number of segments: 3 -> 95 %, 1 -> 50 %.
        return store_->commit_log().segments().file_count() > 1 ? 0.95 : 0.50;
      });
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  EXPECT_EQ(r.deleted_segments.size(), 2u);
  EXPECT_FALSE(r.disk_full);
  EXPECT_TRUE(store_->health().Writable());
}

TEST_F(RetentionTest, QueueAndIndexFilesGoOnceTheirCommitLogDataIsGone) {
  StoreOptions o = Options();
  o.consume_queue_units_per_file = 16;
  o.index_hash_slot_num = 16;
  o.index_num = 32;
  OpenStore(o);
  FillSegments(6);
  ASSERT_OK(store_->RunDispatchStep());
  auto cq = store_->consume_queues().Find("TopicTest", 0);
  ASSERT_NE(cq, nullptr);
  const size_t cq_files_before = cq->file_count();
  const size_t index_files_before = store_->index()->file_count();
  ASSERT_GE(cq_files_before, 4u);
  ASSERT_GE(index_files_before, 3u);
  EXPECT_EQ(cq->MinOffset().value(), 0);

  clock_.SetMillis(LocalMillis(4));
  SetAge(0, 73 * kHour);
  SetAge(1, 73 * kHour);
  SetAge(2, 73 * kHour);
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  ASSERT_EQ(r.deleted_segments.size(), 3u);
  const PhysicalOffset min = store_->commit_log().MinOffset();
  EXPECT_EQ(min.value(), 3 * kSegment);

  // The first message still stored, by queue offset (queue 0 holds every message).
  int64_t first_kept = 0;
  while (offsets_.at(static_cast<size_t>(first_kept)) < min) ++first_kept;
  // CQ files whose last unit points below the minimum are gone; the min is corrected.
  EXPECT_EQ(static_cast<int64_t>(cq->file_count()),
            static_cast<int64_t>(cq_files_before) - first_kept / 16);
  EXPECT_EQ(r.consume_queue_files_deleted, first_kept / 16);
  EXPECT_GT(r.consume_queue_files_deleted, 0);
  EXPECT_EQ(cq->MinOffset().value(), first_kept);
  EXPECT_EQ(store_->GetMinOffsetInQueue("TopicTest", 0).value(), first_kept);
  // Index files that end below the minimum are gone, never the last.
  EXPECT_GT(r.index_files_deleted, 0);
  EXPECT_EQ(store_->index()->file_count(), index_files_before - r.index_files_deleted);
  ASSERT_FALSE(store_->index()->Files().empty());

  // A consumer at a deleted offset is told the new minimum.
  GetMessageRequest req;
  req.group = "g";
  req.topic = "TopicTest";
  req.queue_id = 0;
  req.offset = QueueOffset(0);
  GetMessageResult got = store_->GetMessage(req);
  EXPECT_EQ(got.status, GetMessageStatus::kOffsetTooSmall);
  EXPECT_EQ(got.next_begin_offset.value(), first_kept);
  EXPECT_EQ(got.min_offset.value(), first_kept);
  // ... and reading from there works.
  req.offset = got.next_begin_offset;
  GetMessageResult from_min = store_->GetMessage(req);
  ASSERT_EQ(from_min.status, GetMessageStatus::kFound);
  std::string why;
  EXPECT_TRUE(RecordMatches(from_min.messages.at(0).bytes,
                            MakeTestMessage(static_cast<int>(first_kept), 1), &why))
      << why;

  // A second run has nothing left to do.
  ASSERT_OK_AND_ASSIGN(RetentionReport again, service->RunOnce());
  EXPECT_EQ(again.consume_queue_files_deleted, 0);
  EXPECT_EQ(again.index_files_deleted, 0);
}

// CLEAN_EXPIRED_CONSUMEQUEUE (306): a queue-clean request is answered by the next round
// with its report, after that round removed the queue and index files below the
// commit log's minimum — also when no trigger deletes a segment in that round (the
// segments went another way); a second request in a later round finds nothing left.
TEST_F(RetentionTest, QueueCleanRequestIsAnsweredByTheNextRoundAfterItsFilesAreGone) {
  StoreOptions o = Options();
  o.consume_queue_units_per_file = 16;
  o.index_hash_slot_num = 16;
  o.index_num = 32;
  OpenStore(o);
  FillSegments(6);
  ASSERT_OK(store_->RunDispatchStep());
  auto cq = store_->consume_queues().Find("TopicTest", 0);
  ASSERT_NE(cq, nullptr);
  const size_t cq_files_before = cq->file_count();
  const size_t index_files_before = store_->index()->file_count();
  // Three segments go without a retention round (noon: no trigger).
  ASSERT_OK_AND_ASSIGN(
      int removed, store_->commit_log().segments().RemoveFilesBefore(PhysicalOffset(3 * kSegment)));
  ASSERT_EQ(removed, 3);
  auto service = Service();
  std::vector<Result<RetentionReport>> answers;
  service->RequestQueueClean([&](Result<RetentionReport> r) { answers.push_back(std::move(r)); });
  EXPECT_TRUE(service->HasQueueCleanRequests());
  EXPECT_TRUE(answers.empty());  // nothing before the round
  ASSERT_OK_AND_ASSIGN(RetentionReport round, service->RunOnce());
  EXPECT_TRUE(round.deleted_segments.empty());  // no trigger: no segment
  ASSERT_EQ(answers.size(), 1u);
  ASSERT_OK(answers[0].status());
  EXPECT_GT(answers[0]->consume_queue_files_deleted, 0);
  EXPECT_GT(answers[0]->index_files_deleted, 0);
  EXPECT_EQ(cq->file_count(), cq_files_before - answers[0]->consume_queue_files_deleted);
  EXPECT_EQ(store_->index()->file_count(), index_files_before - answers[0]->index_files_deleted);
  EXPECT_GE(store_->index()->Files().front()->end_phy_offset(), 3 * kSegment);
  EXPECT_FALSE(service->HasQueueCleanRequests());

  service->RequestQueueClean([&](Result<RetentionReport> r) { answers.push_back(std::move(r)); });
  ASSERT_OK(service->RunOnce().status());
  ASSERT_EQ(answers.size(), 2u);
  ASSERT_OK(answers[1].status());
  EXPECT_EQ(answers[1]->consume_queue_files_deleted, 0);
  EXPECT_EQ(answers[1]->index_files_deleted, 0);
}

TEST_F(RetentionTest, QueueCleanRequestsStillWaitingAreAbandonedWithTheReason) {
  OpenStore();
  auto service = Service();
  std::vector<Status> answers;
  for (int i = 0; i < 2; ++i) {
    service->RequestQueueClean([&](Result<RetentionReport> r) { answers.push_back(r.status()); });
  }
  service->AbandonQueueCleans(Unavailable("closing"));
  ASSERT_EQ(answers.size(), 2u);
  for (const Status& s : answers) EXPECT_THAT(s, StatusIs(StatusCode::kUnavailable));
  ASSERT_OK(service->RunOnce().status());
  EXPECT_EQ(answers.size(), 2u);  // nobody answered twice
}

// Without background services the request runs on the caller's thread.
TEST_F(RetentionTest, StoreWithoutServicesCleansQueuesOnTheCallersThread) {
  OpenStore();
  bool answered = false;
  store_->CleanConsumeQueuesNow([&](Result<RetentionReport> r) {
    EXPECT_TRUE(r.ok());
    answered = true;
  });
  EXPECT_TRUE(answered);
}

TEST_F(RetentionTest, AReaderKeepsItsBytesAndANewReadOfARemovedRangeIsAnError) {
  OpenStore();
  FillSegments(3);
  ASSERT_OK_AND_ASSIGN(CommitLogBytes view, store_->ReadRecord(offsets_.at(0)));
  usage_ = 0.86;  // forced: everything but the active segment goes
  auto service = Service();
  ASSERT_OK_AND_ASSIGN(RetentionReport r, service->RunOnce());
  ASSERT_EQ(r.deleted_segments.size(), 2u);
  // The old view still points at mapped, unchanged bytes.
  std::string why;
  EXPECT_TRUE(RecordMatches(view.bytes, MakeTestMessage(0, 1), &why)) << why;
  // A new read of the removed range is an error, not a crash.
  EXPECT_THAT(store_->ReadRecord(offsets_.at(0)), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->commit_log().Read(PhysicalOffset(kSegment), 4),
              StatusIs(StatusCode::kNotFound));
  EXPECT_OK(store_->ReadRecord(offsets_.back()));
}

TEST_F(RetentionTest, DeletionsSurviveARestart) {
  OpenStore();
  FillSegments(4);
  usage_ = 0.86;
  ASSERT_OK(Service()->RunOnce());
  ASSERT_OK(store_->Close());
  store_.reset();
  OpenStore();
  EXPECT_EQ(store_->commit_log().MinOffset().value(), 3 * kSegment);
  EXPECT_OK(store_->ReadRecord(offsets_.back()));
}

TEST_F(RetentionTest, KeepFromProtectsUndispatchedSegmentsFromForcedCleaning) {
  OpenStore();
  FillSegments(4);
  usage_ = 0.95;
  RetentionOptions o;
  o.keep_from = [] { return PhysicalOffset(kSegment + 10); };  // inside segment 1
  ASSERT_OK_AND_ASSIGN(RetentionReport r, Service(o)->RunOnce());
  EXPECT_EQ(r.deleted_segments.size(), 1u);
  EXPECT_EQ(r.stop_reason, "not dispatched");
  EXPECT_EQ(store_->commit_log().MinOffset().value(), kSegment);
}

}  // namespace
}  // namespace rocketstore
