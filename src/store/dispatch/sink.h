// File: store/dispatch/sink.h
//
// The dispatch interface, with no dependency on the dispatcher (target
// rs::store_dispatch_api, interface only): what the dispatcher (RocketMQ's "reput"
// service) extracts from each CommitLog record, and the DispatchSink every consumer of
// those records implements — the ConsumeQueue builder, the IndexFile builder, and the
// extra sinks a broker feature registers through StoreOptions::extra_sinks (timer and
// delay queues, transaction state, replication...). consume_queue and index depend on this
// header only; the dispatcher and the store facade drive the sinks.
//
// A sink's life in a MessageStore (message_store.h):
//   Open:   PrepareRecovery()          before the commit log is recovered (check own files)
//           Recover(ctx) -> resume     after the commit log is recovered and durable: drop
//                                      what points at or past ctx.commit_log_end and
//                                      answer the physical offset up to which the sink has
//                                      every record; the store re-dispatches from the
//                                      smallest resume offset of all sinks.
//   Run:    Dispatch(request)          every record, in commit-log order, on the dispatcher
//                                      thread. A record may come again (after a crash, or
//                                      because another sink resumes earlier): ignore
//                                      records already held.
//           FlushForCheckpoint()       make everything dispatched so far durable; then
//           ContributeToCheckpoint()   add the sink's checkpoint fields. The store
//                                      records in the checkpoint the dispatched offset
//                                      captured before the flushes.
// Thread-safety: Dispatch on the dispatcher thread only; FlushForCheckpoint and
// ContributeToCheckpoint from the checkpoint writer (any one thread, concurrently with
// Dispatch); PrepareRecovery and Recover during Open, before anything else.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "base/offsets.h"
#include "base/result.h"
#include "base/status.h"
#include "store/format/message_record.h"

namespace rocketstore {

// One record as a sink sees it. The views point into the mapped commit log and are valid
// only during the Dispatch call.
struct DispatchRequest {
  std::string_view topic;
  int32_t queue_id = 0;
  PhysicalOffset commit_log_offset;  // first byte of the record
  int32_t size = 0;                  // TOTALSIZE
  // The consume-queue tags code: StoreOptions::tags_code_policy's value (by default
  // jhash(TAGS) sign-extended, 0 without tags).
  int64_t tags_code = 0;
  int64_t store_timestamp = 0;
  QueueOffset queue_offset;   // the record's QUEUEOFFSET field
  std::string_view tags;      // TAGS property, may be empty
  std::string_view keys;      // KEYS property (format::NextKey splits it), may be empty
  std::string_view uniq_key;  // UNIQ_KEY property, may be empty
  int32_t sys_flag = 0;
  int64_t prepared_transaction_offset = 0;
  std::string_view properties;  // the whole properties string

  int TransactionType() const { return sys_flag & format::kSysFlagTransactionMask; }
};

// Computes the tags code written into a record's consume-queue unit. Called on the
// dispatcher thread with `tags_code` not yet set; must be pure and cheap.
using TagsCodePolicy = std::function<int64_t(const DispatchRequest&)>;

// Called on the dispatcher thread after a record of (topic, queue) that takes a queue
// offset was dispatched to every sink; `next` is the queue's new max offset. Must be cheap
// and must not block.
using ArrivalListener =
    std::function<void(std::string_view topic, int32_t queue_id, QueueOffset next)>;

// How the last run of the store ended (from the abort marker; checkpoint.h's LastExit).
enum class LastRun {
  kClean,         // clean shutdown: every file holds what the last run wrote
  kProcessCrash,  // same boot: the page cache kept every write, durable or not
  kCrash,         // assume a power loss: only synced bytes survived
};

// What recovery tells each sink.
struct SinkRecoveryContext {
  PhysicalOffset commit_log_min;  // the first byte still in the commit log
  PhysicalOffset commit_log_end;  // the recovered end: nothing at or past it exists
  PhysicalOffset scan_start;      // where the commit-log recovery walk started
  LastRun last_run = LastRun::kClean;
  // When the checkpoint (with its rocketstore extension) was verified: every record below
  // this offset had been dispatched to every sink and flushed when it was written.
  std::optional<PhysicalOffset> checkpoint_dispatched;
  int64_t checkpoint_index_msg_timestamp = 0;  // the checkpoint's indexMsgTimestamp
};

// Checkpoint fields a sink may set (the others belong to the store).
struct SinkCheckpointFields {
  std::optional<int64_t> index_msg_timestamp;  // indexMsgTimestamp
};

class DispatchSink {
 public:
  virtual ~DispatchSink() = default;
  // For error messages ("consume queues", "index", ...).
  virtual std::string_view SinkName() const = 0;
  virtual Status Dispatch(const DispatchRequest& request) = 0;
  virtual Status PrepareRecovery() { return Status::OK(); }
  // Returns the sink's resume offset (see above). Never above ctx.commit_log_end.
  virtual Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) = 0;
  virtual Status FlushForCheckpoint() = 0;
  virtual void ContributeToCheckpoint(SinkCheckpointFields& /*fields*/) const {}
};

}  // namespace rocketstore
