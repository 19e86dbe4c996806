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

// Reset offset by time goes through the broker's own INVOKE_BROKER_TO_RESET_OFFSET (222)
// service (broker/service/client_admin_service.h), so the console, mqadmin and
// rocketmq-dashboard get the same offsets and refusals: per write queue the offset of the
// time (getOffsetInQueueByTime), or with force=false only where it is smaller than the
// committed one. Members online are told (RESET_CONSUMER_CLIENT_OFFSET 220) and move;
// a group with none has the offsets committed by the broker. A dry run asks the same
// service for the plan and changes nothing.
HttpReply ConsoleApi::ResetOffset(const HttpRequest& r) {
  auto group = internal::Required(r, "group", "consumer group");
  if (!group.ok()) return internal::StatusReply(group.status());
  auto topic = internal::Required(r, "topic", "topic name");
  if (!topic.ok()) return internal::StatusReply(topic.status());
  auto ts = internal::TimeParam(r, "timestamp", std::nullopt);
  if (!ts.ok()) return internal::StatusReply(ts.status());
  auto dry = internal::BoolParam(r, "dryRun", false);
  if (!dry.ok()) return internal::StatusReply(dry.status());
  auto force = internal::BoolParam(r, "force", true);
  if (!force.ok()) return internal::StatusReply(force.status());
  if (!broker_.topics().Find(*topic)) {
    return ErrorReply(404, "no topic " + topic->substr(0, 200) + " on this broker");
  }
  broker::ClientAdminService* service = broker_.client_admin();
  if (!service) return ErrorReply(503, "the broker is not started yet: try again");
  const broker::ResetOffsetResult res =
      *dry ? service->PlanResetOffset(*topic, *group, *ts, *force)
           : service->ResetOffset(*topic, *group, *ts, *force, /*cpp_client=*/false);
  if (!res.verdict.ok()) {
    // The service's remark is Java's (what mqadmin shows); say what it means here.
    const bool no_offsets = res.verdict.remark.find("not exist") != std::string::npos &&
                            res.verdict.remark.find("consumer group") != std::string::npos;
    return ErrorReply(409, "the broker refused the reset: " + res.verdict.remark +
                               (no_offsets ? " (the group has no committed offset on every "
                                             "write queue of " +
                                                 *topic + "; consume or commit first)"
                                           : ""));
  }
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("group"), Str(w, *group);
    w.Key("topic"), Str(w, *topic);
    w.Key("timestamp"), w.Int64(*ts);
    w.Key("dryRun"), w.Bool(*dry);
    w.Key("force"), w.Bool(*force);
    w.Key("membersOnline"), w.Uint64(res.members_online);
    // Real reset: the members were told and move (they commit the new offsets), or, with
    // none online, the broker committed them.
    w.Key("pushedToMembers"), w.Bool(res.pushed);
    w.Key("queues");
    w.StartArray();
    for (size_t i = 0; i < res.offsets.size(); ++i) {
      w.StartObject();
      w.Key("queueId"), w.Int(res.offsets[i].queue_id);
      w.Key("currentOffset"), w.Int64(res.previous[i]);
      w.Key("newOffset"), w.Int64(res.offsets[i].offset);
      w.EndObject();
    }
    w.EndArray();
  });
}

}  // namespace rocketstore::console
