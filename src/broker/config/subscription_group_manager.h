// File: broker/config/subscription_group_manager.h
//
// subscriptionGroup.json: {"dataVersion":{..},"subscriptionGroupTable":{name: {..}}} —
// also the body of GET_ALL_SUBSCRIPTIONGROUP_CONFIG. SubscriptionGroupConfig is RocketMQ's
// (4.9.8: groupName, consumeEnable, consumeFromMinEnable, consumeBroadcastEnable,
// retryQueueNums, retryMaxTimes, brokerId, whichBrokerWhenConsumeSlowly,
// notifyConsumerIdsChangedEnable; 5.x adds groupSysFlag, consumeTimeoutMinute,
// subscriptionDataSet, attributes ...): the 4.9.8 members are typed, all others kept
// verbatim and written back. Loading, dirtiness and persistence: see
// broker/config/config_manager.h (mutations do no I/O).
//
// autoCreateSubscriptionGroup lives here (set_auto_create), so every path that asks
// FindOrAutoCreate — RocketMQ's findSubscriptionGroupConfig: pull, heartbeat, unregister,
// send-back, a send to %RETRY% — answers the same. Paths that never look a group up in
// 4.9.8 (consumer offsets, lock batch) do not call it.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_manager.h"

namespace rocketstore::broker {

struct SubscriptionGroupConfig {
  std::string name;
  int32_t retry_queue_nums = 1;
  int32_t retry_max_times = 16;
  bool consume_enable = true;
  bool consume_from_min_enable = true;
  bool consume_broadcast_enable = true;
  int64_t broker_id = 0;  // MixAll.MASTER_ID
  int64_t which_broker_when_consume_slowly = 1;
  bool notify_consumer_ids_changed_enable = true;
  // Members of the file's object not modelled above: name -> JSON text, kept verbatim.
  std::map<std::string, std::string> unknown_fields;
  bool operator==(const SubscriptionGroupConfig&) const = default;
};

// MixAll.CID_RMQ_SYS_PREFIX: a group with this prefix is created on demand whatever
// autoCreateSubscriptionGroup says (MixAll.isSysConsumerGroup).
inline constexpr std::string_view kSysConsumerGroupPrefix = "CID_RMQ_SYS_";

// The groups a 4.9.8 broker always has (SubscriptionGroupManager.init): TOOLS_CONSUMER,
// FILTERSRV_CONSUMER, SELF_TEST_C_GROUP, CID_ONS-HTTP-PROXY, CID_ONSAPI_PULL,
// CID_ONSAPI_PERMISSION, CID_ONSAPI_OWNER, each with SubscriptionGroupConfig's defaults
// (the last four set consumeBroadcastEnable=true, which is the default anyway).
// (CID_RMQ_SYS_TRANS is 5.x's; 4.9.8 does not pre-create it.)
std::vector<SubscriptionGroupConfig> DefaultSubscriptionGroups();

class SubscriptionGroupManager final : public ConfigManager {
 public:
  SubscriptionGroupManager(FileSystem& fs, Clock& clock, std::string path)
      : ConfigManager(fs, clock, std::move(path)) {}

  std::optional<SubscriptionGroupConfig> Find(std::string_view group) const;
  // Finds, or creates with the defaults (marking the manager dirty; no I/O).
  SubscriptionGroupConfig FindOrCreate(std::string_view group);
  // RocketMQ's findSubscriptionGroupConfig: the group; else, when autoCreateSubscriptionGroup
  // is on or the group is a CID_RMQ_SYS_ one, a new one with the defaults (as
  // FindOrCreate); else nullopt.
  std::optional<SubscriptionGroupConfig> FindOrAutoCreate(std::string_view group);
  // autoCreateSubscriptionGroup (default true, as RocketMQ); may change at run time.
  void set_auto_create(bool on) { auto_create_.store(on, std::memory_order_relaxed); }
  bool auto_create() const { return auto_create_.load(std::memory_order_relaxed); }
  // Adds each of `groups` whose name is not in the table yet: a loaded entry wins, as
  // Java's decode puts the file's table over the groups its constructor created. When any
  // was added the data version is bumped once and the manager is dirty (so the file gets
  // them). Returns how many were added.
  int AddMissing(const std::vector<SubscriptionGroupConfig>& groups);
  // Creates or replaces the whole config; returns whether anything changed.
  bool Upsert(const SubscriptionGroupConfig& config);
  // Removes a group; returns whether it existed.
  bool Delete(std::string_view group);
  // All groups, by name.
  std::vector<SubscriptionGroupConfig> List() const;
  // How many there are (without copying them: the metrics scrape).
  size_t Count() const;
  DataVersion data_version() const;

 private:
  std::string EncodeLocked() const override;
  Status DecodeLocked(std::string_view json) override;

  std::map<std::string, SubscriptionGroupConfig, std::less<>> groups_;  // GUARDED_BY(mu_)
  DataVersion version_;                                                 // GUARDED_BY(mu_)
  std::map<std::string, std::string> unknown_top_level_;                // GUARDED_BY(mu_)
  std::atomic<bool> auto_create_{true};
};

}  // namespace rocketstore::broker
