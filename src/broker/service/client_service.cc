#include "broker/service/client_service.h"

#include <algorithm>

namespace rocketstore::broker {
namespace {
// TopicSysFlag.buildSysFlag(false, true): a unit-mode %RETRY% topic.
constexpr int32_t kTopicSysFlagUnitSub = 0x2;
}  // namespace

ClientService::ClientService(ConsumerManager& consumers, ProducerManager& producers,
                             TopicConfigManager& topics, SubscriptionGroupManager& groups,
                             std::function<void()> on_topic_created)
    : consumers_(consumers),
      producers_(producers),
      topics_(topics),
      groups_(groups),
      on_topic_created_(std::move(on_topic_created)) {}

Verdict ClientService::Heartbeat(const RequestContext& context, const HeartbeatRequest& request) {
  if (request.client_id.empty()) {
    return Verdict::Error(Outcome::kSystemError, "the custom field clientID is null");
  }
  if (!context.channel) return Verdict::Error(Outcome::kSystemError, "heartbeat without a channel");
  ClientChannelInfo info;
  info.channel = context.channel;
  info.client_id = request.client_id;
  info.language = context.language;
  info.version = context.version;
  for (const ConsumerData& data : request.consumers) {
    if (data.group.empty()) continue;
    const std::optional<SubscriptionGroupConfig> gc = groups_.FindOrAutoCreate(data.group);
    if (gc) {
      const std::string retry = "%RETRY%" + data.group;
      if (!topics_.Find(retry)) {
        TopicConfig t = topics_.EnsureSystemTopic(retry, std::max(1, gc->retry_queue_nums));
        if (data.unit_mode && t.sys_flag != kTopicSysFlagUnitSub) {
          t.sys_flag = kTopicSysFlagUnitSub;  // TopicSysFlag.buildSysFlag(false, true)
          topics_.Upsert(t);
        }
        if (on_topic_created_) on_topic_created_();
      }
    }
    consumers_.Register(data, info, !gc || gc->notify_consumer_ids_changed_enable);
  }
  for (const std::string& group : request.producer_groups) {
    if (!group.empty()) producers_.Register(group, info);
  }
  return Verdict::Ok();
}

Verdict ClientService::Unregister(const RequestContext& context, const std::string& client_id,
                                  const std::string& producer_group,
                                  const std::string& consumer_group) {
  const uint64_t channel_id = context.channel ? context.channel->id() : 0;
  if (!producer_group.empty()) producers_.Unregister(producer_group, client_id, channel_id);
  if (!consumer_group.empty()) {
    auto gc = groups_.FindOrAutoCreate(consumer_group);
    consumers_.Unregister(consumer_group, client_id, channel_id,
                          !gc || gc->notify_consumer_ids_changed_enable);
  }
  return Verdict::Ok();
}

ConsumerIdsResult ClientService::ConsumerIds(const std::string& group) const {
  ConsumerIdsResult r;
  r.client_ids = consumers_.ClientIds(group);
  if (r.client_ids.empty()) {
    r.verdict = Verdict::Error(Outcome::kSystemError, "no consumer for this group, " + group);
  }
  return r;
}

}  // namespace rocketstore::broker
