// File: broker/service/topic_service.h
//
// TopicService: topic metadata changes made by clients and admin tools
// (UPDATE_AND_CREATE_TOPIC). A change is kept by the TopicConfigManager and written to
// topics.json by the config persister (off the io threads); the broker re-registers with
// the name servers so that routes show it.
//
// Thread-safety: any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "broker/metadata.h"
#include "broker/service/outcome.h"

namespace rocketstore::broker {

class TopicService {
 public:
  static constexpr int32_t kMaxQueueNums = 1024;
  TopicService(TopicConfigManager& topics, std::function<void()> on_topic_changed)
      : topics_(topics), on_topic_changed_(std::move(on_topic_changed)) {}

  Verdict CreateOrUpdate(const TopicConfig& config);
  // A broker-named system topic (the reply topic) that CreateOrUpdate refuses, beside
  // the fixed ones of system_topics.h. Call before serving.
  void AddSystemTopic(std::string name) { extra_system_topics_.push_back(std::move(name)); }

 private:
  bool IsExtraSystemTopic(const std::string& name) const;

  std::vector<std::string> extra_system_topics_;
  TopicConfigManager& topics_;
  const std::function<void()> on_topic_changed_;
};

}  // namespace rocketstore::broker
