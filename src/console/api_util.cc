#include "console/api_util.h"

#include <charconv>
#include <ctime>

namespace rocketstore::console::internal {

void Str(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
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
  const std::string& s = it->second;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return Status(StatusCode::kInvalidArgument, "parameter '" + name +
                                                    "' is not an integer (got \"" +
                                                    s.substr(0, 40) + "\"): send a decimal number");
  }
  if (v < min || v > max) {
    return Status(StatusCode::kInvalidArgument, "parameter '" + name + "' = " + std::to_string(v) +
                                                    " is out of range: use " + std::to_string(min) +
                                                    ".." + std::to_string(max));
  }
  return v;
}

Result<bool> BoolParam(const HttpRequest& r, const std::string& name, bool def) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) return def;
  if (it->second == "true" || it->second == "1") return true;
  if (it->second == "false" || it->second == "0") return false;
  return Status(
      StatusCode::kInvalidArgument,
      "parameter '" + name + "' must be true or false (got \"" + it->second.substr(0, 40) + "\")");
}

namespace {
// "YYYY-MM-DDTHH:MM[:SS[.mmm]][Z]" as UTC; nullopt when it is not that form.
std::optional<int64_t> ParseIsoUtc(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, ms = 0;
  char tail[8] = {0};
  int n = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%7s", &y, &mo, &d, &h, &mi, &sec, &ms,
                      tail);
  if (n < 5) return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970 ||
      y > 9999 || h < 0 || mi < 0 || sec < 0 || ms < 0) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  const time_t t = timegm(&tm);
  if (t < 0) return std::nullopt;
  return static_cast<int64_t>(t) * 1000 + ms;
}
}  // namespace

Result<int64_t> TimeParam(const HttpRequest& r, const std::string& name,
                          std::optional<int64_t> def) {
  auto it = r.params.find(name);
  if (it == r.params.end() || it->second.empty()) {
    if (def) return *def;
    return Status(StatusCode::kInvalidArgument,
                  "missing parameter '" + name +
                      "': add a time, epoch milliseconds or YYYY-MM-DDTHH:MM:SS (UTC)");
  }
  const std::string& s = it->second;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size() && v >= 0) return v;
  if (auto iso = ParseIsoUtc(s)) return *iso;
  return Status(StatusCode::kInvalidArgument,
                "parameter '" + name + "' is not a time (got \"" + s.substr(0, 40) +
                    "\"): send epoch milliseconds or YYYY-MM-DDTHH:MM:SS (UTC)");
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
