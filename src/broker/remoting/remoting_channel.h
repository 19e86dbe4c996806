// File: broker/remoting/remoting_channel.h
//
// RemotingChannel: ClientChannel over one remoting TCP connection. Holds the connection
// weakly (the connection owns the channel as its attachment, so there is no cycle): a
// channel outliving its connection is dead and its calls do nothing.
//
// ChannelOf(conn, calls) returns the connection's one channel, creating it on first use;
// it must be called on the connection's io thread (from a request handler). Requests that
// expect the client's answer (PushReplyMessage) go through `calls`, given when the channel
// is created (the front end does so before any handler runs); a channel made without it
// fails them with kFailedPrecondition.
//
// Thread-safety: ClientChannel's methods from any thread.
#pragma once

#include <memory>
#include <string>

#include "broker/remoting/client_calls.h"
#include "broker/service/client_channel.h"
#include "net/remoting_server.h"

namespace rocketstore::broker {

class RemotingChannel final : public ClientChannel {
 public:
  explicit RemotingChannel(const net::ConnectionPtr& conn, ClientCalls* calls = nullptr)
      : conn_(conn), id_(conn->id()), remote_(conn->remote_address()), calls_(calls) {}

  uint64_t id() const override { return id_; }
  const std::string& remote_address() const override { return remote_; }
  bool alive() const override;
  void Close() override;
  void NotifyConsumerIdsChanged(std::string_view group) override;
  void PushReplyMessage(ReplyPush push, ClientAnswerCallback done) override;
  void CheckTransactionState(const TransactionCheck& check) override;
  void ResetConsumerOffset(const OffsetResetPush& push) override;
  void GetConsumerStatus(std::string_view topic, std::string_view group,
                         ConsumerStatusCallback done) override;
  void GetConsumerRunningInfo(ForwardedRequest request, ClientReplyCallback done) override;
  void ConsumeMessageDirectly(ForwardedRequest request, ClientReplyCallback done) override;

 private:
  // Sends `request` through calls_ and hands the client's answer (any code) to `done`.
  void CallForAnswer(protocol::RemotingCommand request, ClientReplyCallback done);

  std::weak_ptr<net::Connection> conn_;
  const uint64_t id_;
  const std::string remote_;
  ClientCalls* const calls_;
};

ChannelPtr ChannelOf(const net::ConnectionPtr& conn, ClientCalls* calls = nullptr);

// The peer of `conn` as a BORNHOST address.
format::HostAddress HostOf(const net::Connection& conn);

}  // namespace rocketstore::broker
