#include "broker/remoting/remoting_channel.h"

#include "protocol/headers/consumer_headers.h"
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

ChannelPtr ChannelOf(const net::ConnectionPtr& conn) {
  if (auto existing = std::static_pointer_cast<RemotingChannel>(conn->attachment())) {
    return existing;
  }
  auto channel = std::make_shared<RemotingChannel>(conn);
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
