#include "store/flush/offset_waiters.h"

namespace rocketstore {

void OffsetWaiters::Wait(int64_t target, int64_t deadline_ms, Callback done) {
  Status outcome;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (error_.ok() && target > reached_) {
      const uint64_t id = next_id_++;
      waiters_.emplace(id, Waiter{target, deadline_ms, std::move(done)});
      by_target_.emplace(target, id);
      by_deadline_.emplace(deadline_ms, id);
      size_.store(waiters_.size(), std::memory_order_release);
      return;
    }
    outcome = error_;
  }
  done(outcome);
}

OffsetWaiters::Waiter OffsetWaiters::TakeLocked(uint64_t id) {
  auto it = waiters_.find(id);
  Waiter w = std::move(it->second);
  waiters_.erase(it);
  by_target_.erase(Key{w.target, id});
  by_deadline_.erase(Key{w.deadline_ms, id});
  size_.store(waiters_.size(), std::memory_order_release);
  return w;
}

size_t OffsetWaiters::RunAll(std::vector<Waiter>& taken, const Status& outcome) {
  for (Waiter& w : taken) w.done(outcome);
  return taken.size();
}

size_t OffsetWaiters::Advance(int64_t reached) {
  std::vector<Waiter> taken;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!error_.ok() || reached <= reached_) return 0;
    reached_ = reached;
    while (!by_target_.empty() && by_target_.begin()->first <= reached) {
      taken.push_back(TakeLocked(by_target_.begin()->second));
    }
  }
  return RunAll(taken, Status::OK());
}

size_t OffsetWaiters::ExpireOverdue(int64_t now_ms) {
  std::vector<Waiter> taken;
  {
    std::lock_guard<std::mutex> l(mu_);
    while (!by_deadline_.empty() && by_deadline_.begin()->first < now_ms) {
      taken.push_back(TakeLocked(by_deadline_.begin()->second));
    }
  }
  for (Waiter& w : taken) w.done(timeout_status_(w.target));
  return taken.size();
}

size_t OffsetWaiters::Fail(Status error) {
  std::vector<Waiter> taken;
  Status outcome;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (error.ok()) error = Internal("OffsetWaiters::Fail without an error");
    if (error_.ok()) error_ = std::move(error);
    outcome = error_;
    while (!by_target_.empty()) taken.push_back(TakeLocked(by_target_.begin()->second));
  }
  return RunAll(taken, outcome);
}

int64_t OffsetWaiters::watermark() const {
  std::lock_guard<std::mutex> l(mu_);
  return reached_;
}

}  // namespace rocketstore
