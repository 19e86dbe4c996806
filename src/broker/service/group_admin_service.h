// File: broker/service/group_admin_service.h
//
// GroupAdminService: the admin changes to consumer groups (AdminBrokerProcessor, 4.9.8):
//   Upsert   UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): creates or replaces the group's
//            SubscriptionGroupConfig (members rocketstore keeps verbatim survive). A name
//            that is not a valid group name is refused (Java stores anything).
//   Delete   DELETE_SUBSCRIPTIONGROUP (207): removes the config (SUCCESS for an unknown
//            group, as Java), and the group's offsets on every topic when `remove_offset`.
//   Clone    CLONE_GROUP_OFFSET (314): for `topic`, or every topic `src` has offsets on
//            when none is given, `dst`'s offsets become a copy of `src`'s. Skipped, as in
//            Java: topics without a config, and — unless `offline` — topics `src` does not
//            subscribe to while it has online members. (Java 4.9.8 passes the request's
//            topic, blank when none was given, to every copy, so a clone without a topic
//            copies nothing; rocketstore copies each topic it iterates.)
// Changes are in memory; the config persister writes the files.
//
// Thread-safety: any thread. Ownership: the managers must outlive the service.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "broker/metadata.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"

namespace rocketstore::broker {

class GroupAdminService {
 public:
  GroupAdminService(SubscriptionGroupManager& groups, ConsumerOffsetManager& offsets,
                    TopicConfigManager& topics, const ConsumerManager& consumers)
      : groups_(groups), offsets_(offsets), topics_(topics), consumers_(consumers) {}

  Verdict Upsert(const SubscriptionGroupConfig& config);
  Verdict Delete(std::string_view group, bool remove_offset);
  // `cloned` (optional) gets the number of topics whose offsets were copied.
  Verdict Clone(std::string_view src, std::string_view dst, const std::optional<std::string>& topic,
                bool offline, int* cloned = nullptr);

 private:
  SubscriptionGroupManager& groups_;
  ConsumerOffsetManager& offsets_;
  TopicConfigManager& topics_;
  const ConsumerManager& consumers_;
};

}  // namespace rocketstore::broker
