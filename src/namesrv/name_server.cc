#include "namesrv/name_server.h"

#include "base/clock.h"
#include "io/posix_file_system.h"
#include "log/log.h"
#include "namesrv/handlers.h"

namespace rocketstore::namesrv {
namespace {
FileSystem* FsOr(FileSystem* fs) { return fs != nullptr ? fs : &PosixFileSystem::Default(); }
}  // namespace

NameServer::NameServer(NameServerOptions options, Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      kv_(FsOr(options_.fs), options_.kv_config_path),
      config_(FsOr(options_.fs), options_.kv_config_path, options_.config_store_path),
      server_(std::make_unique<net::RemotingServer>([this] {
        net::ServerOptions o = options_.server;
        o.thread_name = "namesrv-io";
        return o;
      }())) {
  const NamesrvState state{routes_, kv_, config_, [this] { return NowMs(); }};
  RegisterBrokerHandlers(*server_, state);
  RegisterAdminHandlers(*server_, state);
  server_->SetCloseListener([this](const net::ConnectionPtr& conn) {
    int n = routes_.OnConnectionClosed(conn->id());
    if (n > 0) RS_LOG_INFO("namesrv: dropped brokers reason=connection_closed count={}", n);
  });
}

NameServer::~NameServer() { Stop(); }

Status NameServer::Start() {
  RS_RETURN_IF_ERROR(kv_.Load());
  RS_RETURN_IF_ERROR(config_.Load());
  RS_RETURN_IF_ERROR(server_->Start());
  config_.set_listen_port(server_->port());
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
