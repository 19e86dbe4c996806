#include "broker/metrics/metrics_http_server.h"

#include <httplib.h>

#include "base/thread_name.h"

namespace rocketstore::broker {
namespace {
constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";
}

MetricsHttpServer::MetricsHttpServer(Render render) : render_(std::move(render)) {}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

Status MetricsHttpServer::Start(const std::string& host, uint16_t port) {
  if (server_) return FailedPrecondition("the metrics server is already started");
  auto server = std::make_unique<httplib::Server>();
  // One worker: scrapes are rare and serialised; no thread pool per core.
  server->new_task_queue = [] { return new httplib::ThreadPool(1); };
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second broker
  // on the same port would share it silently instead of failing to start.
  server->set_socket_options([](socket_t sock) {
    int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(render_(), kTextFormat);
  });
  auto not_allowed = [](const httplib::Request& req, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content("method " + req.method + " is not allowed on /metrics; use GET\n",
                    "text/plain");
  };
  server->Post("/metrics", not_allowed);
  server->Put("/metrics", not_allowed);
  server->Patch("/metrics", not_allowed);
  server->Delete("/metrics", not_allowed);
  server->Options("/metrics", not_allowed);
  server->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404) {
      res.set_content("no such endpoint: " + req.path + " (the metrics are at GET /metrics)\n",
                      "text/plain");
    } else if (res.body.empty()) {
      res.set_content("bad request (" + std::to_string(res.status) + ")\n", "text/plain");
    }
  });
  int bound = -1;
  if (port == 0) {
    bound = server->bind_to_any_port(host);
  } else if (server->bind_to_port(host, port)) {
    bound = port;
  }
  if (bound <= 0) {
    return Status(StatusCode::kIOError,
                  "cannot listen for metrics on " + host + ":" + std::to_string(port) +
                      " (address in use or not local?); set metricsPromExporterPort (0 = off)");
  }
  port_ = static_cast<uint16_t>(bound);
  server_ = std::move(server);
  thread_ = std::thread([s = server_.get()] {
    SetCurrentThreadName("metrics-http");
    s->listen_after_bind();
  });
  return Status::OK();
}

void MetricsHttpServer::Stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace rocketstore::broker
