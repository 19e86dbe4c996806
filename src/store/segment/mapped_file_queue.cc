#include "store/segment/mapped_file_queue.h"

#include <algorithm>
#include <cstring>

#include "store/segment/file_names.h"

namespace rocketstore {
namespace {
constexpr int64_t kPageSize = 4096;
}

MappedFileQueue::MappedFileQueue(FileSystem& fs, std::string dir, const Options& options)
    : fs_(fs), dir_(std::move(dir)), options_(options) {}

Status MappedFileQueue::Load() {
  RS_RETURN_IF_ERROR(fs_.CreateDirs(dir_));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> names, fs_.ListDir(dir_));
  std::vector<std::pair<int64_t, std::string>> segments;
  bool removed_temp = false;
  for (const std::string& name : names) {
    if (auto start = ParseSegmentFileName(name)) {
      segments.emplace_back(*start, name);
    } else if (name.size() == kSegmentNameLength + std::strlen(kSegmentTempSuffix) &&
               name.ends_with(kSegmentTempSuffix) &&
               ParseSegmentFileName(name.substr(0, kSegmentNameLength))) {
      // A segment whose creation was interrupted: it never held data.
      RS_RETURN_IF_ERROR(fs_.RemoveFile(JoinPath(dir_, name)));
      removed_temp = true;
    }
  }
  if (removed_temp) RS_RETURN_IF_ERROR(fs_.SyncDir(dir_));
  std::sort(segments.begin(), segments.end());
  std::vector<std::shared_ptr<MappedFile>> files;
  for (const auto& [start, name] : segments) {
    if (start % options_.file_size != 0) {
      return Corruption(JoinPath(dir_, name) + ": segment name is not a multiple of the " +
                        "segment size " + std::to_string(options_.file_size));
    }
    if (!files.empty() && files.back()->end_offset().value() != start) {
      return Corruption(dir_ + ": segment files are not contiguous: " + name + " follows " +
                        SegmentFileName(files.back()->start_offset().value()) +
                        " but should start at " +
                        std::to_string(files.back()->end_offset().value()));
    }
    RS_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(fs_, JoinPath(dir_, name), PhysicalOffset(start),
                                                  options_.file_size, options_.file));
    files.push_back(std::move(mf));
  }
  if (!options_.file.readahead_while_writing && !files.empty()) {
    RS_RETURN_IF_ERROR(files.back()->DisableReadahead());  // the one appends go to
  }
  std::lock_guard<std::mutex> l(mu_);
  files_ = std::move(files);
  prepared_.reset();
  return Status::OK();
}

bool MappedFileQueue::empty() const {
  std::lock_guard<std::mutex> l(mu_);
  return files_.empty();
}

size_t MappedFileQueue::file_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return files_.size();
}

std::vector<std::shared_ptr<MappedFile>> MappedFileQueue::Files() const {
  std::lock_guard<std::mutex> l(mu_);
  return files_;
}

std::shared_ptr<MappedFile> MappedFileQueue::FirstFile() const {
  std::lock_guard<std::mutex> l(mu_);
  return files_.empty() ? nullptr : files_.front();
}

std::shared_ptr<MappedFile> MappedFileQueue::LastFile() const {
  std::lock_guard<std::mutex> l(mu_);
  return files_.empty() ? nullptr : files_.back();
}

std::shared_ptr<MappedFile> MappedFileQueue::FindFile(PhysicalOffset offset) const {
  std::lock_guard<std::mutex> l(mu_);
  if (files_.empty()) return nullptr;
  const int64_t first = files_.front()->start_offset().value();
  if (offset.value() < first) return nullptr;
  const size_t index = static_cast<size_t>((offset.value() - first) / options_.file_size);
  if (index >= files_.size()) return nullptr;
  return files_[index];
}

PhysicalOffset MappedFileQueue::MinOffset() const {
  auto f = FirstFile();
  return f ? f->start_offset() : PhysicalOffset(0);
}

PhysicalOffset MappedFileQueue::MaxOffset() const {
  auto f = LastFile();
  return f ? f->start_offset() + f->wrote_position() : PhysicalOffset(0);
}

PhysicalOffset MappedFileQueue::FlushedOffset() const {
  std::lock_guard<std::mutex> l(mu_);
  // The first file not completely flushed determines the flushed offset.
  for (const auto& f : files_) {
    if (f->flushed_position() < f->file_size()) return f->start_offset() + f->flushed_position();
  }
  return files_.empty() ? PhysicalOffset(0) : files_.back()->end_offset();
}

Result<std::shared_ptr<MappedFile>> MappedFileQueue::CreateFile(PhysicalOffset start) {
  RS_ASSIGN_OR_RETURN(auto mf,
                      MappedFile::Create(fs_, dir_, start, options_.file_size, options_.file));
  // Make the new name durable: data later synced into it must not vanish with its entry.
  RS_RETURN_IF_ERROR(fs_.SyncDir(dir_));
  return std::shared_ptr<MappedFile>(std::move(mf));
}

Result<std::shared_ptr<MappedFile>> MappedFileQueue::GetWritableFile(
    PhysicalOffset start_if_empty) {
  PhysicalOffset next_start;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!files_.empty() && !files_.back()->IsFull()) return files_.back();
    next_start = files_.empty() ? start_if_empty : files_.back()->end_offset();
  }
  std::lock_guard<std::mutex> create(create_mu_);
  std::shared_ptr<MappedFile> file;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (prepared_ && prepared_->start_offset() == next_start) file = std::move(prepared_);
    prepared_.reset();
  }
  if (!file) {
    RS_ASSIGN_OR_RETURN(file, CreateFile(next_start));
  }
  std::lock_guard<std::mutex> l(mu_);
  files_.push_back(file);
  return file;
}

Result<PhysicalOffset> MappedFileQueue::Flush(FlushMethod method) {
  for (const auto& f : Files()) {
    if (f->flushed_position() >= f->committed_position()) continue;
    RS_ASSIGN_OR_RETURN(int64_t flushed, f->Flush(method));
    (void)flushed;
  }
  return FlushedOffset();
}

bool MappedFileQueue::HasDirtyPages(int least_pages) const {
  int64_t dirty_pages = 0;
  bool dirty = false;
  for (const auto& f : Files()) {
    const int64_t committed = f->committed_position();
    const int64_t flushed = f->flushed_position();
    if (committed <= flushed) continue;
    dirty = true;
    if (committed == f->file_size()) return true;  // a full file is always flushed
    dirty_pages += committed / kPageSize - flushed / kPageSize;
  }
  if (least_pages <= 0) return dirty;
  return dirty_pages >= least_pages;
}

int64_t MappedFileQueue::FlushedStoreTimestamp() const {
  int64_t ts = 0;
  for (const auto& f : Files()) ts = std::max(ts, f->flushed_store_timestamp());
  return ts;
}

// Faulting a fresh page-cache page is the dominant cost of appending on machines where
// first touch of memory is slow (docs/benchmarks.md). The preparer and the appender
// therefore share that work without colliding: the preparer works in small chunks, each
// starting a lead past the write position, so when the appender has caught up it faults
// the pages right under it while the preparer runs on ahead, instead of both faulting
// the same pages in the same order. A file not yet written needs no lead.
Status MappedFileQueue::PrefaultAhead(MappedFile& file, bool being_written) {
  constexpr int64_t kChunk = 2 << 20;
  const int64_t window = options_.prefault_window_bytes;
  if (!options_.populate_pages) {
    RS_RETURN_IF_ERROR(file.Reserve(std::min(file.wrote_position() + window, file.file_size())));
    if (!options_.file.zero_fill_ahead) return Status::OK();
    // One sync per MiB: smaller steps cost more syncs, larger ones hold up the flushes
    // that wait behind the writeback of the zeros (measured: docs/durability.md).
    constexpr int64_t kZeroStep = 1 << 20;
    while (true) {
      const int64_t wrote = file.wrote_position();
      const int64_t end = std::min(wrote + options_.zero_fill_window_bytes, file.file_size());
      const int64_t from = std::max(file.zero_filled_position(), wrote);
      // Whole steps only (but the file's last bytes): every step pays a sync.
      if (from >= end || (end - from < kZeroStep && end < file.file_size())) return Status::OK();
      RS_RETURN_IF_ERROR(file.ZeroFill(std::min(from + kZeroStep, end)));
    }
  }
  const int64_t lead = being_written ? std::min<int64_t>(4 << 20, window / 4) : 0;
  while (true) {
    const int64_t wrote = file.wrote_position();
    const int64_t end = std::min(wrote + window, file.file_size());
    const int64_t from = std::max(file.prefaulted_position(), wrote + lead);
    if (from >= end) return Status::OK();
    RS_RETURN_IF_ERROR(file.Prefault(from, std::min(from + kChunk, end)));
  }
}

// Where first touch of memory is what appending costs (docs/benchmarks.md), memory the
// OS has just freed is cheap to touch again while fresh memory is not: on this project's
// VM, populating pages ran at ~0.6 GB/s with fresh memory and at ~9-12 GB/s when the
// flushed pages 64-256 MiB behind were dropped as the writer went. So the preparer drops
// the cache behind the writer in 2 MiB steps, and the pages it populates next are the
// ones just freed. Readers of dropped bytes (a consumer far behind) read them from disk.
Status MappedFileQueue::DropBehind(const MappedFile& last) {
  const int64_t window = options_.resident_window_bytes;
  if (window <= 0) return Status::OK();
  constexpr int64_t kStep = 2 << 20;
  const int64_t limit = last.start_offset().value() + last.wrote_position() - window;
  if (limit <= 0) return Status::OK();
  // Under the lock only pick the files with work (the walk ends at the window, and files
  // already dropped to their end are skipped cheaply); drop outside it.
  std::vector<std::pair<std::shared_ptr<MappedFile>, int64_t>> work;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const std::shared_ptr<MappedFile>& f : files_) {
      const int64_t start = f->start_offset().value();
      if (start >= limit) break;
      const int64_t to = std::min(limit - start, f->file_size());
      const int64_t from = f->dropped_position();
      if (to - from < kStep && (to < f->file_size() || from >= to)) continue;
      work.emplace_back(f, to);
    }
  }
  for (const auto& [file, to] : work) RS_RETURN_IF_ERROR(file->DropCache(to).status());
  return Status::OK();
}

Status MappedFileQueue::PrepareNext() {
  const Status prepared = PrepareAhead();
  // Dropping behind is independent of preparing ahead: a failure of one (reported) does
  // not stop the other.
  std::shared_ptr<MappedFile> last = LastFile();
  const Status dropped = last ? DropBehind(*last) : Status::OK();
  return prepared.ok() ? dropped : prepared;
}

Status MappedFileQueue::PrepareAhead() {
  std::shared_ptr<MappedFile> last = LastFile();
  if (!last) return Status::OK();
  if (!options_.file.readahead_while_writing) {
    std::shared_ptr<MappedFile> previous;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (files_.size() >= 2) previous = files_[files_.size() - 2];
    }
    if (previous) RS_RETURN_IF_ERROR(previous->RestoreReadahead());  // full: readers only
  }
  RS_RETURN_IF_ERROR(PrefaultAhead(*last, /*being_written=*/true));
  const int64_t wrote = last->wrote_position();
  if (wrote * 2 < last->file_size() && last->remaining() > options_.prefault_window_bytes) {
    return Status::OK();
  }
  std::lock_guard<std::mutex> create(create_mu_);
  const PhysicalOffset next_start = last->end_offset();
  std::shared_ptr<MappedFile> next;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (files_.empty() || files_.back() != last) return Status::OK();  // queue moved on
    if (prepared_ && prepared_->start_offset() == next_start) next = prepared_;
  }
  if (next) return PrefaultAhead(*next, /*being_written=*/false);
  RS_ASSIGN_OR_RETURN(next, CreateFile(next_start));
  RS_RETURN_IF_ERROR(PrefaultAhead(*next, /*being_written=*/false));
  std::lock_guard<std::mutex> l(mu_);
  prepared_ = std::move(next);
  return Status::OK();
}

Status MappedFileQueue::TruncateTo(PhysicalOffset end) {
  std::lock_guard<std::mutex> create(create_mu_);
  std::vector<std::shared_ptr<MappedFile>> doomed;
  {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::shared_ptr<MappedFile>> keep;
    for (auto& f : files_) {
      if (f->start_offset() >= end) {
        doomed.push_back(f);
      } else {
        if (end < f->end_offset()) f->SetPositions(end - f->start_offset());
        keep.push_back(f);
      }
    }
    files_ = std::move(keep);
    if (prepared_) doomed.push_back(std::move(prepared_));
    prepared_.reset();
  }
  for (const auto& f : doomed) RS_RETURN_IF_ERROR(fs_.RemoveFile(f->path()));
  if (!doomed.empty()) RS_RETURN_IF_ERROR(fs_.SyncDir(dir_));
  return Status::OK();
}

Result<int> MappedFileQueue::RemoveFilesBefore(PhysicalOffset end) {
  std::vector<std::shared_ptr<MappedFile>> doomed;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (size_t i = 0; i + 1 < files_.size(); ++i) {  // never the last file
      if (files_[i]->end_offset() > end) break;
      doomed.push_back(files_[i]);
    }
  }
  // Unlink first, drop from the list after: a file still listed is still mapped, so a
  // reader racing the removal reads valid bytes either way.
  size_t removed = 0;
  Status status;
  for (const auto& f : doomed) {
    Status s = fs_.RemoveFile(f->path());
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      status = s;
      break;
    }
    ++removed;
  }
  if (removed > 0) {
    std::lock_guard<std::mutex> l(mu_);
    // Only the appender adds files (at the end), so the doomed ones still lead the list.
    size_t drop = 0;
    while (drop < removed && drop + 1 < files_.size() && files_[drop] == doomed[drop]) ++drop;
    files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  if (removed > 0) {
    Status s = fs_.SyncDir(dir_);
    if (status.ok()) status = s;
  }
  if (!status.ok()) return status;
  return static_cast<int>(removed);
}

Status MappedFileQueue::RemoveAll() {
  std::vector<std::shared_ptr<MappedFile>> doomed;
  {
    std::lock_guard<std::mutex> l(mu_);
    doomed = std::move(files_);
    files_.clear();
    if (prepared_) doomed.push_back(std::move(prepared_));
    prepared_.reset();
  }
  for (const auto& f : doomed) RS_RETURN_IF_ERROR(fs_.RemoveFile(f->path()));
  return fs_.SyncDir(dir_);
}

}  // namespace rocketstore
