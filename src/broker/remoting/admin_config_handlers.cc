// Admin part A, broker configuration: UPDATE_BROKER_CONFIG (25), GET_BROKER_CONFIG (26),
// GET_BROKER_RUNTIME_INFO (28).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

// AdminBrokerProcessor.updateBrokerConfig, with the allow-list of BrokerConfigService. A
// change the routes show (brokerPermission) is answered after the registration round.
RemotingFrontend::Reply RemotingFrontend::OnUpdateBrokerConfig(const Conn& conn, Cmd& r) {
  const std::vector<uint8_t> body = r.body.Flatten();
  auto now = s_.admin->config->Update(
      std::string_view(reinterpret_cast<const char*>(body.data()), body.size()),
      [conn, stub = RequestStub(r)](Verdict v) { conn->SendResponse(stub, ReplyTo(stub, v)); });
  if (now) return ReplyTo(r, *now);
  return std::nullopt;
}

// Body: the properties text; header "version": the config's DataVersion JSON.
RemotingFrontend::Reply RemotingFrontend::OnGetBrokerConfig(Cmd& r) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(s_.admin->config->Text());
  protocol::GetBrokerConfigResponseHeader{s_.admin->config->DataVersionJson()}.EncodeTo(resp);
  return resp;
}

// Body: KVTable {"table":{...}}.
RemotingFrontend::Reply RemotingFrontend::OnGetBrokerRuntimeInfo(Cmd& r) {
  protocol::KVTable table;
  table.table = s_.admin->runtime->Collect();
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(table.Encode());
  return resp;
}

}  // namespace rocketstore::broker
