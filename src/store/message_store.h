// File: store/message_store.h
//
// MessageStore: the store as one object — the only store header the broker includes.
// It owns the CommitLog, the ConsumeQueues, the dispatcher that builds them, the flush
// services, the checkpoint and recovery, and starts and stops them in a fixed order.
//
//   auto store = MessageStore::Open(options, PosixFileSystem::Default(), Clock::Real());
//   PutMessageResult put = (*store)->PutMessage(msg);
//   GetMessageResult got = (*store)->GetMessage({.topic = "T", .queue_id = 0, ...});
//   Status s = (*store)->Close();   // clean shutdown
//
// Open: lock the directory (`lock`), read the checkpoint, load segments and consume
// queues, create the extra sinks (StoreOptions::extra_sinks), recover (normal without `abort`,
// abnormal with it; docs/durability.md), make the recovered data durable, re-dispatch what the
// consume queues lack and wait until the dispatcher has caught up, create `abort`, start the
// services. Open returns a store that is ready: every recovered message is reachable through its
// consume queue. Close: stop services, let the dispatcher finish, flush the commit log and the
// consume queues, write the checkpoint, and remove `abort` only if the store is healthy and nothing
// is left undispatched. Destroying a store without Close() is like a crash.
//
// Durability when PutMessage returns PUT_OK:
//   ASYNC_FLUSH: the record is in the page cache: it survives a process crash and reaches
//     the disk within the flush interval (500 ms with >= 16 KiB dirty, else <= 10 s).
//   SYNC_FLUSH with wait_for_flush: the record is on disk (group commit); a flush slower
//     than sync_flush_timeout_ms answers FLUSH_DISK_TIMEOUT (stored, late); a failed
//     flush answers UNKNOWN_ERROR and the store refuses writes from then on.
// Visibility: a message becomes readable through GetMessage once dispatched — at once
// under ASYNC_FLUSH, once durable under SYNC_FLUSH.
//
// Thread-safety: PutMessage, GetMessage and the queries from any number of threads;
// Open/Close from one owner. Ownership: `fs` and `clock` must outlive the store.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/service_runner.h"
#include "io/file_system.h"
#include "store/checkpoint/checkpoint.h"
#include "store/commitlog/commit_log.h"
#include "store/common/store_health.h"
#include "store/common/store_metrics.h"
#include "store/consume_queue/consume_queue_table.h"
#include "store/dispatch/dispatcher.h"
#include "store/flush/async_flusher.h"
#include "store/flush/group_commit.h"
#include "store/get_message.h"
#include "store/index/index_service.h"
#include "store/index/message_query.h"
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

  // --- writes ---
  PutMessageResult PutMessage(const format::MessageToStore& message, bool wait_for_flush = true);
  PutMessageResult PutMessages(std::span<const format::MessageToStore> batch,
                               bool wait_for_flush = true);
  // The same without blocking: `done` gets the result, at once (on this thread) unless a
  // SYNC_FLUSH put waits for its flush; then it runs on the thread that finished the
  // flush (or the flush watcher, for FLUSH_DISK_TIMEOUT). `done` must be short and must
  // not block; it may put again. This is how the broker serves many producers under
  // SYNC_FLUSH from a few threads: every producer waiting shares the next flush.
  using PutCallback = std::function<void(PutMessageResult)>;
  // Whether a put with this WAIT flag is answered only after a flush (SYNC_FLUSH + WAIT).
  bool PutWaitsForFlush(bool wait_for_flush) const {
    return wait_for_flush && options_.flush_disk_type == FlushDiskType::kSyncFlush;
  }
  void PutMessageAsync(const format::MessageToStore& message, bool wait_for_flush,
                       PutCallback done);
  void PutMessagesAsync(std::span<const format::MessageToStore> batch, bool wait_for_flush,
                        PutCallback done);

  // --- reads (get_message.h explains statuses) ---
  GetMessageResult GetMessage(const GetMessageRequest& request) const;
  QueueOffset GetMinOffsetInQueue(std::string_view topic, int32_t queue_id) const;
  QueueOffset GetMaxOffsetInQueue(std::string_view topic, int32_t queue_id) const;
  // SEARCH_OFFSET_BY_TIMESTAMP as RocketMQ 4.9.8 answers it
  // (ConsumeQueue::OffsetByTimeRocketMq498): the unit closest in time (an exact match
  // wins), the first unit before the first message, the LAST unit (max - 1) after the
  // newest one; 0 for an empty or unknown queue.
  Result<QueueOffset> GetOffsetInQueueByTime(std::string_view topic, int32_t queue_id,
                                             int64_t timestamp) const;
  // The first queue offset whose message was stored at or after `timestamp`, max offset
  // if none (5.x BoundaryType.LOWER; 0 for an unknown queue).
  Result<QueueOffset> GetFirstOffsetInQueueAtOrAfter(std::string_view topic, int32_t queue_id,
                                                     int64_t timestamp) const;
  // Store time of the queue's first message; kNotFound for an empty queue.
  Result<int64_t> GetEarliestMessageTime(std::string_view topic, int32_t queue_id) const;
  // Store time of the oldest message still in the commit log; kNotFound when it is empty.
  // (RocketMQ 4.9.8 answers -1 until the log holds 2 * maxMessageSize bytes past it.)
  Result<int64_t> GetEarliestMessageTime() const;
  // Store time of the message at `offset` of the queue.
  Result<int64_t> GetMessageStoreTime(std::string_view topic, int32_t queue_id,
                                      QueueOffset offset) const;
  // RocketMQ's checkInDiskByConsumeOffset: whether the message at `offset` of the queue
  // lies further behind the end of the log than the in-memory window
  // (accessMessageInMemoryMaxRatio). False when the queue has no unit there.
  bool CheckInDiskByConsumeOffset(std::string_view topic, int32_t queue_id,
                                  QueueOffset offset) const;
  // Messages of `topic` carrying `key` (a KEYS token or the UNIQ_KEY) stored within
  // [begin, end] ms, via the index; hash collisions are removed by comparing the real key.
  Result<QueryMessageResult> QueryMessage(std::string_view topic, std::string_view key, int max_num,
                                          int64_t begin, int64_t end) const;
  // The message named by an offset msgId (32 or 56 hex characters).
  Result<LoadedRecord> LookMessageByMsgId(std::string_view msg_id) const;

  // Up to `max_units` consume-queue units (commit-log offset, size, tags code) of the queue
  // from `from` on, never past the end of the consume-queue file holding `from` (call
  // again from `from + size()`). Empty for an unknown queue or from >= max offset;
  // kNotFound when `from` is below the queue's min offset or its file is gone (continue
  // at GetMinOffsetInQueue); kInvalidArgument for max_units <= 0.
  Result<std::vector<format::ConsumeQueueUnit>> GetQueueUnits(std::string_view topic,
                                                              int32_t queue_id, QueueOffset from,
                                                              int max_units) const;
  // Every commit-log byte below this offset is on disk (survives a power loss).
  PhysicalOffset FlushedPhysicalOffset() const { return commit_log_->FlushedOffset(); }

  // The raw record at a physical offset (a view; keeps its segment mapped).
  Result<CommitLogBytes> ReadRecord(PhysicalOffset offset) const {
    return commit_log_->ReadRecord(offset);
  }
  PhysicalOffset MinPhysicalOffset() const { return commit_log_->MinOffset(); }
  PhysicalOffset MaxPhysicalOffset() const { return commit_log_->MaxOffset(); }

  // Bytes appended (or durable, under SYNC_FLUSH) but not yet dispatched.
  int64_t DispatchBehindBytes() const;

  // --- steps of the background services, for tests that run without threads ---
  Status RunFlushStep();
  Status RunPrepareStep() { return commit_log_->segments().PrepareNext(); }
  // Dispatches everything visible. Returns the number of records dispatched.
  Result<int64_t> RunDispatchStep();
  // Flushes consume queues (thorough: all of them, then the checkpoint).
  Status RunConsumeQueueFlushStep(bool thorough);
  // One retention round: disk check, expired segments, then CQ and index files.
  Result<RetentionReport> RunRetentionStep() { return retention_->RunOnce(); }
  // The retention settings the next round uses, and a change of them at run time
  // (UPDATE_BROKER_CONFIG: fileReservedTime, deleteWhen, the disk ratios, deleteFileBatchMax,
  // cleanFileForciblyEnable; RetentionService::UpdateOptions). Any thread.
  RetentionOptions retention_options() const { return retention_->options(); }
  void UpdateRetentionOptions(const RetentionOptions& next) { retention_->UpdateOptions(next); }
  // RocketMQ's executeDeleteFilesManually: delete expired segments in the next 20 rounds.
  void ExecuteDeleteFilesManually() { retention_->RequestManualDelete(); }
  // DELETE_EXPIRED_COMMITLOG (329): runs a retention round now on the retention thread
  // (not the caller's), after arming the manual deletion when `manual_delete`. Without
  // running services (tests), nothing runs: call RunRetentionStep.
  void RequestRetentionNow(bool manual_delete);
  // CLEAN_EXPIRED_CONSUMEQUEUE (306): a retention round now on the retention thread that
  // also removes every consume-queue and index file below the commit log's minimum
  // (RetentionService::RequestQueueClean); `done` gets its report there. Without running
  // services the round runs on the caller's thread. At Close, a request still waiting gets
  // kUnavailable.
  void CleanConsumeQueuesNow(RetentionService::QueueCleanDone done);
  // DELETE_TOPIC_IN_BROKER: removes the topic's consume queues (files and directories)
  // and its queue-offset table entries. Its messages stay in the commit log until
  // retention deletes their segments; the index keeps their keys until its files go.
  // Returns the number of queues removed.
  Result<int> DeleteTopicQueues(std::string_view topic);
  // When an append currently holding the commit-log lock took it (ms), 0 if none
  // (RocketMQ's lockTimeMills is now minus this).
  int64_t begin_time_in_lock() const { return commit_log_->begin_time_in_lock(); }

  Status Close();

  const CommitLogRecoveryReport& recovery_report() const { return recovery_report_; }
  bool recovered_abnormally() const { return last_exit_ != LastExit::kClean; }
  // How the last run ended (from the abort marker), which decided the recovery above.
  LastExit last_exit() const { return last_exit_; }
  // What the index recovery did (none without an index).
  const IndexRecoveryReport& index_recovery_report() const { return index_recovery_report_; }
  const StoreHealth& health() const { return health_; }
  CommitLog& commit_log() { return *commit_log_; }
  ConsumeQueueTable& consume_queues() { return *consume_queues_; }
  IndexService* index() { return index_.get(); }
  const StoreOptions& options() const { return options_; }
  int64_t sync_flush_count() const { return group_commit_ ? group_commit_->flush_count() : 0; }
  int64_t sync_wait_count() const { return group_commit_ ? group_commit_->wait_count() : 0; }
  int64_t sync_flush_nanos() const { return group_commit_ ? group_commit_->flush_nanos() : 0; }
  // Flush latency and size, group-commit batches, recovery time (store/common/store_metrics.h).
  const StoreMetrics& metrics() const { return metrics_; }
  // Bytes of the newest `max_files` commit-log segments that are in the page cache now
  // (mincore; a segment's pages are examined in 64 MiB steps), and how many bytes were
  // examined. For the metrics scrape: call it off the hot path. Any thread.
  struct Residency {
    int64_t resident_bytes = 0;
    int64_t examined_bytes = 0;
  };
  Result<Residency> CommitLogResidency(size_t max_files) const;
  // Bytes the commit log's segment files take (segments are preallocated at full size).
  int64_t CommitLogFileBytes() const;
  // Store time of the oldest message still in the commit log; kNotFound when it is empty.
  Result<int64_t> EarliestStoreTime() const;

 private:
  MessageStore(const StoreOptions& options, FileSystem& fs, Clock& clock);
  Status OpenSinks();
  Status Recover();
  Status CatchUpDispatch();
  void RebuildQueueOffsetTable();
  void StartServices();
  void StopServices();
  PhysicalOffset DispatchLimit() const;
  bool DispatchOnce();
  // Wakes the segment preparer when a put crossed a prepare step of the log (see
  // prepare_step_shift_): it sleeps otherwise, so an idle store wakes no thread every ms.
  void WakePreparerAfter(const PutMessageResult& put);
  PutMessageResult AwaitDurability(PutMessageResult result, bool wait_for_flush);
  void AwaitDurabilityAsync(PutMessageResult result, bool wait_for_flush, PutCallback done);
  Status WriteCheckpoint();
  // Store time of the record (offset, size); kNotFound when it is no longer in the log.
  Result<int64_t> StoreTimeAt(PhysicalOffset offset, int32_t size) const;
  // Tells the durability listeners, once per new durable offset, in increasing order.
  void NotifyDurable(PhysicalOffset durable);

  const StoreOptions options_;
  // options_.InMemoryBytes of this machine's memory, read once.
  const int64_t in_memory_bytes_;
  FileSystem& fs_;
  Clock& clock_;
  StoreHealth health_;
  StoreMetrics metrics_;
  std::unique_ptr<FileLock> lock_;
  std::unique_ptr<Checkpoint> checkpoint_;
  std::unique_ptr<CommitLog> commit_log_;
  std::unique_ptr<ConsumeQueueTable> consume_queues_;
  std::unique_ptr<IndexService> index_;  // null when message_index_enable is false
  std::vector<std::unique_ptr<DispatchSink>> extra_sinks_;  // options_.extra_sinks
  // Every sink, in dispatch order: consume queues, index, extra sinks.
  std::vector<DispatchSink*> sinks_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<AsyncFlusher> async_flusher_;
  std::unique_ptr<GroupCommit> group_commit_;
  std::unique_ptr<WakeableRunner> flush_runner_;  // async flusher or group commit
  std::unique_ptr<ServiceRunner> flush_watcher_;  // SYNC_FLUSH: times out callbacks
  std::unique_ptr<ServiceRunner> prepare_runner_;
  // log2 of the prepare step: a power of two of at most a quarter of the segment and of
  // the prefault window, in [4 KiB, 1 MiB], so the preparer is woken several times per
  // window and per segment.
  int prepare_step_shift_ = 20;
  std::unique_ptr<ServiceRunner> cq_flush_runner_;
  std::unique_ptr<WakeableRunner> dispatch_runner_;
  std::unique_ptr<RetentionService> retention_;
  std::unique_ptr<ServiceRunner> retention_runner_;
  CommitLogRecoveryReport recovery_report_;
  LastExit last_exit_ = LastExit::kClean;
  IndexRecoveryReport index_recovery_report_;
  std::mutex durable_notify_mu_;  // serialises NotifyDurable
  int64_t durable_notified_ = 0;  // GUARDED_BY(durable_notify_mu_)
  bool closed_ = false;
  int consecutive_dispatch_failures_ = 0;  // dispatcher thread only
  int64_t last_thorough_cq_flush_ms_ = 0;  // cq flush thread only
};

}  // namespace rocketstore
