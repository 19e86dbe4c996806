#include "broker/service/client_admin_service.h"

#include <array>
#include <memory>
#include <mutex>

#include "protocol/mq_version.h"

namespace rocketstore::broker {

ResetOffsetResult ClientAdminService::PlanResetOffset(const std::string& topic,
                                                      const std::string& group, int64_t timestamp,
                                                      bool force) const {
  ResetOffsetResult out;
  auto config = topics_.Find(topic);
  if (!config) {
    out.verdict = Verdict::Error(
        Outcome::kSystemError,
        "[reset-offset] reset offset failed, no topic in this broker. topic=" + topic);
    return out;
  }
  for (int32_t i = 0; i < config->write_queue_nums; ++i) {
    const int64_t committed = offsets_.Query(group, topic, i);
    if (committed == -1) {
      out.verdict =
          Verdict::Error(Outcome::kSystemError, "THe consumer group <" + group + "> not exist");
      out.offsets.clear();
      out.previous.clear();
      return out;
    }
    int64_t target = 0;
    if (timestamp == -1) {
      target = store_.GetMaxOffsetInQueue(topic, i).value();
    } else {
      auto by_time = store_.GetOffsetInQueueByTime(topic, i, timestamp);
      target = by_time.ok() ? by_time->value() : -1;
    }
    if (target < 0) target = 0;
    const int64_t chosen = (force || target < committed) ? target : committed;
    out.offsets.push_back(QueueOffsetEntry{topic, broker_name_, i, chosen});
    out.previous.push_back(committed);
  }
  auto g = consumers_.Find(group);
  if (!g) return out;
  out.members_online = g->members.size();
  for (const auto& m : g->members) {
    if (m.version < kVersionV3_0_7Snapshot) {
      out.verdict = Verdict::Error(
          Outcome::kSystemError,
          "the client does not support this feature. version=" + protocol::VersionDesc(m.version));
      out.offsets.clear();
      out.previous.clear();
      return out;
    }
  }
  return out;
}

ResetOffsetResult ClientAdminService::ResetOffset(const std::string& topic,
                                                  const std::string& group, int64_t timestamp,
                                                  bool force, bool cpp_client) {
  ResetOffsetResult out = PlanResetOffset(topic, group, timestamp, force);
  if (!out.verdict.ok()) return out;
  auto g = consumers_.Find(group);
  if (!g || g->members.empty()) {
    // Offline: the broker commits (5.x's server-side reset; 4.9.8 answers
    // CONSUMER_NOT_ONLINE and leaves it to the tool).
    for (const auto& e : out.offsets) offsets_.Commit(group, topic, e.queue_id, e.offset);
    return out;
  }
  OffsetResetPush push;
  push.topic = topic;
  push.group = group;
  push.timestamp = timestamp;
  push.offsets = out.offsets;
  push.cpp_body = cpp_client;
  for (const auto& m : g->members) m.channel->ResetConsumerOffset(push);
  out.members_online = g->members.size();
  out.pushed = true;
  return out;
}

void ClientAdminService::ConsumerStatus(const std::string& topic, const std::string& group,
                                        const std::optional<std::string>& client_id,
                                        std::function<void(ConsumerStatusResult)> done) {
  auto g = consumers_.Find(group);
  if (!g || g->members.empty()) {
    ConsumerStatusResult r;
    r.verdict = Verdict::Error(Outcome::kSystemError,
                               "No Any Consumer online in the consumer group: [" + group + "]");
    return done(std::move(r));
  }
  const bool one = client_id && client_id->find_first_not_of(" \t") != std::string::npos;
  std::vector<ClientChannelInfo> asked;
  for (const auto& m : g->members) {
    if (m.version < kVersionV3_0_7Snapshot) {
      ConsumerStatusResult r;
      r.verdict = Verdict::Error(
          Outcome::kSystemError,
          "the client does not support this feature. version=" + protocol::VersionDesc(m.version));
      return done(std::move(r));
    }
    if (!one || m.client_id == *client_id) {
      asked.push_back(m);
      if (one) break;
    }
  }
  struct Gather {
    std::mutex mu;
    size_t left = 0;
    ConsumerStatusResult result;
    std::function<void(ConsumerStatusResult)> done;
  };
  auto gather = std::make_shared<Gather>();
  gather->left = asked.size();
  gather->done = std::move(done);
  if (asked.empty()) return gather->done(std::move(gather->result));
  for (const auto& m : asked) {
    m.channel->GetConsumerStatus(
        topic, group, [gather, id = m.client_id](Result<std::vector<QueueOffsetEntry>> answer) {
          bool last = false;
          {
            std::lock_guard lock(gather->mu);
            if (answer.ok()) gather->result.by_client[id] = std::move(answer).value();
            last = --gather->left == 0;
          }
          if (last) gather->done(std::move(gather->result));
        });
  }
}

void ClientAdminService::CallConsumer(ConsumerCall call, const std::string& group,
                                      const std::string& client_id, ForwardedRequest request,
                                      std::function<void(ForwardResult)> done) {
  std::optional<ClientChannelInfo> member;
  if (auto g = consumers_.Find(group)) {
    for (const auto& m : g->members) {
      if (m.client_id == client_id && m.channel && m.channel->alive()) member = m;
    }
  }
  const std::string who = "<" + group + "> <" + client_id + ">";
  if (!member) {
    return done(ForwardResult{
        Verdict::Error(Outcome::kSystemError, "The Consumer " + who + " not online"), {}});
  }
  if (member->version < kVersionV3_1_8Snapshot) {
    return done(ForwardResult{
        Verdict::Error(Outcome::kSystemError,
                       "The Consumer <" + client_id + "> Version <" +
                           protocol::VersionDesc(member->version) +
                           "> too low to finish, please upgrade it to V3_1_8_SNAPSHOT"),
        {}});
  }
  auto relay = [done = std::move(done), who](Result<ClientAnswer> answer) {
    if (answer.ok()) return done(ForwardResult{Verdict::Ok(), std::move(answer).value()});
    if (answer.status().code() == StatusCode::kDeadlineExceeded) {
      return done(ForwardResult{
          Verdict::Error(Outcome::kConsumeMsgTimeout,
                         "consumer " + who + " Timeout: " + answer.status().message()),
          {}});
    }
    done(ForwardResult{
        Verdict::Error(Outcome::kSystemError,
                       "invoke consumer " + who + " Exception: " + answer.status().message()),
        {}});
  };
  if (call == ConsumerCall::kRunningInfo) {
    member->channel->GetConsumerRunningInfo(std::move(request), std::move(relay));
  } else {
    member->channel->ConsumeMessageDirectly(std::move(request), std::move(relay));
  }
}

}  // namespace rocketstore::broker
