// File: protocol/json_util.h
//
// Helpers for RocketMQ's fastjson text, shared by the name server (REGISTER_BROKER
// bodies) and the broker (config/*.json written by a Java broker).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace rocketstore::protocol {

// Rewrites fastjson's unquoted integer object keys ({0:"a"}) as quoted ones so a strict
// JSON parser accepts the text. Strings are left untouched.
std::string QuoteBareIntegerKeys(std::string_view json);

// Rewrites fastjson's bare object keys ({{"queueId":0,"topic":"T"}:5}, a map keyed by a
// MessageQueue) as JSON strings holding the key's text ({"{\"queueId\":0,\"topic\":\"T\"}":5}),
// so a strict parser accepts the text; parse each key again to read its members.
// Unbalanced text is returned as far as it goes (the parser then reports it).
std::string QuoteBareObjectKeys(std::string_view json);

}  // namespace rocketstore::protocol
