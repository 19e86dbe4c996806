// File: net/tcp_connect.h
//
// ConnectTcp: the clients' one way to open a connection. Parses "host:port" (an IP
// literal; names are not resolved), connects the given socket with a timeout (a
// non-blocking connect, then poll), and turns on TCP_NODELAY. The socket is left open and
// non-blocking on success and closed on failure.
// Errors: kInvalidArgument for a bad address, kDeadlineExceeded on timeout, kUnavailable
// when the connection is refused or the socket cannot be made.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace rocketstore::net {

Status ConnectTcp(asio::ip::tcp::socket& socket, const std::string& address, int64_t timeout_ms);

}  // namespace rocketstore::net
