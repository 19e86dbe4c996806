// File: timer/recall_handle.h
//
// RocketMQ 5.3's recall handle (common/producer/RecallMessageHandle.HandleV1): the string
// a send answers in SendMessageResponseHeader.recallHandle for a timer message and a
// RECALL_MESSAGE request carries back. It is URL-safe Base64 (with padding, as Java's
// Base64.getUrlEncoder()) of "v1 <topic> <brokerName> <timestamp> <messageId>", single
// spaces between; timestamp is the record's TIMER_OUT_MS + 1 as decimal, messageId its
// UNIQ_KEY. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace rocketstore::timer {

struct RecallHandle {
  std::string topic;
  std::string broker_name;
  std::string timestamp;  // decimal ms as sent; the receiver parses it
  std::string message_id;
};

std::string EncodeRecallHandle(const RecallHandle& h);
// InvalidArgument("recall handle is invalid") as RocketMQ's decodeHandle: empty, not
// Base64, not version v1, or fewer than 5 fields.
Result<RecallHandle> DecodeRecallHandle(std::string_view handle);

std::string Base64UrlEncode(std::string_view bytes);
// Accepts padded or unpadded input; nullopt-like error for any other character.
Result<std::string> Base64UrlDecode(std::string_view text);

}  // namespace rocketstore::timer
