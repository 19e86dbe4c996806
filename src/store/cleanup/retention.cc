#include "store/cleanup/retention.h"

#include <algorithm>
#include <ctime>
#include <optional>
#include <utility>

namespace rocketstore {
namespace {

RetentionOptions Clamped(RetentionOptions o) {
  o.disk_max_used_space_ratio = std::clamp(o.disk_max_used_space_ratio, 10, 95);
  o.disk_space_clean_forcibly_ratio = std::clamp(o.disk_space_clean_forcibly_ratio, 30, 85);
  o.disk_space_warning_level_ratio = std::clamp(o.disk_space_warning_level_ratio, 35, 90);
  o.delete_files_batch_max = std::max(o.delete_files_batch_max, 1);
  o.manual_delete_runs = std::max(o.manual_delete_runs, 1);
  return o;
}

int LocalHour(int64_t millis) {
  const std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  if (localtime_r(&seconds, &tm) == nullptr) return -1;
  return tm.tm_hour;
}

int Percent(double ratio) { return static_cast<int>(ratio * 100 + 0.5); }

}  // namespace

DiskUsageSource FileSystemDiskUsage(FileSystem& fs) {
  return [&fs](const std::string& path) -> Result<double> {
    RS_ASSIGN_OR_RETURN(DiskUsage usage, fs.GetDiskUsage(path));
    if (usage.total_bytes == 0) return InvalidArgument(path + ": file system reports size 0");
    const uint64_t free = std::min(usage.free_bytes, usage.total_bytes);
    const unsigned __int128 used100 =
        static_cast<unsigned __int128>(usage.total_bytes - free) * 100;
    uint64_t percent = static_cast<uint64_t>(used100 / usage.total_bytes);
    if (used100 % usage.total_bytes != 0) ++percent;  // rounded up, as RocketMQ
    return static_cast<double>(percent) / 100.0;
  };
}

bool RetentionService::IsDeleteHour(const std::string& delete_when, int hour) {
  size_t begin = 0;
  while (begin <= delete_when.size()) {
    size_t end = delete_when.find(';', begin);
    if (end == std::string::npos) end = delete_when.size();
    const std::string token = delete_when.substr(begin, end - begin);
    if (!token.empty() && token.size() <= 2 &&
        std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoi(token) == hour) {
      return true;
    }
    begin = end + 1;
  }
  return false;
}

RetentionService::RetentionService(CommitLog& commit_log, ConsumeQueueTable& consume_queues,
                                   IndexService* index, StoreHealth& health, FileSystem& fs,
                                   Clock& clock, RetentionOptions options,
                                   DiskUsageSource disk_usage)
    : commit_log_(commit_log),
      consume_queues_(consume_queues),
      index_(index),
      health_(health),
      fs_(fs),
      clock_(clock),
      options_(Clamped(std::move(options))),
      disk_usage_(disk_usage ? std::move(disk_usage) : FileSystemDiskUsage(fs)) {}

void RetentionService::CheckDisk(const RetentionOptions& o, RetentionReport* report) {
  std::vector<std::string> paths = {commit_log_.options().dir};
  if (!o.consume_queue_dir.empty()) paths.push_back(o.consume_queue_dir);
  bool any_known = false;
  bool all_at_most_forced = true;
  for (const std::string& path : paths) {
    Result<double> ratio = disk_usage_(path);
    if (!ratio.ok()) {  // unknown usage (RocketMQ's -1): delete expired files
      report->space_full = true;
      all_at_most_forced = false;
      continue;
    }
    const double r = *ratio;
    if (!any_known || r > report->disk_used_ratio) {
      report->disk_used_ratio = r;
      report->disk_path = path;
    }
    any_known = true;
    if (r > o.disk_space_warning_level_ratio / 100.0) {
      if (!report->disk_full) {
        health_.SetDiskFull("disk usage " + std::to_string(Percent(r)) + "% of " + path +
                            " exceeds diskSpaceWarningLevelRatio " +
                            std::to_string(o.disk_space_warning_level_ratio) +
                            "%: the store accepts no writes until space is freed");
      }
      report->disk_full = true;
      report->clean_immediately = true;
    } else if (r > o.disk_space_clean_forcibly_ratio / 100.0) {
      report->clean_immediately = true;
    }
    if (r > o.disk_space_clean_forcibly_ratio / 100.0) all_at_most_forced = false;
    if (r > o.disk_max_used_space_ratio / 100.0) report->space_full = true;
  }
  if (any_known && all_at_most_forced) health_.ClearDiskFull();
}

Status RetentionService::DeleteSegments(const RetentionOptions& o, bool triggered,
                                        RetentionReport* report) {
  if (!triggered) {
    report->stop_reason = "no trigger";
    return Status::OK();
  }
  const bool at_once = o.clean_file_forcibly_enable && report->clean_immediately;
  const int64_t now = clock_.NowMillis();
  const std::vector<std::shared_ptr<MappedFile>> files = commit_log_.segments().Files();
  PhysicalOffset delete_before;
  int count = 0;
  const std::optional<PhysicalOffset> keep_from =
      o.keep_from ? std::optional<PhysicalOffset>(o.keep_from()) : std::nullopt;
  report->stop_reason = "active segment";
  for (size_t i = 0; i + 1 < files.size(); ++i) {  // never the last (active) segment
    if (count >= o.delete_files_batch_max) {
      report->stop_reason = "batch max";
      break;
    }
    if (keep_from && files[i]->end_offset() > *keep_from) {
      report->stop_reason = "not dispatched";
      break;
    }
    if (!at_once) {
      RS_ASSIGN_OR_RETURN(FileInfo info, fs_.Stat(files[i]->path()));
      if (now < info.mtime_millis + o.file_reserved_time_ms) {
        report->stop_reason = "not expired";
        break;
      }
    }
    delete_before = files[i]->end_offset();
    ++count;
  }
  if (count == 0) return Status::OK();
  const PhysicalOffset min_before = commit_log_.MinOffset();
  Result<int> removed = commit_log_.segments().RemoveFilesBefore(delete_before);
  // Report what is really gone, also when the removal stopped part-way.
  for (const auto& f : files) {
    if (f->start_offset() >= commit_log_.MinOffset()) break;
    if (f->start_offset() >= min_before) report->deleted_segments.push_back(f->path());
  }
  return removed.status();
}

Status RetentionService::CleanQueuesAndIndex(RetentionReport* report, bool force) {
  const PhysicalOffset min = commit_log_.MinOffset();
  if (!force && min.value() <= last_cleaned_min_) return Status::OK();
  Status first_error;
  Status s = consume_queues_.ForEach([&](ConsumeQueue& cq) {
    const size_t before = cq.file_count();
    Status d = cq.DeleteFilesBelow(min);
    const size_t after = cq.file_count();
    if (after < before) report->consume_queue_files_deleted += static_cast<int>(before - after);
    if (!d.ok() && first_error.ok()) {
      first_error = d.WithContext("deleting consume queue files of " + cq.topic() + "/" +
                                  std::to_string(cq.queue_id()));
    }
    return Status::OK();  // go on with the other queues
  });
  if (first_error.ok()) first_error = s;
  if (index_ != nullptr) {
    const size_t before = index_->file_count();
    Status d = index_->DeleteFilesBelow(min);
    const size_t after = index_->file_count();
    if (after < before) report->index_files_deleted = static_cast<int>(before - after);
    if (!d.ok() && first_error.ok()) first_error = d.WithContext("deleting index files");
  }
  if (first_error.ok()) last_cleaned_min_ = min.value();  // else retried next run
  return first_error;
}

void RetentionService::RequestQueueClean(QueueCleanDone done) {
  std::lock_guard<std::mutex> l(request_mu_);
  queue_cleans_.push_back(std::move(done));
}

bool RetentionService::HasQueueCleanRequests() const {
  std::lock_guard<std::mutex> l(request_mu_);
  return !queue_cleans_.empty();
}

void RetentionService::AbandonQueueCleans(const Status& why) {
  std::vector<QueueCleanDone> abandoned;
  {
    std::lock_guard<std::mutex> l(request_mu_);
    abandoned.swap(queue_cleans_);
  }
  for (QueueCleanDone& d : abandoned) d(why);
}

RetentionOptions RetentionService::options() const {
  std::lock_guard<std::mutex> l(options_mu_);
  return options_;
}

void RetentionService::UpdateOptions(const RetentionOptions& next) {
  std::lock_guard<std::mutex> l(options_mu_);
  RetentionOptions o = options_;
  o.file_reserved_time_ms = next.file_reserved_time_ms;
  o.delete_when = next.delete_when;
  o.disk_max_used_space_ratio = next.disk_max_used_space_ratio;
  o.disk_space_clean_forcibly_ratio = next.disk_space_clean_forcibly_ratio;
  o.disk_space_warning_level_ratio = next.disk_space_warning_level_ratio;
  o.delete_files_batch_max = next.delete_files_batch_max;
  o.clean_file_forcibly_enable = next.clean_file_forcibly_enable;
  options_ = Clamped(std::move(o));
}

void RetentionService::RequestManualDelete() {
  int runs;
  {
    std::lock_guard<std::mutex> l(options_mu_);
    runs = options_.manual_delete_runs;
  }
  manual_runs_.store(runs);
}

Result<RetentionReport> RetentionService::RunOnce() {
  std::lock_guard<std::mutex> l(run_mu_);
  const RetentionOptions o = options();  // this round's settings
  // The requests this round answers: those made before it started.
  std::vector<QueueCleanDone> cleans;
  {
    std::lock_guard<std::mutex> r(request_mu_);
    cleans.swap(queue_cleans_);
  }
  RetentionReport report;
  CheckDisk(o, &report);
  report.time_up = IsDeleteHour(o.delete_when, LocalHour(clock_.NowMillis()));
  int pending = manual_runs_.load();
  report.manual = pending > 0;
  // A disk above the forced ratio cleans at once even without another trigger (5.x).
  const bool triggered =
      report.time_up || report.space_full || report.manual || report.clean_immediately;
  if (triggered && report.manual) {
    while (pending > 0 && !manual_runs_.compare_exchange_weak(pending, pending - 1)) {
    }
  }
  Status seg = DeleteSegments(o, triggered, &report);
  Status cq = CleanQueuesAndIndex(&report, !cleans.empty());
  report.commit_log_min = commit_log_.MinOffset();
  // Space was freed: re-check at once so a full store resumes writes without waiting a
  // whole interval.
  if (report.disk_full && !report.deleted_segments.empty()) {
    RetentionReport recheck;
    CheckDisk(o, &recheck);
    report.disk_full = recheck.disk_full;
  }
  Result<RetentionReport> result = !seg.ok()  ? Result<RetentionReport>(seg)
                                   : !cq.ok() ? Result<RetentionReport>(cq)
                                              : Result<RetentionReport>(report);
  for (QueueCleanDone& d : cleans) d(result);
  return result;
}

}  // namespace rocketstore
