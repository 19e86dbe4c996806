// `rocketstore inspect timers`: pending timer messages from <store>/timer/ (timer/timer_scan.h).
#include <fmt/format.h>

#include "timer/timer_scan.h"
#include "tools/inspect/inspect.h"
#include "tools/inspect/store_views.h"

namespace rocketstore::tools::inspect {

int RunTimers(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err) {
  const std::string dir = JoinPath(options.store_dir, "timer");
  Result<timer::TimerDirSummary> s = timer::SummarizeTimerDir(fs, dir);
  if (!s.ok() && s.status().code() == StatusCode::kNotFound) {
    fmt::print(err, "no timer directory {} (no timer message was ever stored)\n", dir);
    return 0;
  }
  if (!s.ok()) {
    fmt::print(err, "error: {}\n", s.status().ToString());
    return 2;
  }
  if (options.json) {
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "timers");
      Key(w, "pending"), w.Int64(s->pending);
      if (s->next_due_ms) Key(w, "nextDueMs"), w.Int64(*s->next_due_ms);
      if (s->delivered_through_ms) Key(w, "deliveredThroughMs"), w.Int64(*s->delivered_through_ms);
      if (s->filed_below) Key(w, "progressFiledBelow"), w.Int64(*s->filed_below);
      if (s->filed_durable_below) Key(w, "filedDurableBelow"), w.Int64(*s->filed_durable_below);
      Key(w, "bucketFiles"), w.Int64(static_cast<int64_t>(s->buckets.size()));
      Key(w, "problems");
      w.StartArray();
      for (const std::string& p : s->problems) Str(w, p);
      w.EndArray();
    });
    for (const auto& [day_start, pending] : s->per_day) {
      // Init-captures: clang 14 cannot capture structured bindings.
      JsonLine(out, [&, day = day_start, n = pending](JsonWriter& w) {
        Key(w, "type"), Str(w, "timerDay");
        Key(w, "dayStartMs"), w.Int64(day);
        Key(w, "pending"), w.Int64(n);
      });
    }
    for (const auto& b : s->buckets) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "timerBucket");
        Key(w, "level"), w.Int(b.level);
        Key(w, "windowStartMs"), w.Int64(b.window_start_ms);
        Key(w, "adds"), w.Int64(b.adds);
        Key(w, "cancels"), w.Int64(b.cancels);
        Key(w, "tombstones"), w.Int64(b.tombstones);
        if (b.first_due_ms) Key(w, "firstDueMs"), w.Int64(*b.first_due_ms);
        if (b.bad_bytes) Key(w, "badBytes"), w.Int64(static_cast<int64_t>(b.bad_bytes));
      });
    }
    return 0;
  }
  fmt::print(out, "timer/: {} pending timer(s) in {} bucket file(s)\n", s->pending,
             s->buckets.size());
  if (s->next_due_ms) fmt::print(out, "  next due        {}\n", FormatMillis(*s->next_due_ms));
  if (s->delivered_through_ms) {
    fmt::print(out, "  delivered up to {}  (progress)\n", FormatMillis(*s->delivered_through_ms));
  }
  if (s->filed_durable_below) {
    fmt::print(out, "  filed (synced) below commit-log offset {}\n", *s->filed_durable_below);
  }
  if (!s->per_day.empty()) {
    fmt::print(out, "\n  {:<24}  {:>10}\n", "day (window start)", "pending");
    for (const auto& [day, n] : s->per_day) {
      fmt::print(out, "  {:<24}  {:>10}\n", FormatMillis(day), n);
    }
  }
  fmt::print(out, "\n  {:>5}  {:<24}  {:>9}  {:>7}  {:>10}\n", "level", "window start", "adds",
             "cancels", "tombstones");
  for (const auto& b : s->buckets) {
    fmt::print(out, "  {:>5}  {:<24}  {:>9}  {:>7}  {:>10}\n", b.level,
               FormatMillis(b.window_start_ms), b.adds, b.cancels, b.tombstones);
  }
  for (const std::string& p : s->problems) fmt::print(out, "  problem: {}\n", p);
  return 0;
}

}  // namespace rocketstore::tools::inspect
