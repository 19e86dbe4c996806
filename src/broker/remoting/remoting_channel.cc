#include "broker/remoting/remoting_channel.h"

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
