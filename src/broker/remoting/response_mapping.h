// File: broker/remoting/response_mapping.h
//
// The one place where a service's Outcome becomes a RocketMQ remoting response code.
#pragma once

#include "broker/service/outcome.h"
#include "protocol/remoting_command.h"

namespace rocketstore::broker {

protocol::ResponseCode ToResponseCode(Outcome outcome);

// The response to `request` for `verdict`: its code, and its remark when not empty.
protocol::RemotingCommand ReplyTo(const protocol::RemotingCommand& request, const Verdict& verdict);

}  // namespace rocketstore::broker
