// File: store/cleanup/retention.h
//
// RetentionService: RocketMQ's CleanCommitLogService + CleanConsumeQueueService (spec §8)
// as one step function. The driver (a ServiceRunner, every cleanResourceInterval = 10 s)
// calls RunOnce(); tests call it directly with a FakeClock and a fake disk-usage source.
//
// One RunOnce():
//   1. Disk check (spec §8.1). The used ratio of the commit-log directory and, if set, of
//      options.consume_queue_dir comes from the DiskUsageSource. If any path is
//        > disk_space_warning_level_ratio  -> health.SetDiskFull(reason): puts answer
//                                             SERVICE_NOT_AVAILABLE; clean immediately;
//        > disk_space_clean_forcibly_ratio -> clean immediately (DISK_FULL unchanged);
//      else (every path at or below the forced ratio) health.ClearDiskFull(): the store
//      resumes writes by itself once space is freed. Between the two ratios DISK_FULL is
//      left as it is (RocketMQ's hysteresis). A path whose usage cannot be read counts as
//      "space" trigger but changes nothing else.
//   2. Triggers: time-up (the local hour of clock.NowMillis() is in delete_when), space
//      (a path > disk_max_used_space_ratio, or unknown), manual (RequestManualDelete()
//      left pending runs; each triggered run uses one). No trigger -> nothing is deleted.
//   3. Commit-log segments, oldest first, never the last (active) one: a segment is
//      expired when now >= mtime + file_reserved_time_ms (file-system modification time)
//      or when cleaning at once (clean_file_forcibly_enable && clean immediately).
//      Deletion stops at the first segment that is not expired (no holes), at one that
//      ends after options.keep_from() (if set), or after delete_files_batch_max segments. No
//      sleeping between deletions: the driver paces.
//   4. If the commit-log min offset m rose since the last successful step-4 (initially
//      0): every ConsumeQueue drops its files whose last unit points below m and corrects
//      its min offset (ConsumeQueue::DeleteFilesBelow), then the index drops files whose
//      endPhyOffset < m (IndexService::DeleteFilesBelow). A failure is retried next run.
// A queue-clean request (RequestQueueClean, CLEAN_EXPIRED_CONSUMEQUEUE 306) makes the next
// RunOnce, after the steps above, do step 4 again whatever the last minimum was — so files
// left below the minimum (a step 4 that failed, files left by a crash between a segment
// deletion and its step 4) go — and then answer the request with that round's report.
// After a deletion, a reader that asks for a removed range gets an error: CommitLog::Read
// kNotFound, GetMessage OFFSET_TOO_SMALL with the new min as next begin offset. Readers
// holding a CommitLogBytes / UnitRange keep valid bytes (the mapping lives on).
//
// Deviations from RocketMQ: no 100 ms sleeps and no "destroy later if still referenced"
// (a mapping outlives the unlink here, so a segment is always destroyable); both disk
// paths are always checked (RocketMQ skips the CQ path once the commit-log path triggers,
// and lets a fine CQ path clear DISK_FULL set by a full commit-log path).
//
// Thread-safety: RunOnce from one thread at a time (serialised internally);
// RequestManualDelete, RequestQueueClean, AbandonQueueCleans, options and UpdateOptions
// from any thread. Ownership: every
// reference passed to the constructor (and `index`, when not null) must outlive the service.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/commitlog/commit_log.h"
#include "store/common/store_health.h"
#include "store/consume_queue/consume_queue_table.h"
#include "store/index/index_service.h"

namespace rocketstore {

struct RetentionOptions {
  int64_t file_reserved_time_ms = int64_t{72} * 3600 * 1000;  // fileReservedTime (72 h)
  std::string delete_when = "04";            // deleteWhen: ';'-separated local hours
  int disk_max_used_space_ratio = 75;        // diskMaxUsedSpaceRatio, %, clamped to 10..95
  int disk_space_clean_forcibly_ratio = 85;  // %, clamped to 30..85 (5.x)
  int disk_space_warning_level_ratio = 90;   // %, clamped to 35..90 (5.x)
  int delete_files_batch_max = 10;           // deleteFileBatchMax, at least 1
  bool clean_file_forcibly_enable = true;    // cleanFileForciblyEnable
  int manual_delete_runs = 20;               // runs armed by RequestManualDelete()
  // Also checked for disk usage (RocketMQ checks <root>/consumequeue); "" = not checked.
  std::string consume_queue_dir;
  // Segments ending after keep_from() are never deleted, even when cleaning at once. The
  // store passes the dispatcher's position, so data not yet in the consume queues and
  // the index is never lost to forced cleaning (not in RocketMQ). Null = no limit.
  std::function<PhysicalOffset()> keep_from;
};

// The used ratio (0..1) of the file system holding `path`.
using DiskUsageSource = std::function<Result<double>(const std::string& path)>;

// RocketMQ's getDiskPartitionSpaceUsedPercent over fs.GetDiskUsage: used / total with
// used = total - free, rounded UP to a whole percent (0.905 -> 0.91).
DiskUsageSource FileSystemDiskUsage(FileSystem& fs);

// What one RunOnce saw and did (for logs and tests).
struct RetentionReport {
  double disk_used_ratio = -1;  // the largest ratio of the checked paths; -1 unknown
  std::string disk_path;        // the path it belongs to
  bool disk_full = false;       // DISK_FULL was set by this run
  bool time_up = false;
  bool space_full = false;
  bool manual = false;
  bool clean_immediately = false;             // segments were deleted even if not expired
  std::vector<std::string> deleted_segments;  // paths, oldest first
  // Why segment deletion stopped: "no trigger", "active segment", "not expired",
  // "batch max", "not dispatched" (keep_from).
  std::string stop_reason;
  PhysicalOffset commit_log_min;  // after this run
  int consume_queue_files_deleted = 0;
  int index_files_deleted = 0;
};

class RetentionService {
 public:
  // `index` may be null (message index disabled). `disk_usage` null = FileSystemDiskUsage(fs).
  // Nothing happens until RunOnce.
  RetentionService(CommitLog& commit_log, ConsumeQueueTable& consume_queues, IndexService* index,
                   StoreHealth& health, FileSystem& fs, Clock& clock, RetentionOptions options,
                   DiskUsageSource disk_usage = nullptr);

  RetentionService(const RetentionService&) = delete;
  RetentionService& operator=(const RetentionService&) = delete;

  // One cleaning round (see the file comment). Errors (a failed Stat/unlink of a
  // segment, a failed queue or index cleanup) are returned after the work that could
  // be done; what was deleted stays deleted and the next run continues.
  Result<RetentionReport> RunOnce();

  // RocketMQ's executeDeleteFilesManually: the next options.manual_delete_runs runs
  // delete expired segments whatever the hour and disk usage.
  void RequestManualDelete();
  int pending_manual_runs() const { return manual_runs_.load(); }

  // Queue cleaning on request (see the file comment): `done` gets the report of the next
  // RunOnce (or its error), on the thread running it; it must not block.
  using QueueCleanDone = std::function<void(Result<RetentionReport>)>;
  void RequestQueueClean(QueueCleanDone done);
  bool HasQueueCleanRequests() const;
  // Answers every waiting request with `why` (the runner stopped).
  void AbandonQueueCleans(const Status& why);

  // The settings the next round uses.
  RetentionOptions options() const;
  // UPDATE_BROKER_CONFIG: the next round uses `next`'s file_reserved_time_ms, delete_when,
  // the three disk ratios, delete_files_batch_max and clean_file_forcibly_enable (clamped
  // as at construction); its other members are ignored. A round under way keeps the
  // settings it started with.
  void UpdateOptions(const RetentionOptions& next);
  // Whether `hour` (0..23) is in the ';'-separated list `delete_when` ("04", "1;4", "04;16").
  static bool IsDeleteHour(const std::string& delete_when, int hour);

 private:
  void CheckDisk(const RetentionOptions& o, RetentionReport* report);
  Status DeleteSegments(const RetentionOptions& o, bool triggered, RetentionReport* report);
  // `force`: even when the commit-log minimum has not risen since the last clean.
  Status CleanQueuesAndIndex(RetentionReport* report, bool force);

  CommitLog& commit_log_;
  ConsumeQueueTable& consume_queues_;
  IndexService* const index_;
  StoreHealth& health_;
  FileSystem& fs_;
  Clock& clock_;
  mutable std::mutex options_mu_;
  RetentionOptions options_;  // GUARDED_BY(options_mu_)
  const DiskUsageSource disk_usage_;

  std::mutex run_mu_;  // one RunOnce at a time
  std::atomic<int> manual_runs_{0};
  int64_t last_cleaned_min_ = 0;  // GUARDED_BY(run_mu_): commit-log min of the last step 4
  mutable std::mutex request_mu_;
  std::vector<QueueCleanDone> queue_cleans_;  // GUARDED_BY(request_mu_)
};

}  // namespace rocketstore
