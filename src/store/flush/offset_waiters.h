// File: store/flush/offset_waiters.h
//
// OffsetWaiters: parked completions waiting for a watermark — "call me once offset >= X,
// or tell me I am late at my deadline" — without a blocked thread (Kafka's delayed-
// operation purgatory). GroupCommit parks SYNC_FLUSH acknowledgements on the durable
// offset with it; the same class can park them on a replica's acknowledged offset.
//
//   OffsetWaiters w([](int64_t target) { return DeadlineExceeded("late: " + ...); });
//   w.Wait(end, deadline_ms, [](Status s) { ... });   // registers (or runs at once)
//   w.Advance(flushed);       // runs every waiter with target <= flushed: OK
//   w.ExpireOverdue(now_ms);  // runs every waiter past its deadline: the timeout status
//   w.Fail(error);            // runs every waiter, now and later: `error` (sticky)
//
// Order: Advance completes waiters in target order (equal targets: registration order);
// ExpireOverdue in deadline order (then registration order). A waiter runs exactly once.
// The watermark only rises: Advance below it does nothing. After Fail, Wait and Advance
// answer the error; ExpireOverdue finds nothing.
//
// Thread-safety: every method from any thread. Callbacks run on the calling thread,
// without any lock of this class held, so a callback may Wait again; they must be short
// and must not block. Wait runs its callback at once (on the caller's thread) when the
// outcome is already known.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "base/status.h"

namespace rocketstore {

class OffsetWaiters {
 public:
  using Callback = std::function<void(Status)>;
  // The status an overdue waiter gets, from its target.
  using TimeoutStatus = std::function<Status(int64_t target)>;

  explicit OffsetWaiters(TimeoutStatus timeout_status, int64_t initial_watermark = 0)
      : timeout_status_(std::move(timeout_status)), reached_(initial_watermark) {}
  OffsetWaiters(const OffsetWaiters&) = delete;
  OffsetWaiters& operator=(const OffsetWaiters&) = delete;

  void Wait(int64_t target, int64_t deadline_ms, Callback done);
  // Raises the watermark to `reached` and completes (OK) every waiter it satisfies.
  // Returns how many it completed.
  size_t Advance(int64_t reached);
  // Completes every waiter whose deadline_ms < now_ms with timeout_status(target).
  size_t ExpireOverdue(int64_t now_ms);
  // Completes every waiter with `error` (not OK), and every later Wait.
  size_t Fail(Status error);

  // Waiters parked now (lock-free; may be stale by the time it is used).
  size_t size() const { return size_.load(std::memory_order_acquire); }
  int64_t watermark() const;

 private:
  struct Waiter {
    int64_t target;
    int64_t deadline_ms;
    uint64_t id;  // registration number
    Callback done;
  };

  static size_t RunAll(std::vector<Waiter>& taken, const Status& outcome);

  const TimeoutStatus timeout_status_;
  mutable std::mutex mu_;
  int64_t reached_;       // GUARDED_BY(mu_)
  Status error_;          // GUARDED_BY(mu_), sticky
  uint64_t next_id_ = 0;  // GUARDED_BY(mu_)
  // Every parked waiter in (target, id) order. Targets nearly always arrive rising (the
  // durable offset a put waits for grows with the log), so a Wait appends and an Advance
  // takes from the front: no node per waiter, as a tree would have.
  std::deque<Waiter> by_target_;  // GUARDED_BY(mu_)
  // At most every parked deadline: ExpireOverdue looks at the waiters only once `now`
  // passes it (then it is made exact again).
  int64_t earliest_deadline_ = INT64_MAX;  // GUARDED_BY(mu_)
  std::atomic<size_t> size_{0};            // by_target_.size()
};

}  // namespace rocketstore
