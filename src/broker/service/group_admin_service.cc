#include "broker/service/group_admin_service.h"

#include <set>

namespace rocketstore::broker {

namespace {
bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}
}  // namespace

Verdict GroupAdminService::Upsert(const SubscriptionGroupConfig& config) {
  if (!IsValidTopicName(config.name)) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "the group name '" + config.name +
                              "' is invalid: 1-127 characters of [A-Za-z0-9_%|-] (groupName)");
  }
  // Members the request does not model (5.x) are kept from the stored config.
  SubscriptionGroupConfig merged = config;
  if (std::optional<SubscriptionGroupConfig> old = groups_.Find(config.name)) {
    for (const auto& [k, v] : old->unknown_fields) merged.unknown_fields.try_emplace(k, v);
  }
  (void)groups_.Upsert(merged);
  return Verdict::Ok();
}

Verdict GroupAdminService::Delete(std::string_view group, bool remove_offset) {
  (void)groups_.Delete(group);
  if (remove_offset) (void)offsets_.RemoveGroup(group);
  return Verdict::Ok();
}

Verdict GroupAdminService::Clone(std::string_view src, std::string_view dst,
                                 const std::optional<std::string>& topic, bool offline,
                                 int* cloned) {
  std::set<std::string> topics;
  if (!topic || IsBlank(*topic)) {
    topics = offsets_.TopicsOf(src);
  } else {
    topics.insert(*topic);
  }
  const std::string src_group(src);
  std::optional<ConsumerGroupSnapshot> online;
  if (!offline) online = consumers_.Find(src_group);
  int n = 0;
  for (const std::string& t : topics) {
    if (!topics_.Find(t)) continue;  // Java: "topic config not exist", skipped
    if (online && !online->subscriptions.empty() && !online->subscriptions.contains(t)) {
      continue;  // Java: the online group does not consume it
    }
    if (offsets_.Clone(src, dst, t)) ++n;
  }
  if (cloned) *cloned = n;
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
