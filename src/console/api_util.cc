#include "console/api_util.h"

#include "console/request_parser.h"
#include "console/utf8.h"

namespace rocketstore::console::internal {

void Str(JsonWriter& w, std::string_view s) {
  if (IsValidUtf8(s)) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  } else {
    const std::string valid = ToValidUtf8(s);
    w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
  }
}

HttpReply JsonReply(int status, const std::function<void(JsonWriter&)>& fill) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  fill(w);
  w.EndObject();
  return {status, std::string(buf.GetString(), buf.GetSize())};
}

HttpReply ErrorReply(int status, std::string_view message) {
  return JsonReply(status, [&](JsonWriter& w) {
    w.Key("error");
    Str(w, message);
  });
}

HttpReply StatusReply(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return ErrorReply(400, s.message());
    case StatusCode::kNotFound:
      return ErrorReply(404, s.message());
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAlreadyExists:
      return ErrorReply(409, s.message());
    case StatusCode::kUnavailable:
    case StatusCode::kNoSpace:
    case StatusCode::kResourceExhausted:
      return ErrorReply(503, s.message());
    default:
      return ErrorReply(500, s.ToString());
  }
}

Result<std::string> Required(const HttpRequest& r, const std::string& name, std::string_view what) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "missing parameter '" + name + "': add " + name + "=<" + std::string(what) + ">");
  }
  return it->second;
}

std::string Optional(const HttpRequest& r, const std::string& name, std::string def) {
  auto it = r.params.find(name);
  return it == r.params.end() || it->second.empty() ? def : it->second;
}

Result<int64_t> IntParam(const HttpRequest& r, const std::string& name, std::optional<int64_t> def,
                         int64_t min, int64_t max) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) {
    if (def) return *def;
    return Status(StatusCode::kInvalidArgument, "missing parameter '" + name + "': add " + name +
                                                    "=<integer " + std::to_string(min) + ".." +
                                                    std::to_string(max) + ">");
  }
  return ParseInt(name, it->second, min, max);
}

Result<bool> BoolParam(const HttpRequest& r, const std::string& name, bool def) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) return def;
  return ParseBool(name, it->second);
}

Result<int64_t> TimeParam(const HttpRequest& r, const std::string& name,
                          std::optional<int64_t> def) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) {
    if (def) return *def;
    return Status(StatusCode::kInvalidArgument,
                  "missing parameter '" + name +
                      "': add a time, epoch milliseconds or YYYY-MM-DDTHH:MM:SS (UTC)");
  }
  return ParseTime(name, it->second);
}

void WriteSeries(JsonWriter& w, const std::vector<Sample>& samples) {
  w.StartArray();
  for (const Sample& s : samples) {
    w.StartArray();
    w.Int64(s.time_ms);
    w.Double(s.value);
    w.EndArray();
  }
  w.EndArray();
}

}  // namespace rocketstore::console::internal
