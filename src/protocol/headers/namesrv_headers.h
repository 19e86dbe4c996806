// File: protocol/headers/namesrv_headers.h
//
// Typed custom headers of the name server's requests: REGISTER_BROKER (103) and its
// response, UNREGISTER_BROKER (104), GET_ROUTEINFO_BY_TOPIC (105). Field tables from
// 4.9.8's common/protocol/header/namesrv/*.java, plus the 5.x additions noted.
//
// Decode / EncodeTo, errors and defaults: as specified in protocol/headers/send_headers.h.
// Each member's comment gives its wire name, whether it is required and its default.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

struct RegisterBrokerRequestHeader {
  std::string broker_name;                          // "brokerName", required
  std::string broker_addr;                          // "brokerAddr", required ("ip:port")
  std::string cluster_name;                         // "clusterName", required
  std::string ha_server_addr;                       // "haServerAddr", required
  int64_t broker_id = 0;                            // "brokerId", required (0 = master)
  std::optional<int64_t> heartbeat_timeout_millis;  // "heartbeatTimeoutMillis", optional (5.x)
  std::optional<bool> enable_acting_master;         // "enableActingMaster", optional (5.x)
  bool compressed = false;  // "compressed", optional, default false (body zlib-compressed)
  int32_t body_crc32 = 0;   // "bodyCrc32", optional, default 0 (0 = not checked)

  friend bool operator==(const RegisterBrokerRequestHeader&,
                         const RegisterBrokerRequestHeader&) = default;
  static Result<RegisterBrokerRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct RegisterBrokerResponseHeader {
  std::optional<std::string> ha_server_addr;  // "haServerAddr", optional
  std::optional<std::string> master_addr;     // "masterAddr", optional

  friend bool operator==(const RegisterBrokerResponseHeader&,
                         const RegisterBrokerResponseHeader&) = default;
  static Result<RegisterBrokerResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct UnregisterBrokerRequestHeader {
  std::string broker_name;   // "brokerName", required
  std::string broker_addr;   // "brokerAddr", required
  std::string cluster_name;  // "clusterName", required
  int64_t broker_id = 0;     // "brokerId", required

  friend bool operator==(const UnregisterBrokerRequestHeader&,
                         const UnregisterBrokerRequestHeader&) = default;
  static Result<UnregisterBrokerRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetRouteInfoRequestHeader {
  std::string topic;  // "topic", required
  // "acceptStandardJsonOnly", optional: the client parses only standard JSON (no bare
  // non-string map keys) in the route body.
  std::optional<bool> accept_standard_json_only;

  friend bool operator==(const GetRouteInfoRequestHeader&,
                         const GetRouteInfoRequestHeader&) = default;
  static Result<GetRouteInfoRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
