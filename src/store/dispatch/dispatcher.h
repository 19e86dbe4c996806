// File: store/dispatch/dispatcher.h
//
// Dispatcher: RocketMQ's "reput" service. It follows the CommitLog from the last
// dispatched offset, turns every record into a DispatchRequest (topic, queue, offset,
// size, tags code, keys...) and hands it to each DispatchSink (store/dispatch/sink.h) — the
// ConsumeQueue builder, the IndexFile builder, extra sinks — in commit-log order. Then it
// tells the arrival listeners (long-polling pulls) that a queue has new messages.
//
// What it may read: everything appended under ASYNC_FLUSH; under SYNC_FLUSH only what is
// durable (`limit` passed to RunOnce), so a consumer never sees a message that a power
// loss could still take back.
//
// Walk rules (spec §6.5): a BLANK record moves to the next segment; a record that does not
// decode stops the step (it reports the error; the writer cannot produce one, so this means
// damage); a sink's error stops the step too and is reported — nothing is skipped silently.
//
// Driving: RunOnce(limit) is the step function. The driver (DispatchRunner in
// message_store.cc) sleeps until Wake() — called when data is appended or flushed — so
// there is no polling loop.
//
// Thread-safety: RunOnce from one thread at a time; offsets/lag readable from any thread.
// The sinks, the policy and the listeners are fixed at construction (no data race with the
// dispatcher thread). Ownership: the CommitLog and the sinks must outlive the dispatcher.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "base/offsets.h"
#include "base/result.h"
#include "store/commitlog/commit_log.h"
#include "store/dispatch/sink.h"
#include "store/format/message_record.h"

namespace rocketstore {

// RocketMQ's tags code: jhash(TAGS) sign-extended into the 8-byte CQ field, 0 without tags.
int64_t DefaultTagsCode(const DispatchRequest& request);

// Fills `out` from a decoded record (views point into the record); tags_code through
// `policy` (DefaultTagsCode when empty).
void BuildDispatchRequest(PhysicalOffset offset, const format::RecordView& record,
                          const TagsCodePolicy& policy, DispatchRequest* out);

class Dispatcher {
 public:
  struct Options {
    TagsCodePolicy tags_code_policy;  // empty: DefaultTagsCode
    std::vector<ArrivalListener> arrival_listeners;
  };

  Dispatcher(CommitLog& log, std::vector<DispatchSink*> sinks, Options options = {})
      : log_(log), sinks_(std::move(sinks)), options_(std::move(options)) {}

  // Where dispatching continues from (recovery sets it).
  void SetDispatchedOffset(PhysicalOffset offset) {
    dispatched_.store(offset.value(), std::memory_order_release);
  }
  PhysicalOffset dispatched_offset() const {
    return PhysicalOffset(dispatched_.load(std::memory_order_acquire));
  }
  // Bytes appended but not yet dispatched, against `limit` (RocketMQ's dispatchBehindBytes).
  int64_t BehindBytes(PhysicalOffset limit) const {
    return std::max<int64_t>(0, limit - dispatched_offset());
  }
  int64_t dispatched_records() const { return records_.load(std::memory_order_relaxed); }
  // Store timestamp of the last record dispatched (checkpoint logicsMsgTimestamp).
  int64_t last_store_timestamp() const {
    return last_store_timestamp_.load(std::memory_order_acquire);
  }

  // Dispatches records in [dispatched, limit). Returns how many records it dispatched.
  // Stops at `max_records` to let the driver check for shutdown.
  Result<int64_t> RunOnce(PhysicalOffset limit, int64_t max_records = 1 << 16);

 private:
  CommitLog& log_;
  const std::vector<DispatchSink*> sinks_;
  const Options options_;
  std::atomic<int64_t> dispatched_{0};
  std::atomic<int64_t> records_{0};
  std::atomic<int64_t> last_store_timestamp_{0};
};

}  // namespace rocketstore
