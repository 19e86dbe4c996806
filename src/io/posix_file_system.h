// File: io/posix_file_system.h
//
// PosixFileSystem: the production FileSystem, real files through Linux syscalls.
//
//   OpenFile        open(2) with O_CLOEXEC (O_RDWR|O_CREAT[|O_EXCL] as asked), mode 0644.
//   File::Truncate  ftruncate.
//   File::Allocate  fallocate(mode 0); posix_fallocate when the file system answers
//                   EOPNOTSUPP (e.g. tmpfs on old kernels). ENOSPC -> kNoSpace.
//   File::PWrite    pwrite loop: retries EINTR and short writes until all bytes are out.
//   File::PRead     pread loop: short only at end of file.
//   File::Sync      fdatasync.
//   File::Map       mmap(MAP_SHARED). Any file offset works: the mapping starts at the
//                   page boundary at or below `offset` and data() points `offset % page`
//                   bytes into it.
//   Region::Sync    msync(MS_SYNC) on the range widened down to its page boundary.
//   Region::Prefault madvise(MADV_POPULATE_WRITE) on writable maps, MADV_POPULATE_READ on
//                   read-only ones (Linux 5.14+). On EINVAL (older kernel) it falls back to
//                   reading one byte per page through a volatile pointer; it never writes.
//   Region::SetReadahead madvise(MADV_NORMAL) / madvise(MADV_RANDOM) on the whole map.
//   CreateDirs      mkdir -p; every directory it creates is made durable at once (fsync of
//                   its parent), so newly created directories survive a power loss, like
//                   FaultInjectionFileSystem's model.
//   SyncDir         open(O_RDONLY|O_DIRECTORY) + fsync.
//   LockFile        open/create, then an OFD lock (fcntl F_OFD_SETLK, F_WRLCK on [0, 1)).
//                   OFD locks belong to the open file description, so two FileLocks in the
//                   same process conflict, and they conflict with classic fcntl locks of
//                   another process (Java's FileChannel.tryLock). Held -> kAlreadyExists.
//                   The lock is released when the FileLock (its descriptor) is destroyed,
//                   or by the kernel when the process dies.
//   GetDiskUsage    statvfs: total = f_blocks * f_frsize, free = f_bavail * f_frsize.
//   BootId          /proc/sys/kernel/random/boot_id (a UUID the kernel draws at boot).
//   SetMTime        utimensat (atime untouched).
//   Stat            stat(2).
//
// Errors: "<op> <path>: <strerror>" with errno kept; ENOENT/ENOTDIR -> kNotFound,
// EEXIST -> kAlreadyExists, ENOSPC/EDQUOT -> kNoSpace, others -> kIOError.
//
// Ownership: see io/file_system.h. PosixFileSystem holds no state besides its options;
// Files and MappedRegions own their descriptor / mapping.
// Thread-safety: all methods may be called concurrently (the kernel serialises).
// Durability: exactly the kernel's: see the model in io/file_system.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace rocketstore {

struct PosixFileSystemOptions {
  // Prefault with madvise(MADV_POPULATE_*). false forces the page-touching fallback
  // (used by tests to exercise the path taken on kernels older than 5.14).
  bool prefault_with_madvise = true;
};

class PosixFileSystem final : public FileSystem {
 public:
  explicit PosixFileSystem(PosixFileSystemOptions options = PosixFileSystemOptions());

  // A process-wide instance with default options. Never destroyed.
  static PosixFileSystem& Default();

  Result<std::unique_ptr<File>> OpenFile(const std::string& path,
                                         const OpenOptions& options) override;
  Status CreateDirs(const std::string& path) override;
  Result<std::vector<std::string>> ListDir(const std::string& path) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& path) override;
  Status SetMTime(const std::string& path, int64_t mtime_millis) override;
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override;
  Result<DiskUsage> GetDiskUsage(const std::string& path) override;
  Result<std::string> BootId() override;

 private:
  PosixFileSystemOptions options_;
};

}  // namespace rocketstore
