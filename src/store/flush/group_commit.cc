#include "store/flush/group_commit.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>

namespace rocketstore {

void GroupCommit::LeadFlushLocked(std::unique_lock<std::mutex>& l) {
  flushing_ = true;
  l.unlock();
  const auto t0 = std::chrono::steady_clock::now();
  const Status committed = commit_ ? commit_() : Status::OK();
  Result<PhysicalOffset> flushed =
      committed.ok() ? segments_.Flush(options_.method) : Result<PhysicalOffset>(committed);
  const auto took = std::chrono::steady_clock::now() - t0;
  l.lock();
  flushing_ = false;
  ++flushes_;
  const int64_t took_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
  flush_nanos_ += took_nanos;
  recent_flush_nanos_ =
      recent_flush_nanos_ == 0 ? took_nanos : (recent_flush_nanos_ * 7 + took_nanos) / 8;
  if (!flushed.ok()) {
    if (error_.ok()) {
      error_ = flushed.status().WithContext(
          "sync flush failed; the store stops accepting writes until restarted");
      health_.SetFatalIoError(error_);
    }
  } else {
    // Released: the waiters this flush made durable. Not those an earlier flush released
    // that have not yet run to leave (they would be counted twice).
    const int64_t before = durable_.load(std::memory_order_relaxed);
    RaiseDurableLocked(flushed->value());
    const int64_t after = durable_.load(std::memory_order_relaxed);
    released_ = static_cast<int>(
        std::count_if(blocking_ends_.begin(), blocking_ends_.end(),
                      [before, after](int64_t e) { return e > before && e <= after; }));
    if (metrics_ != nullptr) {
      metrics_->flush_micros.Record(took_nanos / 1000);
      metrics_->flush_bytes.Record(std::max<int64_t>(0, after - before));
    }
  }
  arrived_ = 0;
  cv_.notify_all();
  gather_cv_.notify_all();
  const int released_blocking = flushed.ok() ? released_ : 0;
  const size_t released_callbacks = PublishLocked(l);
  if (metrics_ != nullptr && flushed.ok() && released_blocking + released_callbacks > 0) {
    metrics_->group_commit_batch.Record(released_blocking +
                                        static_cast<int64_t>(released_callbacks));
  }
}

void GroupCommit::GatherLocked(std::unique_lock<std::mutex>& l, int64_t end,
                               std::chrono::steady_clock::time_point deadline) {
  const int64_t budget = std::clamp(recent_flush_nanos_ / 2, options_.min_gather_nanos,
                                    std::max(options_.min_gather_nanos, options_.max_gather_nanos));
  const auto until =
      std::min(deadline, std::chrono::steady_clock::now() + std::chrono::nanoseconds(budget));
  gathering_ = true;
  const bool complete = gather_cv_.wait_until(l, until, [&] {
    return arrived_ >= released_ || flushing_ || !error_.ok() ||
           durable_.load(std::memory_order_relaxed) >= end;
  });
  gathering_ = false;
  if (!complete) ++gather_timeouts_;
  // Whoever has not come back by now waits for the flush after this one.
  released_ = 0;
  // Waiters that arrived meanwhile wait for this one to lead. When it will not — another
  // flush made its data durable or is running, or an error ended everything — they must
  // look again (one of them may have to lead).
  const bool will_lead = error_.ok() && !flushing_ &&
                         durable_.load(std::memory_order_relaxed) < end &&
                         std::chrono::steady_clock::now() < deadline;
  if (!will_lead) cv_.notify_all();
}

void GroupCommit::RaiseDurableLocked(int64_t offset) {
  if (offset <= durable_.load(std::memory_order_relaxed)) return;
  durable_.store(offset, std::memory_order_release);
}

size_t GroupCommit::PublishLocked(std::unique_lock<std::mutex>& l) {
  const int64_t durable = durable_.load(std::memory_order_relaxed);
  const bool moved = durable > published_;
  const bool fail = !error_.ok() && !error_published_;
  if (!moved && !fail) return 0;
  published_ = std::max(published_, durable);
  error_published_ = error_published_ || fail;
  const Status error = error_;
  l.unlock();
  if (fail) waiters_.Fail(error);
  size_t completed = 0;
  if (moved) {
    completed = waiters_.Advance(durable);
    if (on_durable_) on_durable_(PhysicalOffset(durable));
  }
  l.lock();
  return completed;
}

Status GroupCommit::TimeoutError(int64_t end) const {
  return DeadlineExceeded("data up to offset " + std::to_string(end) + " was not flushed within " +
                          std::to_string(options_.timeout_ms) + " ms (the message is stored)");
}

void GroupCommit::WhenDurable(PhysicalOffset end, int64_t deadline_ms, DurableCallback done) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++waits_;
  }
  if (options_.unsafe_ack_before_flush_for_testing) {
    done(Status::OK());
    return;
  }
  // Without mu_: Wait runs `done` at once, on this thread, when the durable offset or the
  // error was published already (a flush covered the put between its append and this
  // call), and `done` may put again and come back here; under mu_ that self-deadlocked.
  // OffsetWaiters orders this against PublishLocked by itself: a waiter parked before
  // Advance/Fail is taken by it, one registered after sees the new watermark/error.
  waiters_.Wait(end.value(), deadline_ms, std::move(done));
}

void GroupCommit::ExpireOverdue(int64_t now_ms) { waiters_.ExpireOverdue(now_ms); }

bool GroupCommit::HasPendingCallbacks() const { return waiters_.size() > 0; }

Status GroupCommit::WaitDurable(PhysicalOffset end) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.timeout_ms);
  std::unique_lock<std::mutex> l(mu_);
  ++waits_;
  if (options_.unsafe_ack_before_flush_for_testing) return Status::OK();
  ++arrived_;
  if (gathering_ && arrived_ >= released_) gather_cv_.notify_one();
  blocking_ends_.push_back(end.value());
  const Status outcome = WaitDurableLocked(l, end.value(), deadline);
  auto it = std::find(blocking_ends_.begin(), blocking_ends_.end(), end.value());
  *it = blocking_ends_.back();
  blocking_ends_.pop_back();
  return outcome;
}

Status GroupCommit::WaitDurableLocked(std::unique_lock<std::mutex>& l, int64_t end,
                                      std::chrono::steady_clock::time_point deadline) {
  while (true) {
    if (!error_.ok()) return error_;
    // Late is a timeout even if the flush finished meanwhile (RocketMQ's watcher fires at
    // the deadline whatever happens after it).
    if (std::chrono::steady_clock::now() >= deadline) {
      // This waiter may have been the one about to lead: let another take over.
      cv_.notify_all();
      return TimeoutError(end);
    }
    if (durable_.load(std::memory_order_acquire) >= end) return Status::OK();
    if (!flushing_ && !gathering_) {
      if (arrived_ < released_) {
        GatherLocked(l, end, deadline);
      } else {
        LeadFlushLocked(l);
      }
      continue;
    }
    cv_.wait_until(l, deadline);
  }
}

Status GroupCommit::RunOnce() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return !flushing_; });
  if (error_.ok() && (segments_.HasDirtyPages(0) || (has_pending_ && has_pending_()))) {
    LeadFlushLocked(l);
  } else {
    // Nothing to flush: callbacks registered after the last flush ended may still be
    // decided by it, by another flusher's work (Close) or by the sticky error.
    const int64_t before = durable_.load(std::memory_order_relaxed);
    if (error_.ok()) RaiseDurableLocked(segments_.FlushedOffset().value());
    if (durable_.load(std::memory_order_relaxed) > before) {
      cv_.notify_all();  // blocking waiters (and a gatherer) the other flush satisfied
      gather_cv_.notify_all();
    }
    PublishLocked(l);
  }
  return error_;
}

void GroupCommit::SetDurableOffset(PhysicalOffset offset) {
  {
    std::lock_guard<std::mutex> l(mu_);
    durable_.store(offset.value(), std::memory_order_release);
    published_ = offset.value();
  }
  waiters_.Advance(offset.value());
}

PhysicalOffset GroupCommit::durable_offset() const {
  return PhysicalOffset(durable_.load(std::memory_order_acquire));
}

int64_t GroupCommit::flush_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return flushes_;
}

int64_t GroupCommit::flush_nanos() const {
  std::lock_guard<std::mutex> l(mu_);
  return flush_nanos_;
}

int64_t GroupCommit::gather_timeouts() const {
  std::lock_guard<std::mutex> l(mu_);
  return gather_timeouts_;
}

int64_t GroupCommit::wait_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return waits_;
}

}  // namespace rocketstore
