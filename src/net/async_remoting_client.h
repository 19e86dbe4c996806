// File: net/async_remoting_client.h
//
// AsyncRemotingClient: one TCP connection speaking the remoting protocol with many
// requests in flight (pipelining), on standalone Asio. The synchronous RemotingClient
// waits for each answer; this one matches answers to requests by opaque, so responses may
// arrive in any order.
//
// Contract:
//   * Connect("host:port", timeout) opens the connection (blocking, at most once) and
//     starts reading on the io_context given to the constructor; someone must run it.
//   * Send(request, callback, timeout) stamps a fresh opaque and queues the frame. If it
//     returns OK the callback runs exactly once: with the response, with
//     kDeadlineExceeded when none arrived within timeout_ms (a late response is dropped;
//     the connection stays open), or with kUnavailable when the connection closes first.
//     If Send returns an error (not connected, closed, frame cannot be encoded) the
//     callback is never called. SendOneway queues a oneway frame; nothing answers it.
//   * Writes are coalesced: frames queued while a write is in progress go out together
//     in the next write. Reads decode every whole frame in the read buffer
//     (protocol::DecodeFrame) before reading again.
//   * Frames from the server that are requests (e.g. NOTIFY_CONSUMER_IDS_CHANGED) go to the
//     hook set with SetServerRequestHook, or are dropped.
//   * An I/O error, EOF or undecodable frame closes the connection; Close() closes it on
//     request. Either way every pending callback gets kUnavailable with the reason, and
//     later Sends fail with it.
//
// Ownership: the client owns its socket; the io_context must outlive it. Callbacks run on
// the io_context's threads (serialised by a strand), except those failed by Close(), which
// run on the thread calling Close() (and ~AsyncRemotingClient, which calls Close()). A
// callback may call Send again (that is how a closed-loop producer keeps its window full).
// Errors are values; every Asio call uses its error_code overload.
// Thread-safety: Send, SendOneway, Close, pending() from any thread. Connect and
// SetServerRequestHook once, before anything else.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/status.h"
#include "protocol/frame_codec.h"
#include "protocol/remoting_command.h"

namespace rocketstore::net {

struct AsyncClientOptions {
  int64_t default_timeout_ms = 3000;
  // How often requests are checked for timeouts (the timeout resolution).
  int64_t timeout_check_interval_ms = 20;
  protocol::Limits limits;
};

class AsyncRemotingClient {
 public:
  using Callback = std::function<void(Result<protocol::RemotingCommand>)>;

  explicit AsyncRemotingClient(asio::io_context& io, AsyncClientOptions options = {});
  ~AsyncRemotingClient();
  AsyncRemotingClient(const AsyncRemotingClient&) = delete;
  AsyncRemotingClient& operator=(const AsyncRemotingClient&) = delete;

  Status Connect(const std::string& address, int64_t timeout_ms = 3000);
  void SetServerRequestHook(std::function<void(protocol::RemotingCommand)> hook);

  // timeout_ms < 0 means options.default_timeout_ms.
  Status Send(protocol::RemotingCommand request, Callback callback, int64_t timeout_ms = -1);
  Status SendOneway(protocol::RemotingCommand request);
  // Answers a request the server sent (a server-request hook's command): `response` keeps
  // the opaque it was given (the request's) and is marked a response.
  Status SendResponse(protocol::RemotingCommand response);
  // Closes the connection and fails every pending callback with kUnavailable. Idempotent.
  void Close();

  bool connected() const;
  size_t pending() const;  // requests sent and not yet answered, timed out or failed

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;  // shared with in-flight Asio handlers
};

}  // namespace rocketstore::net
