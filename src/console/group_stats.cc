#include "console/group_stats.h"

#include <optional>
#include <set>

namespace rocketstore::console {

GroupStats ComputeGroupStats(broker::Broker& broker, const std::string& group,
                             const std::string& topic) {
  // The admin protocol's numbers (GET_CONSUME_STATS, 208), not a second computation.
  const broker::GroupConsumeStats stats = broker.consume_stats().ConsumeStats(
      group, topic.empty() ? std::nullopt : std::optional<std::string>(topic));
  GroupStats out;
  for (const broker::QueueConsumeStat& q : stats.queues) {
    out.queues.push_back(
        QueueStats{q.topic, q.queue_id, q.broker_offset, q.consumer_offset, q.last_timestamp});
  }
  out.diff_total = stats.TotalDiff();
  return out;
}

int64_t TopicMessageCount(broker::Broker& broker, const std::string& topic) {
  auto config = broker.topics().Find(topic);
  if (!config) return 0;
  int64_t n = 0;
  const int32_t queues = std::max(config->read_queue_nums, config->write_queue_nums);
  for (int32_t q = 0; q < queues; ++q) {
    n += broker.store().GetMaxOffsetInQueue(topic, q).value() -
         broker.store().GetMinOffsetInQueue(topic, q).value();
  }
  return n;
}

std::vector<std::string> KnownGroups(broker::Broker& broker) {
  std::set<std::string> groups = broker.offsets().Groups();
  for (const auto& g : broker.subscription_groups().List()) groups.insert(g.name);
  for (const auto& g : broker.consumers().Groups()) groups.insert(g);
  return {groups.begin(), groups.end()};
}

}  // namespace rocketstore::console
