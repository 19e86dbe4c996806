#include "protocol/headers/namesrv_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

Result<RegisterBrokerRequestHeader> RegisterBrokerRequestHeader::Decode(
    const RemotingCommand& cmd) {
  RegisterBrokerRequestHeader h;
  FieldReader r(cmd);
  r.Required("brokerName", &h.broker_name);
  r.Required("brokerAddr", &h.broker_addr);
  r.Required("clusterName", &h.cluster_name);
  r.Required("haServerAddr", &h.ha_server_addr);
  r.Required("brokerId", &h.broker_id);
  r.Optional("heartbeatTimeoutMillis", &h.heartbeat_timeout_millis);
  r.Optional("enableActingMaster", &h.enable_acting_master);
  r.OrKeep("compressed", &h.compressed);
  r.OrKeep("bodyCrc32", &h.body_crc32);
  if (!r.status().ok()) return r.status();
  return h;
}

void RegisterBrokerRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("brokerName", broker_name);
  cmd.SetField("brokerAddr", broker_addr);
  cmd.SetField("clusterName", cluster_name);
  cmd.SetField("haServerAddr", ha_server_addr);
  cmd.SetIntField("brokerId", broker_id);
  PutOptional(cmd, "heartbeatTimeoutMillis", heartbeat_timeout_millis);
  PutOptional(cmd, "enableActingMaster", enable_acting_master);
  cmd.SetBoolField("compressed", compressed);
  cmd.SetIntField("bodyCrc32", body_crc32);
}

Result<RegisterBrokerResponseHeader> RegisterBrokerResponseHeader::Decode(
    const RemotingCommand& cmd) {
  RegisterBrokerResponseHeader h;
  FieldReader r(cmd);
  r.Optional("haServerAddr", &h.ha_server_addr);
  r.Optional("masterAddr", &h.master_addr);
  if (!r.status().ok()) return r.status();
  return h;
}

void RegisterBrokerResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  PutOptional(cmd, "haServerAddr", ha_server_addr);
  PutOptional(cmd, "masterAddr", master_addr);
}

Result<UnregisterBrokerRequestHeader> UnregisterBrokerRequestHeader::Decode(
    const RemotingCommand& cmd) {
  UnregisterBrokerRequestHeader h;
  FieldReader r(cmd);
  r.Required("brokerName", &h.broker_name);
  r.Required("brokerAddr", &h.broker_addr);
  r.Required("clusterName", &h.cluster_name);
  r.Required("brokerId", &h.broker_id);
  if (!r.status().ok()) return r.status();
  return h;
}

void UnregisterBrokerRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("brokerName", broker_name);
  cmd.SetField("brokerAddr", broker_addr);
  cmd.SetField("clusterName", cluster_name);
  cmd.SetIntField("brokerId", broker_id);
}

Result<GetRouteInfoRequestHeader> GetRouteInfoRequestHeader::Decode(const RemotingCommand& cmd) {
  GetRouteInfoRequestHeader h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  r.Optional("acceptStandardJsonOnly", &h.accept_standard_json_only);
  if (!r.status().ok()) return r.status();
  return h;
}

void GetRouteInfoRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  PutOptional(cmd, "acceptStandardJsonOnly", accept_standard_json_only);
}

}  // namespace rocketstore::protocol
