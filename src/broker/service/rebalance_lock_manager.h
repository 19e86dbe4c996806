// File: broker/service/rebalance_lock_manager.h
//
// RebalanceLockManager: the queue locks of ordered ("orderly") consumers, RocketMQ
// 4.9.8's broker/client/rebalance/RebalanceLockManager. An orderly consumer locks each
// queue rebalancing gave it (LOCK_BATCH_MQ, 41) before it consumes from it, renews its
// locks every 20 s, and unlocks a queue it gives up (UNLOCK_BATCH_MQ, 42), so that a
// queue is consumed by one client at a time and therefore in order.
//
// Per consumer group, a queue (topic, broker name, queue id) is held by at most one
// client id. A lock lives `max_live_ms` after its last renewal (60 s by default, Java's
// system property rocketmq.broker.rebalance.lockMaxLiveTime; broker.conf
// rebalanceLockMaxLiveTime). Semantics, as Java's:
//   TryLockBatch: for each queue, a lock the caller holds and that has not expired is
//     renewed; a queue nobody holds, or whose lock expired (the caller's own included),
//     is taken; a queue another client holds unexpired is left out. Returns the queues
//     the caller holds after the call, in request order, duplicates removed.
//   UnlockBatch: releases the queues the caller holds (expired or not); a queue held by
//     another client, or not held, is left alone (not an error: the client's unlock after
//     its lock expired and was taken must not release the new holder's lock).
//   "Expired" is now - last renewal > max_live_ms (strictly, as Java).
// Locks are in memory only: a broker restart releases every lock (as Java). A client
// whose connection closes keeps its locks until they expire (as Java): a consumer that
// reconnects after a blip keeps its queues, and its replacement waits at most
// max_live_ms. RunOnce(now) drops expired entries, which changes no answer (an expired
// entry is takeable by anyone) but bounds the memory of groups that are gone.
//
// Time is the Clock's monotonic milliseconds: a wall-clock jump neither expires nor
// extends a lock. The overloads without `now_ms` read the clock.
//
// Errors: an empty group or client id is kInvalidArgument (Java fails those with a
// NullPointerException); nothing else fails.
// Thread-safety: every method from any thread (one mutex; the handlers run on io
// threads). Ownership: `clock` must outlive the manager.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/status.h"

namespace rocketstore::broker {

// common/message/MessageQueue.java: a queue as clients name it.
struct QueueRef {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;

  friend bool operator==(const QueueRef&, const QueueRef&) = default;
  friend auto operator<=>(const QueueRef&, const QueueRef&) = default;
};

class RebalanceLockManager {
 public:
  static constexpr int64_t kDefaultMaxLiveMs = 60000;

  explicit RebalanceLockManager(Clock& clock, int64_t max_live_ms = kDefaultMaxLiveMs);

  [[nodiscard]] Result<std::vector<QueueRef>> TryLockBatch(std::string_view group,
                                                           std::span<const QueueRef> queues,
                                                           std::string_view client_id);
  [[nodiscard]] Result<std::vector<QueueRef>> TryLockBatch(std::string_view group,
                                                           std::span<const QueueRef> queues,
                                                           std::string_view client_id,
                                                           int64_t now_ms);
  [[nodiscard]] Status UnlockBatch(std::string_view group, std::span<const QueueRef> queues,
                                   std::string_view client_id);

  // The client holding `queue` in `group` at `now_ms`, or "" when nobody holds it
  // unexpired (inspection and tests).
  std::string Holder(std::string_view group, const QueueRef& queue, int64_t now_ms) const;
  // Drops expired entries and empty groups; returns how many entries were dropped.
  size_t RunOnce(int64_t now_ms);
  size_t entry_count() const;

  int64_t NowMs() const { return clock_.MonotonicNanos() / 1000000; }
  int64_t max_live_ms() const { return max_live_ms_; }

 private:
  struct Entry {
    std::string client_id;
    int64_t last_update_ms = 0;
  };
  using GroupLocks = std::map<QueueRef, Entry>;

  bool Expired(const Entry& e, int64_t now_ms) const {
    return now_ms - e.last_update_ms > max_live_ms_;
  }

  Clock& clock_;
  const int64_t max_live_ms_;
  mutable std::mutex mu_;
  std::map<std::string, GroupLocks, std::less<>> groups_;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
