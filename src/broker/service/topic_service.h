// File: broker/service/topic_service.h
//
// TopicService: topic metadata changes made by clients and admin tools
// (UPDATE_AND_CREATE_TOPIC 17, DELETE_TOPIC_IN_BROKER 215) and the admin views of topics
// (GET_TOPIC_STATS_INFO 202, GET_SYSTEM_TOPIC_LIST_FROM_BROKER 305). A change is kept by
// the TopicConfigManager and written to topics.json by the config persister (off the io
// threads); the broker re-registers with the name servers so that routes show it.
//
// Answered after the routes show it (broker/service/route_registration.h): given a
// `later`, CreateOrUpdate and Delete return nullopt for an applied change and call
// `later` once the registration round that includes it has ended (SUCCESS even when no
// name server accepted, as Java, with a remark saying so). A refused request is answered
// at once. Without `later` the change is answered at once and the routes follow.
//
// Delete (AdminBrokerProcessor.deleteTopic): the name is checked as Java checks it
// (blank, characters, length, system topic: SYSTEM_ERROR with Java's remarks); then the
// config goes, the topic's consume queues go through the store (files and directories),
// and — beyond Java 4.9.8, which leaves them — the consumer offsets on the topic, so a
// topic created again later does not inherit stale offsets. Its messages stay in the
// commit log until retention removes their segments. Deleting an unknown topic is
// SUCCESS (as Java): the store is still asked to drop stray queues of that name.
//
// Thread-safety: any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/metadata.h"
#include "broker/service/outcome.h"
#include "broker/service/route_registration.h"
#include "store/message_store.h"

namespace rocketstore::broker {

class TopicService {
 public:
  static constexpr int32_t kMaxQueueNums = 1024;
  // `store` and `offsets` may be null (then Delete and Stats answer SYSTEM_ERROR);
  // `register_routes` may be empty (no name servers: changes are answered at once).
  TopicService(TopicConfigManager& topics, RequestRegistration register_routes,
               MessageStore* store = nullptr, ConsumerOffsetManager* offsets = nullptr)
      : topics_(topics),
        register_routes_(std::move(register_routes)),
        store_(store),
        offsets_(offsets) {}

  // UPDATE_AND_CREATE_TOPIC. With `later`: nullopt when `later` will answer (see the file
  // comment). The registration is requested even when nothing changed (as Java), so a
  // name server that missed an earlier round learns the topic.
  std::optional<Verdict> CreateOrUpdate(const TopicConfig& config, AnswerLater later);
  Verdict CreateOrUpdate(const TopicConfig& config) { return *CreateOrUpdate(config, nullptr); }
  // A broker-named system topic (the reply topic, the cluster and broker names) that
  // CreateOrUpdate and Delete refuse, beside the fixed ones of system_topics.h. Call
  // before serving.
  void AddSystemTopic(std::string name) { extra_system_topics_.push_back(std::move(name)); }

  // DELETE_TOPIC_IN_BROKER (see the file comment); `later` as CreateOrUpdate's (an
  // unknown topic changes no route and is answered at once).
  std::optional<Verdict> Delete(std::string_view topic, AnswerLater later);
  Verdict Delete(std::string_view topic) { return *Delete(topic, nullptr); }

  // GET_TOPIC_STATS_INFO: per write queue, min and max offset and the store time of the
  // message at max - 1 (0 for an empty queue). kTopicNotExist "topic[T] not exist".
  struct QueueStats {
    int32_t queue_id = 0;
    int64_t min_offset = 0;
    int64_t max_offset = 0;
    int64_t last_update_timestamp = 0;
  };
  Verdict Stats(std::string_view topic, std::vector<QueueStats>* out) const;

  // GET_SYSTEM_TOPIC_LIST_FROM_BROKER: TopicValidator's set (system_topics.h) plus the
  // broker-named ones added with AddSystemTopic, sorted.
  std::vector<std::string> SystemTopics() const;

 private:
  bool IsExtraSystemTopic(std::string_view name) const;

  std::vector<std::string> extra_system_topics_;
  TopicConfigManager& topics_;
  const RequestRegistration register_routes_;
  MessageStore* const store_;
  ConsumerOffsetManager* const offsets_;
};

}  // namespace rocketstore::broker
