#include "store/message_store.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>

#include "store/layout/layout.h"

namespace rocketstore {
namespace {

// 0 if unknown (then nothing counts as in memory and the whole log stays cached).
uint64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

// The bytes warmed ahead of the writer: prefault_window_bytes, -1 meaning 32 MiB.
int64_t PrefaultWindowBytes(const StoreOptions& o) {
  return o.prefault_window_bytes < 0 ? int64_t{32} << 20 : o.prefault_window_bytes;
}

CommitLogOptions ToCommitLogOptions(const StoreOptions& o) {
  CommitLogOptions c;
  c.dir = layout::CommitLogDir(o.root_dir);
  c.segment_size = o.commit_log_segment_size;
  c.max_message_body_bytes = o.max_message_body_bytes;
  c.reserve_chunk_bytes = o.reserve_chunk_bytes;
  c.prefault_window_bytes = PrefaultWindowBytes(o);
  c.resident_window_bytes = o.ResidentWindowBytes(PhysicalMemoryBytes());
  if (o.flush_disk_type == FlushDiskType::kSyncFlush) {
    c.populate_pages = false;
    c.readahead_while_writing = false;
    c.append_with_pwrite = true;
    c.zero_fill_ahead = o.sync_flush_zero_fill;
  }
  return c;
}

// Store timestamp of the first record of a segment, or 0 if it has none.
int64_t FirstRecordTimestamp(MappedFile& file) {
  format::DecodeResult d = format::DecodeRecord(
      std::span<const uint8_t>(file.data(), static_cast<size_t>(file.file_size())), false);
  return d.outcome == format::DecodeOutcome::kRecord ? d.record.store_timestamp : 0;
}

}  // namespace

MessageStore::MessageStore(const StoreOptions& options, FileSystem& fs, Clock& clock)
    : options_(options),
      in_memory_bytes_(options.InMemoryBytes(PhysicalMemoryBytes())),
      fs_(fs),
      clock_(clock) {}

MessageStore::~MessageStore() {
  // Without Close() this is a crash as far as the files are concerned: `abort` stays.
  StopServices();
}

Result<std::unique_ptr<MessageStore>> MessageStore::Open(const StoreOptions& options,
                                                         FileSystem& fs, Clock& clock) {
  auto store = std::unique_ptr<MessageStore>(new MessageStore(options, fs, clock));
  MessageStore& s = *store;
  const std::string& root = options.root_dir;
  RS_RETURN_IF_ERROR(fs.CreateDirs(root).WithContext("creating store directory " + root));
  RS_ASSIGN_OR_RETURN(s.lock_, LockStoreDirectory(fs, root));
  s.last_exit_ = ReadLastExit(fs, root);
  // A start that fails from here on leaves the next one nothing to trust in the page
  // cache (an I/O error may be why it failed).
  struct DistrustUnlessOpened {
    FileSystem& fs;
    const std::string& root;
    bool opened = false;
    ~DistrustUnlessOpened() {
      if (!opened) (void)DistrustAbortMarker(fs, root);
    }
  } guard{fs, root};
  // After a clean shutdown the store is marked running before recovery changes anything:
  // a crash during this start (while dispatching the last message again, say) must be
  // recovered as a crash. After a crash the old marker stays until recovery is done: it
  // says what the files have been through (a power loss, or only a process crash).
  if (!s.recovered_abnormally()) RS_RETURN_IF_ERROR(CreateAbortMarker(fs, root));
  // After an I/O error the page cache proves nothing: the next start must not trust it.
  // Best effort — the store has already stopped on the error, which health() reports; if
  // even this fails, the next start may take a crash for a process crash.
  s.health_.SetIoErrorListener([&fs, root] { (void)DistrustAbortMarker(fs, root); });
  RS_ASSIGN_OR_RETURN(s.checkpoint_, Checkpoint::Open(fs, root));
  RS_ASSIGN_OR_RETURN(s.commit_log_,
                      CommitLog::Open(fs, ToCommitLogOptions(options), clock, s.health_));
  const auto recovery_start = std::chrono::steady_clock::now();
  RS_RETURN_IF_ERROR(s.OpenSinks());
  s.dispatcher_ = std::make_unique<Dispatcher>(
      *s.commit_log_, s.sinks_,
      Dispatcher::Options{options.tags_code_policy, options.arrival_listeners});

  RS_RETURN_IF_ERROR(s.Recover());
  RS_RETURN_IF_ERROR(s.CatchUpDispatch());
  s.RebuildQueueOffsetTable();
  s.metrics_.recovery_nanos.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - recovery_start)
                                      .count(),
                                  std::memory_order_relaxed);

  s.async_flusher_ =
      std::make_unique<AsyncFlusher>(s.commit_log_->segments(), s.health_, options.async_flush);
  GroupCommit::Options gc;
  gc.method = options.sync_flush_method;
  gc.timeout_ms = options.sync_flush_timeout_ms;
  gc.unsafe_ack_before_flush_for_testing = options.unsafe_ack_before_flush_for_testing;
  s.group_commit_ = std::make_unique<GroupCommit>(s.commit_log_->segments(), s.health_, gc);
  s.async_flusher_->SetMetrics(&s.metrics_);
  s.group_commit_->SetMetrics(&s.metrics_);
  s.group_commit_->SetDurableOffset(s.commit_log_->MaxOffset());
  s.group_commit_->SetDurableListener([&s](PhysicalOffset durable) {
    if (s.dispatch_runner_) s.dispatch_runner_->Wake();
    s.NotifyDurable(durable);
  });
  s.group_commit_->SetCommitter([&s] { return s.commit_log_->CommitPending(); },
                                [&s] { return s.commit_log_->HasPending(); });

  RetentionOptions ro = options.retention;
  ro.consume_queue_dir = layout::ConsumeQueueRootDir(root);
  // Never delete segments the dispatcher has not read yet.
  ro.keep_from = [&s] { return s.dispatcher_->dispatched_offset(); };
  s.retention_ =
      std::make_unique<RetentionService>(*s.commit_log_, *s.consume_queues_, s.index_.get(),
                                         s.health_, fs, clock, ro, options.disk_usage);

  // Everything recovered and dispatched is durable before the store says it is running.
  RS_RETURN_IF_ERROR(s.WriteCheckpoint());
  // From here on the store is running: a crash must be detected at the next start (and
  // after an abnormal start, as one of this boot).
  if (s.recovered_abnormally()) RS_RETURN_IF_ERROR(CreateAbortMarker(fs, root));
  s.last_thorough_cq_flush_ms_ = clock.NowMillis();
  if (options.start_background_services) s.StartServices();
  guard.opened = true;
  return store;
}

// The sinks in dispatch order: consume queues, index, the extra sinks of the options.
Status MessageStore::OpenSinks() {
  const std::string& root = options_.root_dir;
  ConsumeQueue::Options cq;
  cq.units_per_file = options_.consume_queue_units_per_file;
  RS_ASSIGN_OR_RETURN(consume_queues_, ConsumeQueueTable::Open(fs_, root, cq));
  sinks_.push_back(consume_queues_.get());
  if (options_.message_index_enable) {
    IndexOptions io;
    io.dir = layout::IndexDir(root);
    io.max_hash_slot_num = options_.index_hash_slot_num;
    io.max_index_num = options_.index_num;
    index_ = std::make_unique<IndexService>(fs_, clock_, io);
    RS_RETURN_IF_ERROR(index_->Load().WithContext("loading index files"));
    sinks_.push_back(index_.get());
  }
  const SinkContext sink_context{fs_, clock_, options_.root_dir};
  for (const SinkFactory& make : options_.extra_sinks) {
    RS_ASSIGN_OR_RETURN(std::unique_ptr<DispatchSink> sink, make(sink_context));
    if (!sink) return InvalidArgument("an extra sink factory returned no sink");
    sinks_.push_back(sink.get());
    extra_sinks_.push_back(std::move(sink));
  }
  return Status::OK();
}

// Recovery story (docs/durability.md):
//  * Sinks first (PrepareRecovery): each consume queue is cut after its last valid unit.
//  * No `abort` file: the last run shut down cleanly; walk the last three segments with
//    CRCs checked to find the end of the log (RocketMQ's normal recovery).
//  * `abort` present: the last run crashed. Start from the newest segment whose first
//    record is older than the checkpoint's minTimestamp, or from the first segment when
//    the checkpoint cannot be trusted.
//  * The recovered log is made durable; then every sink (consume queues, index, extra
//    sinks) drops what points at or past the recovered end and says where it resumes.
// The walk never drops bytes the checkpoint says were durable, and what it recovers is
// made durable before anything is built on it.
Status MessageStore::Recover() {
  for (DispatchSink* sink : sinks_) {
    RS_RETURN_IF_ERROR(sink->PrepareRecovery().WithContext(std::string(sink->SinkName())));
  }
  const format::CheckpointRecord cp = checkpoint_->Get();
  const bool cp_verified = checkpoint_->load_state() == Checkpoint::LoadState::kVerified;
  // RocketMQ's own fields are good when RocketMQ wrote them last (no extension, or ours
  // left stale by a RocketMQ broker that ran on the store since).
  const bool cp_trusted = cp_verified ||
                          checkpoint_->load_state() == Checkpoint::LoadState::kRocketMq ||
                          checkpoint_->load_state() == Checkpoint::LoadState::kStaleExtension;
  CommitLogRecoveryOptions ro;
  ro.check_crc = options_.check_crc_on_recover;
  if (cp_verified) ro.durable_floor = PhysicalOffset(cp.durable_commit_log_offset);
  if (!recovered_abnormally()) {
    ro.start = CommitLogRecoveryOptions::Start::kThirdLastSegment;
  } else {
    ro.start = CommitLogRecoveryOptions::Start::kFirstSegment;
    const int64_t min_ts = cp.MinTimestamp();
    if (cp_trusted && min_ts > 0) {
      auto files = commit_log_->segments().Files();
      for (size_t i = files.size(); i-- > 0;) {
        const int64_t ts = FirstRecordTimestamp(*files[i]);
        if (ts != 0 && ts <= min_ts) {
          ro.start = CommitLogRecoveryOptions::Start::kAtOffset;
          ro.start_offset = files[i]->start_offset();
          break;
        }
      }
    }
  }
  RS_ASSIGN_OR_RETURN(recovery_report_, RecoverCommitLog(*commit_log_, ro));
  const PhysicalOffset end = commit_log_->MaxOffset();

  // A process crash leaves recovered records in the page cache only: make them durable
  // before anything is built on them or acknowledged after them.
  for (const auto& file : commit_log_->segments().Files()) {
    RS_RETURN_IF_ERROR(file->SyncWholeFile());
  }

  // Each sink drops what points past the end and says up to where it has everything;
  // dispatching resumes from the smallest of those (store/dispatch/sink.h).
  SinkRecoveryContext ctx;
  ctx.commit_log_min = commit_log_->MinOffset();
  ctx.commit_log_end = end;
  ctx.scan_start = recovery_report_.scan_start;
  ctx.last_run = last_exit_ == LastExit::kClean          ? LastRun::kClean
                 : last_exit_ == LastExit::kProcessCrash ? LastRun::kProcessCrash
                                                         : LastRun::kCrash;
  if (cp_verified) ctx.checkpoint_dispatched = PhysicalOffset(cp.dispatched_commit_log_offset);
  ctx.checkpoint_index_msg_timestamp = cp.index_msg_timestamp;
  PhysicalOffset from = end;
  for (DispatchSink* sink : sinks_) {
    Result<PhysicalOffset> resume = sink->Recover(ctx);
    if (!resume.ok()) {
      return resume.status().WithContext("recovering " + std::string(sink->SinkName()));
    }
    from = std::min(from, *resume);
  }
  if (index_) index_recovery_report_ = index_->last_recovery_report();
  from = std::max(from, commit_log_->MinOffset());
  dispatcher_->SetDispatchedOffset(from);
  return Status::OK();
}

Status MessageStore::CatchUpDispatch() {
  const PhysicalOffset end = commit_log_->MaxOffset();
  while (dispatcher_->dispatched_offset() < end) {
    RS_ASSIGN_OR_RETURN(int64_t n, dispatcher_->RunOnce(end));
    if (n == 0 && dispatcher_->dispatched_offset() < end) {
      return Internal("dispatcher made no progress at offset " +
                      std::to_string(dispatcher_->dispatched_offset().value()) +
                      " during recovery (log ends at " + std::to_string(end.value()) + ")");
    }
  }
  return Status::OK();
}

void MessageStore::RebuildQueueOffsetTable() {
  commit_log_->ClearQueueOffsets();
  consume_queues_
      ->ForEach([this](ConsumeQueue& q) {
        commit_log_->SetNextQueueOffset(q.topic(), q.queue_id(), q.MaxOffset());
        q.CorrectMinOffset(commit_log_->MinOffset());
        return Status::OK();
      })
      .IgnoreError();  // the callback cannot fail
}

PhysicalOffset MessageStore::DispatchLimit() const {
  // Under SYNC_FLUSH consumers only see durable messages.
  if (options_.flush_disk_type == FlushDiskType::kSyncFlush && group_commit_) {
    return std::min(group_commit_->durable_offset(), commit_log_->MaxOffset());
  }
  return commit_log_->MaxOffset();
}

Result<int64_t> MessageStore::RunDispatchStep() { return dispatcher_->RunOnce(DispatchLimit()); }

bool MessageStore::DispatchOnce() {
  Result<int64_t> n = RunDispatchStep();
  if (n.ok()) {
    consecutive_dispatch_failures_ = 0;
    return *n > 0;
  }
  // RocketMQ retries a failed consume-queue write 30 times, 1 s apart (the runner's idle
  // timeout), then stops accepting writes: consumers would not see new messages.
  if (++consecutive_dispatch_failures_ >= 30) {
    health_.SetFatalIoError(n.status().WithContext("building consume queues failed 30 times"));
  }
  return false;
}

void MessageStore::RequestRetentionNow(bool manual_delete) {
  if (manual_delete) retention_->RequestManualDelete();
  if (retention_runner_) retention_runner_->Wake();
}

void MessageStore::CleanConsumeQueuesNow(RetentionService::QueueCleanDone done) {
  retention_->RequestQueueClean(std::move(done));
  if (retention_runner_) {
    retention_runner_->Wake();
  } else {
    (void)retention_->RunOnce();  // answers through `done`
  }
}

Result<int> MessageStore::DeleteTopicQueues(std::string_view topic) {
  RS_ASSIGN_OR_RETURN(int removed, consume_queues_->RemoveTopic(topic));
  commit_log_->RemoveQueueOffsets(topic);
  return removed;
}

int64_t MessageStore::DispatchBehindBytes() const {
  return dispatcher_->BehindBytes(commit_log_->MaxOffset());
}

void MessageStore::StartServices() {
  if (options_.flush_disk_type == FlushDiskType::kSyncFlush) {
    // The group-commit thread flushes while callbacks wait (and every group_commit_idle_ms,
    // 10 by default, for puts that did not wait); the watcher times callbacks out even while a
    // flush hangs.
    flush_runner_ = std::make_unique<WakeableRunner>(
        "group-commit", std::chrono::milliseconds(options_.group_commit_idle_ms),
        [this] {
          // Callbacks registered during the flush need the next one at once.
          return group_commit_->RunOnce().ok() && group_commit_->HasPendingCallbacks();
        },
        [this] { return group_commit_->HasPendingCallbacks(); });
    flush_watcher_ = std::make_unique<ServiceRunner>(
        "flush-watcher", std::chrono::milliseconds(10),
        [this] { group_commit_->ExpireOverdue(clock_.NowMillis()); });
  } else {
    flush_runner_ = std::make_unique<WakeableRunner>(
        "flush-commitlog", std::chrono::milliseconds(options_.async_flush.interval_ms),
        [this] {
          RunFlushStep().IgnoreError();
          return false;
        },
        [] { return false; });
  }
  // Woken by appends (WakePreparerAfter) rather than polling: an idle broker polling every
  // 1 ms spent ~2 % of a core here on timer wake-ups alone.
  // A quarter of the smaller of a segment and the window warmed ahead, in [4 KiB, 1 MiB].
  const int64_t segment = options_.commit_log_segment_size;
  const int64_t window = PrefaultWindowBytes(options_);
  const int64_t step =
      std::clamp<int64_t>(std::min(segment, window > 0 ? window : segment) / 4, 4096, 1 << 20);
  prepare_step_shift_ = std::bit_width(static_cast<uint64_t>(step)) - 1;
  prepare_runner_ = std::make_unique<ServiceRunner>(
      "prepare-segment",
      std::chrono::milliseconds(std::max<int64_t>(1, options_.prepare_interval_ms)),
      [this] { RunPrepareStep().IgnoreError(); });
  cq_flush_runner_ = std::make_unique<ServiceRunner>(
      "flush-consumequeue", std::chrono::milliseconds(options_.flush_consume_queue_interval_ms),
      [this] {
        const int64_t now = clock_.NowMillis();
        const bool thorough =
            now - last_thorough_cq_flush_ms_ >= options_.flush_consume_queue_thorough_interval_ms;
        if (thorough) last_thorough_cq_flush_ms_ = now;
        RunConsumeQueueFlushStep(thorough).IgnoreError();
      });
  // Naps 500 us before sleeping: under load the dispatcher polls and puts never signal it;
  // a long-polling pull hears of a new message at most ~0.5 ms later.
  dispatch_runner_ = std::make_unique<WakeableRunner>(
      "dispatch", std::chrono::seconds(1), [this] { return DispatchOnce(); },
      [this] { return dispatcher_->dispatched_offset() < DispatchLimit(); },
      std::chrono::microseconds(500));
  // RocketMQ's cleanResourceInterval (10 s by default).
  retention_runner_ = std::make_unique<ServiceRunner>(
      "clean-resource",
      std::chrono::milliseconds(std::max<int64_t>(1, options_.retention_interval_ms)),
      [this] { (void)retention_->RunOnce(); });
  dispatch_runner_->Start();
  flush_runner_->Start();
  if (flush_watcher_) flush_watcher_->Start();
  retention_runner_->Start();
  prepare_runner_->Start();
  prepare_runner_->Wake();  // the first window and the next segment, now
  cq_flush_runner_->Start();
}

void MessageStore::WakePreparerAfter(const PutMessageResult& put) {
  if (!prepare_runner_) return;
  // Whether [first, end) holds a step boundary: it crossed one or begins at one (a new
  // segment begins at one), so even tiny segments wake the preparer.
  const int64_t first = (put.first.offset.value() - 1) >> prepare_step_shift_;
  const int64_t last = (put.end_offset().value() - 1) >> prepare_step_shift_;
  if (first != last) prepare_runner_->Wake();
}

void MessageStore::StopServices() {
  if (retention_runner_) retention_runner_->Stop();
  if (retention_) {
    retention_->AbandonQueueCleans(Unavailable("the store is closing: no retention round ran"));
  }
  if (prepare_runner_) prepare_runner_->Stop();
  if (flush_runner_) flush_runner_->Stop();
  if (flush_watcher_) flush_watcher_->Stop();
  if (dispatch_runner_) dispatch_runner_->Stop();
  if (cq_flush_runner_) cq_flush_runner_->Stop();
}

Status MessageStore::RunFlushStep() {
  // Errors are sticky inside the flushers and reported through health().
  if (options_.flush_disk_type == FlushDiskType::kSyncFlush) {
    group_commit_->ExpireOverdue(clock_.NowMillis());
    return group_commit_->RunOnce();  // tells NotifyDurable itself
  }
  Status s = async_flusher_->RunOnce(clock_.NowMillis()).status();
  NotifyDurable(commit_log_->FlushedOffset());
  return s;
}

void MessageStore::NotifyDurable(PhysicalOffset durable) {
  if (options_.durability_listeners.empty()) return;
  std::lock_guard<std::mutex> l(durable_notify_mu_);
  if (durable.value() <= durable_notified_) return;
  durable_notified_ = durable.value();
  for (const DurabilityListener& listener : options_.durability_listeners) listener(durable);
}

Status MessageStore::RunConsumeQueueFlushStep(bool thorough) {
  Status s = thorough ? WriteCheckpoint()
                      : consume_queues_->FlushAll(options_.flush_consume_queue_least_pages);
  if (!s.ok()) {
    health_.SetFatalIoError(s.WithContext("consume queue flush failed"));
  }
  return s;
}

// Flushes the consume queues, then records in the checkpoint what is now durable: the
// dispatched offset captured BEFORE the flush (every unit below it was written, so the
// flush made it durable), the commit log's flushed offset and the timestamps.
Status MessageStore::WriteCheckpoint() {
  const PhysicalOffset dispatched = dispatcher_->dispatched_offset();
  const int64_t logics_ts = dispatcher_->last_store_timestamp();
  SinkCheckpointFields fields;
  for (DispatchSink* sink : sinks_) {
    RS_RETURN_IF_ERROR(sink->FlushForCheckpoint().WithContext(
        "flushing " + std::string(sink->SinkName()) + " for the checkpoint"));
    sink->ContributeToCheckpoint(fields);
  }
  if (fields.index_msg_timestamp) checkpoint_->SetIndexMsgTimestamp(*fields.index_msg_timestamp);
  const PhysicalOffset durable = commit_log_->FlushedOffset();
  checkpoint_->SetDurableCommitLogOffset(durable.value());
  checkpoint_->SetDispatchedCommitLogOffset(std::min(dispatched, durable).value());
  if (logics_ts > 0) checkpoint_->SetLogicsMsgTimestamp(logics_ts);
  const int64_t physic_ts = commit_log_->segments().FlushedStoreTimestamp();
  if (physic_ts > 0) checkpoint_->SetPhysicMsgTimestamp(physic_ts);
  if (recovery_report_.last_store_timestamp > checkpoint_->Get().physic_msg_timestamp) {
    checkpoint_->SetPhysicMsgTimestamp(recovery_report_.last_store_timestamp);
  }
  return checkpoint_->Flush();
}

namespace {
// A put that waited for its flush: a late flush is FLUSH_DISK_TIMEOUT (stored, late), a
// failed one UNKNOWN_ERROR.
PutMessageResult WithFlushOutcome(PutMessageResult result, const Status& s) {
  if (s.ok()) return result;
  result.status = s.code() == StatusCode::kDeadlineExceeded ? PutMessageStatus::kFlushDiskTimeout
                                                            : PutMessageStatus::kUnknownError;
  result.error = s.ToString();
  return result;
}
}  // namespace

PutMessageResult MessageStore::AwaitDurability(PutMessageResult result, bool wait_for_flush) {
  if (!result.ok()) return result;
  WakePreparerAfter(result);
  if (options_.flush_disk_type != FlushDiskType::kSyncFlush) {
    if (dispatch_runner_) dispatch_runner_->Wake();
    return result;
  }
  if (!wait_for_flush) {
    if (flush_runner_) flush_runner_->Wake();
    return result;
  }
  const Status s = group_commit_->WaitDurable(result.end_offset());
  return WithFlushOutcome(std::move(result), s);
}

void MessageStore::AwaitDurabilityAsync(PutMessageResult result, bool wait_for_flush,
                                        PutCallback done) {
  if (!result.ok() || !PutWaitsForFlush(wait_for_flush)) {
    done(AwaitDurability(std::move(result), wait_for_flush));
    return;
  }
  WakePreparerAfter(result);
  const PhysicalOffset end = result.end_offset();
  group_commit_->WhenDurable(
      end, clock_.NowMillis() + options_.sync_flush_timeout_ms,
      [result = std::move(result), done = std::move(done)](Status s) mutable {
        done(WithFlushOutcome(std::move(result), s));
      });
  if (flush_runner_) flush_runner_->Wake();
}

void MessageStore::PutMessageAsync(const format::MessageToStore& message, bool wait_for_flush,
                                   PutCallback done) {
  AwaitDurabilityAsync(commit_log_->Put(message), wait_for_flush, std::move(done));
}

void MessageStore::PutMessagesAsync(std::span<const format::MessageToStore> batch,
                                    bool wait_for_flush, PutCallback done) {
  AwaitDurabilityAsync(commit_log_->PutBatch(batch), wait_for_flush, std::move(done));
}

PutMessageResult MessageStore::PutMessage(const format::MessageToStore& message,
                                          bool wait_for_flush) {
  return AwaitDurability(commit_log_->Put(message), wait_for_flush);
}

PutMessageResult MessageStore::PutMessages(std::span<const format::MessageToStore> batch,
                                           bool wait_for_flush) {
  return AwaitDurability(commit_log_->PutBatch(batch), wait_for_flush);
}

Status MessageStore::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  const bool was_writable = health_.Writable();
  health_.SetShutdown();  // no new puts from here on
  StopServices();
  Status status = commit_log_->CommitPending();  // SYNC_FLUSH's write buffer, if any
  if (status.ok()) status = async_flusher_->FlushAll().status();
  NotifyDurable(commit_log_->FlushedOffset());
  // Producers still waiting for a group commit hear the outcome of that final flush.
  if (group_commit_) group_commit_->RunOnce().IgnoreError();
  // Let the dispatcher finish what is left (bounded, like RocketMQ's 5 s wait).
  const int64_t deadline = clock_.MonotonicNanos() + int64_t{5000000000};
  while (status.ok() && DispatchBehindBytes() > 0 && clock_.MonotonicNanos() < deadline) {
    Result<int64_t> n = dispatcher_->RunOnce(commit_log_->MaxOffset());
    if (!n.ok() || *n == 0) break;
  }
  if (status.ok()) status = WriteCheckpoint();
  // Only a store that is known good and fully dispatched may claim a clean shutdown.
  if (status.ok() && was_writable && DispatchBehindBytes() == 0) {
    status = RemoveAbortMarker(fs_, options_.root_dir);
  }
  // A failed close leaves `abort`; an I/O error may be why, so the page cache proves nothing.
  if (!status.ok()) (void)DistrustAbortMarker(fs_, options_.root_dir);
  lock_.reset();
  return status;
}

}  // namespace rocketstore
