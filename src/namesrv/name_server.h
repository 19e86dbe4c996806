// File: namesrv/name_server.h
//
// NameServer: RouteTable, KvConfigStore and NamesrvRuntimeConfig behind a RemotingServer.
// Handles REGISTER_BROKER (103, plain or compressed body, CRC checked when bodyCrc32 != 0:
// mismatch → SYSTEM_ERROR "crc32 not match"), UNREGISTER_BROKER (104),
// GET_ROUTEINFO_BY_TOPIC (105; TOPIC_NOT_EXIST with Java's remark when unknown),
// GET_BROKER_CLUSTER_INFO (106), QUERY_DATA_VERSION (322) and the admin codes of
// namesrv/handlers.h (docs/protocol.md "Name server admin codes"). Every other code gets
// REQUEST_CODE_NOT_SUPPORTED. Start() loads kvConfig.json and the config store file. Brokers are
// dropped when their registering connection closes and by a 10 s scan for brokers silent past their
// heartbeat timeout (RunScanStep, a step run by a ServiceRunner; time from the Clock given at
// construction). Ownership: `clock` must outlive the server. Thread-safety: Start/Stop from one
// owner.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/service_runner.h"
#include "io/file_system.h"
#include "namesrv/kv_config.h"
#include "namesrv/namesrv_config.h"
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
  // Files (Java's NamesrvConfig kvConfigPath / configStorePath). Empty: kept in memory
  // only. `fs` null: PosixFileSystem::Default().
  FileSystem* fs = nullptr;
  std::string kv_config_path;
  std::string config_store_path;
};

class NameServer {
 public:
  explicit NameServer(NameServerOptions options, Clock& clock = Clock::Real());
  ~NameServer();
  Status Start();
  void Stop();
  uint16_t port() const { return server_->port(); }
  RouteTable& routes() { return routes_; }
  KvConfigStore& kv() { return kv_; }
  NamesrvRuntimeConfig& config() { return config_; }
  // Drops brokers silent past their heartbeat timeout; returns how many.
  int RunScanStep();

 private:
  int64_t NowMs() const { return clock_.MonotonicNanos() / 1000000; }
  NameServerOptions options_;
  Clock& clock_;
  RouteTable routes_;
  KvConfigStore kv_;
  NamesrvRuntimeConfig config_;
  std::unique_ptr<net::RemotingServer> server_;
  std::unique_ptr<ServiceRunner> scan_runner_;
};

}  // namespace rocketstore::namesrv
