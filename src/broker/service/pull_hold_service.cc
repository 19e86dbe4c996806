#include "broker/service/pull_hold_service.h"

#include <iterator>

namespace rocketstore::broker {

void PullHoldService::Hold(const std::string& topic, int32_t queue_id, Held held) {
  std::lock_guard lock(mu_);
  held_[{topic, queue_id}].push_back(std::move(held));
  count_.fetch_add(1, std::memory_order_relaxed);
}

void PullHoldService::OnArrival(std::string_view topic, int32_t queue_id, int64_t max_offset) {
  if (count_.load(std::memory_order_relaxed) == 0) return;
  std::vector<Held> ready;
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(std::make_pair(std::string(topic), queue_id));
    if (it == held_.end()) return;
    std::erase_if(it->second, [&](Held& h) {
      if (max_offset <= h.offset) return false;
      ready.push_back(std::move(h));
      return true;
    });
    if (it->second.empty()) held_.erase(it);
    count_.fetch_sub(ready.size(), std::memory_order_relaxed);
  }
  ResumeAll(std::move(ready), false);
}

int PullHoldService::RunOnce(int64_t now_ms) {
  std::vector<Held> expired;
  {
    std::lock_guard lock(mu_);
    size_t dropped = 0;
    for (auto it = held_.begin(); it != held_.end();) {
      std::erase_if(it->second, [&](Held& h) {
        if (h.channel && !h.channel->alive()) {
          ++dropped;
          return true;
        }
        if (h.deadline_ms > now_ms) return false;
        expired.push_back(std::move(h));
        return true;
      });
      it = it->second.empty() ? held_.erase(it) : std::next(it);
    }
    count_.fetch_sub(expired.size() + dropped, std::memory_order_relaxed);
  }
  const int n = static_cast<int>(expired.size());
  ResumeAll(std::move(expired), true);
  return n;
}

void PullHoldService::Clear() {
  std::map<Key, std::vector<Held>, std::less<>> dropped;
  {
    std::lock_guard lock(mu_);
    dropped.swap(held_);
    count_.store(0, std::memory_order_relaxed);
  }
  // Destroyed outside the lock: a completion's captures may release connections.
}

void PullHoldService::ResumeAll(std::vector<Held> ready, bool timed_out) {
  if (ready.empty()) return;
  executor_([ready = std::move(ready), timed_out]() mutable {
    for (auto& h : ready) {
      if (h.channel && !h.channel->alive()) continue;
      h.resume(timed_out);
    }
  });
}

}  // namespace rocketstore::broker
