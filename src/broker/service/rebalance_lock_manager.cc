#include "broker/service/rebalance_lock_manager.h"

#include <iterator>
#include <set>

namespace rocketstore::broker {

namespace {

Status CheckIds(std::string_view group, std::string_view client_id) {
  if (group.empty()) return InvalidArgument("consumerGroup is empty");
  if (client_id.empty()) return InvalidArgument("clientId is empty");
  return Status::OK();
}

}  // namespace

RebalanceLockManager::RebalanceLockManager(Clock& clock, int64_t max_live_ms)
    : clock_(clock), max_live_ms_(max_live_ms) {}

Result<std::vector<QueueRef>> RebalanceLockManager::TryLockBatch(std::string_view group,
                                                                 std::span<const QueueRef> queues,
                                                                 std::string_view client_id) {
  return TryLockBatch(group, queues, client_id, NowMs());
}

Result<std::vector<QueueRef>> RebalanceLockManager::TryLockBatch(std::string_view group,
                                                                 std::span<const QueueRef> queues,
                                                                 std::string_view client_id,
                                                                 int64_t now_ms) {
  RS_RETURN_IF_ERROR(CheckIds(group, client_id));
  std::vector<QueueRef> locked;
  if (queues.empty()) return locked;
  // Java's request is a Set: a queue named twice is locked (and answered) once.
  auto by_value = [](const QueueRef* a, const QueueRef* b) { return *a < *b; };
  std::set<const QueueRef*, decltype(by_value)> seen(by_value);
  std::lock_guard<std::mutex> lock(mu_);
  auto git = groups_.find(group);
  if (git == groups_.end()) git = groups_.emplace(std::string(group), GroupLocks{}).first;
  GroupLocks& locks = git->second;
  for (const QueueRef& q : queues) {
    if (!seen.insert(&q).second) continue;
    auto [it, inserted] = locks.try_emplace(q, Entry{std::string(client_id), now_ms});
    Entry& e = it->second;
    if (!inserted) {
      if (e.client_id != client_id) {
        if (!Expired(e, now_ms)) continue;  // another client's live lock
        e.client_id = std::string(client_id);
      }
      // The caller's own lock (live or expired) or an expired one it takes over.
      e.last_update_ms = now_ms;
    }
    locked.push_back(q);
  }
  return locked;
}

Status RebalanceLockManager::UnlockBatch(std::string_view group, std::span<const QueueRef> queues,
                                         std::string_view client_id) {
  RS_RETURN_IF_ERROR(CheckIds(group, client_id));
  std::lock_guard<std::mutex> lock(mu_);
  auto git = groups_.find(group);
  if (git == groups_.end()) return Status::OK();
  for (const QueueRef& q : queues) {
    auto it = git->second.find(q);
    if (it != git->second.end() && it->second.client_id == client_id) git->second.erase(it);
  }
  if (git->second.empty()) groups_.erase(git);
  return Status::OK();
}

std::string RebalanceLockManager::Holder(std::string_view group, const QueueRef& queue,
                                         int64_t now_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto git = groups_.find(group);
  if (git == groups_.end()) return "";
  auto it = git->second.find(queue);
  if (it == git->second.end() || Expired(it->second, now_ms)) return "";
  return it->second.client_id;
}

size_t RebalanceLockManager::RunOnce(int64_t now_ms) {
  size_t dropped = 0;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto git = groups_.begin(); git != groups_.end();) {
    dropped +=
        std::erase_if(git->second, [&](const auto& kv) { return Expired(kv.second, now_ms); });
    git = git->second.empty() ? groups_.erase(git) : std::next(git);
  }
  return dropped;
}

size_t RebalanceLockManager::entry_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [group, locks] : groups_) n += locks.size();
  return n;
}

}  // namespace rocketstore::broker
