// File: namesrv/name_server.h
//
// NameServer: RouteTable behind a RemotingServer. Handles REGISTER_BROKER (103, body CRC
// checked when bodyCrc32 != 0: mismatch → SYSTEM_ERROR "crc32 not match"),
// UNREGISTER_BROKER (104), GET_ROUTEINFO_BY_TOPIC (105; TOPIC_NOT_EXIST with Java's remark
// when unknown), GET_BROKER_CLUSTER_INFO (106). Every other code gets
// REQUEST_CODE_NOT_SUPPORTED. Brokers are dropped when their registering connection closes
// and by a 10 s scan for brokers silent past their heartbeat timeout (RunScanStep, a step
// run by a ServiceRunner; time from the Clock given at construction).
// Ownership: `clock` must outlive the server. Thread-safety: Start/Stop from one owner.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/service_runner.h"
#include "namesrv/route_table.h"
#include "net/remoting_server.h"

namespace rocketstore::namesrv {

struct NameServerOptions {
  net::ServerOptions server = DefaultServerOptions();
  static net::ServerOptions DefaultServerOptions() {
    net::ServerOptions o;
    o.port = 9876;
    return o;
  }
  int64_t scan_interval_ms = 10000;
};

class NameServer {
 public:
  explicit NameServer(NameServerOptions options, Clock& clock = Clock::Real());
  ~NameServer();
  Status Start();
  void Stop();
  uint16_t port() const { return server_->port(); }
  RouteTable& routes() { return routes_; }
  // Drops brokers silent past their heartbeat timeout; returns how many.
  int RunScanStep();

 private:
  int64_t NowMs() const { return clock_.MonotonicNanos() / 1000000; }
  NameServerOptions options_;
  Clock& clock_;
  RouteTable routes_;
  std::unique_ptr<net::RemotingServer> server_;
  std::unique_ptr<ServiceRunner> scan_runner_;
};

}  // namespace rocketstore::namesrv
