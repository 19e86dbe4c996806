// File: io/fault_injection_handles.cc
//
// The handles FaultInjectionFileSystem gives out: FaultFile (File), FaultMappedRegion
// (MappedRegion) and FaultFileLock (FileLock). Each holds the world it was opened in, so a
// handle from before a simulated crash keeps working on the retired world's buffers but
// fails every operation (CheckWorldLocked); see io/fault_injection_file_system.h.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "io/fault_injection_internal.h"

namespace rocketstore {
namespace fault_injection_internal {

bool IsZero(const uint8_t* p, uint64_t n) {
  static const uint8_t kZeros[kBlock] = {};
  while (n > 0) {
    const uint64_t chunk = std::min(n, kBlock);
    if (std::memcmp(p, kZeros, chunk) != 0) return false;
    p += chunk;
    n -= chunk;
  }
  return true;
}

Status CheckNoMappedWritesIntoHoles(const FaultInjectionFileSystem::Inode& f, uint64_t start,
                                    uint64_t end, const std::string& what) {
  end = std::min(end, f.size);
  if (start >= end) return Status::OK();
  const uint64_t last = BlocksFor(end);
  for (uint64_t b = start / kBlock; b < last; ++b) {
    if (f.allocated[b]) continue;
    const uint64_t lo = std::max(start, b * kBlock);
    const uint64_t hi = std::min(end, (b + 1) * kBlock);
    if (!IsZero(f.buf + lo, hi - lo)) {
      return FailedPrecondition(
          what + ": write into unallocated block " + std::to_string(b) + " (file bytes [" +
          std::to_string(b * kBlock) + ", " + std::to_string((b + 1) * kBlock) +
          ")) through a mapping would SIGBUS on a full disk; Allocate (or PWrite) a range "
          "before writing to it through a mapping");
    }
  }
  return Status::OK();
}

std::string What(std::string_view op, const std::string& path) {
  std::string s(op);
  s += ' ';
  s += path;
  return s;
}

}  // namespace fault_injection_internal

namespace {
using Inode = FaultInjectionFileSystem::Inode;
using World = FaultInjectionFileSystem::World;
using fault_injection_internal::CheckNoMappedWritesIntoHoles;
using fault_injection_internal::What;
}  // namespace

// ---- Handles -------------------------------------------------------------------------

class FaultMappedRegion final : public MappedRegion {
 public:
  FaultMappedRegion(FaultInjectionFileSystem* fs, std::shared_ptr<World> world,
                    std::shared_ptr<Inode> inode, std::string path, uint64_t file_offset,
                    size_t len, bool writable)
      : fs_(fs),
        world_(std::move(world)),
        inode_(std::move(inode)),
        path_(std::move(path)),
        file_offset_(file_offset),
        data_(inode_->buf + file_offset),
        size_(len),
        writable_(writable) {}

  ~FaultMappedRegion() override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    auto it = inode_->map_ends.find(file_offset_ + size_);
    if (it != inode_->map_ends.end()) inode_->map_ends.erase(it);
    if (writable_) --inode_->writable_maps;
  }

  uint8_t* data() override { return data_; }
  const uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }

  Status Sync(size_t offset, size_t len) override {
    const std::string what = What("msync", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), what));
    RS_RETURN_IF_ERROR(fs_->BeginOpLocked(OpKind::kMapSync, what));
    RS_RETURN_IF_ERROR(CheckRange("msync", offset, len));
    if (len == 0) return Status::OK();
    Inode& f = *inode_;
    const uint64_t start = file_offset_ + offset;
    const uint64_t end = std::min<uint64_t>(start + len, f.size);
    if (fs_->check_mapped_writes_) {
      RS_RETURN_IF_ERROR(CheckNoMappedWritesIntoHoles(f, start, end, what));
    }
    // msync(MS_SYNC) is vfs_fsync_range(datasync=1): like fdatasync it also writes the
    // inode's size when that changed, so the whole current size becomes durable.
    f.durable.resize(f.size, 0);
    if (start < end) std::memcpy(f.durable.data() + start, f.buf + start, end - start);
    f.mtime_millis = fs_->NowMillis();
    return Status::OK();
  }

  Status SetReadahead(bool) override {  // a hint: nothing to model, not counted
    std::lock_guard<std::mutex> lock(fs_->mu_);
    return fs_->CheckWorldLocked(world_.get(), What("readahead", path_));
  }

  // A hint: the bytes stay, so there is nothing to model; not counted as an operation.
  Status Unmap(size_t offset, size_t len) override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), What("unmap", path_)));
    return CheckRange("unmap", offset, len);
  }

  // In memory, every byte is "resident"; an observation, not counted as an operation.
  Result<size_t> ResidentBytes(size_t offset, size_t len) const override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), What("mincore", path_)));
    RS_RETURN_IF_ERROR(CheckRange("mincore", offset, len));
    return len;
  }

  Status Prefault(size_t offset, size_t len) override {
    const std::string what = What("prefault", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), what));
    return CheckRange("prefault", offset, len);
  }

 private:
  Status CheckRange(std::string_view op, size_t offset, size_t len) const {
    if (offset > size_ || len > size_ - offset) {
      return OutOfRange(What(op, path_) + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds mapping of " + std::to_string(size_) +
                        " bytes");
    }
    return Status::OK();
  }

  FaultInjectionFileSystem* const fs_;
  const std::shared_ptr<World> world_;  // keeps a retired world (and its locks) alive
  const std::shared_ptr<Inode> inode_;  // keeps the buffer alive
  const std::string path_;
  const uint64_t file_offset_;
  uint8_t* const data_;
  const size_t size_;
  const bool writable_;
};

class FaultFile final : public File {
 public:
  FaultFile(FaultInjectionFileSystem* fs, std::shared_ptr<World> world,
            std::shared_ptr<Inode> inode, std::string path, bool writable)
      : fs_(fs),
        world_(std::move(world)),
        inode_(std::move(inode)),
        path_(std::move(path)),
        writable_(writable) {}

  const std::string& path() const override { return path_; }

  Result<uint64_t> Size() override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), What("fstat", path_)));
    return inode_->size;
  }

  Status Truncate(uint64_t size) override {
    const std::string what = What("ftruncate", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(BeginMutation(OpKind::kTruncate, what));
    RS_RETURN_IF_ERROR(fs_->ResizeLocked(*inode_, size, what));
    inode_->mtime_millis = fs_->NowMillis();
    return Status::OK();
  }

  Status Allocate(uint64_t offset, uint64_t len) override {
    const std::string what = What("fallocate", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(BeginMutation(OpKind::kAllocate, what));
    if (len == 0) return Status::OK();
    if (offset + len < offset) return ErrnoStatus(what, EFBIG);
    RS_RETURN_IF_ERROR(fs_->AllocateLocked(*inode_, offset, offset + len, what));
    inode_->mtime_millis = fs_->NowMillis();
    return Status::OK();
  }

  Status PWrite(uint64_t offset, const void* data, size_t n) override {
    const std::string what = What("pwrite", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(BeginMutation(OpKind::kWrite, what));
    if (n == 0) return Status::OK();
    if (offset + n < offset) return ErrnoStatus(what, EFBIG);
    RS_RETURN_IF_ERROR(fs_->AllocateLocked(*inode_, offset, offset + n, what));
    std::memcpy(inode_->buf + offset, data, n);
    inode_->mtime_millis = fs_->NowMillis();
    return Status::OK();
  }

  Result<size_t> PRead(uint64_t offset, void* dst, size_t n) override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), What("pread", path_)));
    const Inode& f = *inode_;
    if (offset >= f.size || n == 0) return size_t{0};
    const size_t count = static_cast<size_t>(std::min<uint64_t>(n, f.size - offset));
    std::memcpy(dst, f.buf + offset, count);
    return count;
  }

  Status Sync() override {
    const std::string what = What("fdatasync", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), what));
    RS_RETURN_IF_ERROR(fs_->BeginOpLocked(OpKind::kSync, what));
    Inode& f = *inode_;
    if (fs_->check_mapped_writes_ && f.wmap_lo < f.wmap_hi) {
      RS_RETURN_IF_ERROR(CheckNoMappedWritesIntoHoles(f, f.wmap_lo, f.wmap_hi, what));
      if (f.writable_maps == 0) {  // nothing can write through a mapping any more
        f.wmap_lo = UINT64_MAX;
        f.wmap_hi = 0;
      }
    }
    f.durable.assign(f.buf, f.buf + f.size);
    return Status::OK();
  }

  // A hint: the bytes stay, so there is nothing to model; not counted as an operation.
  Status DropCache(uint64_t, uint64_t) override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    return fs_->CheckWorldLocked(world_.get(), What("drop cache", path_));
  }

  // Everything may be data (the hint's conservative answer); not counted as an operation.
  Result<DataRange> NextDataRange(uint64_t from) override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), What("seek data", path_)));
    const uint64_t size = inode_->size;
    return DataRange{std::min(from, size), size};
  }

  Result<std::unique_ptr<MappedRegion>> Map(uint64_t offset, size_t len, bool writable) override {
    const std::string what = What("mmap", path_);
    std::lock_guard<std::mutex> lock(fs_->mu_);
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), what));
    if (writable) RS_RETURN_IF_ERROR(fs_->BeginOpLocked(OpKind::kMap, what));
    if (writable && !writable_) {
      return FailedPrecondition(what + ": writable mapping of a file opened read-only");
    }
    if (len == 0) return InvalidArgument(what + ": empty mapping");
    Inode& f = *inode_;
    if (offset > f.size || len > f.size - offset) {
      return OutOfRange(what + ": range [" + std::to_string(offset) + ", +" + std::to_string(len) +
                        ") exceeds file size " + std::to_string(f.size));
    }
    f.map_ends.insert(offset + len);
    if (writable) {
      ++f.writable_maps;
      f.wmap_lo = std::min(f.wmap_lo, offset);
      f.wmap_hi = std::max<uint64_t>(f.wmap_hi, offset + len);
    }
    return std::unique_ptr<MappedRegion>(
        new FaultMappedRegion(fs_, world_, inode_, path_, offset, len, writable));
  }

 private:
  // Detached-handle check, op counting/injection, then the writability check.
  Status BeginMutation(OpKind kind, const std::string& what) {
    RS_RETURN_IF_ERROR(fs_->CheckWorldLocked(world_.get(), what));
    RS_RETURN_IF_ERROR(fs_->BeginOpLocked(kind, what));
    if (!writable_) return ErrnoStatus(what + " (file opened read-only)", EBADF);
    return Status::OK();
  }

  FaultInjectionFileSystem* const fs_;
  const std::shared_ptr<World> world_;
  const std::shared_ptr<Inode> inode_;
  const std::string path_;
  const bool writable_;
};

class FaultFileLock final : public FileLock {
 public:
  FaultFileLock(FaultInjectionFileSystem* fs, std::shared_ptr<World> world, std::string key)
      : fs_(fs), world_(std::move(world)), key_(std::move(key)) {}
  ~FaultFileLock() override {
    std::lock_guard<std::mutex> lock(fs_->mu_);
    world_->locks.erase(key_);  // a retired world's table: harmless
  }

 private:
  FaultInjectionFileSystem* const fs_;
  const std::shared_ptr<World> world_;
  const std::string key_;
};

namespace fault_injection_internal {

std::unique_ptr<File> NewFaultFile(FaultInjectionFileSystem* fs, std::shared_ptr<World> world,
                                   std::shared_ptr<Inode> inode, std::string path, bool writable) {
  return std::unique_ptr<File>(
      new FaultFile(fs, std::move(world), std::move(inode), std::move(path), writable));
}

std::unique_ptr<FileLock> NewFaultFileLock(FaultInjectionFileSystem* fs,
                                           std::shared_ptr<World> world, std::string key) {
  return std::unique_ptr<FileLock>(new FaultFileLock(fs, std::move(world), std::move(key)));
}

}  // namespace fault_injection_internal
}  // namespace rocketstore
