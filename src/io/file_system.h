// File: io/file_system.h
//
// The only door between rocketstore and the operating system's files. Every byte the
// store reads or writes, every mmap, fsync, rename and lock goes through a FileSystem
// passed in by the owner (never reached as a global), so that tests can substitute
// FaultInjectionFileSystem (io/fault_injection_file_system.h) and make crashes, power
// losses, EIO and ENOSPC deterministic.
//
// Implementations:
//   PosixFileSystem            (io/posix_file_system.h)  real files; Linux syscalls.
//   FaultInjectionFileSystem   (io/fault_injection_file_system.h) in memory, for tests:
//                              process crash, power loss, failing/stopping the Nth op.
//
// Durability model (what survives a power loss), shared by both implementations:
//   * Bytes written by PWrite or through a MappedRegion live in the page cache until
//     File::Sync() (fdatasync) or MappedRegion::Sync() (msync) covers them.
//   * Creating, renaming or removing a directory entry is durable only after
//     SyncDir() on the parent directory.
//   * A process crash loses nothing that reached the page cache.
//
// Disk space: File::Allocate() reserves blocks (fallocate) and fails with kNoSpace on a
// full disk. Writing through a mapping into a range that was not allocated can raise
// SIGBUS on a full disk, so the store allocates every range before it maps writes there.
//
// Errors: every call returns a Status/Result; OS failures carry errno (ErrnoStatus):
// ENOSPC/EDQUOT -> kNoSpace, others -> kIOError.
//
// Ownership: a File must not outlive its FileSystem; a MappedRegion may outlive its File
// (the mapping keeps the pages) but not the FileSystem.
// Thread-safety: FileSystem methods may be called concurrently. A File or MappedRegion
// may be used from several threads when the callers do not write the same bytes
// concurrently (e.g. one appender, many readers of already-written ranges, one flusher).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore {

// A memory mapping of [offset, offset + size) of a file, MAP_SHARED.
class MappedRegion {
 public:
  virtual ~MappedRegion() = default;  // unmaps

  virtual uint8_t* data() = 0;
  virtual const uint8_t* data() const = 0;
  virtual size_t size() const = 0;

  // Makes bytes [offset, offset + len) of the region durable (msync(MS_SYNC)).
  // REQUIRES: offset + len <= size().
  virtual Status Sync(size_t offset, size_t len) = 0;

  // Asks the OS to fault the pages of [offset, offset + len) in now (MADV_POPULATE_WRITE
  // for writable maps), so the first write to them does not pay for a page fault. Does
  // not change any byte. Call it off the hot path. REQUIRES: the range was allocated.
  virtual Status Prefault(size_t offset, size_t len) = 0;

  // A hint that changes no byte. false: a page fault brings in just that page, never a
  // large readahead folio (MADV_RANDOM); true restores normal readahead. The segment
  // being written under SYNC_FLUSH uses false: writeback writes a dirty folio whole, so
  // with large folios every small flush rewrote up to a MiB (docs/durability.md).
  virtual Status SetReadahead(bool enabled) = 0;

  // A hint that changes no byte: unmaps the whole pages inside [offset, offset + len) from
  // this mapping (MADV_DONTNEED; a later access maps them again, from the page cache or
  // the file). With File::DropCache it lets the page cache give those pages back.
  // REQUIRES: offset + len <= size().
  virtual Status Unmap(size_t offset, size_t len) = 0;

  // How many bytes of [offset, offset + len) are in the page cache now (mincore, whole
  // pages, capped at len): an observation that changes nothing. Costs one byte of scratch
  // per page examined, in steps, never more than 16 KiB. REQUIRES: offset + len <= size().
  virtual Result<size_t> ResidentBytes(size_t offset, size_t len) const = 0;
};

// An open file. Closed by the destructor (errors on close are not reportable there;
// call Sync() first when durability matters).
class File {
 public:
  virtual ~File() = default;

  virtual const std::string& path() const = 0;
  virtual Result<uint64_t> Size() = 0;

  // Sets the file size (ftruncate). Growing makes a sparse, zero-filled tail.
  virtual Status Truncate(uint64_t size) = 0;

  // Reserves disk blocks for [offset, offset + len) (fallocate, mode 0); the size grows
  // if the range ends past it. kNoSpace when the disk is full.
  virtual Status Allocate(uint64_t offset, uint64_t len) = 0;

  // Writes all n bytes at offset (retrying short writes). The size grows if needed.
  virtual Status PWrite(uint64_t offset, const void* data, size_t n) = 0;

  // Reads up to n bytes at offset; returns the count read (short only at end of file).
  virtual Result<size_t> PRead(uint64_t offset, void* dst, size_t n) = 0;

  // Makes all written data of this file (by PWrite or mappings) durable (fdatasync).
  virtual Status Sync() = 0;

  // A hint that changes no byte: asks the OS to drop the file's pages in
  // [offset, offset + len) from the page cache (POSIX_FADV_DONTNEED). It drops only pages
  // that are written back and mapped nowhere (see MappedRegion::Unmap); a later read
  // brings them in again. Used to recycle page-cache memory behind the commit log's
  // writer (MappedFileQueue::Options::resident_window_bytes).
  virtual Status DropCache(uint64_t offset, uint64_t len) = 0;

  // Where a file may hold data, for readers that skip what was never written (recovery
  // looking past the end of the log must not read, and fill the page cache with, a
  // gigabyte of never-written blocks): the first range [start, end) at or after `from`
  // that may hold non-zero bytes. Every byte in [from, start) reads as zero; {size, size}
  // when nothing at or after `from` may. A hint (SEEK_DATA / SEEK_HOLE): reporting
  // everything as data is a correct implementation. Moves no file position that PRead or
  // PWrite use. Not an operation of the fault-injecting file system.
  struct DataRange {
    uint64_t start = 0;
    uint64_t end = 0;
  };
  virtual Result<DataRange> NextDataRange(uint64_t from) = 0;

  // Maps [offset, offset + len) of the file, read-write if `writable` (the file must
  // have been opened writable). REQUIRES: offset + len <= Size().
  virtual Result<std::unique_ptr<MappedRegion>> Map(uint64_t offset, size_t len, bool writable) = 0;
};

// Held advisory lock on a file; released by the destructor.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

struct OpenOptions {
  bool writable = false;        // open read-write instead of read-only
  bool create = false;          // create the file if missing (implies writable)
  bool must_not_exist = false;  // with create: fail with kAlreadyExists if it exists
};

struct FileInfo {
  uint64_t size = 0;
  int64_t mtime_millis = 0;  // last modification time, ms since the epoch
  bool is_directory = false;
};

struct DiskUsage {
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;  // available to this (unprivileged-equivalent) user
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::unique_ptr<File>> OpenFile(const std::string& path,
                                                 const OpenOptions& options) = 0;

  // mkdir -p. OK if the directory exists.
  virtual Status CreateDirs(const std::string& path) = 0;

  // Names (not paths) of the entries of a directory, excluding "." and "..", in no
  // particular order. kNotFound if the directory does not exist.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;

  // kNotFound if nothing is at `path`.
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  bool Exists(const std::string& path) { return Stat(path).ok(); }

  virtual Status RemoveFile(const std::string& path) = 0;
  virtual Status RemoveDir(const std::string& path) = 0;  // must be empty
  // Atomically replaces `to` with `from` (rename(2)).
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Makes the directory's entries (creations, renames, removals) durable.
  virtual Status SyncDir(const std::string& path) = 0;
  // Sets a file's modification time (tests and tools; retention reads mtimes).
  virtual Status SetMTime(const std::string& path, int64_t mtime_millis) = 0;

  // Takes an exclusive lock on byte range [0, 1) of `path`, creating the file if
  // missing. The lock conflicts with any other holder, in this process (another
  // FileLock) or another one (RocketMQ's FileChannel.tryLock). kAlreadyExists if held.
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;

  // Size and free space of the file system holding `path`.
  virtual Result<DiskUsage> GetDiskUsage(const std::string& path) = 0;

  // Identifies the running boot of the machine: unchanged while it runs, different after
  // every restart of the kernel (a power loss or a reboot). Two equal ids mean the page
  // cache of one run was still there for the next: a process crash, not a power loss.
  virtual Result<std::string> BootId() = 0;
};

// Joins path components with '/'.
std::string JoinPath(const std::string& a, const std::string& b);

}  // namespace rocketstore
