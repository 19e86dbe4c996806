#include "store/segment/mapped_file.h"

#include <algorithm>
#include <vector>

#include "store/segment/file_names.h"

namespace rocketstore {
namespace {
constexpr int64_t kPageSize = 4096;
}

MappedFile::MappedFile(std::string path, std::unique_ptr<File> file,
                       std::unique_ptr<MappedRegion> region, PhysicalOffset start,
                       int64_t file_size, const Options& options)
    : path_(std::move(path)),
      file_(std::move(file)),
      region_(std::move(region)),
      start_(start),
      file_size_(file_size),
      options_(options) {}

Result<std::unique_ptr<MappedFile>> MappedFile::Create(FileSystem& fs, const std::string& dir,
                                                       PhysicalOffset start, int64_t file_size,
                                                       const Options& options) {
  const std::string path = JoinPath(dir, SegmentFileName(start.value()));
  if (fs.Exists(path)) return AlreadyExists(path + " already exists");
  // Built under a temporary name and renamed into place, so that a crash can never leave
  // a segment of the wrong size (which would stop the store from loading): the size is
  // made durable before the segment's name appears.
  const std::string tmp = path + kSegmentTempSuffix;
  OpenOptions oo;
  oo.writable = oo.create = true;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(tmp, oo));
  RS_RETURN_IF_ERROR(file->Truncate(0));
  RS_RETURN_IF_ERROR(file->Truncate(static_cast<uint64_t>(file_size)));
  RS_RETURN_IF_ERROR(file->Sync());
  RS_RETURN_IF_ERROR(fs.Rename(tmp, path));
  RS_ASSIGN_OR_RETURN(auto region, file->Map(0, static_cast<size_t>(file_size), true));
  auto mf = std::unique_ptr<MappedFile>(
      new MappedFile(path, std::move(file), std::move(region), start, file_size, options));
  if (!options.readahead_while_writing) RS_RETURN_IF_ERROR(mf->DisableReadahead());
  return mf;
}

Result<std::unique_ptr<MappedFile>> MappedFile::Open(FileSystem& fs, const std::string& path,
                                                     PhysicalOffset start, int64_t file_size,
                                                     const Options& options) {
  OpenOptions oo;
  oo.writable = true;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(path, oo));
  RS_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size != static_cast<uint64_t>(file_size)) {
    return Corruption(path + " is " + std::to_string(size) + " bytes but segments of this " +
                      "store are " + std::to_string(file_size) +
                      " bytes; check the configured segment size, or move the file away "
                      "if it is not a segment");
  }
  RS_ASSIGN_OR_RETURN(auto region, file->Map(0, static_cast<size_t>(file_size), true));
  auto mf = std::unique_ptr<MappedFile>(
      new MappedFile(path, std::move(file), std::move(region), start, file_size, options));
  mf->SetPositions(file_size);
  return mf;
}

Status MappedFile::DisableReadahead() {
  RS_RETURN_IF_ERROR(region_->SetReadahead(false));
  readahead_off_.store(true, std::memory_order_release);
  return Status::OK();
}

Status MappedFile::RestoreReadahead() {
  if (!readahead_off_.exchange(false, std::memory_order_acq_rel)) return Status::OK();
  return region_->SetReadahead(true);
}

Status MappedFile::ReserveSlow(int64_t end) {
  std::lock_guard<std::mutex> l(reserve_mu_);
  int64_t reserved = reserved_.load(std::memory_order_relaxed);
  if (end <= reserved) return Status::OK();
  if (end > file_size_) return OutOfRange(path() + ": reserve past the end of the segment");
  // Round the new end up to a whole chunk so the appender rarely comes here.
  int64_t target = std::min(
      file_size_, ((end + options_.reserve_chunk_bytes - 1) / options_.reserve_chunk_bytes) *
                      options_.reserve_chunk_bytes);
  Status s =
      file_->Allocate(static_cast<uint64_t>(reserved), static_cast<uint64_t>(target - reserved));
  if (!s.ok()) {
    // A full disk may still leave room for exactly what is needed now.
    if (target == end) return s;
    RS_RETURN_IF_ERROR(
        file_->Allocate(static_cast<uint64_t>(reserved), static_cast<uint64_t>(end - reserved)));
    target = end;
  }
  reserved_.store(target, std::memory_order_release);
  return Status::OK();
}

Status MappedFile::Prefault(int64_t from, int64_t to) {
  to = std::min(to, file_size_);
  if (from >= to) return Status::OK();
  RS_RETURN_IF_ERROR(Reserve(to));
  // Not under reserve_mu_: populating pages takes a while and the appender may need
  // to reserve meanwhile.
  std::lock_guard<std::mutex> l(prefault_mu_);
  int64_t done = prefaulted_.load(std::memory_order_relaxed);
  from = std::max(from, done);
  if (from >= to) return Status::OK();
  RS_RETURN_IF_ERROR(region_->Prefault(static_cast<size_t>(from), static_cast<size_t>(to - from)));
  prefaulted_.store(to, std::memory_order_release);
  return Status::OK();
}

Result<int64_t> MappedFile::DropCache(int64_t to) {
  // The page cache keeps a file in naturally aligned folios of up to 2 MiB, and drops
  // only folios wholly inside the range: a boundary inside a folio would keep it forever.
  constexpr int64_t kAlign = 2 << 20;
  std::lock_guard<std::mutex> l(prefault_mu_);
  const int64_t from = dropped_.load(std::memory_order_relaxed);
  to = std::min({to, flushed_.load(std::memory_order_acquire), file_size_});
  if (to < file_size_) to -= to % kAlign;
  if (to <= from) return from;
  RS_RETURN_IF_ERROR(region_->Unmap(static_cast<size_t>(from), static_cast<size_t>(to - from)));
  RS_RETURN_IF_ERROR(
      file_->DropCache(static_cast<uint64_t>(from), static_cast<uint64_t>(to - from)));
  dropped_.store(to, std::memory_order_release);
  return to;
}

void MappedFile::ClaimForWrite(int64_t end) {
  std::lock_guard<std::mutex> l(zero_mu_);  // waits for a zero write in progress
  write_claimed_ = std::max(write_claimed_, end);
}

Status MappedFile::ZeroFill(int64_t to) {
  // The source of every zero write: up to 1 MiB per pwrite.
  static const std::vector<uint8_t> kZeros(1 << 20, 0);
  if (!options_.zero_fill_ahead) return FailedPrecondition(path() + ": zero fill is off");
  to = std::min(to, file_size_);
  if (to <= zero_filled_.load(std::memory_order_acquire)) return Status::OK();
  RS_RETURN_IF_ERROR(Reserve(to));
  {
    std::lock_guard<std::mutex> l(zero_mu_);
    const int64_t from = std::max({zero_filled_.load(std::memory_order_relaxed), write_claimed_,
                                   wrote_.load(std::memory_order_acquire)});
    for (int64_t pos = from; pos < to;) {
      const int64_t n = std::min<int64_t>(to - pos, static_cast<int64_t>(kZeros.size()));
      RS_RETURN_IF_ERROR(
          file_->PWrite(static_cast<uint64_t>(pos), kZeros.data(), static_cast<size_t>(n)));
      pos += n;
    }
    zero_filled_.store(std::max(to, from), std::memory_order_release);
  }
  // Under flush_mu_: the kernel reports a writeback error to one sync of this file only,
  // so a failure seen here must reach every later Flush() before any of them can succeed.
  std::lock_guard<std::mutex> l(flush_mu_);
  if (!zero_sync_error_.ok()) return zero_sync_error_;
  Status s = file_->Sync();
  if (!s.ok()) zero_sync_error_ = s.WithContext(path() + ": sync after zero fill failed");
  return s;
}

void MappedFile::Commit(int64_t new_committed, int64_t last_store_timestamp) {
  last_timestamp_.store(last_store_timestamp, std::memory_order_release);
  committed_.store(new_committed, std::memory_order_release);
}

void MappedFile::Advance(int64_t new_wrote, int64_t last_store_timestamp) {
  // Timestamp first, then the position. Flush() reads them in the opposite order, so
  // the timestamp it records never belongs to a record past the data it makes durable.
  last_timestamp_.store(last_store_timestamp, std::memory_order_release);
  wrote_.store(new_wrote, std::memory_order_release);
  committed_.store(new_wrote, std::memory_order_release);
}

Result<int64_t> MappedFile::Flush(FlushMethod method) {
  std::lock_guard<std::mutex> l(flush_mu_);
  // Timestamp before position: the timestamp belongs to a record at or before `target`.
  const int64_t ts = last_timestamp_.load(std::memory_order_acquire);
  const int64_t target = committed_.load(std::memory_order_acquire);
  const int64_t flushed = flushed_.load(std::memory_order_relaxed);
  if (!zero_sync_error_.ok()) return zero_sync_error_;
  if (target <= flushed) return flushed;
  Status s;
  if (method == FlushMethod::kMsync) {
    const int64_t begin = flushed / kPageSize * kPageSize;
    s = region_->Sync(static_cast<size_t>(begin), static_cast<size_t>(target - begin));
  } else {
    s = file_->Sync();
  }
  if (!s.ok()) return s;
  flushed_timestamp_.store(ts, std::memory_order_release);
  flushed_.store(target, std::memory_order_release);
  return target;
}

void MappedFile::SetPositions(int64_t position) {
  // Blocks past the position may never have been allocated (a sparse tail): reserve
  // again from here before writing.
  reserved_.store(position, std::memory_order_release);
  prefaulted_.store(position, std::memory_order_release);
  wrote_.store(position, std::memory_order_release);
  committed_.store(position, std::memory_order_release);
  flushed_.store(position, std::memory_order_release);
  zero_filled_.store(position, std::memory_order_release);
  write_claimed_ = position;
}

}  // namespace rocketstore
