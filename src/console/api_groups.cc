// The Consumer groups screen's endpoints.
#include "console/api_util.h"
#include "console/console_api.h"
#include "console/group_stats.h"

namespace rocketstore::console {

using internal::ErrorReply;
using internal::JsonReply;
using internal::JsonWriter;
using internal::Str;

HttpReply ConsoleApi::Groups() {
  const auto groups = KnownGroups(broker_);
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("groups");
    w.StartArray();
    for (const std::string& g : groups) {
      const GroupStats s = ComputeGroupStats(broker_, g);
      const auto online = broker_.consumers().Find(g);
      w.StartObject();
      w.Key("group"), Str(w, g);
      w.Key("members"), w.Uint64(online ? online->members.size() : 0);
      w.Key("messageModel"), Str(w, online ? online->message_model : "");
      w.Key("lag"), w.Int64(s.diff_total);
      w.Key("retryMessages"), w.Int64(TopicMessageCount(broker_, internal::RetryTopic(g)));
      w.Key("dlqMessages"), w.Int64(TopicMessageCount(broker_, internal::DlqTopic(g)));
      w.EndObject();
    }
    w.EndArray();
  });
}

HttpReply ConsoleApi::GroupDetail(const HttpRequest& r) {
  auto group = internal::Required(r, "group", "consumer group");
  if (!group.ok()) return internal::StatusReply(group.status());
  const auto groups = KnownGroups(broker_);
  if (std::find(groups.begin(), groups.end(), *group) == groups.end()) {
    return ErrorReply(404, "no consumer group " + group->substr(0, 200) +
                               " on this broker (no offsets, subscription or members)");
  }
  const std::string topic = internal::Optional(r, "topic");
  const GroupStats s = ComputeGroupStats(broker_, *group, topic);
  const auto online = broker_.consumers().Find(*group);
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("group"), Str(w, *group);
    w.Key("diffTotal"), w.Int64(s.diff_total);
    w.Key("retryMessages"), w.Int64(TopicMessageCount(broker_, internal::RetryTopic(*group)));
    w.Key("dlqMessages"), w.Int64(TopicMessageCount(broker_, internal::DlqTopic(*group)));
    w.Key("retryTopic"), Str(w, internal::RetryTopic(*group));
    w.Key("dlqTopic"), Str(w, internal::DlqTopic(*group));
    w.Key("members");
    w.StartArray();
    if (online) {
      for (const auto& m : online->members) {
        w.StartObject();
        w.Key("clientId"), Str(w, m.client_id);
        w.Key("language"), w.Int(m.language);
        w.Key("version"), w.Int(m.version);
        w.Key("lastHeartbeatMs"), w.Int64(m.last_update_ms);
        w.EndObject();
      }
    }
    w.EndArray();
    w.Key("subscriptions");
    w.StartArray();
    if (online) {
      for (const auto& [t, sub] : online->subscriptions) {
        w.StartObject();
        w.Key("topic"), Str(w, t);
        w.Key("expression"), Str(w, sub.sub_string);
        w.Key("type"), Str(w, sub.expression_type);
        w.EndObject();
      }
    }
    w.EndArray();
    w.Key("queues");
    w.StartArray();
    for (const QueueStats& q : s.queues) {
      w.StartObject();
      w.Key("topic"), Str(w, q.topic);
      w.Key("queueId"), w.Int(q.queue_id);
      w.Key("brokerOffset"), w.Int64(q.broker_offset);
      w.Key("consumerOffset"), w.Int64(q.consumer_offset);
      w.Key("lag"), w.Int64(q.lag());
      w.Key("lastTimestamp"), w.Int64(q.last_timestamp);
      w.EndObject();
    }
    w.EndArray();
    w.Key("lagSeries"), internal::WriteSeries(w, rates_.Series("lag:" + *group));
  });
}

// RocketMQ's resetOffsetByTimestamp (RESET_CONSUMER_CLIENT_OFFSET 222 on the broker): per
// queue the offset of the message stored closest to the time (getOffsetInQueueByTime).
// Online members keep their own in-memory offsets and would commit over the reset, and we
// cannot yet tell them (RESET_CONSUMER_CLIENT_OFFSET 220 to the clients), so a group with
// members is refused unless it is a dry run.
HttpReply ConsoleApi::ResetOffset(const HttpRequest& r) {
  auto group = internal::Required(r, "group", "consumer group");
  if (!group.ok()) return internal::StatusReply(group.status());
  auto topic = internal::Required(r, "topic", "topic name");
  if (!topic.ok()) return internal::StatusReply(topic.status());
  auto ts = internal::TimeParam(r, "timestamp", std::nullopt);
  if (!ts.ok()) return internal::StatusReply(ts.status());
  auto dry = internal::BoolParam(r, "dryRun", false);
  if (!dry.ok()) return internal::StatusReply(dry.status());
  auto config = broker_.topics().Find(*topic);
  if (!config) return ErrorReply(404, "no topic " + topic->substr(0, 200) + " on this broker");
  const auto online = broker_.consumers().Find(*group);
  if (!*dry && online && !online->members.empty()) {
    return ErrorReply(409, "group " + *group + " has " + std::to_string(online->members.size()) +
                               " member(s) online; they would commit their own offsets over "
                               "the reset: stop them first (a dry run shows the new offsets)");
  }
  MessageStore& store = broker_.store();
  struct Change {
    int32_t queue_id;
    int64_t from, to;
  };
  std::vector<Change> changes;
  for (int32_t q = 0; q < config->read_queue_nums; ++q) {
    auto to = store.GetOffsetInQueueByTime(*topic, q, *ts);
    if (!to.ok()) return internal::StatusReply(to.status());
    changes.push_back({q, broker_.offsets().Query(*group, *topic, q), to->value()});
  }
  if (!*dry) {
    for (const Change& c : changes) broker_.offsets().Commit(*group, *topic, c.queue_id, c.to);
  }
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("group"), Str(w, *group);
    w.Key("topic"), Str(w, *topic);
    w.Key("timestamp"), w.Int64(*ts);
    w.Key("dryRun"), w.Bool(*dry);
    w.Key("queues");
    w.StartArray();
    for (const Change& c : changes) {
      w.StartObject();
      w.Key("queueId"), w.Int(c.queue_id);
      w.Key("currentOffset"), w.Int64(c.from);
      w.Key("newOffset"), w.Int64(c.to);
      w.EndObject();
    }
    w.EndArray();
  });
}

}  // namespace rocketstore::console
