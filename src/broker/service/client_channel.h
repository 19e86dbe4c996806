// File: broker/service/client_channel.h
//
// ClientChannel: the broker's handle on one client connection, as the services see it.
// A service keeps the channel of a consumer or producer (consumer groups, held pulls,
// later transaction check-backs and offset resets) and calls it without knowing the
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
