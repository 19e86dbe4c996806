#include "broker/service/topic_service.h"

#include <string>

#include "broker/system_topics.h"

namespace rocketstore::broker {

Verdict TopicService::CreateOrUpdate(const TopicConfig& config) {
  if (!IsValidTopicName(config.name)) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "The specified topic is invalid: " + config.name +
                              " (1-127 characters of [A-Za-z0-9_%|-])");
  }
  if (IsSystemTopic(config.name) || IsExtraSystemTopic(config.name)) {
    return Verdict::Error(Outcome::kSystemError,
                          "The topic[" + config.name + "] is conflict with system topic.");
  }
  if (config.read_queue_nums < 1 || config.write_queue_nums < 1 ||
      config.read_queue_nums > kMaxQueueNums || config.write_queue_nums > kMaxQueueNums) {
    return Verdict::Error(Outcome::kInvalidArgument, "queue numbers must be in [1, 1024]");
  }
  if (topics_.Upsert(config) && on_topic_changed_) on_topic_changed_();
  return Verdict::Ok();
}

bool TopicService::IsExtraSystemTopic(const std::string& name) const {
  for (const std::string& t : extra_system_topics_) {
    if (t == name) return true;
  }
  return false;
}

}  // namespace rocketstore::broker
