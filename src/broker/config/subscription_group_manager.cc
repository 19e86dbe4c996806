#include "broker/config/subscription_group_manager.h"

#include "broker/config/config_json.h"
#include "broker/config/data_version_json.h"

namespace rocketstore::broker {

namespace cj = config_json;

namespace {

SubscriptionGroupConfig DecodeGroup(std::string name, const rapidjson::Value& v) {
  SubscriptionGroupConfig g;
  g.name = std::move(name);
  g.retry_queue_nums = cj::IntOr(v, "retryQueueNums", g.retry_queue_nums);
  g.retry_max_times = cj::IntOr(v, "retryMaxTimes", g.retry_max_times);
  g.consume_enable = cj::BoolOr(v, "consumeEnable", g.consume_enable);
  g.consume_from_min_enable = cj::BoolOr(v, "consumeFromMinEnable", g.consume_from_min_enable);
  g.consume_broadcast_enable = cj::BoolOr(v, "consumeBroadcastEnable", g.consume_broadcast_enable);
  g.broker_id = cj::Int64Or(v, "brokerId", g.broker_id);
  g.which_broker_when_consume_slowly =
      cj::Int64Or(v, "whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly);
  g.notify_consumer_ids_changed_enable =
      cj::BoolOr(v, "notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable);
  // "groupName" is the table key again.
  g.unknown_fields =
      cj::UnknownMembers(v, {"groupName", "retryQueueNums", "retryMaxTimes", "consumeEnable",
                             "consumeFromMinEnable", "consumeBroadcastEnable", "brokerId",
                             "whichBrokerWhenConsumeSlowly", "notifyConsumerIdsChangedEnable"});
  return g;
}

std::string EncodeGroup(const SubscriptionGroupConfig& g) {
  cj::JsonObjectText o;
  o.SetInt("brokerId", g.broker_id);
  o.SetBool("consumeBroadcastEnable", g.consume_broadcast_enable);
  o.SetBool("consumeEnable", g.consume_enable);
  o.SetBool("consumeFromMinEnable", g.consume_from_min_enable);
  o.SetString("groupName", g.name);
  o.SetBool("notifyConsumerIdsChangedEnable", g.notify_consumer_ids_changed_enable);
  o.SetInt("retryMaxTimes", g.retry_max_times);
  o.SetInt("retryQueueNums", g.retry_queue_nums);
  o.SetInt("whichBrokerWhenConsumeSlowly", g.which_broker_when_consume_slowly);
  o.Keep(g.unknown_fields);
  return o.Text();
}

}  // namespace

std::vector<SubscriptionGroupConfig> DefaultSubscriptionGroups() {
  std::vector<SubscriptionGroupConfig> out;
  for (std::string_view name :
       {"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
        "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER"}) {
    SubscriptionGroupConfig g;
    g.name = std::string(name);
    out.push_back(std::move(g));
  }
  return out;
}

Status SubscriptionGroupManager::DecodeLocked(std::string_view json) {
  RS_ASSIGN_OR_RETURN(rapidjson::Document doc, cj::ParseObject(json));
  const rapidjson::Value& root = doc;
  std::map<std::string, SubscriptionGroupConfig, std::less<>> groups;
  RS_RETURN_IF_ERROR(cj::DecodeTable(root, "subscriptionGroupTable", DecodeGroup, &groups));
  groups_ = std::move(groups);
  version_ = DecodeDataVersion(root);
  unknown_top_level_ = cj::UnknownMembers(root, {"dataVersion", "subscriptionGroupTable"});
  return Status::OK();
}

std::string SubscriptionGroupManager::EncodeLocked() const {
  return cj::EncodeVersionedTable(version_.ToJson(), "subscriptionGroupTable", groups_, EncodeGroup,
                                  unknown_top_level_);
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::Find(
    std::string_view group) const {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  return it->second;
}

SubscriptionGroupConfig SubscriptionGroupManager::FindOrCreate(std::string_view group) {
  SubscriptionGroupConfig g;
  {
    std::lock_guard lock(mu_);
    if (auto it = groups_.find(group); it != groups_.end()) return it->second;
    g.name = std::string(group);
    groups_.emplace(g.name, g);
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return g;
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::FindOrAutoCreate(
    std::string_view group) {
  if (auto g = Find(group)) return g;
  if (!auto_create() && !group.starts_with(kSysConsumerGroupPrefix)) return std::nullopt;
  return FindOrCreate(group);
}

int SubscriptionGroupManager::AddMissing(const std::vector<SubscriptionGroupConfig>& groups) {
  int added = 0;
  {
    std::lock_guard lock(mu_);
    for (const SubscriptionGroupConfig& g : groups) {
      if (groups_.emplace(g.name, g).second) ++added;
    }
    if (added == 0) return 0;
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return added;
}

bool SubscriptionGroupManager::Upsert(const SubscriptionGroupConfig& config) {
  {
    std::lock_guard lock(mu_);
    auto it = groups_.find(config.name);
    if (it != groups_.end() && it->second == config) return false;
    groups_[config.name] = config;
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return true;
}

bool SubscriptionGroupManager::Delete(std::string_view group) {
  {
    std::lock_guard lock(mu_);
    auto it = groups_.find(group);
    if (it == groups_.end()) return false;
    groups_.erase(it);
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return true;
}

size_t SubscriptionGroupManager::Count() const {
  std::lock_guard lock(mu_);
  return groups_.size();
}

std::vector<SubscriptionGroupConfig> SubscriptionGroupManager::List() const {
  std::lock_guard lock(mu_);
  std::vector<SubscriptionGroupConfig> out;
  out.reserve(groups_.size());
  for (const auto& [name, g] : groups_) out.push_back(g);
  return out;
}

DataVersion SubscriptionGroupManager::data_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

}  // namespace rocketstore::broker
