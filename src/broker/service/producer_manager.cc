#include "broker/service/producer_manager.h"

#include <iterator>

namespace rocketstore::broker {

void ProducerManager::Register(const std::string& group, const ClientChannelInfo& client) {
  if (!client.channel) return;
  ClientChannelInfo info = client;
  info.last_update_ms = clock_.NowMillis();
  std::lock_guard lock(mu_);
  groups_[group][client.channel->id()] = std::move(info);
}

bool ProducerManager::Unregister(const std::string& group, const std::string& client_id,
                                 uint64_t channel_id) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return false;
  const size_t removed = std::erase_if(it->second, [&](const auto& entry) {
    return channel_id != 0 ? entry.first == channel_id : entry.second.client_id == client_id;
  });
  if (it->second.empty()) groups_.erase(it);
  return removed > 0;
}

void ProducerManager::OnChannelClosed(uint64_t channel_id) {
  std::lock_guard lock(mu_);
  for (auto it = groups_.begin(); it != groups_.end();) {
    it->second.erase(channel_id);
    it = it->second.empty() ? groups_.erase(it) : std::next(it);
  }
}

int ProducerManager::RunOnce(int64_t now_ms) {
  std::vector<ChannelPtr> expired;
  {
    std::lock_guard lock(mu_);
    for (auto it = groups_.begin(); it != groups_.end();) {
      std::erase_if(it->second, [&](const auto& entry) {
        const bool gone = now_ms - entry.second.last_update_ms > expiry_ms_;
        if (gone) expired.push_back(entry.second.channel);
        return gone;
      });
      it = it->second.empty() ? groups_.erase(it) : std::next(it);
    }
  }
  for (auto& c : expired) c->Close();
  return static_cast<int>(expired.size());
}

std::vector<ClientChannelInfo> ProducerManager::Members(const std::string& group) const {
  std::lock_guard lock(mu_);
  std::vector<ClientChannelInfo> out;
  auto it = groups_.find(group);
  if (it == groups_.end()) return out;
  for (const auto& [id, info] : it->second) out.push_back(info);
  return out;
}

ChannelPtr ProducerManager::AnyLiveChannel(const std::string& group) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end() || it->second.empty()) return nullptr;
  const size_t n = it->second.size();
  for (size_t i = 0; i < n; ++i) {
    auto member = std::next(it->second.begin(), static_cast<long>((rotation_ + i) % n));
    if (member->second.channel->alive()) {
      rotation_ += i + 1;
      return member->second.channel;
    }
  }
  return nullptr;
}

ChannelPtr ProducerManager::FindChannel(std::string_view client_id) const {
  std::lock_guard lock(mu_);
  const ClientChannelInfo* best = nullptr;
  for (const auto& [group, members] : groups_) {
    for (const auto& [id, info] : members) {
      if (info.client_id != client_id || !info.channel->alive()) continue;
      if (best == nullptr || info.last_update_ms > best->last_update_ms) best = &info;
    }
  }
  return best ? best->channel : nullptr;
}

std::vector<std::string> ProducerManager::Groups() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, members] : groups_) out.push_back(name);
  return out;
}

}  // namespace rocketstore::broker
