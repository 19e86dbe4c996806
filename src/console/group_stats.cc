#include "console/group_stats.h"

#include <set>

namespace rocketstore::console {

GroupStats ComputeGroupStats(broker::Broker& broker, const std::string& group,
                             const std::string& topic) {
  GroupStats out;
  std::set<std::string> topics;
  if (topic.empty()) {
    topics = broker.offsets().TopicsOf(group);
  } else {
    topics.insert(topic);
  }
  const auto online = broker.consumers().Find(group);
  const bool has_subscriptions = online && !online->subscriptions.empty();
  MessageStore& store = broker.store();
  for (const std::string& t : topics) {
    auto config = broker.topics().Find(t);
    if (!config) continue;
    if (has_subscriptions && !online->subscriptions.count(t)) continue;
    for (int32_t q = 0; q < config->read_queue_nums; ++q) {
      QueueStats s;
      s.topic = t;
      s.queue_id = q;
      s.broker_offset = std::max<int64_t>(0, store.GetMaxOffsetInQueue(t, q).value());
      s.consumer_offset = std::max<int64_t>(0, broker.offsets().Query(group, t, q));
      if (s.consumer_offset - 1 >= 0) {
        auto ts = store.GetMessageStoreTime(t, q, QueueOffset(s.consumer_offset - 1));
        if (ts.ok() && *ts > 0) s.last_timestamp = *ts;
      }
      out.diff_total += s.lag();
      out.queues.push_back(std::move(s));
    }
  }
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
