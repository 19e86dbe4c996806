// File: broker/service/client_service.h
//
// ClientService: heartbeats and client registration (RocketMQ's ClientManageProcessor).
//   Heartbeat: for each consumer group of the heartbeat, the subscription group is looked
//     up (SubscriptionGroupManager::FindOrAutoCreate, as 4.9.8's heartBeat); when it
//     exists its %RETRY% topic is created with the group's retryQueueNums (unit mode:
//     topicSysFlag 2). The member is registered in the ConsumerManager either way
//     (notifying the group when it changed and notifyConsumerIdsChangedEnable — true for a
//     group that does not exist); each producer group registers the channel in the
//     ProducerManager. SUCCESS even when the group does not exist.
//     A heartbeat that created a %RETRY% topic is answered once the registration round
//     that carries it has ended (route_registration.h): Java registers the topic before
//     it answers (registerBrokerAll in createTopicInSendMessageBackMethod), so a client's
//     first rebalance after its first heartbeat finds the retry route.
//   Unregister: UNREGISTER_CLIENT for a producer and/or consumer group (the consumer
//     group is looked up with FindOrAutoCreate too, as Java's unregisterClient).
//   ConsumerIds: GET_CONSUMER_LIST_BY_GROUP.
//
// Thread-safety: any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "broker/metadata.h"
#include "broker/service/client_channel.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "broker/service/producer_manager.h"
#include "broker/service/route_registration.h"

namespace rocketstore::broker {

struct HeartbeatRequest {
  std::string client_id;
  std::vector<std::string> producer_groups;
  std::vector<ConsumerData> consumers;
};

struct ConsumerIdsResult {
  Verdict verdict;
  std::vector<std::string> client_ids;
};

class ClientService {
 public:
  // `register_routes` is asked for a round after a heartbeat created a %RETRY% topic; it
  // may be empty (no name servers).
  ClientService(ConsumerManager& consumers, ProducerManager& producers, TopicConfigManager& topics,
                SubscriptionGroupManager& groups, RequestRegistration register_routes);

  // nullopt when `later` will answer (a %RETRY% topic was created; see the file comment).
  std::optional<Verdict> Heartbeat(const RequestContext& context, const HeartbeatRequest& request,
                                   AnswerLater later);
  Verdict Heartbeat(const RequestContext& context, const HeartbeatRequest& request) {
    return *Heartbeat(context, request, nullptr);
  }
  Verdict Unregister(const RequestContext& context, const std::string& client_id,
                     const std::string& producer_group, const std::string& consumer_group);
  ConsumerIdsResult ConsumerIds(const std::string& group) const;

 private:
  ConsumerManager& consumers_;
  ProducerManager& producers_;
  TopicConfigManager& topics_;
  SubscriptionGroupManager& groups_;
  const RequestRegistration register_routes_;
};

}  // namespace rocketstore::broker
