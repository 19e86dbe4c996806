#include "namesrv/name_server.h"

#include "base/clock.h"
#include "base/crc32.h"
#include "log/log.h"

namespace rocketstore::namesrv {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;

NameServer::NameServer(NameServerOptions options, Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      server_(std::make_unique<net::RemotingServer>([this] {
        net::ServerOptions o = options_.server;
        o.thread_name = "namesrv-io";
        return o;
      }())) {
  server_->RegisterHandler(
      ToInt(RequestCode::kRegisterBroker),
      [this](const net::ConnectionPtr& conn,
             RemotingCommand& req) -> std::optional<RemotingCommand> {
        if (Status s = req.RequireFields({"brokerName", "brokerAddr", "clusterName", "brokerId"});
            !s.ok()) {
          return protocol::MakeSystemErrorResponse(req, s);
        }
        auto crc = req.GetIntOr("bodyCrc32", 0);
        if (!crc.ok()) return protocol::MakeSystemErrorResponse(req, crc.status());
        std::vector<uint8_t> body = req.body.Flatten();
        if (*crc != 0 && static_cast<int64_t>(RocketMqCrc32(body.data(), body.size())) != *crc) {
          return protocol::MakeResponse(req, ResponseCode::kSystemError, "crc32 not match");
        }
        if (req.GetBoolOr("compressed", false)) {
          return protocol::MakeResponse(req, ResponseCode::kSystemError,
                                        "compressed registration is not supported");
        }
        BrokerRegistration reg;
        reg.broker_name = std::string(*req.FindField("brokerName"));
        reg.broker_addr = std::string(*req.FindField("brokerAddr"));
        reg.cluster_name = std::string(*req.FindField("clusterName"));
        auto id = req.GetInt("brokerId");
        if (!id.ok()) return protocol::MakeSystemErrorResponse(req, id.status());
        reg.broker_id = *id;
        reg.heartbeat_timeout_ms = req.GetIntOr("heartbeatTimeoutMillis", 120000).ok()
                                       ? *req.GetIntOr("heartbeatTimeoutMillis", 120000)
                                       : 120000;
        reg.connection_id = conn->id();
        if (!body.empty()) {
          Status s = ParseRegisterBody(
              std::string_view(reinterpret_cast<const char*>(body.data()), body.size()), reg);
          if (!s.ok()) return protocol::MakeSystemErrorResponse(req, s);
        }
        routes_.Register(reg, NowMs());
        RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
        resp.SetField("haServerAddr", "");
        resp.SetField("masterAddr", "");
        return resp;
      });
  server_->RegisterHandler(
      ToInt(RequestCode::kUnregisterBroker),
      [this](const net::ConnectionPtr&, RemotingCommand& req) -> std::optional<RemotingCommand> {
        if (Status s = req.RequireFields({"brokerAddr"}); !s.ok()) {
          return protocol::MakeSystemErrorResponse(req, s);
        }
        routes_.Unregister(std::string(req.FindField("clusterName").value_or("")),
                           std::string(req.FindField("brokerName").value_or("")),
                           std::string(*req.FindField("brokerAddr")),
                           req.GetIntOr("brokerId", 0).ok() ? *req.GetIntOr("brokerId", 0) : 0);
        return protocol::MakeResponse(req, ResponseCode::kSuccess);
      });
  server_->RegisterHandler(
      ToInt(RequestCode::kGetRouteinfoByTopic),
      [this](const net::ConnectionPtr&, RemotingCommand& req) -> std::optional<RemotingCommand> {
        auto topic = req.GetString("topic");
        if (!topic.ok()) return protocol::MakeSystemErrorResponse(req, topic.status());
        auto json = routes_.RouteJson(std::string(*topic));
        if (!json) {
          return protocol::MakeResponse(
              req, ResponseCode::kTopicNotExist,
              "No topic route info in name server for the topic: " + std::string(*topic));
        }
        RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
        resp.body.Assign(*json);
        return resp;
      });
  server_->RegisterHandler(
      ToInt(RequestCode::kGetBrokerClusterInfo),
      [this](const net::ConnectionPtr&, RemotingCommand& req) -> std::optional<RemotingCommand> {
        RemotingCommand resp = protocol::MakeResponse(req, ResponseCode::kSuccess);
        resp.body.Assign(routes_.ClusterInfoJson());
        return resp;
      });
  server_->SetCloseListener([this](const net::ConnectionPtr& conn) {
    int n = routes_.OnConnectionClosed(conn->id());
    if (n > 0) RS_LOG_INFO("namesrv: dropped brokers reason=connection_closed count={}", n);
  });
}

NameServer::~NameServer() { Stop(); }

Status NameServer::Start() {
  RS_RETURN_IF_ERROR(server_->Start());
  scan_runner_ = std::make_unique<ServiceRunner>(
      "namesrv-scan", std::chrono::milliseconds(options_.scan_interval_ms),
      [this] { RunScanStep(); });
  scan_runner_->Start();
  return Status::OK();
}

int NameServer::RunScanStep() {
  const int n = routes_.ScanInactive(NowMs());
  if (n > 0) RS_LOG_WARN("namesrv: dropped brokers reason=no_heartbeat count={}", n);
  return n;
}

void NameServer::Stop() {
  if (scan_runner_) scan_runner_->Stop();
  server_->Stop();
  scan_runner_.reset();
}

}  // namespace rocketstore::namesrv
