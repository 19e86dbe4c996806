// File: net/remoting_client.h
//
// RemotingClient: a blocking, single-connection client of the remoting protocol, for the
// broker's registration with name servers and for tests.
//
// Contract:
//   * Connect("host:port", timeout) opens one TCP connection (Asio, error_code overloads).
//   * Invoke(request, timeout) stamps a fresh opaque, writes the frame (gather list) and
//     reads frames until the response with that opaque arrives. Other responses are
//     dropped; server → client requests (e.g. NOTIFY_CONSUMER_IDS_CHANGED) are appended to
//     the list returned by TakeServerRequests(). A timeout is kDeadlineExceeded and, like
//     the Java and ali-ons clients, closes the connection.
//   * InvokeOneway writes a oneway frame and returns.
//   * SendRaw writes arbitrary bytes (robustness tests); IsPeerClosed(timeout) waits for EOF.
//   * Any I/O or decode error closes the connection; later calls fail with kUnavailable.
// Thread-safety: one thread at a time.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "protocol/frame_codec.h"
#include "protocol/remoting_command.h"

namespace rocketstore::net {

class RemotingClient {
 public:
  RemotingClient();
  ~RemotingClient();

  Status Connect(const std::string& address, int64_t timeout_ms = 3000);
  bool connected() const { return socket_.is_open(); }
  void Close();

  Result<protocol::RemotingCommand> Invoke(protocol::RemotingCommand request,
                                           int64_t timeout_ms = 3000);
  Status InvokeOneway(protocol::RemotingCommand request);
  Status SendRaw(std::span<const uint8_t> bytes);
  // True when the server closed the connection within timeout_ms.
  bool WaitPeerClosed(int64_t timeout_ms);
  // Reads frames until one server request arrives or timeout; returns it.
  Result<protocol::RemotingCommand> WaitServerRequest(int64_t timeout_ms);
  std::vector<protocol::RemotingCommand> TakeServerRequests();

 private:
  Status WriteAll(const std::vector<std::span<const uint8_t>>& parts);
  // Reads one frame within deadline (steady ms).
  Result<protocol::RemotingCommand> ReadFrame(int64_t deadline_ms);

  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  std::vector<uint8_t> buf_;
  int32_t next_opaque_ = 1;
  std::vector<protocol::RemotingCommand> server_requests_;
};

}  // namespace rocketstore::net
