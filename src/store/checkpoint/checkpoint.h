// File: store/checkpoint/checkpoint.h
//
// Checkpoint: the `checkpoint` file (layout in store/format/checkpoint_record.h) plus the
// `abort` marker and the `lock` file of a store directory.
//
// Checkpoint values live in memory (Set*, any thread) and reach the disk only on Flush(),
// which replaces the file atomically: write `checkpoint.tmp`, fdatasync, rename over
// `checkpoint`, fsync the directory. A crash leaves either the old or the new file, never
// a torn one; the CRC in the extension catches anything else.
//
// Thread-safety: all methods may be called from any thread; Flush calls are serialised.
// Ownership: `fs` must outlive the Checkpoint.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "io/file_system.h"
#include "store/format/checkpoint_record.h"

namespace rocketstore {

class Checkpoint {
 public:
  enum class LoadState {
    kMissing,   // no checkpoint file: a new store, or one that never flushed one
    kRocketMq,  // valid RocketMQ fields, no rocketstore extension
    kVerified,  // fields and extension, CRC verified
    // Our extension, but a RocketMQ broker rewrote its fields since (it ran on the store):
    // RocketMQ's values are used as RocketMQ would use them, the extension is ignored.
    kStaleExtension,
    kCorrupt,  // wrong size or CRC mismatch: values reset to zero, start treated dirty
  };

  // Reads `<dir>/checkpoint` if present.
  static Result<std::unique_ptr<Checkpoint>> Open(FileSystem& fs, const std::string& dir);

  LoadState load_state() const { return load_state_; }
  std::string LoadStateDescription() const;

  format::CheckpointRecord Get() const;
  void SetPhysicMsgTimestamp(int64_t v);
  void SetLogicsMsgTimestamp(int64_t v);
  void SetIndexMsgTimestamp(int64_t v);
  void SetDurableCommitLogOffset(int64_t v);
  void SetDispatchedCommitLogOffset(int64_t v);

  // Persists the current values atomically (see above).
  Status Flush();

 private:
  Checkpoint(FileSystem& fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  FileSystem& fs_;
  const std::string dir_;
  LoadState load_state_ = LoadState::kMissing;
  mutable std::mutex mu_;
  format::CheckpointRecord record_;  // GUARDED_BY(mu_)
  std::mutex flush_mu_;
};

// The `abort` marker: present while a store runs; its presence at startup means the last
// run did not shut down cleanly. Creation and removal are made durable (directory fsync).
// RocketMQ only looks at whether it exists (it creates it empty); ours holds the boot id
// of the run (FileSystem::BootId) that created it, so the next start can tell a process
// crash from a power loss. Without a boot id (RocketMQ's file, or BootId failed) a crash
// counts as a power loss.
Status CreateAbortMarker(FileSystem& fs, const std::string& dir);
Status RemoveAbortMarker(FileSystem& fs, const std::string& dir);
// Empties the abort marker, if there is one, so that the next start takes the crash for
// a power loss: after an I/O error the kernel may drop pages it failed to write, so the
// page cache no longer proves anything about the files. Not synced (see there).
Status DistrustAbortMarker(FileSystem& fs, const std::string& dir);

// How the last run ended, read from the abort marker before this run replaces it.
enum class LastExit {
  kClean,         // no marker: shut down cleanly
  kProcessCrash,  // marker from this boot: the process died, its page cache survived,
                  // so the files hold every byte it wrote (durable or not)
  kCrash,         // marker from another boot or without a boot id: assume a power loss
                  // (only what was synced survived)
};
LastExit ReadLastExit(FileSystem& fs, const std::string& dir);
const char* LastExitName(LastExit e);

// Takes the `lock` file of a store directory; a second holder (another process or another
// store object) fails with kAlreadyExists and a message saying what to do.
Result<std::unique_ptr<FileLock>> LockStoreDirectory(FileSystem& fs, const std::string& dir);

}  // namespace rocketstore
