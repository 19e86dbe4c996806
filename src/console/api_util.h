// File: console/api_util.h
//
// What the API's handler files share: the JSON writer, error replies and the checked
// parameter readers (each failure names the parameter and what to send instead).
// Internal to console/. Thread-safety: functions and values only.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "console/console_api.h"
#include "console/rate_sampler.h"

namespace rocketstore::console::internal {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A JSON string; bytes that are not UTF-8 (a cut echo, a message's property) become U+FFFD,
// so every answer is valid JSON text.
void Str(JsonWriter& w, std::string_view s);
// The reply `fill` writes (one JSON object: fill writes its members).
HttpReply JsonReply(int status, const std::function<void(JsonWriter&)>& fill);
HttpReply ErrorReply(int status, std::string_view message);
// A service's refusal or failure as a reply: 400 for what the caller can fix, 404 for an
// unknown object, 503 when the broker cannot now, 500 otherwise.
HttpReply StatusReply(const Status& s);

// A parameter problem: the reply to send (400 + message).
struct ParamError {
  std::string message;
};

// A required, non-empty parameter.
Result<std::string> Required(const HttpRequest& r, const std::string& name, std::string_view what);
std::string Optional(const HttpRequest& r, const std::string& name, std::string def = "");
// A decimal integer in [min, max]; `def` when absent (nullopt: required).
Result<int64_t> IntParam(const HttpRequest& r, const std::string& name, std::optional<int64_t> def,
                         int64_t min, int64_t max);
// "true"/"false"/"1"/"0"; `def` when absent.
Result<bool> BoolParam(const HttpRequest& r, const std::string& name, bool def);
// A time: epoch milliseconds, or an ISO-8601 local-free form "YYYY-MM-DDTHH:MM[:SS]" read as UTC.
// (The value rules are console/request_parser.h's ParseInt / ParseBool / ParseTime.)
Result<int64_t> TimeParam(const HttpRequest& r, const std::string& name,
                          std::optional<int64_t> def);

void WriteSeries(JsonWriter& w, const std::vector<Sample>& samples);

// RocketMQ's retry / DLQ topic names of a group.
inline std::string RetryTopic(std::string_view group) { return "%RETRY%" + std::string(group); }
inline std::string DlqTopic(std::string_view group) { return "%DLQ%" + std::string(group); }

}  // namespace rocketstore::console::internal
