#include "net/tcp_connect.h"

#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>

namespace rocketstore::net {

Status ConnectTcp(asio::ip::tcp::socket& socket, const std::string& address, int64_t timeout_ms) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return InvalidArgument("address needs host:port: " + address);
  asio::error_code ec;
  auto ip = asio::ip::make_address(address.substr(0, colon), ec);
  if (ec) return InvalidArgument("bad host in " + address);
  const int port = std::atoi(address.c_str() + colon + 1);
  if (port <= 0 || port > 65535) return InvalidArgument("bad port in " + address);
  asio::ip::tcp::endpoint ep(ip, static_cast<uint16_t>(port));
  socket.open(ep.protocol(), ec);
  if (ec) return Unavailable("socket: " + ec.message());
  socket.non_blocking(true, ec);
  socket.connect(ep, ec);
  if (ec == asio::error::would_block || ec == asio::error::in_progress) {
    pollfd p{socket.native_handle(), POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(timeout_ms)) <= 0) {
      socket.close(ec);
      return DeadlineExceeded("connect to " + address + " timed out");
    }
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(socket.native_handle(), SOL_SOCKET, SO_ERROR, &err, &len);
    ec = err ? asio::error_code(err, asio::system_category()) : asio::error_code();
  }
  if (ec) {
    asio::error_code ignored;
    socket.close(ignored);
    return Unavailable("connect to " + address + ": " + ec.message());
  }
  socket.set_option(asio::ip::tcp::no_delay(true), ec);
  return Status::OK();
}

}  // namespace rocketstore::net
