// File: broker/service/retry_service.h
//
// RetryService: consumer retry and dead-letter queues, RocketMQ 4.9.8's rules
// (SendMessageProcessor.asyncConsumerSendMsgBack and handleRetryAndDLQ).
//
// SendBack (CONSUMER_SEND_MSG_BACK, 36): a consumer hands back a message it failed to
// consume, by its commit-log offset.
//   1. The subscription group (SubscriptionGroupManager::FindOrAutoCreate: auto-created
//      when autoCreateSubscriptionGroup, or a CID_RMQ_SYS_ group) must exist, the broker
//      must be writable; retryQueueNums <= 0 answers OK and stores nothing (as Java).
//   2. `%RETRY%<group>` is created on demand with retryQueueNums queues (perm RW); the
//      message is read back by its offset (Reputter::Read).
//   3. Properties, in Java's order: RETRY_TOPIC (the original topic, only when absent),
//      WAIT=false, DELAY, ORIGIN_MESSAGE_ID (kept, else the read message's offset msg
//      id); reconsume times + 1. DELAY = the request's level, or 3 + reconsume times for 0.
//   4. Once the stored reconsume times reach the max (the request's maxReconsumeTimes
//      from MQVersion V3_4_9 on, else the group's retryMaxTimes), or for a negative
//      level: `%DLQ%<group>` (1 queue, perm RW) with DELAY=0 instead.
//   5. Reputter::Put(PutOrigin::kSendBack): the pipeline's delay hook may schedule it.
//
// RouteRetrySend: a plain send to `%RETRY%<group>` (a client's fallback when the send-back
// failed) — the group must exist; reconsumeTimes (header) >= max moves it to
// `%DLQ%<group>` queue 0 with DELAY=0. RetryTopicHook (broker/hooks/) calls it.
//
// A topic created here triggers `on_topic_created` (the broker re-registers).
// Ownership: everything passed to the constructor must outlive the service.
// Thread-safety: SendBack and RouteRetrySend from any number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "broker/hooks/put_pipeline.h"
#include "broker/metadata.h"
#include "broker/service/broker_permission.h"
#include "broker/service/client_channel.h"
#include "broker/service/outcome.h"
#include "broker/service/reput.h"
#include "broker/stats/broker_stats.h"

namespace rocketstore::broker {

// MixAll.DLQ_NUMS_PER_GROUP.
inline constexpr int32_t kDlqQueueNums = 1;

std::string RetryTopicOf(std::string_view group);  // "%RETRY%" + group
std::string DlqTopicOf(std::string_view group);    // "%DLQ%" + group

struct SendBackRequest {
  int64_t offset = 0;  // commit-log offset of the message
  std::string group;
  int32_t delay_level = 0;  // 0: 3 + reconsume times; < 0: to the DLQ now
  bool unit_mode = false;
  std::optional<int32_t> max_reconsume_times;
};

struct SendBackResult {
  Verdict verdict;
  // Where the message went (empty when nothing was stored).
  std::string topic;
  int32_t queue_id = -1;
};

class RetryService {
 public:
  struct Options {
    // brokerPermission (null: read and write). Must outlive the service.
    const BrokerPermission* permission = nullptr;
    // When set, every stored send-back is counted under the message's original topic
    // (RETRY_TOPIC, else its topic) and the group. Must outlive the service.
    BrokerStats* stats = nullptr;
  };

  RetryService(Options options, SubscriptionGroupManager& groups, TopicConfigManager& topics,
               const Reputter& reput, std::function<void()> on_topic_created);

  SendBackResult SendBack(const RequestContext& context, const SendBackRequest& request);

  // For a client's send (PutOrigin::kClient) to a %RETRY% topic: the DLQ rule above.
  // `max_reconsume_times` is the send's header field. Other topics pass unchanged.
  Verdict RouteRetrySend(const PutContext& context, DraftMessage& message);

 private:
  // The group's config (auto-created when allowed), or nullopt.
  std::optional<SubscriptionGroupConfig> FindGroup(std::string_view group);
  // createTopicInSendMessageBackMethod: the existing config or a new RW one.
  TopicConfig EnsureTopic(std::string_view topic, int32_t queues, int32_t sys_flag);

  Options options_;
  SubscriptionGroupManager& groups_;
  TopicConfigManager& topics_;
  const Reputter& reput_;
  const std::function<void()> on_topic_created_;
};

// The max reconsume times that applies: the request's (clients from V3_4_9 on), else the
// group's retryMaxTimes.
int32_t MaxReconsumeTimes(int32_t client_version, std::optional<int32_t> requested,
                          const SubscriptionGroupConfig& group);

}  // namespace rocketstore::broker
