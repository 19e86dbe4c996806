// File: console/console.h
//
// Console: everything the web console of `rocketstore serve` runs, owned together — the
// rate sampler and its ServiceRunner (one step a second), the cluster probe and its
// ServiceRunner (one round every 5 s: the other brokers, console/cluster_probe.h), the
// JSON API and the HTTP server. apps/serve.cc starts it after the broker and stops it
// before the broker.
//
// Ownership: the broker and the clock must outlive the console.
// Thread-safety: Start/Stop from one owner thread.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/service_runner.h"
#include "broker/broker.h"
#include "console/cluster_probe.h"
#include "console/console_api.h"
#include "console/http_server.h"
#include "console/rate_sampler.h"

namespace rocketstore::console {

class Console {
 public:
  Console(broker::Broker& broker, Clock& clock, ConsoleOptions options);
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  Status Start();  // binds options.host:options.port (0 = any free port)
  void Stop();
  uint16_t port() const { return server_.port(); }
  std::string url() const;

 private:
  Clock& clock_;
  RateSampler sampler_;
  ServiceRunner runner_;
  ClusterProbe probe_;
  ServiceRunner probe_runner_;
  ConsoleApi api_;
  ConsoleServer server_;
};

}  // namespace rocketstore::console
