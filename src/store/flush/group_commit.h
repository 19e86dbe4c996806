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
// Outcomes: OK; kDeadlineExceeded when the data was not durable within `timeout_ms`
// (FLUSH_DISK_TIMEOUT; the message is stored, just late); or the flush error. A failed
// flush is sticky: the store's health turns not-writable, every waiter, now and later,
// gets the error, and no OK is ever returned after it.
//
// RunOnce() flushes anything still dirty (data of puts that did not wait, WAIT=false); a
// ServiceRunner calls it every 10 ms under SYNC_FLUSH.
//
// Thread-safety: all methods from any thread. Ownership: `segments`, `health` outlive it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "base/offsets.h"
#include "base/status.h"
#include "store/common/store_health.h"
#include "store/segment/mapped_file_queue.h"

namespace rocketstore {

class GroupCommit {
 public:
  struct Options {
    FlushMethod method = FlushMethod::kFdatasync;
    int64_t timeout_ms = 5000;  // syncFlushTimeout
    // For the crash harness's self-test ONLY: acknowledge without flushing, the bug the
    // harness must catch. Never set in production.
    bool unsafe_ack_before_flush_for_testing = false;
  };

  GroupCommit(MappedFileQueue& segments, StoreHealth& health, const Options& options)
      : segments_(segments), health_(health), options_(options) {}

  // Blocks until [.., end) is durable, the timeout passes, or a flush fails.
  Status WaitDurable(PhysicalOffset end);

  // Flushes whatever is written but not durable. Returns the sticky error if any.
  Status RunOnce();

  // Called (on the flushing thread) after a flush made more data durable: the dispatcher
  // uses it to expose newly durable messages under SYNC_FLUSH. Set before use.
  void SetDurableListener(std::function<void()> listener) { on_durable_ = std::move(listener); }

  // What is known durable without flushing (the recovered end at startup).
  void SetDurableOffset(PhysicalOffset offset);
  PhysicalOffset durable_offset() const;
  // Counters for benchmarks: flushes performed and waits served.
  int64_t flush_count() const;
  int64_t wait_count() const;
  int64_t flush_nanos() const;  // total time spent flushing

 private:
  // REQUIRES: l holds mu_ and no flush is in progress. Flushes with the lock released.
  void LeadFlushLocked(std::unique_lock<std::mutex>& l);

  MappedFileQueue& segments_;
  StoreHealth& health_;
  const Options options_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool flushing_ = false;            // GUARDED_BY(mu_)
  std::atomic<int64_t> durable_{0};  // written under mu_, read lock-free
  std::function<void()> on_durable_;
  Status error_;             // GUARDED_BY(mu_), sticky
  int64_t flushes_ = 0;      // GUARDED_BY(mu_)
  int64_t waits_ = 0;        // GUARDED_BY(mu_)
  int64_t flush_nanos_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore
