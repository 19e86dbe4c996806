#include "broker/service/pull_service.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace rocketstore::broker {
namespace {

int64_t MonotonicMillis(Clock& clock) { return clock.MonotonicNanos() / 1000000; }

// PullMessageProcessor's GetMessageStatus -> response code table (4.9.8).
Outcome OutcomeOf(GetMessageStatus s, int64_t requested_offset) {
  switch (s) {
    case GetMessageStatus::kFound:
      return Outcome::kOk;
    case GetMessageStatus::kMessageWasRemoving:
    case GetMessageStatus::kNoMatchedMessage:
      return Outcome::kPullRetryImmediately;
    case GetMessageStatus::kNoMatchedLogicQueue:
    case GetMessageStatus::kNoMessageInQueue:
      return requested_offset != 0 ? Outcome::kPullOffsetMoved : Outcome::kPullNotFound;
    case GetMessageStatus::kOffsetFoundNull:
    case GetMessageStatus::kOffsetOverflowOne:
      return Outcome::kPullNotFound;
    case GetMessageStatus::kOffsetOverflowBadly:
    case GetMessageStatus::kOffsetTooSmall:
      return Outcome::kPullOffsetMoved;
  }
  return Outcome::kSystemError;
}

}  // namespace

PullService::PullService(Options options, Clock& clock, MessageStore& store,
                         TopicConfigManager& topics, SubscriptionGroupManager& groups,
                         ConsumerOffsetManager& offsets, ConsumerManager& consumers,
                         PullHoldService& holds)
    : options_(options),
      clock_(clock),
      store_(store),
      topics_(topics),
      groups_(groups),
      offsets_(offsets),
      consumers_(consumers),
      holds_(holds) {}

Verdict PullService::CheckAndFindSubscription(const PullRequest& req,
                                              const SubscriptionGroupConfig& group_config,
                                              Subscription* out) const {
  if (req.sys_flag & kPullSubscription) {
    out->type = req.expression_type;
    out->version = req.sub_version;
    out->from_request = true;
    out->expression = (IsTagType(out->type) && req.subscription.empty()) ? "*" : req.subscription;
    return Verdict::Ok();
  }
  ConsumerManager::PullView group = consumers_.FindForPull(req.consumer_group, req.topic);
  if (!group.group_found) {
    return Verdict::Error(Outcome::kSubscriptionNotExist,
                          "the consumer's group info not exist (no heartbeat of group " +
                              req.consumer_group + " yet)");
  }
  if (!group_config.consume_broadcast_enable && group.broadcasting) {
    return Verdict::Error(Outcome::kNoPermission, "the consumer group[" + req.consumer_group +
                                                      "] can not consume by broadcast way");
  }
  const auto& sub = group.subscription;
  if (!sub) {
    return Verdict::Error(Outcome::kSubscriptionNotExist,
                          "the consumer's subscription not exist (group " + req.consumer_group +
                              " does not subscribe topic " + req.topic + ")");
  }
  if (sub->sub_version < req.sub_version) {
    return Verdict::Error(Outcome::kSubscriptionNotLatest,
                          "the consumer's subscription not latest");
  }
  out->expression = sub->sub_string;
  out->type = sub->expression_type;
  out->version = sub->sub_version;
  return Verdict::Ok();
}

Result<CompiledSql> PullService::SqlFilterFor(const PullRequest& req, const Subscription& sub,
                                              Verdict* refusal) {
  Result<CompiledSql> compiled =
      sql_filters_.Get(req.consumer_group, req.topic, sub.type, sub.expression, sub.version);
  if (!compiled.ok()) {
    *refusal = sub.from_request
                   ? Verdict::Error(
                         Outcome::kSubscriptionParseFailed,
                         "parse the consumer's subscription failed: " + compiled.status().message())
                   : Verdict::Error(Outcome::kFilterDataNotExist,
                                    "The broker's consumer filter data is not exist!Your "
                                    "expression may be wrong! (" +
                                        compiled.status().message() + ")");
    return compiled.status();
  }
  if (!options_.enable_property_filter) {
    *refusal =
        Verdict::Error(Outcome::kSystemError,
                       "The broker does not support consumer to filter message by " + sub.type);
    return FailedPrecondition("enablePropertyFilter is false");
  }
  return compiled;
}

Verdict PullService::CheckSubscription(const std::string& group, const std::string& topic,
                                       const std::string& expression_type,
                                       const std::string& expression, int64_t sub_version) {
  if (IsTagType(expression_type)) return Verdict::Ok();
  if (!options_.enable_property_filter) {
    return Verdict::Error(
        Outcome::kSystemError,
        "The broker does not support consumer to filter message by " + expression_type);
  }
  Result<CompiledSql> compiled =
      sql_filters_.Get(group, topic, expression_type, expression, sub_version);
  if (!compiled.ok()) {
    return Verdict::Error(Outcome::kSubscriptionParseFailed, compiled.status().message());
  }
  return Verdict::Ok();
}

std::optional<PullResult> PullService::Pull(const RequestContext& context,
                                            const PullRequest& request, Callback later) {
  const int64_t budget = (request.sys_flag & kPullSuspend) == 0 ? 0
                         : long_polling_.load(std::memory_order_relaxed)
                             ? std::max<int64_t>(0, request.suspend_timeout_millis)
                             : short_polling_ms_.load(std::memory_order_relaxed);
  return PullOnce(context, request, true, MonotonicMillis(clock_) + budget, later);
}

std::optional<PullResult> PullService::PullOnce(const RequestContext& context,
                                                const PullRequest& req, bool first_pass,
                                                int64_t deadline_ms, const Callback& done) {
  // Java's beginTimeMills: GROUP_GET_LATENCY is how long this pass took to find messages.
  const int64_t begin_nanos = options_.stats != nullptr ? clock_.MonotonicNanos() : 0;
  PullResult r;
  if (options_.permission != nullptr && !options_.permission->readable()) {
    r.verdict = options_.permission->PullingForbidden();
    return r;
  }
  const std::optional<SubscriptionGroupConfig> found = groups_.FindOrAutoCreate(req.consumer_group);
  if (!found) {
    r.verdict = Verdict::Error(Outcome::kSubscriptionGroupNotExist,
                               "subscription group [" + req.consumer_group +
                                   "] does not exist, \nSee http://rocketmq.apache.org/docs/faq/ "
                                   "for further details.");
    return r;
  }
  const SubscriptionGroupConfig& group = *found;
  if (!group.consume_enable) {
    r.verdict = Verdict::Error(Outcome::kNoPermission,
                               "subscription group no permission, " + req.consumer_group);
    return r;
  }
  auto topic = topics_.Find(req.topic);
  if (!topic) {
    r.verdict = Verdict::Error(Outcome::kTopicNotExist,
                               "topic[" + req.topic + "] not exist, apply first please!");
    return r;
  }
  if ((topic->perm & kPermRead) == 0) {
    r.verdict = Verdict::Error(Outcome::kNoPermission,
                               "the topic[" + req.topic + "] pulling message is forbidden");
    return r;
  }
  if (req.queue_id < 0 || req.queue_id >= topic->read_queue_nums) {
    r.verdict = Verdict::Error(Outcome::kSystemError,
                               "queueId[" + std::to_string(req.queue_id) + "] is illegal, topic:[" +
                                   req.topic + "] topicConfig.readQueueNums:[" +
                                   std::to_string(topic->read_queue_nums) + "]");
    return r;
  }
  Subscription sub;
  if (Verdict v = CheckAndFindSubscription(req, group, &sub); !v.ok()) {
    r.verdict = std::move(v);
    return r;
  }
  std::optional<TagFilter> tags;
  std::optional<SqlMessageFilter> sql;
  const MessageFilter* filter = nullptr;
  if (IsTagType(sub.type)) {
    tags.emplace(sub.expression);
    if (!tags->matches_all()) filter = &*tags;
  } else {
    Result<CompiledSql> compiled = SqlFilterFor(req, sub, &r.verdict);
    if (!compiled.ok()) return r;
    filter = &sql.emplace(std::move(compiled).value());
  }
  GetMessageRequest get;
  get.group = req.consumer_group;
  get.topic = req.topic;
  get.queue_id = req.queue_id;
  get.offset = QueueOffset(req.queue_offset);
  get.max_msg_nums = std::clamp(req.max_msg_nums, 1, 1024);
  get.filter = filter;
  GetMessageResult got = store_.GetMessage(get);

  if (first_pass && (req.sys_flag & kPullCommitOffset)) {
    offsets_.Commit(req.consumer_group, req.topic, req.queue_id, req.commit_offset);
  }
  r.verdict.outcome = OutcomeOf(got.status, req.queue_offset);
  r.status_name = std::string(GetMessageStatusName(got.status));
  r.next_begin_offset = got.next_begin_offset.value();
  r.min_offset = got.min_offset.value();
  r.max_offset = got.max_offset.value();
  r.topic_sys_flag = topic->sys_flag;
  if (r.verdict.ok()) {
    if (options_.stats && !got.messages.empty()) {
      options_.stats->OnGet(req.topic, req.consumer_group,
                            static_cast<uint32_t>(got.messages.size()),
                            static_cast<uint64_t>(got.total_bytes));
      options_.stats->OnGetLatency(req.topic, req.consumer_group, req.queue_id,
                                   (clock_.MonotonicNanos() - begin_nanos) / 1000000);
      offsets_.RecordPull(req.consumer_group, req.topic, req.queue_id, r.next_begin_offset);
    }
    r.messages = std::move(got.messages);
  }

  const bool nothing = r.verdict.outcome == Outcome::kPullNotFound ||
                       (!first_pass && r.verdict.outcome == Outcome::kPullRetryImmediately);
  if (nothing && (req.sys_flag & kPullSuspend) && MonotonicMillis(clock_) < deadline_ms) {
    if (first_pass || r.verdict.outcome == Outcome::kPullNotFound ||
        r.next_begin_offset > req.queue_offset) {
      PullRequest next = req;
      // Only messages its filter skips arrived: keep holding, from past them (Java checks
      // the tag code before waking a held pull).
      if (r.verdict.outcome == Outcome::kPullRetryImmediately) {
        next.queue_offset = r.next_begin_offset;
      }
      Park(context, std::move(next), deadline_ms, done);
      return std::nullopt;
    }
  }
  return r;
}

void PullService::Park(const RequestContext& context, PullRequest request, int64_t deadline_ms,
                       Callback done) {
  const std::string topic = request.topic;
  const int32_t queue_id = request.queue_id;
  const int64_t offset = request.queue_offset;
  PullHoldService::Held held;
  held.channel = context.channel;
  held.offset = offset;
  held.deadline_ms = deadline_ms;
  held.resume = [this, context, request = std::move(request), deadline_ms,
                 done = std::move(done)](bool timed_out) {
    // A timed-out pull answers what it finds now; a woken one may park again.
    auto result = PullOnce(context, request, false, timed_out ? 0 : deadline_ms, done);
    if (result) done(std::move(*result));
  };
  holds_.Hold(topic, queue_id, std::move(held));
  // A message may have arrived between the read and the hold: re-check.
  const int64_t max = store_.GetMaxOffsetInQueue(topic, queue_id).value();
  if (max > offset) holds_.OnArrival(topic, queue_id, max);
}

}  // namespace rocketstore::broker
