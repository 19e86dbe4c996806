// File: broker/metrics/metrics_http_server.h
//
// MetricsHttpServer: the Prometheus endpoint, GET /metrics (text format 0.0.4), on its own
// cpp-httplib server and thread (RocketMQ 5's metricsPromExporterHost/Port; default
// 127.0.0.1:5557). Every other request gets a 4xx with a one-line message:
//   a method other than GET/HEAD on /metrics -> 405 (Allow: GET, HEAD)
//   any other path                          -> 404 "... try GET /metrics"
//   a request the HTTP parser rejects       -> 400 (cpp-httplib)
// The endpoint has no authentication: Start() binds where it is told and the broker logs a
// warning when that is not loopback.
//
// The body is produced by `render` on the server's single worker thread, once per scrape.
// Ownership: `render` must stay callable until Stop(). Thread-safety: Start/Stop from one
// owner; `render` runs on the server's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/status.h"

namespace httplib {
class Server;
}

namespace rocketstore::broker {

class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;
  explicit MetricsHttpServer(Render render);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Binds host:port (port 0: any free port, read it back with port()) and starts serving.
  // IOError naming the address when the bind fails (in use, bad host).
  Status Start(const std::string& host, uint16_t port);
  void Stop();
  uint16_t port() const { return port_; }

 private:
  Render render_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace rocketstore::broker
