// File: store/message_store.h
//
// MessageStore: the store as one object — the only store header the broker includes.
// It owns the CommitLog, the flush services, the checkpoint, and recovery, and runs them
// in a fixed order.
//
//   auto store = MessageStore::Open(options, PosixFileSystem::Default(), Clock::Real());
//   PutMessageResult r = (*store)->PutMessage(msg);
//   ...
//   Status s = (*store)->Close();   // clean shutdown
//
// Open: lock the directory (`lock`; a second store on it fails), read the checkpoint,
// load segments, recover (normal when no `abort` file, abnormal otherwise — see
// docs/durability.md), make the recovered data durable, create `abort`, start services.
// Close: stop services, flush everything, write the checkpoint, and remove `abort` only if
// the store is still healthy. Destroying a store without Close() is like a crash: the
// `abort` file stays and the next Open recovers abnormally.
//
// Durability when PutMessage returns PUT_OK:
//   ASYNC_FLUSH: the record is in the page cache: it survives a process crash, and reaches
//     the disk within the flush interval (500 ms with >= 16 KiB dirty, else <= 10 s).
//   SYNC_FLUSH with wait_for_flush: the record is on disk (group commit); a flush that
//     takes longer than sync_flush_timeout_ms answers FLUSH_DISK_TIMEOUT (stored, late),
//     and a failed flush answers UNKNOWN_ERROR and makes the store refuse writes.
//   SYNC_FLUSH without wait (WAIT=false): as ASYNC_FLUSH, flushed within ~10 ms.
//
// Thread-safety: PutMessage/Read* from any number of threads; Open/Close from one owner.
// Ownership: `fs` and `clock` must outlive the store.
#pragma once

#include <memory>
#include <span>

#include "base/clock.h"
#include "base/result.h"
#include "base/service_runner.h"
#include "io/file_system.h"
#include "store/checkpoint/checkpoint.h"
#include "store/commitlog/commit_log.h"
#include "store/common/store_health.h"
#include "store/flush/async_flusher.h"
#include "store/flush/group_commit.h"
#include "store/recovery/commit_log_recovery.h"
#include "store/store_options.h"

namespace rocketstore {

class MessageStore {
 public:
  static Result<std::unique_ptr<MessageStore>> Open(const StoreOptions& options, FileSystem& fs,
                                                    Clock& clock);
  ~MessageStore();
  MessageStore(const MessageStore&) = delete;
  MessageStore& operator=(const MessageStore&) = delete;

  PutMessageResult PutMessage(const format::MessageToStore& message, bool wait_for_flush = true);
  PutMessageResult PutMessages(std::span<const format::MessageToStore> batch,
                               bool wait_for_flush = true);

  // The raw record at a physical offset (a view; keeps its segment mapped).
  Result<CommitLogBytes> ReadRecord(PhysicalOffset offset) const {
    return commit_log_->ReadRecord(offset);
  }

  // Steps of the background services, for tests that run without threads.
  Status RunFlushStep();
  Status RunPrepareStep() { return commit_log_->segments().PrepareNext(); }

  Status Close();

  const CommitLogRecoveryReport& recovery_report() const { return recovery_report_; }
  bool recovered_abnormally() const { return abnormal_; }
  const StoreHealth& health() const { return health_; }
  CommitLog& commit_log() { return *commit_log_; }
  const StoreOptions& options() const { return options_; }
  // Group-commit counters (SYNC_FLUSH): flushes done and waits served.
  int64_t sync_flush_count() const { return group_commit_ ? group_commit_->flush_count() : 0; }
  int64_t sync_wait_count() const { return group_commit_ ? group_commit_->wait_count() : 0; }
  int64_t sync_flush_nanos() const { return group_commit_ ? group_commit_->flush_nanos() : 0; }

 private:
  MessageStore(const StoreOptions& options, FileSystem& fs, Clock& clock);
  Status Recover();
  Status RebuildQueueOffsets();
  void StartServices();
  void StopServices();
  PutMessageResult AwaitDurability(PutMessageResult result, bool wait_for_flush);

  const StoreOptions options_;
  FileSystem& fs_;
  Clock& clock_;
  StoreHealth health_;
  std::unique_ptr<FileLock> lock_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::unique_ptr<CommitLog> commit_log_;
  std::unique_ptr<AsyncFlusher> async_flusher_;
  std::unique_ptr<GroupCommit> group_commit_;
  std::unique_ptr<ServiceRunner> flush_runner_;
  std::unique_ptr<ServiceRunner> prepare_runner_;
  CommitLogRecoveryReport recovery_report_;
  bool abnormal_ = false;
  bool closed_ = false;
};

}  // namespace rocketstore
