// File: console/http_server.h
//
// ConsoleServer: the web console's HTTP server (cpp-httplib): GET of the embedded assets
// (console/assets.h; "/" is index.html) and /api/... through ConsoleApi. The adapter only
// moves bytes: it turns the HTTP request into a console::HttpRequest (path, method, and
// the query string and a form-encoded body as parameters) and the reply back. A request
// httplib cannot parse is answered 400 by httplib itself; an exception thrown anywhere
// becomes a 500 with a JSON error, never a crash. No authentication: Start() refuses
// nothing, but callers warn when the host is not loopback (apps/serve.cc does).
//
// Two worker threads (the console is for people, not for load).
// Thread-safety: Start/Stop from one owner thread. The API must outlive the server.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "base/status.h"
#include "console/console_api.h"

namespace httplib {
class Server;
}

namespace rocketstore::console {

class ConsoleServer {
 public:
  explicit ConsoleServer(ConsoleApi& api);
  ~ConsoleServer();
  ConsoleServer(const ConsoleServer&) = delete;
  ConsoleServer& operator=(const ConsoleServer&) = delete;

  // Binds host:port (port 0: any free port) and starts serving.
  Status Start(const std::string& host, uint16_t port);
  void Stop();
  uint16_t port() const { return port_; }

 private:
  ConsoleApi& api_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

// "host:port", ":port" or "port" -> host (default 127.0.0.1) and port. Port 0 = off.
struct ListenAddress {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
};
Result<ListenAddress> ParseListenAddress(const std::string& text);
bool IsLoopbackHost(const std::string& host);

}  // namespace rocketstore::console
