// File: client/transport.h
//
// Transport: the client library's connections. One I/O thread runs an asio::io_context;
// one net::AsyncRemotingClient per remote address is opened on first use and replaced when
// it has closed (a broker restart costs the requests in flight, not the client).
//
//   Invoke(addr, request, timeout)        blocks until the answer (or the error)
//   InvokeAsync(addr, request, cb, timeout) cb runs exactly once, on the I/O thread
//   InvokeOneway(addr, request)            fire and forget
//
// Server → client requests (NOTIFY_CONSUMER_IDS_CHANGED, RESET_CONSUMER_CLIENT_OFFSET, ...)
// go to the hook given at construction, on the I/O thread.
//
// Ownership: owns its connections and the I/O thread (joined by the destructor).
// Thread-safety: every method from any thread, except that Invoke must not be called from
// an InvokeAsync callback or the server-request hook (it would wait on its own thread).
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "net/async_remoting_client.h"
#include "protocol/remoting_command.h"

namespace rocketstore::client {

class Transport {
 public:
  using ServerRequestHook = std::function<void(const std::string& addr, protocol::RemotingCommand)>;
  using Callback = net::AsyncRemotingClient::Callback;

  explicit Transport(ServerRequestHook hook = {}, int64_t connect_timeout_ms = 3000);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  Result<protocol::RemotingCommand> Invoke(const std::string& addr,
                                           protocol::RemotingCommand request, int64_t timeout_ms);
  Status InvokeAsync(const std::string& addr, protocol::RemotingCommand request, Callback cb,
                     int64_t timeout_ms);
  Status InvokeOneway(const std::string& addr, protocol::RemotingCommand request);
  // Answers a server → client request that arrived from addr (the hook's command), on the
  // connection it came on; kUnavailable if that connection has closed.
  Status Respond(const std::string& addr, protocol::RemotingCommand response);
  // Closes the connection to addr (the next call reconnects).
  void Drop(const std::string& addr);

 private:
  Result<std::shared_ptr<net::AsyncRemotingClient>> Get(const std::string& addr);

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread io_thread_;
  ServerRequestHook hook_;
  int64_t connect_timeout_ms_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<net::AsyncRemotingClient>> conns_;
};

}  // namespace rocketstore::client
