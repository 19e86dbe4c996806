// File: store/flush/group_commit.h
//
// GroupCommit: SYNC_FLUSH. A put that must be durable before it is acknowledged calls
// WaitDurable(end) after appending; it returns once every byte before `end` is on disk.
//
// Group commit without a hand-off: the first waiter that finds no flush in progress
// becomes the leader and flushes (msync or fdatasync) everything appended so far, on its
// own thread; every producer waiting meanwhile is released by that one flush (its data
// was appended before the flush began), and the next waiter to find its data still not
// durable leads the next flush. A single producer therefore pays exactly one flush per
// put and no thread switch; N concurrent producers share each flush.
//
// Gathering (blocking waiters only): a flush releases the producers it made durable, and
// each of them usually puts again at once. Leading the next flush the moment the first of
// them is back would leave the rest to the flush after (with 8 producer threads on 2
// cores, ~4 messages per flush). So a waiter about to lead first waits until as many
// waiters have arrived since the last flush as that flush released — at most half the
// recent flush time, clamped to [min_gather_nanos, max_gather_nanos] — then flushes them
// all. A producer that does not come back costs one bounded wait, once: the next flush
// counts only the producers it released. One producer never waits (it is the only one
// released, and the leader itself). Callback waiters (WhenDurable) need no gathering:
// their next puts are appended by the callbacks before the flushing thread flushes again.
//
// Outcomes: OK; kDeadlineExceeded when the data was not durable within `timeout_ms`
// (FLUSH_DISK_TIMEOUT; the message is stored, just late); or the flush error. A failed
// flush is sticky: the store's health turns not-writable, every waiter, now and later,
// gets the error, and no OK is ever returned after it.
//
// Asynchronous waiters: WhenDurable(end, deadline, done) registers a callback instead of
// blocking a thread, the way the broker serves many producers from a few I/O threads
// (RocketMQ's GroupCommitRequest futures). Whoever finishes a flush — a blocking leader
// or RunOnce() on the store's group-commit thread — completes every callback the flush
// satisfied, on its own thread and without holding any lock, so a callback may append the
// producer's next message and register again; RunOnce() keeps flushing while callbacks
// are pending. The callbacks are parked in an OffsetWaiters (offset_waiters.h) keyed by
// the durable offset. ExpireOverdue(now) answers callbacks past their deadline with
// kDeadlineExceeded; a watcher calls it every 10 ms, so a flush stuck in the kernel still
// gets its producers FLUSH_DISK_TIMEOUT on time (RocketMQ's FlushDiskWatcher).
//
// RunOnce() also flushes anything still dirty (data of puts that did not wait,
// WAIT=false); it runs at least every 10 ms under SYNC_FLUSH.
//
// Thread-safety: all methods from any thread. Callbacks must be short and must not block
// (they run on a flushing thread). Ownership: `segments`, `health` outlive it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "base/offsets.h"
#include "base/status.h"
#include "store/common/store_health.h"
#include "store/common/store_metrics.h"
#include "store/flush/offset_waiters.h"
#include "store/segment/mapped_file_queue.h"

namespace rocketstore {

class GroupCommit {
 public:
  struct Options {
    FlushMethod method = FlushMethod::kFdatasync;
    int64_t timeout_ms = 5000;  // syncFlushTimeout
    // Bounds of the gathering wait (see "Gathering"); the wait is half the recent flush
    // time, clamped to these.
    int64_t min_gather_nanos = 0;
    int64_t max_gather_nanos = 1'000'000;
    // For the crash harness's self-test ONLY: acknowledge without flushing, the bug the
    // harness must catch. Never set in production.
    bool unsafe_ack_before_flush_for_testing = false;
  };

  GroupCommit(MappedFileQueue& segments, StoreHealth& health, const Options& options)
      : segments_(segments), health_(health), options_(options) {}

  // Blocks until [.., end) is durable, the timeout passes, or a flush fails.
  Status WaitDurable(PhysicalOffset end);

  // Calls `done` once [.., end) is durable (OK), a flush failed (the sticky error), or
  // ExpireOverdue() ran after `deadline_ms` (kDeadlineExceeded). Runs `done` at once, on
  // this thread, when the outcome is already known.
  using DurableCallback = std::function<void(Status)>;
  void WhenDurable(PhysicalOffset end, int64_t deadline_ms, DurableCallback done);
  // Answers every callback whose deadline is before `now_ms` with kDeadlineExceeded.
  void ExpireOverdue(int64_t now_ms);
  // True while callbacks wait (the group-commit thread keeps flushing).
  bool HasPendingCallbacks() const;

  // Flushes whatever is written but not durable (waiting for a flush in progress first)
  // and completes the callbacks it satisfied. Returns the sticky error if any.
  Status RunOnce();

  // Called with the new durable offset after a flush made more data durable (the store
  // wakes the dispatcher, which exposes newly durable messages under SYNC_FLUSH, and tells
  // its durability listeners). Runs on the flushing thread without GroupCommit's lock;
  // two flushing threads may call it at once, so offsets may arrive out of order. Set
  // before use.
  void SetDurableListener(std::function<void(PhysicalOffset)> listener) {
    on_durable_ = std::move(listener);
  }
  // For a log that buffers appends (CommitLog::append_with_pwrite): `commit` writes the
  // buffer into the file before each flush; `pending` says whether there is any. Set
  // before use.
  void SetCommitter(std::function<Status()> commit, std::function<bool()> pending) {
    commit_ = std::move(commit);
    has_pending_ = std::move(pending);
  }

  // Where each flush's latency, bytes and released producers are recorded (optional; set
  // before use).
  void SetMetrics(StoreMetrics* metrics) { metrics_ = metrics; }

  // What is known durable without flushing (the recovered end at startup).
  void SetDurableOffset(PhysicalOffset offset);
  PhysicalOffset durable_offset() const;
  // Counters for benchmarks: flushes performed and waits served.
  int64_t flush_count() const;
  int64_t wait_count() const;
  int64_t flush_nanos() const;  // total time spent flushing
  // Gatherings that ended at their time bound with producers still missing.
  int64_t gather_timeouts() const;

 private:
  // REQUIRES: l holds mu_ and no flush is in progress. Flushes with the lock released,
  // then completes the callbacks the flush decided (also with the lock released).
  void LeadFlushLocked(std::unique_lock<std::mutex>& l);
  // WaitDurable after registering the waiter: until [.., end) is durable, `deadline`, or
  // the sticky error; leads flushes (after gathering) when none is in progress.
  Status WaitDurableLocked(std::unique_lock<std::mutex>& l, int64_t end,
                           std::chrono::steady_clock::time_point deadline);
  // REQUIRES: l holds mu_, no flush and no gathering in progress. Waits (bounded) for the
  // producers the last flush released to arrive again; see "Gathering".
  void GatherLocked(std::unique_lock<std::mutex>& l, int64_t end,
                    std::chrono::steady_clock::time_point deadline);
  // durable_ = max(durable_, offset).
  void RaiseDurableLocked(int64_t offset);
  // Publishes a new durable offset or the sticky error, with mu_ released meanwhile: the
  // callbacks it decides run, and the durable listener hears of the new offset.
  // Returns how many callback waiters it completed with OK.
  size_t PublishLocked(std::unique_lock<std::mutex>& l);
  Status TimeoutError(int64_t end) const;

  MappedFileQueue& segments_;
  StoreHealth& health_;
  const Options options_;
  StoreMetrics* metrics_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;          // flush finished (blocking waiters)
  std::condition_variable gather_cv_;   // a waiter arrived, or a flush finished (gatherer)
  bool flushing_ = false;               // GUARDED_BY(mu_)
  bool gathering_ = false;              // GUARDED_BY(mu_): a would-be leader is gathering
  std::vector<int64_t> blocking_ends_;  // GUARDED_BY(mu_): `end` of each WaitDurable caller
  int released_ = 0;                // GUARDED_BY(mu_): WaitDurable callers the last flush released
  int arrived_ = 0;                 // GUARDED_BY(mu_): WaitDurable calls since the last flush ended
  int64_t recent_flush_nanos_ = 0;  // GUARDED_BY(mu_): moving average of flush time
  std::atomic<int64_t> durable_{0};  // written under mu_, read lock-free
  std::function<void(PhysicalOffset)> on_durable_;
  std::function<Status()> commit_;
  std::function<bool()> has_pending_;
  OffsetWaiters waiters_{[this](int64_t end) { return TimeoutError(end); }};
  int64_t published_ = 0;         // GUARDED_BY(mu_): durable offset last published
  bool error_published_ = false;  // GUARDED_BY(mu_)
  Status error_;                  // GUARDED_BY(mu_), sticky
  int64_t flushes_ = 0;           // GUARDED_BY(mu_)
  int64_t waits_ = 0;             // GUARDED_BY(mu_)
  int64_t flush_nanos_ = 0;       // GUARDED_BY(mu_)
  int64_t gather_timeouts_ = 0;   // GUARDED_BY(mu_)
};

}  // namespace rocketstore
