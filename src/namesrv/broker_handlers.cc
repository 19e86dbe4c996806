#include "base/crc32.h"
#include "namesrv/handlers.h"
#include "namesrv/register_body.h"

namespace rocketstore::namesrv {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using Reply = std::optional<RemotingCommand>;

namespace {

std::string_view BodyText(const std::vector<uint8_t>& body) {
  return {reinterpret_cast<const char*>(body.data()), body.size()};
}

Reply HandleRegister(const NamesrvState& st, const net::ConnectionPtr& conn, RemotingCommand& req) {
  if (Status s = req.RequireFields({"brokerName", "brokerAddr", "clusterName", "brokerId"});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(req, s);
  }
  auto crc = req.GetIntOr("bodyCrc32", 0);
  if (!crc.ok()) return protocol::MakeSystemErrorResponse(req, crc.status());
  auto id = req.GetInt("brokerId");
  if (!id.ok()) return protocol::MakeSystemErrorResponse(req, id.status());
  auto timeout = req.GetIntOr("heartbeatTimeoutMillis", 120000);
  if (!timeout.ok()) return protocol::MakeSystemErrorResponse(req, timeout.status());
  std::vector<uint8_t> body = req.body.Flatten();
  // UtilAll.crc32 of the body, compared when the header carries a non-zero value.
  if (*crc != 0 && static_cast<int64_t>(RocketMqCrc32(body.data(), body.size())) != *crc) {
    return protocol::MakeResponse(req, ResponseCode::kSystemError, "crc32 not match");
  }
  BrokerRegistration reg;
  reg.broker_name = std::string(*req.FindField("brokerName"));
  reg.broker_addr = std::string(*req.FindField("brokerAddr"));
  reg.cluster_name = std::string(*req.FindField("clusterName"));
  reg.ha_server_addr = std::string(req.FindField("haServerAddr").value_or(""));
  reg.broker_id = *id;
  reg.heartbeat_timeout_ms = *timeout;
  reg.connection_id = conn ? conn->id() : 0;
  if (!body.empty()) {
    Status s = req.GetBoolOr("compressed", false) ? DecodeCompressedRegisterBody(body, reg)
                                                  : ParseRegisterBody(BodyText(body), reg);
    if (!s.ok()) {
      return protocol::MakeResponse(
          req, ResponseCode::kSystemError,
          "Failed to decode RegisterBrokerBody: " + s.message() + "; nothing was registered");
    }
  }
  RegisterResult result = st.routes.Register(reg, st.now_ms());
  RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
  if (result.master_addr) resp.SetField("masterAddr", *result.master_addr);
  if (result.ha_server_addr) resp.SetField("haServerAddr", *result.ha_server_addr);
  if (auto order = st.kv.NamespaceJson(kOrderTopicConfigNamespace)) resp.body.Assign(*order);
  return resp;
}

Reply HandleQueryDataVersion(const NamesrvState& st, RemotingCommand& req) {
  if (Status s = req.RequireFields({"brokerName", "brokerAddr", "clusterName", "brokerId"});
      !s.ok()) {
    return protocol::MakeSystemErrorResponse(req, s);
  }
  std::vector<uint8_t> body = req.body.Flatten();
  if (body.empty()) {
    return protocol::MakeResponse(req, ResponseCode::kSystemError,
                                  "QUERY_DATA_VERSION needs the broker's DataVersion as its body");
  }
  auto v = ParseDataVersion(BodyText(body));
  if (!v.ok()) return protocol::MakeSystemErrorResponse(req, v.status());
  const std::string addr(*req.FindField("brokerAddr"));
  const bool changed = st.routes.QueryDataVersion(addr, *v, st.now_ms());
  RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
  if (auto stored = st.routes.StoredDataVersion(addr)) resp.body.Assign(stored->ToJson());
  resp.SetBoolField("changed", changed);
  return resp;
}

}  // namespace

void RegisterBrokerHandlers(net::RemotingServer& server, const NamesrvState& st) {
  server.RegisterHandler(ToInt(RequestCode::kRegisterBroker),
                         [st](const net::ConnectionPtr& conn, RemotingCommand& req) -> Reply {
                           return HandleRegister(st, conn, req);
                         });
  server.RegisterHandler(ToInt(RequestCode::kUnregisterBroker),
                         [st](const net::ConnectionPtr&, RemotingCommand& req) -> Reply {
                           if (Status s = req.RequireFields({"brokerAddr"}); !s.ok()) {
                             return protocol::MakeSystemErrorResponse(req, s);
                           }
                           auto id = req.GetIntOr("brokerId", 0);
                           if (!id.ok()) return protocol::MakeSystemErrorResponse(req, id.status());
                           st.routes.Unregister(
                               std::string(req.FindField("clusterName").value_or("")),
                               std::string(req.FindField("brokerName").value_or("")),
                               std::string(*req.FindField("brokerAddr")), *id);
                           return protocol::MakeResponse(req, ResponseCode::kSuccess);
                         });
  server.RegisterHandler(ToInt(RequestCode::kQueryDataVersion),
                         [st](const net::ConnectionPtr&, RemotingCommand& req) -> Reply {
                           return HandleQueryDataVersion(st, req);
                         });
  server.RegisterHandler(ToInt(RequestCode::kGetRouteinfoByTopic),
                         [st](const net::ConnectionPtr&, RemotingCommand& req) -> Reply {
                           auto topic = req.GetString("topic");
                           if (!topic.ok())
                             return protocol::MakeSystemErrorResponse(req, topic.status());
                           const std::string name(*topic);
                           // Java fills orderTopicConf only when orderMessageEnable is on.
                           std::optional<std::string> order;
                           if (st.config.order_message_enable())
                             order = st.kv.Get(kOrderTopicConfigNamespace, name);
                           auto json = st.routes.RouteJson(name, order);
                           if (!json) {
                             return protocol::MakeResponse(
                                 req, ResponseCode::kTopicNotExist,
                                 "No topic route info in name server for the topic: " + name);
                           }
                           RemotingCommand resp =
                               protocol::MakeResponse(req, ResponseCode::kSuccess);
                           resp.body.Assign(*json);
                           return resp;
                         });
  server.RegisterHandler(ToInt(RequestCode::kGetBrokerClusterInfo),
                         [st](const net::ConnectionPtr&, RemotingCommand& req) -> Reply {
                           RemotingCommand resp =
                               protocol::MakeResponse(req, ResponseCode::kSuccess);
                           resp.body.Assign(st.routes.ClusterInfoJson());
                           return resp;
                         });
}

}  // namespace rocketstore::namesrv
