// File: broker/broker_pull.cc
//
// PULL_MESSAGE (11) with long polling: a request finding nothing new is held until the
// dispatcher reports a message for its queue (OnArrival) or its suspend timeout passes
// (CheckHeldPulls); tag filtering, the commit-offset and suspend flags, and the body sent
// from the store's pages without copying where possible.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "broker/broker_internal.h"

namespace rocketstore::broker {

using internal::Reply;
using internal::Resp;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;

// ---------------------------------------------------------------- pull

Reply Broker::OnPull(const net::ConnectionPtr& conn, RemotingCommand& r, bool first_pass) {
  if (Status s = r.RequireFields({"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums",
                                  "sysFlag", "commitOffset", "suspendTimeoutMillis"});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, s);
  }
  const std::string group(*r.FindField("consumerGroup"));
  const std::string topic(*r.FindField("topic"));
  auto queue_id = r.GetInt32("queueId");
  auto offset = r.GetInt("queueOffset");
  auto max_nums = r.GetInt32("maxMsgNums");
  auto sys_flag = r.GetInt32("sysFlag");
  auto commit = r.GetInt("commitOffset");
  auto suspend = r.GetInt("suspendTimeoutMillis");
  for (const Status& s : {queue_id.status(), offset.status(), max_nums.status(), sys_flag.status(),
                          commit.status(), suspend.status()}) {
    if (!s.ok()) return protocol::MakeSystemErrorResponse(r, s);
  }
  groups_cfg_->FindOrCreate(group);
  auto config = topics_->Find(topic);
  if (!config) {
    return Resp(r, ResponseCode::kTopicNotExist,
                "topic[" + topic + "] not exist, apply first please!");
  }
  if ((config->perm & kPermRead) == 0) {
    return Resp(r, ResponseCode::kNoPermission, "the topic[" + topic + "] pulling is forbidden");
  }
  if (*queue_id < 0 || *queue_id >= config->read_queue_nums) {
    return Resp(r, ResponseCode::kInvalidParameter,
                "queueId[" + std::to_string(*queue_id) + "] is illegal");
  }
  std::string expression = "*";
  if (*sys_flag & 4) {
    if (r.FindField("expressionType").value_or("TAG") == "SQL92") {
      return Resp(r, ResponseCode::kSystemError,
                  "The broker does not support consumer to filter message by SQL92");
    }
    expression = std::string(r.FindField("subscription").value_or("*"));
  } else {
    std::lock_guard lock(clients_mu_);
    const Subscription* found = nullptr;
    auto g = consumer_groups_.find(group);
    if (g != consumer_groups_.end()) {
      for (auto& [id, client] : g->second.clients) {
        auto s = client.subscriptions.find(topic);
        if (s != client.subscriptions.end()) found = &s->second;
      }
    }
    if (!found) {
      return Resp(r, ResponseCode::kSubscriptionNotExist, "the consumer's subscription not exist");
    }
    if (found->sub_version <
        (r.GetIntOr("subVersion", 0).ok() ? *r.GetIntOr("subVersion", 0) : 0)) {
      return Resp(r, ResponseCode::kSubscriptionNotLatest,
                  "the consumer's subscription not latest");
    }
    expression = found->expression;
  }
  if (first_pass && (*sys_flag & 1)) offsets_->Commit(group, topic, *queue_id, *commit);

  TagFilter filter(expression);
  GetMessageRequest get;
  get.group = group;
  get.topic = topic;
  get.queue_id = *queue_id;
  get.offset = QueueOffset(*offset);
  get.max_msg_nums = std::clamp(*max_nums, 1, 1024);
  get.filter = filter.matches_all() ? nullptr : &filter;
  GetMessageResult got = store_->GetMessage(get);

  ResponseCode code = ResponseCode::kSystemError;
  switch (got.status) {
    case GetMessageStatus::kFound:
      code = ResponseCode::kSuccess;
      break;
    case GetMessageStatus::kNoMatchedMessage:
    case GetMessageStatus::kMessageWasRemoving:
    case GetMessageStatus::kOffsetFoundNull:
      code = ResponseCode::kPullRetryImmediately;
      break;
    case GetMessageStatus::kOffsetOverflowOne:
      code = ResponseCode::kPullNotFound;
      break;
    case GetMessageStatus::kOffsetOverflowBadly:
    case GetMessageStatus::kOffsetTooSmall:
      code = ResponseCode::kPullOffsetMoved;
      break;
    case GetMessageStatus::kNoMatchedLogicQueue:
    case GetMessageStatus::kNoMessageInQueue:
      code = *offset == 0 ? ResponseCode::kPullNotFound : ResponseCode::kPullOffsetMoved;
      break;
  }
  if (code == ResponseCode::kPullNotFound && first_pass && (*sys_flag & 2)) {
    const int64_t budget = options_.long_polling ? std::max<int64_t>(0, *suspend) : 1000;
    {
      std::lock_guard lock(held_mu_);
      held_[{topic, *queue_id}].push_back(HeldPull{conn, r, net::SteadyNowMillis() + budget});
    }
    // A message may have arrived between the read and the hold: re-check.
    if (store_->GetMaxOffsetInQueue(topic, *queue_id).value() > *offset) {
      OnArrival(topic, *queue_id);
    }
    return std::nullopt;
  }
  RemotingCommand resp = Resp(r, code, std::string(GetMessageStatusName(got.status)));
  resp.SetIntField("suggestWhichBrokerId", 0);
  resp.SetIntField("nextBeginOffset", got.next_begin_offset.value());
  resp.SetIntField("minOffset", got.min_offset.value());
  resp.SetIntField("maxOffset", got.max_offset.value());
  resp.SetIntField("topicSysFlag", config->sys_flag);
  resp.SetIntField("groupSysFlag", 0);
  if (code == ResponseCode::kSuccess) {
    for (auto& m : got.messages) resp.body.AppendExternal(m.bytes, m.file);
  }
  return resp;
}

void Broker::OnArrival(std::string topic, int32_t queue_id) {
  {
    std::lock_guard lock(held_mu_);
    auto it = held_.find({topic, queue_id});
    if (it == held_.end() || it->second.empty()) return;
  }
  if (!server_) return;
  asio::post(server_->io_context(), [this, topic = std::move(topic), queue_id] {
    std::vector<HeldPull> ready;
    {
      std::lock_guard lock(held_mu_);
      auto it = held_.find({topic, queue_id});
      if (it == held_.end()) return;
      ready = std::move(it->second);
      held_.erase(it);
    }
    for (auto& h : ready) {
      auto conn = h.conn.lock();
      if (!conn || conn->closed()) continue;
      Reply resp = OnPull(conn, h.request, false);
      if (!resp) continue;
      const bool nothing_for_it = resp->code == ToInt(ResponseCode::kPullRetryImmediately) ||
                                  resp->code == ToInt(ResponseCode::kPullNotFound);
      if (nothing_for_it && net::SteadyNowMillis() < h.deadline_ms) {
        // Only messages its filter skips arrived: keep holding, from past them (Java
        // checks the tag code before waking a held pull).
        const std::string next(resp->FindField("nextBeginOffset").value_or("0"));
        h.request.SetField("queueOffset", next);
        {
          std::lock_guard lock(held_mu_);
          held_[{topic, queue_id}].push_back(std::move(h));
        }
        const auto parsed = protocol::ParseJavaLong(next);
        if (parsed && store_->GetMaxOffsetInQueue(topic, queue_id).value() > *parsed) {
          OnArrival(topic, queue_id);
        }
        continue;
      }
      conn->SendResponse(h.request, std::move(*resp));
    }
  });
}

void Broker::CheckHeldPulls(int64_t now_ms) {
  std::vector<HeldPull> expired;
  {
    std::lock_guard lock(held_mu_);
    for (auto it = held_.begin(); it != held_.end();) {
      auto& v = it->second;
      for (auto h = v.begin(); h != v.end();) {
        auto conn = h->conn.lock();
        if (!conn || conn->closed()) {
          h = v.erase(h);
        } else if (h->deadline_ms <= now_ms) {
          expired.push_back(std::move(*h));
          h = v.erase(h);
        } else {
          ++h;
        }
      }
      it = v.empty() ? held_.erase(it) : std::next(it);
    }
  }
  if (expired.empty()) return;
  asio::post(server_->io_context(), [this, expired = std::move(expired)]() mutable {
    for (auto& h : expired) {
      auto conn = h.conn.lock();
      if (!conn || conn->closed()) continue;
      Reply resp = OnPull(conn, h.request, false);
      if (resp) conn->SendResponse(h.request, std::move(*resp));
    }
  });
}

}  // namespace rocketstore::broker
