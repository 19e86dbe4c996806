#include "console/console_api.h"

#include <functional>
#include <string_view>

#include "console/api_util.h"

namespace rocketstore::console {

using internal::ErrorReply;

HttpReply ConsoleApi::Handle(const HttpRequest& r) {
  // Handlers without a request argument are adapted here, so the table has one shape.
  struct Entry {
    std::string_view method, path;
    bool mutating;
    std::function<HttpReply()> run;
    // The handler implements dryRun=true as a preview that changes nothing; only such a
    // route may run a dry run in read-only mode (any other route ignores the parameter).
    bool has_dry_run = false;
  };
  const Entry routes[] = {
      {"GET", "/api/console", false, [&] { return ConsoleInfo(); }},
      {"GET", "/api/cluster", false, [&] { return Cluster(); }},
      {"GET", "/api/topics", false, [&] { return Topics(); }},
      {"GET", "/api/topic", false, [&] { return TopicDetail(r); }},
      {"POST", "/api/topics", true, [&] { return CreateTopic(r); }},
      {"POST", "/api/topics/delete", true, [&] { return DeleteTopic(r); }},
      {"GET", "/api/groups", false, [&] { return Groups(); }},
      {"GET", "/api/group", false, [&] { return GroupDetail(r); }},
      {"POST", "/api/groups/reset-offset", true, [&] { return ResetOffset(r); }, true},
      {"GET", "/api/messages/by-key", false, [&] { return MessagesByKey(r); }},
      {"GET", "/api/messages/by-id", false, [&] { return MessageById(r); }},
      {"GET", "/api/messages/by-time", false, [&] { return MessagesByTime(r); }},
      {"GET", "/api/message", false, [&] { return MessageDetail(r); }},
      {"POST", "/api/messages/resend-dlq", true, [&] { return ResendDlq(r); }},
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
    // A dry run changes nothing, so read-only mode allows it, but only on a route whose
    // handler implements one: elsewhere dryRun=true would be ignored and the change made.
    const bool dry_run =
        e.has_dry_run && r.params.count("dryRun") && r.params.at("dryRun") == "true";
    if (e.mutating && options_.read_only && !dry_run) {
      return ErrorReply(403,
                        "the console is read-only (--console-read-only): " + std::string(r.path) +
                            " changes the broker; restart without the flag to allow it");
    }
    return e.run();
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
