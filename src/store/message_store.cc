#include "store/message_store.h"

#include <chrono>
#include <map>

namespace rocketstore {
namespace {

CommitLogOptions ToCommitLogOptions(const StoreOptions& o) {
  CommitLogOptions c;
  c.dir = JoinPath(o.root_dir, "commitlog");
  c.segment_size = o.commit_log_segment_size;
  c.max_message_body_bytes = o.max_message_body_bytes;
  c.reserve_chunk_bytes = o.reserve_chunk_bytes;
  c.prefault_window_bytes = o.prefault_window_bytes;
  if (c.prefault_window_bytes < 0) {
    c.prefault_window_bytes = o.flush_disk_type == FlushDiskType::kSyncFlush ? 0 : 32 << 20;
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
    : options_(options), fs_(fs), clock_(clock) {}

MessageStore::~MessageStore() {
  // Without Close() this is a crash as far as the files are concerned: `abort` stays.
  StopServices();
}

Result<std::unique_ptr<MessageStore>> MessageStore::Open(const StoreOptions& options,
                                                         FileSystem& fs, Clock& clock) {
  auto store = std::unique_ptr<MessageStore>(new MessageStore(options, fs, clock));
  const std::string& root = options.root_dir;
  RS_RETURN_IF_ERROR(fs.CreateDirs(root).WithContext("creating store directory " + root));
  RS_ASSIGN_OR_RETURN(store->lock_, LockStoreDirectory(fs, root));
  store->abnormal_ = AbortMarkerExists(fs, root);
  RS_ASSIGN_OR_RETURN(store->checkpoint_, Checkpoint::Open(fs, root));
  RS_ASSIGN_OR_RETURN(store->commit_log_,
                      CommitLog::Open(fs, ToCommitLogOptions(options), clock, store->health_));
  RS_RETURN_IF_ERROR(store->Recover());
  RS_RETURN_IF_ERROR(store->RebuildQueueOffsets());

  store->async_flusher_ = std::make_unique<AsyncFlusher>(store->commit_log_->segments(),
                                                         store->health_, options.async_flush);
  GroupCommit::Options gc;
  gc.method = options.sync_flush_method;
  gc.timeout_ms = options.sync_flush_timeout_ms;
  gc.unsafe_ack_before_flush_for_testing = options.unsafe_ack_before_flush_for_testing;
  store->group_commit_ =
      std::make_unique<GroupCommit>(store->commit_log_->segments(), store->health_, gc);
  store->group_commit_->SetDurableOffset(store->commit_log_->MaxOffset());

  // From here on the store is running: a crash must be detected at the next start.
  RS_RETURN_IF_ERROR(CreateAbortMarker(fs, root));
  if (options.start_background_services) store->StartServices();
  return store;
}

// Recovery story (docs/durability.md):
//  * No `abort` file: the last run shut down cleanly; walk the last three segments with
//    CRCs checked to find the end (RocketMQ's normal recovery).
//  * `abort` present: the last run crashed. Start from the newest segment whose first
//    record is older than the checkpoint's minTimestamp (data before it was flushed and
//    dispatched), or from the first segment when the checkpoint cannot be trusted.
// Either way, the walk never drops bytes the checkpoint says were durable, and what it
// recovers is made durable before the store accepts new writes.
Status MessageStore::Recover() {
  const format::CheckpointRecord cp = checkpoint_->Get();
  const bool cp_trusted = checkpoint_->load_state() == Checkpoint::LoadState::kVerified ||
                          checkpoint_->load_state() == Checkpoint::LoadState::kRocketMq;
  CommitLogRecoveryOptions ro;
  ro.check_crc = options_.check_crc_on_recover;
  if (checkpoint_->load_state() == Checkpoint::LoadState::kVerified) {
    ro.durable_floor = PhysicalOffset(cp.durable_commit_log_offset);
  }
  if (!abnormal_) {
    ro.start = CommitLogRecoveryOptions::Start::kThirdLastSegment;
  } else if (!cp_trusted || cp.MinTimestamp() == 0) {
    ro.start = CommitLogRecoveryOptions::Start::kFirstSegment;
  } else {
    ro.start = CommitLogRecoveryOptions::Start::kFirstSegment;
    const int64_t min_ts = cp.MinTimestamp();
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
  RS_ASSIGN_OR_RETURN(recovery_report_, RecoverCommitLog(*commit_log_, ro));

  // A process crash leaves recovered records in the page cache only: make them durable
  // before anything is built on them or acknowledged after them.
  for (const auto& file : commit_log_->segments().Files()) {
    RS_RETURN_IF_ERROR(file->SyncWholeFile());
  }
  checkpoint_->SetDurableCommitLogOffset(commit_log_->MaxOffset().value());
  if (recovery_report_.last_store_timestamp > 0) {
    checkpoint_->SetPhysicMsgTimestamp(recovery_report_.last_store_timestamp);
  }
  return checkpoint_->Flush();
}

// Until consume queues exist (they hold each queue's max offset), the next queue offset of
// every topic/queue is rebuilt by walking the recovered log without CRC checks.
Status MessageStore::RebuildQueueOffsets() {
  std::map<std::pair<std::string, int32_t>, int64_t> next;
  PhysicalOffset pos = commit_log_->MinOffset();
  const PhysicalOffset end = commit_log_->MaxOffset();
  while (pos < end) {
    RS_ASSIGN_OR_RETURN(CommitLogBytes bytes, commit_log_->ReadToSegmentEnd(pos));
    if (bytes.bytes.empty()) {
      pos = commit_log_->NextSegmentStart(pos);
      continue;
    }
    format::DecodeResult d = format::DecodeRecord(bytes.bytes, false);
    if (d.outcome == format::DecodeOutcome::kBlank) {
      pos = commit_log_->NextSegmentStart(pos);
      continue;
    }
    if (d.outcome != format::DecodeOutcome::kRecord) {
      return Internal("recovered commit log does not decode at " + std::to_string(pos.value()) +
                      ": " + d.error);
    }
    const int tx = d.record.sys_flag & format::kSysFlagTransactionMask;
    if (tx == format::kTransactionNotType || tx == format::kTransactionCommit) {
      next[{std::string(d.record.topic), d.record.queue_id}] = d.record.queue_offset + 1;
    }
    pos += d.record.total_size;
  }
  commit_log_->ClearQueueOffsets();
  for (const auto& [key, n] : next) {
    commit_log_->SetNextQueueOffset(key.first, key.second, QueueOffset(n));
  }
  return Status::OK();
}

void MessageStore::StartServices() {
  const bool sync = options_.flush_disk_type == FlushDiskType::kSyncFlush;
  const auto interval = sync ? std::chrono::milliseconds(10)
                             : std::chrono::milliseconds(options_.async_flush.interval_ms);
  flush_runner_ = std::make_unique<ServiceRunner>("flush-commitlog", interval,
                                                  [this] { RunFlushStep().IgnoreError(); });
  prepare_runner_ = std::make_unique<ServiceRunner>("prepare-segment", std::chrono::milliseconds(1),
                                                    [this] { RunPrepareStep().IgnoreError(); });
  flush_runner_->Start();
  prepare_runner_->Start();
}

void MessageStore::StopServices() {
  if (flush_runner_) flush_runner_->Stop();
  if (prepare_runner_) prepare_runner_->Stop();
}

Status MessageStore::RunFlushStep() {
  // Errors are sticky inside the flushers and reported through health().
  if (options_.flush_disk_type == FlushDiskType::kSyncFlush) return group_commit_->RunOnce();
  auto r = async_flusher_->RunOnce(clock_.NowMillis());
  if (r.ok()) {
    checkpoint_->SetPhysicMsgTimestamp(commit_log_->segments().FlushedStoreTimestamp());
  }
  return r.status();
}

PutMessageResult MessageStore::AwaitDurability(PutMessageResult result, bool wait_for_flush) {
  if (!result.ok() || options_.flush_disk_type != FlushDiskType::kSyncFlush) return result;
  if (!wait_for_flush) {
    if (flush_runner_) flush_runner_->Wake();
    return result;
  }
  Status s = group_commit_->WaitDurable(result.end_offset());
  if (s.ok()) return result;
  if (s.code() == StatusCode::kDeadlineExceeded) {
    result.status = PutMessageStatus::kFlushDiskTimeout;
  } else {
    result.status = PutMessageStatus::kUnknownError;
  }
  result.error = s.ToString();
  return result;
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
  StopServices();
  const bool was_writable = health_.Writable();
  health_.SetShutdown();
  Status flush = Status::OK();
  auto flushed = async_flusher_->FlushAll();
  if (!flushed.ok()) flush = flushed.status();
  if (flush.ok()) {
    checkpoint_->SetDurableCommitLogOffset(flushed->value());
    checkpoint_->SetPhysicMsgTimestamp(commit_log_->segments().FlushedStoreTimestamp());
    flush = checkpoint_->Flush();
  }
  // Only a store that is known good may claim a clean shutdown.
  if (flush.ok() && was_writable) flush = RemoveAbortMarker(fs_, options_.root_dir);
  lock_.reset();
  return flush;
}

}  // namespace rocketstore
