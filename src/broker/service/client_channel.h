// File: broker/service/client_channel.h
//
// ClientChannel: the broker's handle on one client connection, as the services see it.
// A service keeps the channel of a consumer or producer (consumer groups, held pulls,
// transaction check-backs, later offset resets) and calls it without knowing the
// transport: the remoting front end implements it over a TCP connection
// (broker/remoting/remoting_channel.h); a gRPC front end would implement it over its
// stream. Each broker -> client request is a typed method, so that a transport can
// express it its own way.
//
// RequestContext: what a service knows about the caller of one request.
//
// Thread-safety: every method of a ClientChannel may be called from any thread; calls on
// a closed channel do nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store/format/message_record.h"

namespace rocketstore::broker {

// CHECK_TRANSACTION_STATE's content (Broker2Client.checkProducerTransactionState): the
// half copy's offsets and ids, and the copy encoded as MessageDecoder.encode does (its
// topic and queue shown as the real ones).
struct TransactionCheck {
  int64_t tran_state_table_offset = 0;  // the copy's queue offset in the half topic
  int64_t commit_log_offset = 0;        // the copy's commit-log offset
  std::string msg_id;                   // UNIQ_KEY
  std::string transaction_id;           // UNIQ_KEY (Java's transactionId)
  std::string offset_msg_id;            // the copy's offset message id
  std::string message;                  // the encoded message (the request body)
};

class ClientChannel {
 public:
  virtual ~ClientChannel() = default;

  // Unique per connection for the process's lifetime (never reused).
  virtual uint64_t id() const = 0;
  // "ip:port" of the peer.
  virtual const std::string& remote_address() const = 0;
  virtual bool alive() const = 0;
  virtual void Close() = 0;

  // --- broker -> client requests ---
  // NOTIFY_CONSUMER_IDS_CHANGED: the members of `group` changed; rebalance now.
  virtual void NotifyConsumerIdsChanged(std::string_view group) = 0;
  // CHECK_TRANSACTION_STATE (39, oneway): asks the producer to settle a half message.
  virtual void CheckTransactionState(const TransactionCheck& check) = 0;
};

using ChannelPtr = std::shared_ptr<ClientChannel>;

struct RequestContext {
  ChannelPtr channel;  // null for requests the broker makes itself
  // The caller's RocketMQ language code and MQVersion ordinal (from the request header).
  int32_t language = 0;
  int32_t version = 0;
  // The peer address as stored in BORNHOST.
  format::HostAddress born_host;
};

}  // namespace rocketstore::broker
