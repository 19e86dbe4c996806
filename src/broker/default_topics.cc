#include "broker/default_topics.h"

#include <string>

#include "broker/system_topics.h"

namespace rocketstore::broker {
namespace {

TopicConfig Topic(std::string_view name, int32_t queues, int32_t perm) {
  TopicConfig t;
  t.name = std::string(name);
  t.read_queue_nums = t.write_queue_nums = queues;
  t.perm = perm;
  return t;
}

constexpr int32_t kRw = kPermRead | kPermWrite;
constexpr int32_t kJavaDefaultQueueNums = 16;  // TopicConfig.defaultRead/WriteQueueNums

}  // namespace

std::vector<TopicConfig> DefaultTopics(const BrokerOptions& o) {
  std::vector<TopicConfig> out;
  out.push_back(Topic(kSelfTestTopic, 1, kRw));
  if (o.auto_create_topic) {
    out.push_back(Topic(kAutoCreateTopicKey, o.default_topic_queue_nums, kRw | kPermInherit));
  }
  out.push_back(Topic(kBenchmarkTopic, 1024, kRw));
  out.push_back(Topic(o.cluster_name, kJavaDefaultQueueNums,
                      kPermInherit | (o.cluster_topic_enable ? kRw : 0)));
  out.push_back(Topic(o.broker_name, 1, kPermInherit | (o.broker_topic_enable ? kRw : 0)));
  out.push_back(Topic(kOffsetMovedEventTopic, 1, kRw));
  out.push_back(Topic(kScheduleTopic, kScheduleTopicQueueNums, kRw));
  if (o.trace_topic_enable) out.push_back(Topic(o.msg_trace_topic_name, 1, kRw));
  out.push_back(Topic(ReplyTopicOf(o.cluster_name), 1, kRw));
  return out;
}

}  // namespace rocketstore::broker
