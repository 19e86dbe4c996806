#include "net/remoting_client.h"

#include <poll.h>

#include "net/remoting_server.h"
#include "net/tcp_connect.h"

namespace rocketstore::net {

using protocol::RemotingCommand;

RemotingClient::RemotingClient() : socket_(io_) {}
RemotingClient::~RemotingClient() { Close(); }

void RemotingClient::Close() {
  asio::error_code ec;
  if (socket_.is_open()) {
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
  buf_.clear();
}

Status RemotingClient::Connect(const std::string& address, int64_t timeout_ms) {
  Close();
  if (Status s = ConnectTcp(socket_, address, timeout_ms); !s.ok()) {
    Close();
    return s;
  }
  return Status::OK();
}

Status RemotingClient::WriteAll(const std::vector<std::span<const uint8_t>>& parts) {
  if (!socket_.is_open()) return Unavailable("not connected");
  for (auto part : parts) {
    size_t done = 0;
    while (done < part.size()) {
      asio::error_code ec;
      size_t n = socket_.write_some(asio::buffer(part.data() + done, part.size() - done), ec);
      if (ec == asio::error::would_block) {
        pollfd p{socket_.native_handle(), POLLOUT, 0};
        if (::poll(&p, 1, 5000) <= 0) {
          Close();
          return DeadlineExceeded("write timed out");
        }
        continue;
      }
      if (ec) {
        Close();
        return Unavailable("write: " + ec.message());
      }
      done += n;
    }
  }
  return Status::OK();
}

Status RemotingClient::SendRaw(std::span<const uint8_t> bytes) { return WriteAll({bytes}); }

Result<RemotingCommand> RemotingClient::ReadFrame(int64_t deadline_ms) {
  uint8_t tmp[64 * 1024];
  while (true) {
    if (!buf_.empty()) {
      auto decoded = protocol::DecodeFrame(buf_);
      if (!decoded.ok()) {
        Close();
        return decoded.status();
      }
      if (decoded->complete) {
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(decoded->consumed));
        return std::move(decoded->command);
      }
    }
    if (!socket_.is_open()) return Unavailable("not connected");
    const int64_t left = deadline_ms - SteadyNowMillis();
    if (left <= 0) {
      Close();
      return DeadlineExceeded("timed out waiting for a frame");
    }
    pollfd p{socket_.native_handle(), POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r == 0) continue;
    if (r < 0) continue;
    asio::error_code ec;
    size_t n = socket_.read_some(asio::buffer(tmp, sizeof(tmp)), ec);
    if (ec == asio::error::would_block) continue;
    if (ec) {
      Close();
      return Unavailable("connection closed: " + ec.message());
    }
    buf_.insert(buf_.end(), tmp, tmp + n);
  }
}

Result<RemotingCommand> RemotingClient::Invoke(RemotingCommand request, int64_t timeout_ms) {
  request.opaque = next_opaque_++;
  request.flag &= ~(protocol::kFlagOneway | protocol::kFlagResponse);
  auto frame = protocol::EncodeFrame(request);
  if (!frame.ok()) return frame.status();
  RS_RETURN_IF_ERROR(WriteAll(frame->GatherList()));
  const int64_t deadline = SteadyNowMillis() + timeout_ms;
  while (true) {
    RS_ASSIGN_OR_RETURN(RemotingCommand cmd, ReadFrame(deadline));
    if (!cmd.IsResponse()) {
      server_requests_.push_back(std::move(cmd));
      continue;
    }
    if (cmd.opaque == request.opaque) return cmd;
  }
}

Status RemotingClient::InvokeOneway(RemotingCommand request) {
  request.opaque = next_opaque_++;
  request.MarkOneway();
  auto frame = protocol::EncodeFrame(request);
  if (!frame.ok()) return frame.status();
  return WriteAll(frame->GatherList());
}

bool RemotingClient::WaitPeerClosed(int64_t timeout_ms) {
  const int64_t deadline = SteadyNowMillis() + timeout_ms;
  while (socket_.is_open()) {
    auto r = ReadFrame(deadline);
    if (!r.ok()) return r.status().code() != StatusCode::kDeadlineExceeded;
  }
  return true;
}

Result<RemotingCommand> RemotingClient::WaitServerRequest(int64_t timeout_ms) {
  const int64_t deadline = SteadyNowMillis() + timeout_ms;
  while (server_requests_.empty()) {
    RS_ASSIGN_OR_RETURN(RemotingCommand cmd, ReadFrame(deadline));
    if (!cmd.IsResponse()) server_requests_.push_back(std::move(cmd));
  }
  RemotingCommand cmd = std::move(server_requests_.front());
  server_requests_.erase(server_requests_.begin());
  return cmd;
}

std::vector<RemotingCommand> RemotingClient::TakeServerRequests() {
  return std::exchange(server_requests_, {});
}

}  // namespace rocketstore::net
