// File: console/group_stats.h
//
// A consumer group's offsets and lag as RocketMQ 4.9.8's GET_CONSUME_STATS (208) computes
// them (AdminBrokerProcessor.getConsumeStats): the topics the group has committed offsets
// for (or the one asked), skipping a topic without config and, while the group is online,
// a topic it does not subscribe; per read queue brokerOffset = max offset (>= 0),
// consumerOffset = committed offset (< 0 counts as 0), lastTimestamp = store time of the
// message before the committed offset; diffTotal = sum of brokerOffset - consumerOffset
// (ConsumeStats.computeTotalDiff). Read from the broker's ConsumeStatsService, which
// answers 208 and feeds the Prometheus lag gauges: the console's lag, its chart, the
// metrics and the admin protocol cannot disagree.
//
// Thread-safety: reads the broker's thread-safe managers; call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "broker/broker.h"

namespace rocketstore::console {

struct QueueStats {
  std::string topic;
  int32_t queue_id = 0;
  int64_t broker_offset = 0;
  int64_t consumer_offset = 0;
  int64_t last_timestamp = 0;
  int64_t lag() const { return broker_offset - consumer_offset; }
};

struct GroupStats {
  std::vector<QueueStats> queues;  // by topic, then queue id
  int64_t diff_total = 0;
};

// `topic` empty: every topic of the group.
GroupStats ComputeGroupStats(broker::Broker& broker, const std::string& group,
                             const std::string& topic = "");

// Messages in a topic's queues (sum of max - min): the retry and DLQ counts of a group.
int64_t TopicMessageCount(broker::Broker& broker, const std::string& topic);

// Every group the broker knows: subscription groups, groups with offsets, groups online.
std::vector<std::string> KnownGroups(broker::Broker& broker);

}  // namespace rocketstore::console
