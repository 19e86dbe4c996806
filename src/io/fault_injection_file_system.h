// File: io/fault_injection_file_system.h
//
// FaultInjectionFileSystem: an in-memory FileSystem (no real files) that makes process
// crashes, power losses, EIO and ENOSPC deterministic, for tests.
//
// ---- Model --------------------------------------------------------------------------
// Paths are '/'-separated; duplicate slashes, a trailing slash and "." components are
// ignored, and every path is relative to the file system's root ("a/b" == "/a/b").
// ".." is not supported. The root directory always exists.
//
// A file is an inode with
//   data            the page-cache content (what reads and mappings see), sized to the
//                   file size;
//   durable         the content a power loss leaves (its length is the durable size); and
//   allocated       which 4 KiB blocks of [0, size) hold disk blocks; the others are
//                   holes (see "Disk space").
// A directory is an inode with
//   entries         the live name -> inode map (what ListDir / OpenFile see); and
//   durable entries the set a power loss leaves.
//
//   PWrite, Truncate, Allocate, writes through a mapping   change `data` only.
//   File::Sync()                 copies all of `data` and the size to `durable`.
//   MappedRegion::Sync(off, len) copies that range to `durable` and makes the file's
//                                current size durable (msync(MS_SYNC) is
//                                vfs_fsync_range(datasync=1), which writes a changed
//                                inode size like fdatasync): the durable content is
//                                resized to the live size (new bytes zero) first.
//   Creating (OpenFile/LockFile), Rename, RemoveFile, RemoveDir  change the live
//                                entries only.
//   SyncDir(dir)                 makes dir's durable entries equal to its live entries.
//   CreateDirs                   creates DURABLE directories: each new directory is
//                                added to both the live and the durable entries of its
//                                parent (PosixFileSystem::CreateDirs fsyncs the parent
//                                of every directory it creates, to match).
// A removed file's inode lives on while a durable entry, an open File or a mapping
// refers to it. mtime is not modelled for durability (a crash keeps the live mtime).
//
// Mappings: MappedRegion::data() points straight into the inode's `data` buffer, so
// writes through it are immediately visible to PRead and vice versa, without locking
// (like real memory). The buffer never moves while a mapping of it is alive, so:
//   * growing a file past its buffer's capacity while a mapping of it is alive fails with
//     kFailedPrecondition (capacity is the size rounded up to 4 KiB, at least doubled
//     on each reallocation, so Allocate/Truncate the final size before mapping, as the
//     store does);
//   * shrinking a file below the end of a live mapping fails with kFailedPrecondition.
//
// ---- Disk space ---------------------------------------------------------------------
// Capacity counts allocated 4 KiB blocks, as a real file system does, not file sizes:
//   Truncate growing             allocates nothing (a sparse, zero-filled tail), so a
//                                file may be far larger than the capacity;
//   Truncate shrinking           frees the blocks wholly past the new size;
//   Allocate(off, len), PWrite   allocate the missing blocks of their range (an already
//                                allocated block costs nothing), growing the size if the
//                                range ends past it;
//   removing the last live entry (RemoveFile, Rename over it) frees the file's blocks
//                                (a simplification: even while handles keep it open).
// used = 4096 * allocated blocks of the files reachable through live entries.
// SetCapacityBytes(c): an Allocate/PWrite whose missing blocks would make used exceed c
// fails with ENOSPC (kNoSpace) without any effect. GetDiskUsage reports total = c
// (default 1 TiB), free = c - used (0 if used > c, e.g. after lowering c).
// Writes through a mapping: on a real full disk a write into a hole SIGBUSes, so the
// store Allocates before it writes through a mapping. To catch a violation cheaply,
// MappedRegion::Sync(off, len) (for that range) and File::Sync (for every range mapped
// writable since its last clean check) fail with kFailedPrecondition ("write into
// unallocated block ... would SIGBUS on a full disk") without effect when a non-zero
// byte sits in a hole: PWrite allocates and holes read zero, so only a mapping can have
// put it there. Zeros written into a hole, and writes into a hole that is allocated
// before the sync, go unnoticed. SetCheckMappedWritesAllocated(false) turns this off.
// Crashes: allocation is metadata, and the model keeps it as it is (simplest model):
// the crash snapshot keeps the live allocation of the blocks within the size that
// survives (after kPowerLoss, the durable size), and also marks allocated every block
// that holds data in the snapshot (the kernel allocates at the page fault a mapping
// write into a hole); blocks past the surviving size are gone with the lost tail.
//
// ---- Crashes ------------------------------------------------------------------------
//   kProcessCrash  keeps every file's data and every live directory entry (the kernel
//                  survives; only the process dies). Durable state is unchanged.
//   kPowerLoss     reverts every file to its durable content and size and every
//                  directory to its durable entries: files not reachable through durable
//                  entries vanish; unsynced creations, renames and removals are undone.
//   Both keep block allocation as described under "Disk space".
//
// CrashAtOp(n, mode): the n-th counted op from now (1-based) does not happen. Just before
// it, the file system deep-copies the state `mode` would leave (the snapshot) and becomes
// "crashed": that op and every later counted op return kAborted ("simulated crash"),
// while uncounted ops (reads, Stat, ListDir, Size, read-only Map, Prefault...) keep
// working on the live state, so a store being torn down does not trip over them.
// CrashNow(mode) snapshots right away and marks the file system crashed.
// Reboot() ends the crash: the snapshot becomes the live state. Every File, MappedRegion
// and FileLock handed out before is detached: its ops return kAborted, and a detached
// mapping keeps pointing at the old (retired) buffer, which it keeps alive, so writes
// through it are harmless and never reach the new state. All locks are released (the
// process died). Injected failures (FailOpAt, FailOpsOfKind) and the capacity stay.
//
// ---- Counted ops --------------------------------------------------------------------
// Every MUTATING call counts as one op, counted on entry (before any validation, so a
// mutating call that fails, e.g. RemoveFile of a missing file, still counts):
//   OpenFile with writable or create (kOpen), File::Truncate (kTruncate),
//   File::Allocate (kAllocate), File::PWrite (kWrite), File::Sync (kSync),
//   File::Map with writable (kMap), MappedRegion::Sync (kMapSync), CreateDirs
//   (kCreateDirs), RemoveFile and RemoveDir (kRemove), Rename (kRename), SyncDir
//   (kSyncDir), SetMTime (kSetMTime), LockFile (kLock).
// Not counted: read-only OpenFile/Map, PRead, Size, Prefault, SetReadahead, Stat, Exists, ListDir,
// GetDiskUsage, BootId, and the test helpers below. Calls on detached handles and calls while
// crashed are not counted either.
//
// ---- Error injection ----------------------------------------------------------------
// FailOpAt(n, err):       the n-th counted op from now fails with ErrnoStatus(.., err)
//                         (EIO -> kIOError, ENOSPC -> kNoSpace) without any effect; later
//                         ops work.
// FailOpsOfKind(k, err):  every op of kind k fails so, until ClearFailures().
// SetCapacityBytes(c):    the allocated blocks of all files reachable through live
//                         entries may not exceed c bytes (see "Disk space").
// Other errors mirror PosixFileSystem: a missing path -> kNotFound, an existing file with
// must_not_exist -> kAlreadyExists, EISDIR/ENOTEMPTY/EBADF/EFBIG (a size past ext4's
// 16 TiB) ... -> kIOError.
//
// mtime: creation, PWrite, Truncate, Allocate and MappedRegion::Sync set it to
// clock.NowMillis(); SetMTime overrides it.
// LockFile: an in-memory lock table keyed by path. A second LockFile of a path while a
// FileLock for it is alive returns kAlreadyExists; destroying the FileLock releases it.
//
// ---- Usage: a crash-point loop ------------------------------------------------------
//   for (uint64_t n = 1;; ++n) {
//     FaultInjectionFileSystem fs(clock);
//     ASSERT_OK(fs.CreateDirs("/store"));
//     fs.CrashAtOp(n, CrashMode::kPowerLoss);
//     Status s = RunWorkload(fs);          // stops with kAborted at op n
//     if (!fs.crashed()) break;            // the workload has fewer than n ops: done
//     ASSERT_OK(fs.Reboot());
//     CheckRecoveredStateIsConsistent(fs); // e.g. reopen the store and verify
//   }
//
// Ownership: Files, MappedRegions and FileLocks must not outlive the file system; a
// MappedRegion may outlive its File. The clock must outlive the file system.
// Thread-safety: all methods may be called concurrently; one internal mutex guards the
// metadata and PWrite/PRead/Sync copies. Bytes behind MappedRegion::data() are not
// locked: callers must not write bytes another thread reads or syncs concurrently
// (the contract of io/file_system.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "io/file_system.h"

namespace rocketstore {

enum class CrashMode {
  kProcessCrash,  // page cache survives
  kPowerLoss,     // only durable (synced) state survives
};

enum class OpKind {
  kOpen,
  kTruncate,
  kAllocate,
  kWrite,
  kSync,
  kMap,
  kMapSync,
  kCreateDirs,
  kRemove,
  kRename,
  kSyncDir,
  kSetMTime,
  kLock,
};

class FaultInjectionFileSystem final : public FileSystem {
 public:
  static constexpr uint64_t kDefaultCapacityBytes = uint64_t{1} << 40;  // 1 TiB

  explicit FaultInjectionFileSystem(Clock& clock = Clock::Real());
  ~FaultInjectionFileSystem() override;

  FaultInjectionFileSystem(const FaultInjectionFileSystem&) = delete;
  FaultInjectionFileSystem& operator=(const FaultInjectionFileSystem&) = delete;

  // FileSystem.
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
  // "fault-boot-<n>": n counts the reboots after a power loss (a process crash keeps the
  // boot, as it keeps the page cache).
  Result<std::string> BootId() override;

  // ---- Crash simulation ----
  // Counted ops since construction, including one at which a crash was injected (ops
  // refused because the file system had already crashed are not counted).
  uint64_t op_count() const;
  // Arms a crash at the n-th counted op from now (1-based); n == 0 disarms.
  void CrashAtOp(uint64_t n, CrashMode mode);
  // Crashes now. kFailedPrecondition if already crashed.
  Status CrashNow(CrashMode mode);
  bool crashed() const;
  // Makes the crash snapshot the live state and detaches all old handles.
  // kFailedPrecondition if not crashed (including when an armed crash was not reached).
  Status Reboot();

  // ---- Error injection ----
  // The n-th counted op from now (1-based) fails with `err` (EIO, ENOSPC...) without
  // effect. Only one such failure is pending at a time; n == 0 disarms.
  void FailOpAt(uint64_t n, int err);
  // Every op of `kind` fails with `err` until ClearFailures().
  void FailOpsOfKind(OpKind kind, int err);
  // Clears FailOpAt and FailOpsOfKind (not the capacity, not a crash).
  void ClearFailures();
  // Disk size: allocated blocks may not exceed it (see "Disk space" above).
  void SetCapacityBytes(uint64_t capacity);
  // On by default: MappedRegion::Sync / File::Sync fail with kFailedPrecondition when a
  // write through a mapping landed in an unallocated block (see "Disk space" above).
  void SetCheckMappedWritesAllocated(bool check);

  // ---- Test helpers (not counted, work even while crashed) ----
  // The live content of a file.
  Result<std::string> ReadWholeFile(const std::string& path);
  // The durable content of a file (what a power loss now would leave of it, if its
  // directory entry is durable).
  Result<std::string> ReadDurableFile(const std::string& path);
  // Bytes of disk blocks allocated to a file (a multiple of 4096; holes excluded).
  Result<uint64_t> AllocatedBytes(const std::string& path);
  // XORs one byte with `xor_mask` in both the live and the durable content (where the
  // offset is inside them); a hole there becomes an allocated block (ignoring the
  // capacity). kOutOfRange if offset >= the live size.
  Status CorruptByte(const std::string& path, uint64_t offset, uint8_t xor_mask);
  // Sets a file's live AND durable size to `size` (a torn tail, as found on disk); growth
  // adds zeros (a hole). Respects live mappings and frees blocks like Truncate.
  Status TruncateTo(const std::string& path, uint64_t size);

  struct Inode;
  struct World;

 private:
  friend class FaultFile;
  friend class FaultMappedRegion;
  friend class FaultFileLock;

  // Called on entry of every counted op, under mu_: counts it and applies crash/failure
  // injection. A non-OK result means the op must return it without effect.
  Status BeginOpLocked(OpKind kind, const std::string& what);
  // kAborted if `world` is not the live world (a handle from before a Reboot).
  Status CheckWorldLocked(const World* world, const std::string& what) const;
  // Sets a file's size, keeping buffer/mapping rules; growing allocates nothing,
  // shrinking frees the blocks past the new size. `what` names the op.
  Status ResizeLocked(Inode& inode, uint64_t new_size, const std::string& what);
  // Allocates the missing blocks of [offset, end) (growing the size to `end` if needed),
  // or fails with ENOSPC without effect when they do not fit. REQUIRES: offset < end.
  Status AllocateLocked(Inode& inode, uint64_t offset, uint64_t end, const std::string& what);
  uint64_t NowMillis() const { return clock_.NowMillis(); }

  Clock& clock_;
  mutable std::mutex mu_;
  std::shared_ptr<World> world_;     // the live state
  std::shared_ptr<World> snapshot_;  // set while crashed
  bool crashed_ = false;
  uint64_t op_count_ = 0;
  std::optional<uint64_t> crash_at_;  // absolute op number
  CrashMode crash_mode_ = CrashMode::kPowerLoss;
  CrashMode crashed_mode_ = CrashMode::kPowerLoss;  // of the crash that happened
  uint64_t boots_ = 0;                              // reboots after a power loss
  std::optional<uint64_t> fail_at_;                 // absolute op number
  int fail_at_errno_ = 0;
  std::map<OpKind, int> kind_failures_;
  uint64_t capacity_ = kDefaultCapacityBytes;
  bool check_mapped_writes_ = true;
};

std::string_view OpKindName(OpKind kind);

}  // namespace rocketstore
