// File: broker/service/consumer_manager.h
//
// ConsumerManager: the broker's live view of consumer groups, fed by heartbeats
// (RocketMQ's ConsumerManager + ConsumerGroupInfo).
//
// Per group it keeps
//   - the channels of its members (keyed by channel: one client process may hold several
//     connections, and one connection may carry several groups), each with the client id,
//     language, version and the time of its last heartbeat;
//   - the message model, consume type and consume-from of the group (the latest heartbeat's);
//   - ONE subscription table for the whole group, topic -> SubscriptionData. A heartbeat
//     adds topics that are new, replaces a subscription only when it carries a higher
//     subVersion, and removes topics the heartbeat no longer lists. Each client stamps its
//     own subVersion (its start time), so comparing a pull's subVersion with "the last
//     member's" starves every member but one; the group's table holds the highest seen, as
//     RocketMQ does (PullMessageProcessor answers SUBSCRIPTION_NOT_LATEST only when the
//     group's version is older than the pull's).
//
// Membership changes (a new channel, a changed subscription table, a channel closed,
// unregistered or expired) call the IdsChangedListener with the group and the remaining
// channels; the broker turns that into NOTIFY_CONSUMER_IDS_CHANGED. Listeners run on the
// caller's thread, outside the lock.
//
// Expiry is a step: RunOnce(now_ms) drops channels silent for longer than the expiry
// timeout (RocketMQ's CHANNEL_EXPIRED_TIMEOUT, 120 s) and closes them. Time comes from
// the Clock given at construction.
//
// Thread-safety: every method may be called from any thread (one internal mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "broker/service/client_channel.h"

namespace rocketstore::broker {

// RocketMQ's SubscriptionData: what one group consumes of one topic.
struct SubscriptionData {
  std::string topic;
  std::string sub_string = "*";         // "*", "TagA || TagB", or a SQL92 expression
  std::string expression_type = "TAG";  // "TAG" or "SQL92"
  std::set<std::string> tags;
  std::set<int32_t> codes;
  int64_t sub_version = 0;
  bool operator==(const SubscriptionData&) const = default;
};

// One group's entry of a heartbeat (ConsumerData).
struct ConsumerData {
  std::string group;
  std::string consume_type = "CONSUME_PASSIVELY";  // or CONSUME_ACTIVELY (pull consumers)
  std::string message_model = "CLUSTERING";        // or BROADCASTING
  std::string consume_from_where = "CONSUME_FROM_LAST_OFFSET";
  std::vector<SubscriptionData> subscriptions;
  bool unit_mode = false;
};

struct ClientChannelInfo {
  ChannelPtr channel;
  std::string client_id;
  int32_t language = 0;
  int32_t version = 0;
  int64_t last_update_ms = 0;
};

// A copy of one group's state, for readers (admin, pull checks).
struct ConsumerGroupSnapshot {
  std::string group;
  std::string consume_type, message_model, consume_from_where;
  std::vector<ClientChannelInfo> members;
  std::map<std::string, SubscriptionData> subscriptions;
};

class ConsumerManager {
 public:
  using IdsChangedListener =
      std::function<void(const std::string& group, const std::vector<ChannelPtr>& members)>;
  static constexpr int64_t kDefaultExpiryMs = 120000;

  ConsumerManager(Clock& clock, IdsChangedListener on_change, int64_t expiry_ms = kDefaultExpiryMs);

  // A heartbeat's entry for one group. Returns whether the group's members or
  // subscriptions changed. `notify` = the group's notifyConsumerIdsChangedEnable.
  bool Register(const ConsumerData& data, const ClientChannelInfo& client, bool notify);
  // UNREGISTER_CLIENT: drops the member with this client id on this channel (any
  // channel when `channel_id` is 0). Returns whether one was removed.
  bool Unregister(const std::string& group, const std::string& client_id, uint64_t channel_id,
                  bool notify);
  // The connection went away: drop it from every group.
  void OnChannelClosed(uint64_t channel_id);
  // Expires silent channels. Returns how many were dropped.
  int RunOnce(int64_t now_ms);

  std::optional<SubscriptionData> FindSubscription(const std::string& group,
                                                   const std::string& topic) const;
  std::optional<ConsumerGroupSnapshot> Find(const std::string& group) const;
  // What a pull needs (one lookup, no copy of the members): whether the group is known,
  // its message model, and its subscription of `topic` if any.
  struct PullView {
    bool group_found = false;
    bool broadcasting = false;
    std::optional<SubscriptionData> subscription;
  };
  PullView FindForPull(const std::string& group, const std::string& topic) const;
  std::vector<std::string> ClientIds(const std::string& group) const;
  // Groups whose subscription table has `topic` (QUERY_TOPIC_CONSUME_BY_WHO).
  std::set<std::string> GroupsConsuming(const std::string& topic) const;
  std::vector<std::string> Groups() const;

 private:
  struct Group {
    std::string consume_type, message_model, consume_from_where;
    std::map<uint64_t, ClientChannelInfo> channels;  // channel id -> member
    std::map<std::string, SubscriptionData> subscriptions;
  };
  static bool UpdateSubscriptions(Group& g, const std::vector<SubscriptionData>& subs);
  static std::vector<ChannelPtr> ChannelsOf(const Group& g);
  // Removes members `gone` selects; returns the groups that lost one, with the channels
  // left. Deletes groups left empty.
  using Changed = std::vector<std::pair<std::string, std::vector<ChannelPtr>>>;
  template <typename Pred>
  Changed RemoveIf(Pred gone);
  void Notify(const Changed& changed) const;

  Clock& clock_;
  const IdsChangedListener on_change_;
  const int64_t expiry_ms_;
  mutable std::mutex mu_;
  std::map<std::string, Group> groups_;
};

}  // namespace rocketstore::broker
