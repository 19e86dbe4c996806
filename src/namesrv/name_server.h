// File: namesrv/name_server.h
//
// NameServer: RouteTable behind a RemotingServer. Handles REGISTER_BROKER (103, body CRC
// checked when bodyCrc32 != 0: mismatch → SYSTEM_ERROR "crc32 not match"),
// UNREGISTER_BROKER (104), GET_ROUTEINFO_BY_TOPIC (105; TOPIC_NOT_EXIST with Java's remark
// when unknown), GET_BROKER_CLUSTER_INFO (106). Every other code gets
// REQUEST_CODE_NOT_SUPPORTED. Brokers are dropped when their registering connection closes
// and by a 10 s scan for brokers silent past their heartbeat timeout.
// Thread-safety: Start/Stop from one owner.
#pragma once

#include <memory>

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
  explicit NameServer(NameServerOptions options);
  ~NameServer();
  Status Start();
  void Stop();
  uint16_t port() const { return server_->port(); }
  RouteTable& routes() { return routes_; }

 private:
  void ArmScan();
  NameServerOptions options_;
  RouteTable routes_;
  std::unique_ptr<net::RemotingServer> server_;
  std::unique_ptr<asio::steady_timer> scan_timer_;
};

}  // namespace rocketstore::namesrv
