// File: broker/remoting/client_calls.h
//
// ClientCalls: the broker's outstanding requests to clients that expect an answer
// (PUSH_REPLY_MESSAGE_TO_CLIENT; later GET_CONSUMER_RUNNING_INFO and the like) — what
// RocketMQ's Broker2Client.callClient does with invokeSync, without blocking a thread.
//
//   * Call stamps the request with the broker's own opaque counter (one per broker, as
//     Java's), remembers the callback and queues the frame on the connection.
//   * A response frame on that connection with that opaque completes the call
//     (OnResponse; Attach makes the connection deliver its response frames here). A
//     response nobody waits for (late, unknown opaque, other connection) is dropped.
//   * RunOnce(now_ms) fails the calls whose deadline (timeout_ms after Call, 10 s as
//     Java's callClient) has passed with kDeadlineExceeded; OnConnectionClosed fails
//     the connection's calls with kUnavailable. A call on a closed connection fails at
//     once. Each callback runs exactly once, outside the lock, on the thread that
//     completed it (an io thread, the runner's, or Call's caller).
//
// Time: deadlines on the Clock's monotonic time (NowMs), so a FakeClock steps them.
// Ownership: must outlive the connections it was attached to and the server's io threads.
// Thread-safety: every method from any thread (one internal mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "base/clock.h"
#include "base/result.h"
#include "net/remoting_server.h"
#include "protocol/remoting_command.h"

namespace rocketstore::broker {

class ClientCalls {
 public:
  using Callback = std::function<void(Result<protocol::RemotingCommand>)>;
  static constexpr int64_t kDefaultTimeoutMs = 10000;

  explicit ClientCalls(Clock& clock, int64_t timeout_ms = kDefaultTimeoutMs)
      : clock_(clock), timeout_ms_(timeout_ms) {}
  // Fails what is still pending with kUnavailable.
  ~ClientCalls();
  ClientCalls(const ClientCalls&) = delete;
  ClientCalls& operator=(const ClientCalls&) = delete;

  // Routes `conn`'s response frames to OnResponse. Call on the connection's io thread.
  void Attach(const net::ConnectionPtr& conn);
  void Call(const net::ConnectionPtr& conn, protocol::RemotingCommand request, Callback done);
  void OnResponse(uint64_t conn_id, protocol::RemotingCommand response);
  void OnConnectionClosed(uint64_t conn_id);
  // Expires overdue calls; returns how many.
  int RunOnce(int64_t now_ms);

  int64_t NowMs() const { return clock_.MonotonicNanos() / 1000000; }
  size_t pending() const;

 private:
  struct Pending {
    uint64_t conn_id = 0;
    int64_t deadline_ms = 0;
    Callback done;
  };
  // Removes and returns the call `opaque` when it belongs to `conn_id`.
  Callback Take(int32_t opaque, uint64_t conn_id);

  Clock& clock_;
  const int64_t timeout_ms_;
  mutable std::mutex mu_;
  std::unordered_map<int32_t, Pending> pending_;  // opaque -> call
  int32_t next_opaque_ = 0;
};

}  // namespace rocketstore::broker
