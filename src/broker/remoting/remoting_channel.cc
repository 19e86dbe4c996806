#include "broker/remoting/remoting_channel.h"

#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/reply_headers.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

bool RemotingChannel::alive() const {
  auto c = conn_.lock();
  return c && !c->closed();
}

void RemotingChannel::Close() {
  if (auto c = conn_.lock()) c->Close();
}

void RemotingChannel::NotifyConsumerIdsChanged(std::string_view group) {
  auto c = conn_.lock();
  if (!c || c->closed()) return;
  protocol::RemotingCommand n =
      protocol::MakeRequest(protocol::RequestCode::kNotifyConsumerIdsChanged);
  protocol::NotifyConsumerIdsChangedRequestHeader h;
  h.consumer_group = std::string(group);
  h.EncodeTo(n);
  n.MarkOneway();
  c->Send(std::move(n));
}

void RemotingChannel::PushReplyMessage(ReplyPush push, ClientAnswerCallback done) {
  auto c = conn_.lock();
  if (!c || c->closed()) {
    done(Unavailable("connection to " + remote_ + " is closed"));
    return;
  }
  if (calls_ == nullptr) {
    done(FailedPrecondition("channel " + remote_ + " cannot wait for answers"));
    return;
  }
  protocol::RemotingCommand request =
      protocol::MakeRequest(protocol::RequestCode::kPushReplyMessageToClient);
  protocol::ReplyMessageRequestHeader h;
  h.producer_group = std::move(push.producer_group);
  h.topic = std::move(push.topic);
  h.default_topic = std::move(push.default_topic);
  h.default_topic_queue_nums = push.default_topic_queue_nums;
  h.queue_id = push.queue_id;
  h.sys_flag = push.sys_flag;
  h.born_timestamp = push.born_timestamp;
  h.flag = push.flag;
  h.properties = std::move(push.properties);
  h.reconsume_times = push.reconsume_times;
  h.unit_mode = push.unit_mode;
  h.born_host = std::move(push.born_host);
  h.store_host = std::move(push.store_host);
  h.store_timestamp = push.store_timestamp;
  h.EncodeTo(request);
  request.body.Assign(std::string_view(push.body));
  calls_->Call(c, std::move(request),
               [done = std::move(done)](Result<protocol::RemotingCommand> answer) {
                 if (!answer.ok()) return done(answer.status());
                 if (answer->code != 0) {
                   return done(Internal("the client answered " + std::to_string(answer->code) +
                                        ": " + answer->remark.value_or("")));
                 }
                 done(Status::OK());
               });
}

void RemotingChannel::CheckTransactionState(const TransactionCheck& check) {
  auto c = conn_.lock();
  if (!c || c->closed()) return;
  protocol::RemotingCommand n =
      protocol::MakeRequest(protocol::RequestCode::kCheckTransactionState);
  protocol::CheckTransactionStateRequestHeader h;
  h.tran_state_table_offset = check.tran_state_table_offset;
  h.commit_log_offset = check.commit_log_offset;
  h.msg_id = check.msg_id;
  h.transaction_id = check.transaction_id;
  h.offset_msg_id = check.offset_msg_id;
  h.EncodeTo(n);
  n.body.Assign(check.message);
  n.MarkOneway();
  c->Send(std::move(n));
}

// --- admin part B ---

void RemotingChannel::ResetConsumerOffset(const OffsetResetPush& push) {
  auto c = conn_.lock();
  if (!c || c->closed()) return;
  protocol::RemotingCommand n =
      protocol::MakeRequest(protocol::RequestCode::kResetConsumerClientOffset);
  protocol::ResetOffsetRequestHeader h;
  h.topic = push.topic;
  h.group = push.group;
  h.timestamp = push.timestamp;
  h.is_force = false;  // as 4.9.8's Broker2Client: the request's isForce is not copied
  h.EncodeTo(n);
  protocol::QueueOffsetTable table;
  for (const auto& e : push.offsets) {
    table[protocol::MessageQueueKey{e.topic, e.broker_name, e.queue_id}] = e.offset;
  }
  if (push.cpp_body) {
    n.body.Assign(protocol::ResetOffsetBodyForC{std::move(table)}.Encode());
  } else {
    n.body.Assign(protocol::ResetOffsetBody{std::move(table)}.Encode());
  }
  n.MarkOneway();
  c->Send(std::move(n));
}

void RemotingChannel::CallForAnswer(protocol::RemotingCommand request, ClientReplyCallback done) {
  auto c = conn_.lock();
  if (!c || c->closed()) {
    done(Unavailable("connection to " + remote_ + " is closed"));
    return;
  }
  if (calls_ == nullptr) {
    done(FailedPrecondition("channel " + remote_ + " cannot wait for answers"));
    return;
  }
  calls_->Call(c, std::move(request),
               [done = std::move(done)](Result<protocol::RemotingCommand> answer) {
                 if (!answer.ok()) return done(answer.status());
                 ClientAnswer a;
                 a.code = answer->code;
                 a.remark = answer->remark;
                 answer->ForEachField([&a](std::string_view k, std::string_view v) {
                   a.ext_fields.emplace_back(k, v);
                   return true;
                 });
                 a.body = std::string(answer->body.owned_text());
                 done(std::move(a));
               });
}

void RemotingChannel::GetConsumerStatus(std::string_view topic, std::string_view group,
                                        ConsumerStatusCallback done) {
  protocol::RemotingCommand request =
      protocol::MakeRequest(protocol::RequestCode::kGetConsumerStatusFromClient);
  protocol::GetConsumerStatusRequestHeader h;
  h.topic = std::string(topic);
  h.group = std::string(group);
  h.EncodeTo(request);
  CallForAnswer(std::move(request), [done = std::move(done)](Result<ClientAnswer> answer) {
    if (!answer.ok()) return done(answer.status());
    if (answer->code != 0 || answer->body.empty()) {
      return done(Internal("the client answered " + std::to_string(answer->code) + ": " +
                           answer->remark.value_or("(no body)")));
    }
    auto body = protocol::GetConsumerStatusBody::Decode(answer->body);
    if (!body.ok()) return done(body.status());
    std::vector<QueueOffsetEntry> out;
    for (const auto& [q, offset] : body->message_queue_table) {
      out.push_back(QueueOffsetEntry{q.topic, q.broker_name, q.queue_id, offset});
    }
    done(std::move(out));
  });
}

namespace {
protocol::RemotingCommand Forwarded(protocol::RequestCode code, ForwardedRequest&& f) {
  protocol::RemotingCommand request = protocol::MakeRequest(code);
  for (const auto& [k, v] : f.ext_fields) request.SetField(k, v);
  if (!f.body.empty()) request.body.Assign(std::string_view(f.body));
  return request;
}
}  // namespace

void RemotingChannel::GetConsumerRunningInfo(ForwardedRequest request, ClientReplyCallback done) {
  CallForAnswer(Forwarded(protocol::RequestCode::kGetConsumerRunningInfo, std::move(request)),
                std::move(done));
}

void RemotingChannel::ConsumeMessageDirectly(ForwardedRequest request, ClientReplyCallback done) {
  CallForAnswer(Forwarded(protocol::RequestCode::kConsumeMessageDirectly, std::move(request)),
                std::move(done));
}

ChannelPtr ChannelOf(const net::ConnectionPtr& conn, ClientCalls* calls) {
  if (auto existing = std::static_pointer_cast<RemotingChannel>(conn->attachment())) {
    return existing;
  }
  auto channel = std::make_shared<RemotingChannel>(conn, calls);
  if (calls != nullptr) calls->Attach(conn);
  conn->set_attachment(channel);
  return channel;
}

format::HostAddress HostOf(const net::Connection& c) {
  const uint32_t ip = c.remote_ipv4();
  return format::HostAddress::V4(static_cast<uint8_t>(ip >> 24), static_cast<uint8_t>(ip >> 16),
                                 static_cast<uint8_t>(ip >> 8), static_cast<uint8_t>(ip),
                                 c.remote_port());
}

}  // namespace rocketstore::broker
