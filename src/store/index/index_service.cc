#include "store/index/index_service.h"

#include <algorithm>

#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore {
namespace {

using format::kIndexFirstEntry;

// `name` + 1 as a 17-digit decimal number (used only when the clock does not move past
// the newest file's name: same millisecond, a step back, or a DST fall-back). RocketMQ
// sorts index files by name and never parses it, so the result need not be a valid time.
std::string IncrementName(std::string name) {
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] != '9') {
      ++name[i];
      return name;
    }
    name[i] = '0';
  }
  return "1" + name;  // never for 17-digit times before the year 10000
}

void RaiseTo(std::atomic<int64_t>& v, int64_t ts) {
  int64_t cur = v.load(std::memory_order_relaxed);
  while (ts > cur && !v.compare_exchange_weak(cur, ts, std::memory_order_acq_rel)) {
  }
}

// End timestamp of the newest full file (they are durable when this is called).
int64_t NewestFullFileTimestamp(const std::vector<std::shared_ptr<IndexFile>>& files) {
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if ((*it)->IsFull()) return (*it)->end_timestamp();
  }
  return 0;
}

}  // namespace

IndexService::IndexService(FileSystem& fs, Clock& clock, IndexOptions options)
    : fs_(fs),
      clock_(clock),
      options_(std::move(options)),
      file_options_{options_.geometry(), options_.reserve_chunk_bytes} {}

IndexService::~IndexService() = default;

Status IndexService::Load() {
  if (!options_.geometry().Valid()) {
    return InvalidArgument("index geometry needs >= 1 hash slot and >= 2 entries");
  }
  RS_RETURN_IF_ERROR(fs_.CreateDirs(options_.dir));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> names, fs_.ListDir(options_.dir));
  std::sort(names.begin(), names.end());
  std::vector<std::shared_ptr<IndexFile>> files;
  bool removed = false;
  for (const std::string& name : names) {
    const std::string path = JoinPath(options_.dir, name);
    const std::string_view suffix = kIndexTempSuffix;
    if (name.size() == format::kIndexFileNameLength + suffix.size() && name.ends_with(suffix) &&
        IsIndexFileName(std::string_view(name).substr(0, format::kIndexFileNameLength))) {
      // A creation that did not finish: its name never became an index file.
      RS_RETURN_IF_ERROR(fs_.RemoveFile(path));
      removed = true;
      continue;
    }
    if (!IsIndexFileName(name)) continue;
    RS_ASSIGN_OR_RETURN(std::unique_ptr<IndexFile> f, IndexFile::Open(fs_, path, file_options_));
    files.push_back(std::move(f));
  }
  if (removed) RS_RETURN_IF_ERROR(fs_.SyncDir(options_.dir));

  std::optional<PhysicalOffset> last_indexed;
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if ((*it)->index_count() > kIndexFirstEntry) {
      last_indexed = PhysicalOffset((*it)->end_phy_offset());
      break;
    }
  }
  // Only an empty file is left (its predecessors deleted): its preset is the end of the
  // full file it followed.
  if (!last_indexed && !files.empty() && files.back()->end_phy_offset() > 0) {
    last_indexed = PhysicalOffset(files.back()->end_phy_offset());
  }

  std::lock_guard<std::mutex> w(write_mu_);
  last_indexed_ = last_indexed;
  last_name_ = files.empty() ? std::string() : files.back()->name();
  partial_offset_.reset();
  partial_keys_done_ = 0;
  // Loaded files are durable (a clean shutdown flushed them; after a crash, RecoverTo
  // rebuilds and flushes whatever it does not trust).
  flushed_full_timestamp_.store(NewestFullFileTimestamp(files), std::memory_order_release);
  std::lock_guard<std::mutex> l(files_mu_);
  files_ = std::move(files);
  return Status::OK();
}

std::string IndexService::NextFileNameLocked() {
  std::string name = FormatIndexFileName(clock_.NowMillis());
  if (!last_name_.empty() && name <= last_name_) name = IncrementName(last_name_);
  return name;
}

Result<std::shared_ptr<IndexFile>> IndexService::WritableFileLocked() {
  std::shared_ptr<IndexFile> last;
  {
    std::lock_guard<std::mutex> l(files_mu_);
    if (!files_.empty()) last = files_.back();
  }
  if (last && !last->IsFull()) return last;
  const int64_t prev_end_phy = last ? last->end_phy_offset() : 0;
  const int64_t prev_end_ts = last ? last->end_timestamp() : 0;
  const std::string name = NextFileNameLocked();
  RS_ASSIGN_OR_RETURN(
      std::unique_ptr<IndexFile> created,
      IndexFile::Create(fs_, options_.dir, name, file_options_, prev_end_phy, prev_end_ts));
  std::shared_ptr<IndexFile> f = std::move(created);
  // The name is taken even if the directory sync fails: a retry must not collide with
  // the (empty) file now on disk, which is harmless (an empty file holds no entries and
  // recovery deletes it).
  last_name_ = name;
  RS_RETURN_IF_ERROR(fs_.SyncDir(options_.dir));
  std::lock_guard<std::mutex> l(files_mu_);
  files_.push_back(f);
  return f;
}

Status IndexService::PutKeyLocked(std::shared_ptr<IndexFile>* file, int32_t seed,
                                  std::string_view key, const DispatchRequest& request) {
  const int32_t hash = format::IndexKeyHashFrom(seed, key);
  for (int attempt = 0; attempt < 2; ++attempt) {
    RS_ASSIGN_OR_RETURN(
        bool stored, (*file)->PutKeyHash(hash, request.commit_log_offset, request.store_timestamp));
    if (stored) return Status::OK();
    // Full: roll to a new file and retry there.
    RS_ASSIGN_OR_RETURN(*file, WritableFileLocked());
  }
  return Internal("index: a new file refused its first key");
}

Result<PhysicalOffset> IndexService::Recover(const SinkRecoveryContext& ctx) {
  // After a clean shutdown or a process crash the index files hold every byte the last
  // run wrote, so their slot tables match their entries: the cut can undo puts instead of
  // rebuilding the table. After a power loss, pages of either may be missing.
  const IndexFilesState state = ctx.last_run == LastRun::kClean ? IndexFilesState::kComplete
                                : ctx.last_run == LastRun::kProcessCrash
                                    ? IndexFilesState::kWritten
                                    : IndexFilesState::kUnknown;
  RS_ASSIGN_OR_RETURN(last_recovery_report_,
                      RecoverTo(ctx.commit_log_end, ctx.checkpoint_index_msg_timestamp, state));
  return last_recovery_report_.last_indexed.value_or(ctx.commit_log_min);
}

Status IndexService::Dispatch(const DispatchRequest& request) {
  std::lock_guard<std::mutex> w(write_mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<IndexFile> file, WritableFileLocked());
  if (last_indexed_ && request.commit_log_offset <= *last_indexed_) return Status::OK();
  if (request.TransactionType() == format::kTransactionRollback) return Status::OK();

  const int skip = partial_offset_ == request.commit_log_offset ? partial_keys_done_ : 0;
  int done = 0;
  const int32_t seed = format::IndexKeySeed(request.topic);  // "topic#", once per record
  auto put = [&](std::string_view key) -> Status {
    if (done >= skip) {
      Status s = PutKeyLocked(&file, seed, key, request);
      if (!s.ok()) {
        partial_offset_ = request.commit_log_offset;
        partial_keys_done_ = done;
        return s;
      }
    }
    ++done;
    return Status::OK();
  };
  if (!request.uniq_key.empty()) RS_RETURN_IF_ERROR(put(request.uniq_key));
  std::string_view keys = request.keys;
  std::string_view token;
  while (format::NextKey(keys, token)) RS_RETURN_IF_ERROR(put(token));
  partial_offset_.reset();
  partial_keys_done_ = 0;
  if (done > 0) last_indexed_ = request.commit_log_offset;
  return Status::OK();
}

QueryOffsetResult IndexService::QueryOffsets(std::string_view topic, std::string_view key,
                                             int max_num, int64_t begin, int64_t end) const {
  QueryOffsetResult result;
  const std::vector<std::shared_ptr<IndexFile>> files = Files();
  if (files.empty()) return result;
  const size_t limit =
      static_cast<size_t>(std::max(0, std::min(max_num, options_.max_query_results)));
  const int32_t hash = format::IndexKeyHash(format::BuildIndexKey(topic, key));
  result.phy_offsets.reserve(limit);
  for (size_t i = files.size(); i > 0; --i) {
    const IndexFile& f = *files[i - 1];
    if (i == files.size()) {
      result.index_last_update_timestamp = f.end_timestamp();
      result.index_last_update_phy_offset = PhysicalOffset(f.end_phy_offset());
    }
    if (f.IsTimeMatched(begin, end)) {
      f.SelectPhyOffsetsByHash(hash, limit, begin, end, &result.phy_offsets);
    }
    if (f.begin_timestamp() < begin) break;
    if (result.phy_offsets.size() >= limit) break;
  }
  return result;
}

Result<IndexRecoveryReport> IndexService::RecoverTo(PhysicalOffset commit_log_end,
                                                    int64_t trusted_timestamp,
                                                    IndexFilesState state) {
  std::lock_guard<std::mutex> w(write_mu_);
  const std::vector<std::shared_ptr<IndexFile>> files = Files();
  const size_t n = files.size();
  IndexRecoveryReport report;
  const int64_t end = commit_log_end.value();

  // 1. Validate, oldest first. keep[i] = the index count file i keeps.
  std::vector<int32_t> keep(n, kIndexFirstEntry);
  std::vector<bool> trusted(n, false);
  std::vector<bool> all_valid(n, false);  // step 1 kept every stored entry
  int64_t min_phy = 0;                    // offsets never decrease along the index
  bool broken = false;
  for (size_t i = 0; i < n && !broken; ++i) {
    IndexFile& f = *files[i];
    const int32_t count = f.index_count();
    // Strictly older than the checkpoint's time: a later full file could end in the same
    // millisecond without having been flushed.
    if (f.IsFull() && f.end_timestamp() < trusted_timestamp && f.end_phy_offset() < end &&
        f.begin_phy_offset() >= min_phy) {
      trusted[i] = true;
      keep[i] = count;
      min_phy = f.end_phy_offset();
      ++report.files_trusted;
      continue;
    }
    ++report.files_checked;
    int32_t k = kIndexFirstEntry;
    for (; k < count; ++k) {
      const format::IndexEntry e = f.Entry(k);
      const bool valid =
          e.phy_offset >= min_phy && e.phy_offset < end && e.key_hash >= 0 && e.time_diff >= 0 &&
          e.prev_index >= 0 && e.prev_index < k &&
          !(e.key_hash == 0 && e.phy_offset == 0 && e.time_diff == 0 && e.prev_index == 0) &&
          (k != kIndexFirstEntry || e.phy_offset == f.begin_phy_offset());
      if (!valid) break;
      min_phy = e.phy_offset;
    }
    keep[i] = k;
    all_valid[i] = k == count;
    if (k < count) broken = true;
  }

  // 2. Drop the entries of the last surviving message: its keys may be incomplete.
  std::optional<int64_t> last_phy;
  for (size_t i = n; i-- > 0;) {
    if (keep[i] > kIndexFirstEntry) {
      last_phy = files[i]->Entry(keep[i] - 1).phy_offset;
      break;
    }
  }
  if (last_phy) {
    for (size_t i = n; i-- > 0;) {
      IndexFile& f = *files[i];
      while (keep[i] > kIndexFirstEntry && f.Entry(keep[i] - 1).phy_offset == *last_phy) {
        --keep[i];
      }
      if (keep[i] > kIndexFirstEntry) break;
    }
  }

  // 3. Apply: rebuild what changed or was not trusted; delete files left empty.
  std::vector<std::shared_ptr<IndexFile>> kept;
  std::optional<PhysicalOffset> last_indexed;
  bool removed = false;
  for (size_t i = 0; i < n; ++i) {
    IndexFile& f = *files[i];
    report.entries_dropped += f.index_count() - keep[i];
    if (keep[i] == kIndexFirstEntry) {
      RS_RETURN_IF_ERROR(fs_.RemoveFile(f.path()));
      removed = true;
      ++report.files_deleted;
      continue;
    }
    if (!trusted[i] || keep[i] != f.index_count()) {
      bool cut = false;
      if (state != IndexFilesState::kUnknown && (trusted[i] || all_valid[i])) {
        RS_ASSIGN_OR_RETURN(cut, f.CutByUndo(keep[i], state == IndexFilesState::kWritten));
        if (cut) ++report.files_cut_by_undo;
      }
      if (!cut) {
        RS_RETURN_IF_ERROR(f.RebuildFromEntries(keep[i]));
        ++report.files_rebuilt;
      }
    }
    last_indexed = PhysicalOffset(f.end_phy_offset());
    kept.push_back(files[i]);
  }
  if (removed) RS_RETURN_IF_ERROR(fs_.SyncDir(options_.dir));

  report.last_indexed = last_indexed;
  last_indexed_ = last_indexed;
  partial_offset_.reset();
  partial_keys_done_ = 0;
  // last_name_ stays: new files must still sort after every name ever used here.
  flushed_full_timestamp_.store(NewestFullFileTimestamp(kept), std::memory_order_release);
  std::lock_guard<std::mutex> l(files_mu_);
  files_ = std::move(kept);
  return report;
}

Status IndexService::DeleteFilesBelow(PhysicalOffset commit_log_min) {
  std::vector<std::shared_ptr<IndexFile>> doomed;
  {
    std::lock_guard<std::mutex> l(files_mu_);
    if (files_.empty() || files_.front()->end_phy_offset() >= commit_log_min.value()) {
      return Status::OK();
    }
    size_t i = 0;
    while (i + 1 < files_.size() && files_[i]->end_phy_offset() < commit_log_min.value()) ++i;
    doomed.assign(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(i));
    files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (doomed.empty()) return Status::OK();
  for (const auto& f : doomed) RS_RETURN_IF_ERROR(fs_.RemoveFile(f->path()));
  return fs_.SyncDir(options_.dir);
}

Status IndexService::Flush() {
  const std::vector<std::shared_ptr<IndexFile>> files = Files();
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    // Not the last file: full, so no writer touches it.
    IndexFile& f = *files[i];
    if (!f.dirty()) continue;
    RS_RETURN_IF_ERROR(f.Flush());
    if (f.IsFull()) RaiseTo(flushed_full_timestamp_, f.end_timestamp());
  }
  if (files.empty()) return Status::OK();
  std::lock_guard<std::mutex> w(write_mu_);
  IndexFile& last = *files.back();
  if (!last.dirty()) return Status::OK();
  RS_RETURN_IF_ERROR(last.Flush());
  if (last.IsFull()) RaiseTo(flushed_full_timestamp_, last.end_timestamp());
  return Status::OK();
}

int64_t IndexService::flushed_full_file_timestamp() const {
  return flushed_full_timestamp_.load(std::memory_order_acquire);
}

std::optional<PhysicalOffset> IndexService::last_indexed_offset() const {
  std::lock_guard<std::mutex> w(write_mu_);
  return last_indexed_;
}

size_t IndexService::file_count() const {
  std::lock_guard<std::mutex> l(files_mu_);
  return files_.size();
}

std::vector<std::shared_ptr<IndexFile>> IndexService::Files() const {
  std::lock_guard<std::mutex> l(files_mu_);
  return files_;
}

}  // namespace rocketstore
