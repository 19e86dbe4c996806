// File: broker/broker_internal.h
//
// What the broker's handler files share (broker.cc: lifecycle, clients, offsets, topics,
// queries; broker_send.cc: SEND_MESSAGE*; broker_pull.cc: PULL_MESSAGE and long
// polling). Internal to broker/.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "protocol/remoting_command.h"
#include "protocol/response_code.h"

namespace rocketstore::broker::internal {

using Reply = std::optional<protocol::RemotingCommand>;

inline protocol::RemotingCommand Resp(const protocol::RemotingCommand& req,
                                      protocol::ResponseCode code) {
  return protocol::MakeResponse(req, code);
}
inline protocol::RemotingCommand Resp(const protocol::RemotingCommand& req,
                                      protocol::ResponseCode code, std::string remark) {
  return protocol::MakeResponse(req, code, std::move(remark));
}

}  // namespace rocketstore::broker::internal
