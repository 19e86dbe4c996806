// File: tools/cli/cli_common.h
//
// What every client subcommand of `rocketstore` shares (docs/cli.md): the global options
// (--namesrv, env ROCKETSTORE_NAMESRV, default 127.0.0.1:9876; --format table|json;
// --timeout), exit codes (0 ok, 1 error, 2 usage, 3 not found), error reporting (the
// cause, then what to do), a JSON value builder with stable key order, and a plain-text
// table printer.
//
// Thread-safety: single-threaded CLI helpers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace rocketstore::tools::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotFound = 3;

// The group raw reads (`consume` without --group, `bench consume`) pull as: RocketMQ's
// MixAll.TOOLS_CONSUMER_GROUP, the group Java's own tools read with and a Java broker
// creates at startup. A pull names a group and the broker adopts it (as Java's
// findSubscriptionGroupConfig does), so a raw read adds no name of its own to the group
// list; it commits nothing, so no offsets, lag or consume stats appear for it.
inline constexpr const char* kToolsConsumerGroup = "TOOLS_CONSUMER";

struct GlobalOptions {
  std::string namesrv;           // "" → $ROCKETSTORE_NAMESRV → 127.0.0.1:9876
  std::string format = "table";  // table | json
  int64_t timeout_ms = 3000;

  bool json() const { return format == "json"; }
  std::vector<std::string> NamesrvAddrs() const;
};

// Prints "error: <message>" (and the hint when given) to err; returns the exit code for
// the status (3 for kNotFound, 2 for kInvalidArgument, else 1).
int Fail(FILE* err, const Status& s, std::string_view hint = {});
int ExitCodeFor(const Status& s);

// A JSON value built in order: Json::Object().Add("a", 1).Add("b", "x").
class Json {
 public:
  static Json Object() { return Json('{'); }
  static Json Array() { return Json('['); }
  Json& Add(std::string_view key, const Json& v);
  Json& Add(std::string_view key, std::string_view v);
  Json& Add(std::string_view key, const char* v) { return Add(key, std::string_view(v)); }
  Json& Add(std::string_view key, const std::string& v) { return Add(key, std::string_view(v)); }
  Json& Add(std::string_view key, int64_t v);
  Json& Add(std::string_view key, int32_t v) { return Add(key, static_cast<int64_t>(v)); }
  Json& Add(std::string_view key, double v);
  Json& Add(std::string_view key, bool v);
  Json& Push(const Json& v);
  Json& Push(std::string_view v);
  std::string str() const;
  bool empty() const { return body_.empty(); }

 private:
  explicit Json(char open) : open_(open) {}
  void Sep();
  char open_;
  std::string body_;
};
std::string JsonQuote(std::string_view s);

// Columns aligned to the widest cell; the header row first.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void Print(FILE* out) const;
  size_t size() const { return rows_.size() - 1; }

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "2026-12-02 04:21:42.123" (UTC) for epoch ms; "-" for <= 0.
std::string FormatTime(int64_t epoch_ms);
// Parses epoch ms, or "YYYY-MM-DD[ T]HH:MM[:SS[.mmm]]" (UTC), or "-10m"/"-2h"/"-1d" relative
// to now_ms.
bool ParseTime(std::string_view text, int64_t now_ms, int64_t* out);
// The segment file and position of a commit-log offset (the inspector's explanation).
std::string SegmentExplanation(int64_t commit_log_offset, int64_t segment_size);
// The consume-queue file and position of a queue offset's 20-byte unit; file_bytes is the
// broker's mappedFileSizeConsumeQueue (rounded up to whole units, as RocketMQ does).
std::string ConsumeQueueExplanation(std::string_view topic, int32_t queue_id, int64_t queue_offset,
                                    int64_t file_bytes);
// Where the index keeps topic#key (as `rocketstore inspect key` explains it): the key's
// hash, its slot among hash_slot_num and the slot's byte in an index file. Which index
// file, and the chain of entries, only the broker's store says.
std::string IndexExplanation(std::string_view topic, std::string_view key, int32_t hash_slot_num);

}  // namespace rocketstore::tools::cli
