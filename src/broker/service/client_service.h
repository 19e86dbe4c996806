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
//     A heartbeat that created a %RETRY% topic asks for a registration round and is
//     answered at once, without waiting for it: Java's createTopicInSendMessageBackMethod
//     only sends a oneway REGISTER_BROKER (after at most registerBrokerTimeoutMills),
//     and a round here may wait for one already under way and then for each name server
//     in turn, longer than a client waits for its heartbeat (3 s). The route shows up
//     when the round ends; a client that rebalanced before finds it at its next
//     rebalance.
//   Unregister: UNREGISTER_CLIENT for a producer and/or consumer group (the consumer
//     group is looked up with FindOrAutoCreate too, as Java's unregisterClient).
//   ConsumerIds: GET_CONSUMER_LIST_BY_GROUP.
//
// Thread-safety: any thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "broker/metadata.h"
#include "broker/service/client_channel.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "broker/service/producer_manager.h"

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
  // `on_topic_created` runs after a heartbeat created a %RETRY% topic (re-register).
  ClientService(ConsumerManager& consumers, ProducerManager& producers, TopicConfigManager& topics,
                SubscriptionGroupManager& groups, std::function<void()> on_topic_created);

  Verdict Heartbeat(const RequestContext& context, const HeartbeatRequest& request);
  Verdict Unregister(const RequestContext& context, const std::string& client_id,
                     const std::string& producer_group, const std::string& consumer_group);
  ConsumerIdsResult ConsumerIds(const std::string& group) const;

 private:
  ConsumerManager& consumers_;
  ProducerManager& producers_;
  TopicConfigManager& topics_;
  SubscriptionGroupManager& groups_;
  const std::function<void()> on_topic_created_;
};

}  // namespace rocketstore::broker
