#include "broker/service/send_service.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <random>

#include "base/coding.h"
#include "base/uninit_array.h"
#include "broker/service/reput.h"
#include "broker/system_topics.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "timer/recall_handle.h"
#include "timer/timer_format.h"

namespace rocketstore::broker {
namespace {

std::string RandomHex32() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  uint8_t bytes[16];
  EncodeFixed64BE(bytes, rng());
  EncodeFixed64BE(bytes + 8, rng());
  return HexUpper(bytes, sizeof(bytes));
}

}  // namespace

bool SendResult::stored() const {
  switch (verdict.outcome) {
    case Outcome::kOk:
    case Outcome::kFlushDiskTimeout:
    case Outcome::kFlushSlaveTimeout:
    case Outcome::kSlaveNotAvailable:
      return true;
    default:
      return false;
  }
}

SendService::SendService(Options options, MessageStore& store, TopicConfigManager& topics,
                         const PutPipeline& pipeline, std::function<void()> on_topic_created)
    : options_(std::move(options)),
      store_(store),
      topics_(topics),
      pipeline_(pipeline),
      on_topic_created_(std::move(on_topic_created)) {}

void SendService::SetBrokerProperties(const format::PropertyIndex& producer,
                                      std::string_view producer_text, std::string_view uniq,
                                      bool add_uniq, DraftMessage* draft) const {
  // As 4.9.8's SendMessageProcessor: string2messageProperties into a HashMap, CLUSTER put,
  // then WAIT removed (so the map held CLUSTER and WAIT at once), UNIQ_KEY put when
  // missing, messageProperties2String. The HashMap's order follows from the order of the
  // puts and its peak size (format::AppendInHashMapOrder); only property sets it cannot
  // model (many names, a long bucket) go through the PropertiesBuilder.
  UninitArray<format::PropertyEntry, format::PropertyIndex::kInline> ordered;
  size_t n = 0;
  bool fits = producer.size() + 2 <= ordered.size();
  bool had_cluster = false;
  for (const format::PropertyEntry& e : producer.entries()) {
    if (!fits) break;
    if (e.name == format::kPropertyWait) continue;
    if (e.name == format::kPropertyCluster) {
      had_cluster = true;
      ordered[n++] = {e.name, options_.cluster_name};  // a put keeps its position
      continue;
    }
    ordered[n++] = e;
  }
  if (fits) {
    if (!had_cluster) ordered[n++] = {format::kPropertyCluster, options_.cluster_name};
    if (add_uniq) ordered[n++] = {format::kPropertyUniqKey, uniq};
    const size_t peak = std::max(producer.size() + (had_cluster ? 0 : 1), n);
    if (draft->SetPropertiesInHashMapOrder(std::span(ordered.data(), n), peak)) return;
  }
  format::PropertiesBuilder b = format::PropertiesBuilder::FromString(producer_text);
  b.Put(format::kPropertyCluster, options_.cluster_name);
  b.Remove(format::kPropertyWait);
  if (add_uniq) b.Put(format::kPropertyUniqKey, uniq);
  draft->SetProperties(b.Build());
}

bool SendService::AnswersLater(const SendRequest&) const {
  // Under SYNC_FLUSH nearly every send waits (WAIT=false is rare): the callback is built
  // for all rather than scanning the properties for WAIT twice (Send parses them).
  return store_.PutWaitsForFlush(true);
}

Verdict SendService::CheckTopic(std::string_view topic) {
  if (!IsValidTopicName(topic)) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "the specified topic is invalid: " + std::string(topic) +
                              " (1-127 characters of [A-Za-z0-9_%|-])");
  }
  if (IsNotAllowedSendTopic(topic)) {
    return Verdict::Error(Outcome::kNoPermission,
                          "Sending message to topic[" + std::string(topic) + "] is forbidden.");
  }
  return Verdict::Ok();
}

Verdict SendService::ResolveTopic(const SendRequest& request, Resolved* out) {
  const std::string_view topic = request.topic;
  // What the send needs of the config, read in place.
  struct Facts {
    int32_t read_queue_nums = 0, write_queue_nums = 0, perm = 0;
    bool order = false, multi_tag = false;
  } facts;
  auto read = [&facts](const TopicConfig& c) {
    facts = {c.read_queue_nums, c.write_queue_nums, c.perm, c.order, c.filter_type == "MULTI_TAG"};
  };
  if (!topics_.Visit(topic, read)) {
    std::optional<TopicConfig> config;
    if (topic.starts_with(kRetryGroupTopicPrefix)) {
      // As a send-back creates it: the group's retryQueueNums queues, RW.
      const auto group = options_.groups
                             ? options_.groups->Find(topic.substr(kRetryGroupTopicPrefix.size()))
                             : std::nullopt;
      config = topics_.EnsureSystemTopic(topic, group ? std::max(1, group->retry_queue_nums) : 1);
    } else if (auto_create_topic_.load(std::memory_order_relaxed)) {
      config = topics_.CreateFromTemplate(topic, request.default_topic,
                                          request.default_topic_queue_nums);
    }
    if (!config) {
      return Verdict::Error(Outcome::kTopicNotExist,
                            "topic[" + std::string(topic) + "] not exist, apply first please!");
    }
    read(*config);
    if (on_topic_created_) on_topic_created_();
  }
  if (facts.order && options_.permission != nullptr && !options_.permission->writable()) {
    return options_.permission->SendingForbidden();
  }
  if ((facts.perm & kPermWrite) == 0) {
    return Verdict::Error(Outcome::kNoPermission,
                          "the topic[" + std::string(topic) + "] sending is forbidden");
  }
  int32_t queue_id = request.queue_id;
  if (queue_id >= std::max(facts.write_queue_nums, facts.read_queue_nums)) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "request queueId[" + std::to_string(queue_id) + "] is illegal, topic " +
                              std::string(topic) + " has " +
                              std::to_string(facts.write_queue_nums) + " write queues");
  }
  if (queue_id < 0) {
    static thread_local std::mt19937 rng(std::random_device{}());
    queue_id =
        static_cast<int32_t>(rng() % static_cast<uint32_t>(std::max(1, facts.write_queue_nums)));
  }
  out->queue_id = queue_id;
  out->order = facts.order;
  out->multi_tag = facts.multi_tag;
  return Verdict::Ok();
}

std::optional<SendResult> SendService::Send(const RequestContext& context,
                                            const SendRequest& request, Callback later) {
  auto refuse = [](Verdict v) {
    SendResult r;
    r.verdict = std::move(v);
    return r;
  };
  if (Verdict v = CheckTopic(request.topic); !v.ok()) return refuse(std::move(v));
  if (request.messages.empty() || (!request.batch && request.messages.size() != 1)) {
    return refuse(Verdict::Error(Outcome::kMessageIllegal,
                                 request.batch ? "empty batch" : "a send carries one message"));
  }
  Resolved resolved;
  if (Verdict v = ResolveTopic(request, &resolved); !v.ok()) return refuse(std::move(v));

  int32_t sys_flag = request.sys_flag;
  if (resolved.multi_tag) sys_flag |= 0x2;
  // A single message's properties, parsed once for everything below.
  format::PropertyIndex producer_props;
  if (!request.batch) producer_props.Parse(request.messages[0].properties);
  const bool wait =
      request.batch || producer_props.Find(format::kPropertyWait).value_or("true") != "false";
  std::string uniq;
  // A single message (the common case) is drafted on the stack: no allocation.
  DraftMessage single;
  std::vector<DraftMessage> batch_drafts(request.batch ? request.messages.size() : 0);
  std::span<DraftMessage> drafts =
      request.batch ? std::span<DraftMessage>(batch_drafts) : std::span<DraftMessage>(&single, 1);
  for (size_t i = 0; i < request.messages.size(); ++i) {
    const SendEntry& e = request.messages[i];
    DraftMessage& d = drafts[i];
    d.ViewTopic(request.topic);
    d.queue_id = resolved.queue_id;
    d.flag = e.flag;
    d.sys_flag = sys_flag;
    d.born_timestamp = request.born_timestamp;
    d.born_host = context.born_host;
    d.reconsume_times = request.reconsume_times;
    d.ViewBody(e.body);
    if (request.batch) {
      d.ViewProperties(e.properties);  // the producer set UNIQ_KEY per entry
      continue;
    }
    const std::optional<std::string_view> producer_uniq =
        producer_props.Find(format::kPropertyUniqKey);
    uniq = producer_uniq ? std::string(*producer_uniq) : RandomHex32();
    if (auto w = producer_props.Find(format::kPropertyWait)) d.wait_in_map = std::string(*w);
    SetBrokerProperties(producer_props, e.properties, uniq, !producer_uniq, &d);
  }
  PutContext put_context;
  put_context.request = &context;
  put_context.producer_group = request.producer_group;
  put_context.batch = request.batch;
  put_context.max_reconsume_times = request.max_reconsume_times;
  if (Verdict v = pipeline_.Run(put_context, drafts); !v.ok()) return refuse(std::move(v));
  // SendMessageProcessor.attachRecallHandle (5.3): a single message the timer hook filed.
  std::string recall;
  if (!request.batch) {
    const auto out_ms = single.FindProperty(timer::kPropTimerOutMs);
    const auto real = single.FindProperty(format::kPropertyRealTopic);
    const auto ms = out_ms ? timer::ParseLong(*out_ms) : std::nullopt;
    if (ms && real && !real->starts_with(kRetryGroupTopicPrefix)) {
      recall = timer::EncodeRecallHandle(
          {std::string(*real), options_.broker_name, std::to_string(*ms + 1), uniq});
    }
  }

  format::MessageToStore single_msg;
  std::vector<format::MessageToStore> batch_msgs;
  if (request.batch) {
    batch_msgs.reserve(drafts.size());
    for (const DraftMessage& d : drafts) batch_msgs.push_back(d.ToStore(options_.store_host));
  } else {
    single_msg = single.ToStore(options_.store_host);
  }
  std::span<const format::MessageToStore> msgs =
      request.batch ? std::span<const format::MessageToStore>(batch_msgs)
                    : std::span<const format::MessageToStore>(&single_msg, 1);
  std::vector<int64_t> sizes;
  if (request.batch) {
    for (const auto& m : msgs) sizes.push_back(static_cast<int64_t>(format::EncodedRecordSize(m)));
  }
  // A hook may have moved it; a half message answers its real queue, as Java does.
  const int32_t queue_id =
      msgs.front().topic == kTransHalfTopic ? resolved.queue_id : msgs.front().queue_id;
  const bool batch = request.batch;
  // What the statistics call it: the client's topic, typed by where the pipeline sent it.
  const std::string_view stored_topic = msgs.front().topic;
  const MessageType type = stored_topic == kTransHalfTopic ? MessageType::kTransaction
                           : stored_topic == kScheduleTopic || stored_topic == kTimerTopic
                               ? MessageType::kDelay
                           : resolved.order ? MessageType::kFifo
                                            : MessageType::kNormal;
  const bool is_timer = stored_topic == kTimerTopic;  // filed by the timer index
  if (!store_.PutWaitsForFlush(wait)) {
    PutMessageResult put =
        batch ? store_.PutMessages(msgs, wait) : store_.PutMessage(msgs[0], wait);
    SendResult r = BuildResult(put, queue_id, batch, std::move(uniq), sizes);
    if (r.stored()) {
      r.recall_handle = std::move(recall);
      Count(request.topic, type, is_timer, put);
    }
    return r;
  }
  // Counted when the flush completes, maybe on the flusher's thread: the key is resolved
  // here, so the closure holds a view of BrokerStats' own copy of the topic, not a copy.
  const BrokerStats::PutKey stats_key =
      options_.stats ? options_.stats->ResolvePut(request.topic, type) : BrokerStats::PutKey{};
  auto finish = [this, done = std::move(later), queue_id, batch, uniq = std::move(uniq),
                 recall = std::move(recall), sizes = std::move(sizes), stats_key,
                 is_timer](PutMessageResult put) mutable {
    // Called once: the strings move into the result.
    SendResult r = BuildResult(put, queue_id, batch, std::move(uniq), sizes);
    if (r.stored()) {
      r.recall_handle = std::move(recall);
      Count(stats_key, is_timer, put);
    }
    done(std::move(r));
  };
  if (batch) {
    store_.PutMessagesAsync(msgs, wait, std::move(finish));
  } else {
    store_.PutMessageAsync(msgs[0], wait, std::move(finish));
  }
  return std::nullopt;
}

void SendService::Count(std::string_view topic, MessageType type, bool timer,
                        const PutMessageResult& put) const {
  if (options_.stats == nullptr || put.count <= 0) return;
  options_.stats->OnPut(topic, type, static_cast<uint32_t>(put.count),
                        static_cast<uint64_t>(put.total_bytes));
  if (timer) options_.stats->OnTimerEnqueue(topic);  // a timer is never in a batch
}

void SendService::Count(const BrokerStats::PutKey& key, bool timer,
                        const PutMessageResult& put) const {
  if (options_.stats == nullptr || put.count <= 0) return;
  options_.stats->OnPut(key, static_cast<uint32_t>(put.count),
                        static_cast<uint64_t>(put.total_bytes));
  if (timer) options_.stats->OnTimerEnqueue(key.topic);
}

SendResult SendService::BuildResult(const PutMessageResult& put, int32_t queue_id, bool batch,
                                    std::string uniq, const std::vector<int64_t>& sizes) const {
  SendResult r;
  r.verdict = VerdictOfPut(put);
  if (!r.stored()) return r;
  r.queue_id = queue_id;
  r.queue_offset = put.first.queue_offset.value();
  if (batch) {
    int64_t off = put.first.offset.value();
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (i) r.msg_id.push_back(',');
      r.msg_id += format::EncodeOffsetMsgId(options_.store_host, off);
      off += sizes[i];
    }
  } else {
    r.msg_id = format::EncodeOffsetMsgId(options_.store_host, put.first.offset.value());
    r.transaction_id = std::move(uniq);
  }
  return r;
}

}  // namespace rocketstore::broker
