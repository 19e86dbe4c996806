// File: apps/serve.h
//
// Entry points of the `rocketstore serve|namesrv|broker` subcommands. Each starts its
// servers, blocks until SIGINT or SIGTERM, shuts down cleanly (broker: offsets persisted,
// store closed so its abort file is removed) and returns a process exit code (0 = clean).
// Binding to anything but loopback is logged. A second broker on the same store directory
// fails at start (the store's directory lock) with the store's message.
#pragma once

#include <cstdint>
#include <string>

namespace rocketstore::apps {

struct RunOptions {
  std::string host = "127.0.0.1";
  uint16_t namesrv_port = 9876;
  uint16_t broker_port = 10911;
  std::string store_dir = "./data";
  std::string namesrv_addrs;  // "host:port[;host:port]" (broker only)
  std::string cluster_name = "DefaultCluster";
  std::string broker_name = "broker-a";
  bool auto_create_topic = true;
  bool sync_flush = false;
  // RocketMQ-style broker.conf (broker/broker_conf.h). Applied first; then every flag
  // above whose value differs from its default overrides it.
  std::string config_file;
  // Logging: trace|debug|info|warn|error|off; the file (default: <store>/logs/
  // rocketstore.log for serve and broker; "-" = stderr only).
  std::string log_level = "info";
  std::string log_file;
  // The web console (serve only): HOST:PORT or PORT; 0 = off. No authentication: a
  // non-loopback host is warned about at start. broker.conf keys consoleListen and
  // consoleReadOnly (true/false) set them too; a flag that differs from its default wins.
  std::string console_listen = "127.0.0.1:8080";
  bool console_read_only = false;  // every mutating console endpoint answers 403
};

int RunServe(const RunOptions& options);
int RunNamesrv(const RunOptions& options);
int RunBroker(const RunOptions& options);

}  // namespace rocketstore::apps
