#include "broker/service/consumer_manager.h"

#include <algorithm>
#include <utility>

namespace rocketstore::broker {

ConsumerManager::ConsumerManager(Clock& clock, IdsChangedListener on_change, int64_t expiry_ms)
    : clock_(clock), on_change_(std::move(on_change)), expiry_ms_(expiry_ms) {}

std::vector<ChannelPtr> ConsumerManager::ChannelsOf(const Group& g) {
  std::vector<ChannelPtr> out;
  out.reserve(g.channels.size());
  for (const auto& [id, info] : g.channels) out.push_back(info.channel);
  return out;
}

// ConsumerGroupInfo.updateSubscription: new topics are added, a known topic is replaced
// only by a higher subVersion, topics the heartbeat no longer names are removed.
bool ConsumerManager::UpdateSubscriptions(Group& g, const std::vector<SubscriptionData>& subs) {
  bool changed = false;
  for (const SubscriptionData& sub : subs) {
    auto it = g.subscriptions.find(sub.topic);
    if (it == g.subscriptions.end()) {
      g.subscriptions.emplace(sub.topic, sub);
      changed = true;
    } else if (sub.sub_version > it->second.sub_version) {
      it->second = sub;
    }
  }
  const size_t removed = std::erase_if(g.subscriptions, [&](const auto& entry) {
    return std::none_of(subs.begin(), subs.end(),
                        [&](const SubscriptionData& s) { return s.topic == entry.first; });
  });
  return changed || removed > 0;
}

bool ConsumerManager::Register(const ConsumerData& data, const ClientChannelInfo& client,
                               bool notify) {
  if (!client.channel) return false;
  std::vector<ChannelPtr> members;
  bool changed = false;
  {
    std::lock_guard lock(mu_);
    Group& g = groups_[data.group];
    g.consume_type = data.consume_type;
    g.message_model = data.message_model;
    g.consume_from_where = data.consume_from_where;
    ClientChannelInfo info = client;
    info.last_update_ms = clock_.NowMillis();
    auto [it, inserted] = g.channels.try_emplace(client.channel->id(), info);
    if (!inserted) {
      it->second = std::move(info);  // a new client id on a known channel replaces it
    }
    changed = UpdateSubscriptions(g, data.subscriptions) || inserted;
    if (changed && notify) members = ChannelsOf(g);
  }
  if (changed && notify && on_change_) on_change_(data.group, members);
  return changed;
}

bool ConsumerManager::Unregister(const std::string& group, const std::string& client_id,
                                 uint64_t channel_id, bool notify) {
  Changed changed;
  {
    std::lock_guard lock(mu_);
    auto it = groups_.find(group);
    if (it == groups_.end()) return false;
    const size_t removed = std::erase_if(it->second.channels, [&](const auto& entry) {
      return channel_id != 0 ? entry.first == channel_id : entry.second.client_id == client_id;
    });
    if (removed == 0) return false;
    changed.emplace_back(group, ChannelsOf(it->second));
    if (it->second.channels.empty()) groups_.erase(it);
  }
  if (notify) Notify(changed);
  return true;
}

template <typename Pred>
ConsumerManager::Changed ConsumerManager::RemoveIf(Pred gone) {
  Changed changed;
  for (auto it = groups_.begin(); it != groups_.end();) {
    const size_t removed =
        std::erase_if(it->second.channels, [&](const auto& entry) { return gone(entry.second); });
    if (removed > 0) changed.emplace_back(it->first, ChannelsOf(it->second));
    it = it->second.channels.empty() ? groups_.erase(it) : std::next(it);
  }
  return changed;
}

void ConsumerManager::Notify(const Changed& changed) const {
  if (!on_change_) return;
  for (const auto& [group, members] : changed) on_change_(group, members);
}

void ConsumerManager::OnChannelClosed(uint64_t channel_id) {
  Changed changed;
  {
    std::lock_guard lock(mu_);
    changed = RemoveIf([&](const ClientChannelInfo& c) { return c.channel->id() == channel_id; });
  }
  Notify(changed);
}

int ConsumerManager::RunOnce(int64_t now_ms) {
  std::vector<ChannelPtr> expired;
  Changed changed;
  {
    std::lock_guard lock(mu_);
    changed = RemoveIf([&](const ClientChannelInfo& c) {
      const bool gone = now_ms - c.last_update_ms > expiry_ms_;
      if (gone) expired.push_back(c.channel);
      return gone;
    });
  }
  // RocketMQ closes an expired channel (scanNotActiveChannel); the client reconnects.
  for (auto& c : expired) c->Close();
  Notify(changed);
  return static_cast<int>(expired.size());
}

std::optional<SubscriptionData> ConsumerManager::FindSubscription(const std::string& group,
                                                                  const std::string& topic) const {
  std::lock_guard lock(mu_);
  auto g = groups_.find(group);
  if (g == groups_.end()) return std::nullopt;
  auto s = g->second.subscriptions.find(topic);
  if (s == g->second.subscriptions.end()) return std::nullopt;
  return s->second;
}

std::optional<ConsumerGroupSnapshot> ConsumerManager::Find(const std::string& group) const {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  const Group& g = it->second;
  ConsumerGroupSnapshot snap{group, g.consume_type, g.message_model, g.consume_from_where, {}, {}};
  for (const auto& [id, info] : g.channels) snap.members.push_back(info);
  snap.subscriptions = g.subscriptions;
  return snap;
}

ConsumerManager::PullView ConsumerManager::FindForPull(const std::string& group,
                                                       const std::string& topic) const {
  PullView v;
  std::lock_guard lock(mu_);
  auto g = groups_.find(group);
  if (g == groups_.end()) return v;
  v.group_found = true;
  v.broadcasting = g->second.message_model == "BROADCASTING";
  auto s = g->second.subscriptions.find(topic);
  if (s != g->second.subscriptions.end()) v.subscription = s->second;
  return v;
}

std::vector<std::string> ConsumerManager::ClientIds(const std::string& group) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  auto it = groups_.find(group);
  if (it == groups_.end()) return ids;
  for (const auto& [id, info] : it->second.channels) ids.push_back(info.client_id);
  return ids;
}

std::set<std::string> ConsumerManager::GroupsConsuming(const std::string& topic) const {
  std::lock_guard lock(mu_);
  std::set<std::string> out;
  for (const auto& [name, g] : groups_) {
    if (g.subscriptions.contains(topic)) out.insert(name);
  }
  return out;
}

std::vector<std::string> ConsumerManager::Groups() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, g] : groups_) out.push_back(name);
  return out;
}

}  // namespace rocketstore::broker
