#include "store/flush/group_commit.h"

#include <chrono>

namespace rocketstore {

void GroupCommit::LeadFlushLocked(std::unique_lock<std::mutex>& l) {
  flushing_ = true;
  l.unlock();
  const auto t0 = std::chrono::steady_clock::now();
  Result<PhysicalOffset> flushed = segments_.Flush(options_.method);
  const auto took = std::chrono::steady_clock::now() - t0;
  l.lock();
  flushing_ = false;
  ++flushes_;
  flush_nanos_ += std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
  if (!flushed.ok()) {
    if (error_.ok()) {
      error_ = flushed.status().WithContext(
          "sync flush failed; the store stops accepting writes until restarted");
      health_.SetFatalIoError(error_);
    }
  } else if (flushed->value() > durable_.load(std::memory_order_relaxed)) {
    durable_.store(flushed->value(), std::memory_order_release);
    if (on_durable_) on_durable_();
  }
  cv_.notify_all();
}

Status GroupCommit::WaitDurable(PhysicalOffset end) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.timeout_ms);
  std::unique_lock<std::mutex> l(mu_);
  ++waits_;
  if (options_.unsafe_ack_before_flush_for_testing) return Status::OK();
  while (true) {
    if (!error_.ok()) return error_;
    // Late is a timeout even if the flush finished meanwhile (RocketMQ's watcher fires at
    // the deadline whatever happens after it).
    if (std::chrono::steady_clock::now() >= deadline) {
      return DeadlineExceeded("data up to offset " + std::to_string(end.value()) +
                              " was not flushed within " + std::to_string(options_.timeout_ms) +
                              " ms (the message is stored)");
    }
    if (durable_.load(std::memory_order_acquire) >= end.value()) return Status::OK();
    if (!flushing_) {
      LeadFlushLocked(l);
      continue;
    }
    cv_.wait_until(l, deadline);
  }
}

Status GroupCommit::RunOnce() {
  std::unique_lock<std::mutex> l(mu_);
  if (!error_.ok()) return error_;
  if (flushing_ || !segments_.HasDirtyPages(0)) return Status::OK();
  LeadFlushLocked(l);
  return error_;
}

void GroupCommit::SetDurableOffset(PhysicalOffset offset) {
  std::lock_guard<std::mutex> l(mu_);
  durable_.store(offset.value(), std::memory_order_release);
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

int64_t GroupCommit::wait_count() const {
  std::lock_guard<std::mutex> l(mu_);
  return waits_;
}

}  // namespace rocketstore
