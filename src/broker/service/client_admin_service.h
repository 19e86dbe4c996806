// File: broker/service/client_admin_service.h
//
// ClientAdminService: the admin codes that act on a consumer group's live clients
// (RocketMQ 4.9.8's Broker2Client.resetOffset / getConsumeStatus and
// AdminBrokerProcessor.callConsumer):
//
//   ResetOffset (INVOKE_BROKER_TO_RESET_OFFSET 222): per write queue of the topic, the
//     offset for `timestamp` (getOffsetInQueueByTime; -1 = the queue's max offset; a
//     negative answer becomes 0); the group's committed offset is kept unless `force` or
//     the new offset is smaller. A group without a committed offset for a queue is
//     SYSTEM_ERROR "THe consumer group <g> not exist" (Java's text), an unknown topic
//     SYSTEM_ERROR "[reset-offset] reset offset failed, no topic in this broker.
//     topic=<t>". Live clients get RESET_CONSUMER_CLIENT_OFFSET (220, oneway); a client
//     older than V3_0_7_SNAPSHOT makes it SYSTEM_ERROR "the client does not support this
//     feature. version=<v>". A group with no live client: 4.9.8 answers
//     CONSUMER_NOT_ONLINE and changes nothing (the tool then commits offsets itself);
//     rocketstore commits the computed offsets to consumerOffset.json and answers
//     SUCCESS with them, as 5.x's server-side reset does, so one request is enough.
//   PlanResetOffset: the same computation and the same refusals, changing nothing and
//     telling no client (the web console's dry-run preview; ResetOffset runs it first).
//   ConsumerStatus (INVOKE_BROKER_TO_GET_CONSUMER_STATUS 223): asks every live client (or
//     the one whose client id is `client_id`) with GET_CONSUMER_STATUS_FROM_CLIENT (221)
//     and collects each answer's messageQueueTable by client id; a client that fails or
//     does not answer is left out (as Java). No live client: SYSTEM_ERROR "No Any
//     Consumer online in the consumer group: [<g>]".
//   CallConsumer (GET_CONSUMER_RUNNING_INFO 307, CONSUME_MESSAGE_DIRECTLY 309): forwards
//     the request to the client `client_id` of the group and hands back its answer as is.
//     Not a live member: SYSTEM_ERROR "The Consumer <g> <c> not online"; older than
//     V3_1_8_SNAPSHOT: SYSTEM_ERROR "...too low to finish..."; no answer in time:
//     CONSUME_MSG_TIMEOUT "consumer <g> <c> Timeout: ..."; any other failure: SYSTEM_ERROR
//     "invoke consumer <g> <c> Exception: ...".
//
// Nothing blocks: answers come through callbacks, on whatever thread completed the
// call (an io thread, ClientCalls' timeout runner, or the caller's).
//
// Thread-safety: any thread. Ownership: references only; the referents outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker/metadata.h"
#include "broker/service/client_channel.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "store/message_store.h"

namespace rocketstore::broker {

// MQVersion.Version ordinals the checks use (names: protocol::VersionDesc).
inline constexpr int32_t kVersionV3_0_7Snapshot = 28;
inline constexpr int32_t kVersionV3_1_8Snapshot = 62;

struct ResetOffsetResult {
  Verdict verdict;
  std::vector<QueueOffsetEntry> offsets;  // by queue id: the offsets reset to
  std::vector<int64_t> previous;          // the group's committed offsets before, same order
  size_t members_online = 0;              // live clients of the group (told when pushed)
  bool pushed = false;                    // live clients were told (else committed here)
};

struct ConsumerStatusResult {
  Verdict verdict;
  std::map<std::string, std::vector<QueueOffsetEntry>> by_client;
};

struct ForwardResult {
  Verdict verdict;                     // not OK: the broker's own error answer
  std::optional<ClientAnswer> answer;  // OK: the client's answer, relayed
};

enum class ConsumerCall { kRunningInfo, kConsumeDirectly };

class ClientAdminService {
 public:
  ClientAdminService(std::string broker_name, const MessageStore& store,
                     const TopicConfigManager& topics, ConsumerOffsetManager& offsets,
                     const ConsumerManager& consumers)
      : broker_name_(std::move(broker_name)),
        store_(store),
        topics_(topics),
        offsets_(offsets),
        consumers_(consumers) {}

  ResetOffsetResult ResetOffset(const std::string& topic, const std::string& group,
                                int64_t timestamp, bool force, bool cpp_client);
  ResetOffsetResult PlanResetOffset(const std::string& topic, const std::string& group,
                                    int64_t timestamp, bool force) const;
  void ConsumerStatus(const std::string& topic, const std::string& group,
                      const std::optional<std::string>& client_id,
                      std::function<void(ConsumerStatusResult)> done);
  void CallConsumer(ConsumerCall call, const std::string& group, const std::string& client_id,
                    ForwardedRequest request, std::function<void(ForwardResult)> done);

 private:
  const std::string broker_name_;
  const MessageStore& store_;
  const TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  const ConsumerManager& consumers_;
};

}  // namespace rocketstore::broker
