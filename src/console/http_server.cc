#include "console/http_server.h"

#include <httplib.h>

#include <atomic>
#include <charconv>
#include <exception>

#include "console/api_util.h"
#include "console/assets.h"
#include "console/request_parser.h"

namespace rocketstore::console {

namespace {

void Send(httplib::Response& res, const HttpReply& reply) {
  res.status = reply.status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(reply.body, "application/json; charset=utf-8");
}

}  // namespace

ConsoleServer::ConsoleServer(ConsoleApi& api) : api_(api) {}

ConsoleServer::~ConsoleServer() { Stop(); }

Status ConsoleServer::Start(const std::string& host, uint16_t port) {
  server_ = std::make_unique<httplib::Server>();
  httplib::Server& s = *server_;
  s.new_task_queue = [] { return new httplib::ThreadPool(2); };
  s.set_payload_max_length(64 * 1024);
  // httplib's default adds SO_REUSEPORT, which would let a second console (or anything)
  // bind the same port silently; SO_REUSEADDR alone still allows a quick restart.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  s.set_read_timeout(10, 0);
  auto api = [this](const httplib::Request& req, httplib::Response& res) {
    // Cross-site request forgery: the console has no authentication, so any web page the
    // operator opens could otherwise POST a form to it (browsers send simple cross-origin
    // POSTs without asking). A changing call must carry X-Rocketstore-Console, a header a
    // page of another origin cannot add without a CORS preflight (which is never granted),
    // and an Origin, when sent, must be this server's.
    if (req.method == "POST") {
      if (!req.has_header("X-Rocketstore-Console")) {
        Send(res, internal::ErrorReply(
                      403,
                      "a POST to the console API needs the header X-Rocketstore-Console "
                      "(the console's pages send it; with curl add -H "
                      "'X-Rocketstore-Console: 1'): cross-site request protection"));
        return;
      }
      const std::string origin = req.get_header_value("Origin");
      const std::string host = req.get_header_value("Host");
      if (!origin.empty() && origin != "http://" + host && origin != "https://" + host) {
        Send(res, internal::ErrorReply(403, "cross-origin POST refused: Origin " +
                                                origin.substr(0, 200) + " is not this console (" +
                                                host.substr(0, 200) + ")"));
        return;
      }
    }
    HttpRequest r;
    r.method = req.method;
    r.path = req.path;
    r.remote = req.remote_addr.find(':') != std::string::npos
                   ? "[" + req.remote_addr + "]:" + std::to_string(req.remote_port)
                   : req.remote_addr + ":" + std::to_string(req.remote_port);
    // The parameters are decoded here (console/request_parser.h), not by httplib: the
    // query string first, then a form-encoded body; the first value of a name wins. A
    // bad escape or a name or value that is not UTF-8 is a 400 naming it.
    const size_t q = req.target.find('?');
    Status decoded = q == std::string::npos
                         ? Status::OK()
                         : DecodeParams(std::string_view(req.target).substr(q + 1), &r.params);
    if (decoded.ok() && !req.body.empty()) {
      const std::string type = req.get_header_value("Content-Type");
      if (type.rfind("application/x-www-form-urlencoded", 0) != 0) {
        Send(res, internal::ErrorReply(
                      415, "the body must be application/x-www-form-urlencoded (got \"" +
                               type.substr(0, 100) +
                               "\"): send the parameters as a form or in the query string"));
        return;
      }
      decoded = DecodeParams(req.body, &r.params);
    }
    if (!decoded.ok()) {
      Send(res, internal::ErrorReply(400, decoded.message()));
      return;
    }
    Send(res, api_.Handle(r));
  };
  s.Get(R"(/api/.*)", api);
  s.Post(R"(/api/.*)", api);
  s.Delete(R"(/api/.*)", api);
  s.Put(R"(/api/.*)", api);
  s.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    const std::string path = req.path == "/" ? "/index.html" : req.path;
    const Asset* a = FindAsset(path);
    if (!a) {
      Send(res, internal::ErrorReply(
                    404, "no such page: " + path.substr(0, 200) + " (the console starts at /)"));
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_content(std::string(a->bytes), std::string(a->content_type).c_str());
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        Send(res, internal::ErrorReply(500, "the console failed on this request: " + what));
      });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler already answered (e.g. a JSON 404)
    Send(res, internal::ErrorReply(res.status, "bad request (HTTP " + std::to_string(res.status) +
                                                   "): check the method, path and parameters"));
  });
  int bound = port == 0 ? s.bind_to_any_port(host) : (s.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    server_.reset();
    return Status(StatusCode::kUnavailable,
                  "console cannot listen on " + host + ":" + std::to_string(port) +
                      " (in use or not an address here): pick another with --console-listen, "
                      "or 0 to turn the console off");
  }
  port_ = static_cast<uint16_t>(bound);
  auto exited = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([&s, exited] {
    s.listen_after_bind();
    exited->store(true);
  });
  // httplib's stop() does nothing until the accept loop runs (is_running), so a Stop()
  // right after Start() would leave the thread in accept forever: wait for it here (the
  // socket is already bound; this takes microseconds).
  while (!s.is_running() && !exited->load()) std::this_thread::yield();
  return Status::OK();
}

void ConsoleServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress a;
  std::string port = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    if (colon > 0) a.host = text.substr(0, colon);
    if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
      a.host = a.host.substr(1, a.host.size() - 2);
    }
    port = text.substr(colon + 1);
  }
  unsigned v = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || v > 65535) {
    return Status(StatusCode::kInvalidArgument,
                  "bad console address \"" + text + "\": use HOST:PORT, PORT, or 0 for off");
  }
  a.port = static_cast<uint16_t>(v);
  return a;
}

bool IsLoopbackHost(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost" || host.starts_with("127.");
}

}  // namespace rocketstore::console
