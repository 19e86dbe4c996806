#include "console/console_api.h"

#include <rapidjson/document.h>

#include <functional>
#include <string_view>

#include "console/api_util.h"
#include "log/log.h"

namespace rocketstore::console {

using internal::ErrorReply;

namespace {

// A value in a log line: at most 200 bytes, quoted when it holds a space, '"' or '=' (or
// is empty), control bytes written as \xNN, so a parameter cannot break or forge a line.
std::string LogValue(std::string_view v) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool quote = v.empty() || v.find_first_of(" \"=\\") != std::string_view::npos;
  std::string out = quote ? "\"" : "";
  for (char c : v.substr(0, 200)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  if (v.size() > 200) out += "...";
  if (quote) out += '"';
  return out;
}

// The parameters a change is about, as they appear in its log line.
constexpr std::string_view kLoggedParams[] = {"topic",  "group",         "timestamp",      "force",
                                              "offset", "readQueueNums", "writeQueueNums", "perm"};

// One line per change asked of the console (an audit trail): who (the peer's address),
// what, the parameters it names, and the outcome — ok, refused (4xx) or failed (5xx) with
// the status and the error the caller got.
void LogChange(const HttpRequest& r, std::string_view what, const HttpReply& reply) {
  std::string params;
  for (std::string_view name : kLoggedParams) {
    auto it = r.params.find(std::string(name));
    if (it == r.params.end()) continue;
    params += ' ';
    params += name;
    params += '=';
    params += LogValue(it->second);
  }
  const char* outcome = reply.status < 300 ? "ok" : reply.status < 500 ? "refused" : "failed";
  std::string error;
  if (reply.status >= 300) {
    rapidjson::Document d;
    d.Parse(reply.body.c_str());
    if (!d.HasParseError() && d.IsObject() && d.HasMember("error") && d["error"].IsString()) {
      error = " error=" + LogValue(d["error"].GetString());
    }
  }
  RS_LOG_INFO("console: change who={} what={}{} outcome={} status={}{}",
              r.remote.empty() ? "-" : LogValue(r.remote), what, params, outcome, reply.status,
              error);
}

}  // namespace

HttpReply ConsoleApi::Handle(const HttpRequest& r) {
  // Handlers without a request argument are adapted here, so the table has one shape.
  struct Entry {
    std::string_view method, path;
    // A change to the broker: its name in the audit log line ("" = a read).
    std::string_view change;
    std::function<HttpReply()> run;
    // The handler implements dryRun=true as a preview that changes nothing; only such a
    // route may run a dry run in read-only mode (any other route ignores the parameter).
    bool has_dry_run = false;
  };
  const Entry routes[] = {
      {"GET", "/api/console", "", [&] { return ConsoleInfo(); }},
      {"GET", "/api/cluster", "", [&] { return Cluster(); }},
      {"GET", "/api/topics", "", [&] { return Topics(); }},
      {"GET", "/api/topic", "", [&] { return TopicDetail(r); }},
      {"POST", "/api/topics", "create-topic", [&] { return CreateTopic(r); }},
      {"POST", "/api/topics/delete", "delete-topic", [&] { return DeleteTopic(r); }},
      {"GET", "/api/groups", "", [&] { return Groups(); }},
      {"GET", "/api/group", "", [&] { return GroupDetail(r); }},
      {"POST", "/api/groups/reset-offset", "reset-offset", [&] { return ResetOffset(r); }, true},
      {"GET", "/api/messages/by-key", "", [&] { return MessagesByKey(r); }},
      {"GET", "/api/messages/by-id", "", [&] { return MessageById(r); }},
      {"GET", "/api/messages/by-time", "", [&] { return MessagesByTime(r); }},
      {"GET", "/api/message", "", [&] { return MessageDetail(r); }},
      {"POST", "/api/messages/resend-dlq", "resend-dlq", [&] { return ResendDlq(r); }},
  };
  bool path_known = false;
  std::string allowed;
  for (const Entry& e : routes) {
    if (e.path != r.path) continue;
    path_known = true;
    if (e.method != r.method) {
      if (!allowed.empty()) allowed += ", ";
      allowed += e.method;
      continue;
    }
    if (e.change.empty()) return e.run();
    // A dry run changes nothing, so read-only mode allows it, but only on a route whose
    // handler implements one: elsewhere dryRun=true would be ignored and the change made.
    // (Read as BoolParam reads it: "true" or "1".)
    auto dry = r.params.find("dryRun");
    const bool dry_run =
        e.has_dry_run && dry != r.params.end() && (dry->second == "true" || dry->second == "1");
    if (dry_run) return e.run();
    HttpReply reply =
        options_.read_only
            ? ErrorReply(403,
                         "the console is read-only (--console-read-only): " + std::string(r.path) +
                             " changes the broker; restart without the flag to allow it")
            : e.run();
    LogChange(r, e.change, reply);
    return reply;
  }
  if (path_known) {
    return ErrorReply(405, r.method + " is not allowed on " + r.path + ": use " + allowed);
  }
  return ErrorReply(404, "no API endpoint " + r.path.substr(0, 200) +
                             ": see docs/observability.md (Console) for the list");
}

// What the pages read once at start: the build's version and whether this console is
// read-only (they then leave every changing control out and show a badge).
HttpReply ConsoleApi::ConsoleInfo() {
  return internal::JsonReply(200, [&](internal::JsonWriter& w) {
    w.Key("version"), internal::Str(w, options_.version);
    w.Key("readOnly"), w.Bool(options_.read_only);
  });
}

}  // namespace rocketstore::console
