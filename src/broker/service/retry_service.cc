#include "broker/service/retry_service.h"

#include <random>

#include "broker/system_topics.h"
#include "protocol/request_code.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore::broker {
namespace {

// FAQUrl.suggestTodo(FAQUrl.SUBSCRIPTION_GROUP_NOT_EXIST), as Java appends it.
constexpr std::string_view kGroupFaq =
    "\nSee http://rocketmq.apache.org/docs/faq/ for further details.";
// TopicSysFlag.buildSysFlag(false, true): a unit-mode %RETRY% topic.
constexpr int32_t kTopicSysFlagUnitSub = 0x2;

int32_t RandomBelow(int32_t n) {
  static thread_local std::mt19937 rng(std::random_device{}());
  return static_cast<int32_t>(rng() % static_cast<uint32_t>(std::max(1, n)));
}

Verdict GroupNotExist(std::string_view group) {
  return Verdict::Error(
      Outcome::kSubscriptionGroupNotExist,
      "subscription group not exist, " + std::string(group) + " " + std::string(kGroupFaq));
}

}  // namespace

std::string RetryTopicOf(std::string_view group) {
  return std::string(kRetryGroupTopicPrefix) + std::string(group);
}
std::string DlqTopicOf(std::string_view group) {
  return std::string(kDlqGroupTopicPrefix) + std::string(group);
}

int32_t MaxReconsumeTimes(int32_t client_version, std::optional<int32_t> requested,
                          const SubscriptionGroupConfig& group) {
  if (client_version >= protocol::kVersionV3_4_9 && requested) return *requested;
  return group.retry_max_times;
}

RetryService::RetryService(Options options, SubscriptionGroupManager& groups,
                           TopicConfigManager& topics, const Reputter& reput,
                           std::function<void()> on_topic_created)
    : options_(options),
      groups_(groups),
      topics_(topics),
      reput_(reput),
      on_topic_created_(std::move(on_topic_created)) {}

std::optional<SubscriptionGroupConfig> RetryService::FindGroup(std::string_view group) {
  return groups_.FindOrAutoCreate(group);
}

TopicConfig RetryService::EnsureTopic(std::string_view topic, int32_t queues, int32_t sys_flag) {
  if (auto existing = topics_.Find(topic)) return *existing;
  TopicConfig c;
  c.name = std::string(topic);
  c.read_queue_nums = c.write_queue_nums = queues;
  c.perm = kPermRead | kPermWrite;
  c.sys_flag = sys_flag;
  topics_.Upsert(c);
  if (on_topic_created_) on_topic_created_();
  return c;
}

SendBackResult RetryService::SendBack(const RequestContext& context,
                                      const SendBackRequest& request) {
  SendBackResult r;
  auto fail = [&r](Outcome o, std::string remark) {
    r.verdict = Verdict::Error(o, std::move(remark));
    return r;
  };
  auto group = FindGroup(request.group);
  if (!group) {
    r.verdict = GroupNotExist(request.group);
    return r;
  }
  if (options_.permission != nullptr && !options_.permission->writable()) {
    r.verdict = options_.permission->SendingForbidden();
    return r;
  }
  if (group->retry_queue_nums <= 0) return r;  // SUCCESS, nothing stored (as Java)

  std::string topic = RetryTopicOf(request.group);
  int32_t queue_id = RandomBelow(group->retry_queue_nums);
  TopicConfig config =
      EnsureTopic(topic, group->retry_queue_nums, request.unit_mode ? kTopicSysFlagUnitSub : 0);
  if ((config.perm & kPermWrite) == 0) {
    return fail(Outcome::kNoPermission, "the topic[" + topic + "] sending message is forbidden");
  }
  auto stored = reput_.Read(request.offset);
  if (!stored.ok()) {
    return fail(Outcome::kSystemError,
                "look message by offset failed, " + std::to_string(request.offset));
  }
  const format::RecordView& m = stored->record;

  // Java's HashMap of the record's properties, changed in the order SendMessageProcessor
  // changes it (PropertiesBuilder keeps HashMap's iteration order).
  format::PropertiesBuilder props = format::PropertiesBuilder::FromString(m.properties);
  const auto retry_topic = props.Get(format::kPropertyRetryTopic);
  const std::string original_topic(retry_topic ? *retry_topic : m.topic);
  if (!retry_topic) props.Put(format::kPropertyRetryTopic, m.topic);
  props.Put(format::kPropertyWait, "false");
  int32_t delay_level = request.delay_level;
  bool to_dlq = false;
  const int32_t max_times = MaxReconsumeTimes(context.version, request.max_reconsume_times, *group);
  if (m.reconsume_times >= max_times || delay_level < 0) {
    topic = DlqTopicOf(request.group);
    to_dlq = true;
    queue_id = RandomBelow(kDlqQueueNums);
    EnsureTopic(topic, kDlqQueueNums, 0);
    delay_level = 0;
  } else if (delay_level == 0) {
    delay_level = 3 + m.reconsume_times;
  }
  props.Put(format::kPropertyDelay, std::to_string(delay_level));
  if (auto origin = props.Get(format::kPropertyOriginMessageId); !origin || origin->empty()) {
    props.Put(format::kPropertyOriginMessageId,
              format::EncodeOffsetMsgId(m.store_host, m.physical_offset));
  }

  DraftMessage draft = DraftFromRecord(m);
  draft.SetTopic(topic);
  draft.queue_id = queue_id;
  draft.reconsume_times = m.reconsume_times + 1;
  draft.SetProperties(props.Build());
  ReputResult put = reput_.Put(PutOrigin::kSendBack, draft);
  if (put.verdict.outcome != Outcome::kOk) {
    // Java answers SYSTEM_ERROR with the put status for anything but PUT_OK.
    std::string why(OutcomeName(put.verdict.outcome));
    if (!put.verdict.remark.empty()) why += ": " + put.verdict.remark;
    return fail(Outcome::kSystemError, std::move(why));
  }
  if (options_.stats) options_.stats->OnSendBack(original_topic, request.group, to_dlq);
  r.topic = std::string(draft.topic());  // a hook may have moved it (delay levels)
  r.queue_id = draft.queue_id;
  return r;
}

Verdict RetryService::RouteRetrySend(const PutContext& context, DraftMessage& message) {
  if (context.origin != PutOrigin::kClient) return Verdict::Ok();
  if (!message.topic().starts_with(kRetryGroupTopicPrefix)) return Verdict::Ok();
  const std::string group(message.topic().substr(kRetryGroupTopicPrefix.size()));
  auto config = FindGroup(group);
  if (!config) return GroupNotExist(group);
  const int32_t version = context.request ? context.request->version : 0;
  const int32_t max_times = MaxReconsumeTimes(version, context.max_reconsume_times, *config);
  if (message.reconsume_times < max_times) return Verdict::Ok();
  EnsureTopic(DlqTopicOf(group), kDlqQueueNums, 0);
  message.SetTopic(DlqTopicOf(group));
  message.queue_id = RandomBelow(kDlqQueueNums);
  // Java means to clear the level here (setDelayTimeLevel(0)); see docs/messaging.md.
  format::PropertiesBuilder props = format::PropertiesBuilder::FromString(message.properties());
  props.Put(format::kPropertyDelay, "0");
  message.SetProperties(props.Build());
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
