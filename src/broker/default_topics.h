// File: broker/default_topics.h
//
// The topics a 4.9.8 broker always has (TopicConfigManager's constructor), so that
// GET_ALL_TOPIC_CONFIG (21), the name servers and the dashboard see what they see of a Java
// broker. TopicConfig's defaults are 16 read/write queues and perm RW (6):
//
//   SELF_TEST_TOPIC        1 queue,  perm 6
//   TBW102                 defaultTopicQueueNums queues, perm 7 — only with
//                          autoCreateTopicEnable
//   BenchmarkTest          1024 queues, perm 6
//   <brokerClusterName>    16 queues, perm 7 with clusterTopicEnable, else 1 (INHERIT)
//   <brokerName>           1 queue,  perm 7 with brokerTopicEnable, else 1 (INHERIT)
//   OFFSET_MOVED_EVENT     1 queue,  perm 6
//   SCHEDULE_TOPIC_XXXX    18 queues (a constant, whatever messageDelayLevel holds), perm 6
//   <msgTraceTopicName>    1 queue,  perm 6 — only with traceTopicEnable
//   <cluster>_REPLY_TOPIC  1 queue,  perm 6
//
// The broker adds the missing ones at start (TopicConfigManager::AddMissing): an entry
// topics.json has wins, as Java's decode puts the file's table over these.
//
// Thread-safety: a pure function.
#pragma once

#include <vector>

#include "broker/broker_options.h"
#include "broker/config/topic_config_manager.h"

namespace rocketstore::broker {

// TopicConfigManager.SCHEDULE_TOPIC_QUEUE_NUM.
inline constexpr int32_t kScheduleTopicQueueNums = 18;

std::vector<TopicConfig> DefaultTopics(const BrokerOptions& options);

}  // namespace rocketstore::broker
