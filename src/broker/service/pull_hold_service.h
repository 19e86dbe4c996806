// File: broker/service/pull_hold_service.h
//
// PullHoldService: long polling (RocketMQ's PullRequestHoldService), without the wire.
// A pull that finds nothing new parks here: (topic, queue, the offset it waits past, a
// deadline, and a `resume` completion). It is resumed, on the executor given at
// construction — never on the caller's thread — when
//   - a message arrives for its queue at or past its offset (OnArrival, called by the
//     store's arrival event on the dispatcher thread; cheap when nothing is held), or
//   - its deadline passes (RunOnce(now_ms), a step run every ~100 ms by a ServiceRunner),
// `resume(timed_out)` re-runs the pull; it may park again (a message its filter skips).
// A held pull whose channel is gone is dropped without resuming.
//
// Thread-safety: every method from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "broker/service/client_channel.h"

namespace rocketstore::broker {

class PullHoldService {
 public:
  using Resume = std::function<void(bool timed_out)>;
  using Executor = std::function<void(std::function<void()>)>;

  struct Held {
    ChannelPtr channel;
    int64_t offset = 0;       // resume once the queue's max offset exceeds this
    int64_t deadline_ms = 0;  // monotonic ms
    Resume resume;
  };

  explicit PullHoldService(Executor executor) : executor_(std::move(executor)) {}

  void Hold(const std::string& topic, int32_t queue_id, Held held);
  // The queue's max offset is now `max_offset`: resume the pulls waiting below it.
  void OnArrival(std::string_view topic, int32_t queue_id, int64_t max_offset);
  // Resumes (timed out) the pulls whose deadline passed; drops those of dead channels.
  // Returns how many were resumed.
  int RunOnce(int64_t now_ms);
  // Drops every held pull unanswered (shutdown: the connections are closing).
  void Clear();
  size_t held_count() const { return count_.load(std::memory_order_relaxed); }

 private:
  using Key = std::pair<std::string, int32_t>;
  void ResumeAll(std::vector<Held> ready, bool timed_out);

  const Executor executor_;
  mutable std::mutex mu_;
  std::map<Key, std::vector<Held>, std::less<>> held_;
  std::atomic<size_t> count_{0};
};

}  // namespace rocketstore::broker
