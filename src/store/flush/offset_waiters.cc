#include "store/flush/offset_waiters.h"

#include <algorithm>

namespace rocketstore {

void OffsetWaiters::Wait(int64_t target, int64_t deadline_ms, Callback done) {
  Status outcome;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (error_.ok() && target > reached_) {
      Waiter w{target, deadline_ms, next_id_++, std::move(done)};
      if (by_target_.empty() || by_target_.back().target <= target) {
        by_target_.push_back(std::move(w));
      } else {  // a put that finished after a later one: after the last with its target
        auto at = std::upper_bound(by_target_.begin(), by_target_.end(), target,
                                   [](int64_t t, const Waiter& x) { return t < x.target; });
        by_target_.insert(at, std::move(w));
      }
      earliest_deadline_ = std::min(earliest_deadline_, deadline_ms);
      size_.store(by_target_.size(), std::memory_order_release);
      return;
    }
    outcome = error_;
  }
  done(outcome);
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
    while (!by_target_.empty() && by_target_.front().target <= reached) {
      taken.push_back(std::move(by_target_.front()));
      by_target_.pop_front();
    }
    size_.store(by_target_.size(), std::memory_order_release);
  }
  return RunAll(taken, Status::OK());
}

size_t OffsetWaiters::ExpireOverdue(int64_t now_ms) {
  std::vector<Waiter> taken;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (by_target_.empty() || earliest_deadline_ >= now_ms) return 0;
    // Overdue waiters out, the rest kept in order; the bound made exact again.
    std::deque<Waiter> kept;
    int64_t earliest = INT64_MAX;
    for (Waiter& w : by_target_) {
      if (w.deadline_ms < now_ms) {
        taken.push_back(std::move(w));
      } else {
        earliest = std::min(earliest, w.deadline_ms);
        kept.push_back(std::move(w));
      }
    }
    by_target_ = std::move(kept);
    earliest_deadline_ = earliest;
    size_.store(by_target_.size(), std::memory_order_release);
  }
  std::stable_sort(taken.begin(), taken.end(), [](const Waiter& a, const Waiter& b) {
    return a.deadline_ms != b.deadline_ms ? a.deadline_ms < b.deadline_ms : a.id < b.id;
  });
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
    for (Waiter& w : by_target_) taken.push_back(std::move(w));
    by_target_.clear();
    earliest_deadline_ = INT64_MAX;
    size_.store(0, std::memory_order_release);
  }
  return RunAll(taken, outcome);
}

int64_t OffsetWaiters::watermark() const {
  std::lock_guard<std::mutex> l(mu_);
  return reached_;
}

}  // namespace rocketstore
