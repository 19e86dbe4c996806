// `rocketstore inspect delay`: the delay-level queues (SCHEDULE_TOPIC_XXXX queue level-1)
// beside the progress in config/delayOffset.json.
#include <fmt/format.h>

#include <cctype>
#include <map>

#include "io/atomic_file.h"
#include "store/layout/layout.h"
#include "tools/inspect/store_views.h"

namespace rocketstore::tools::inspect {

// {"offsetTable":{1:5,"2":0}} (fastjson's bare keys or quoted ones) -> level -> offset.
Result<std::map<int, int64_t>> ParseDelayOffsets(std::string_view text) {
  std::map<int, int64_t> out;
  const size_t table = text.find("\"offsetTable\"");
  if (table == std::string_view::npos) return out;
  size_t pos = text.find('{', table);
  if (pos == std::string_view::npos) return Corruption("offsetTable is not an object");
  ++pos;
  auto skip = [&] {
    while (pos < text.size() && (std::isspace(static_cast<unsigned char>(text[pos])) ||
                                 text[pos] == ',' || text[pos] == '"')) {
      ++pos;
    }
  };
  auto number = [&](int64_t* v) {
    const size_t start = pos;
    if (pos < text.size() && text[pos] == '-') ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == start) return false;
    *v = std::stoll(std::string(text.substr(start, pos - start)));
    return true;
  };
  while (true) {
    skip();
    if (pos >= text.size()) return Corruption("offsetTable is not closed");
    if (text[pos] == '}') return out;
    int64_t level = 0, offset = 0;
    if (!number(&level))
      return Corruption("offsetTable has a bad key at byte " + std::to_string(pos));
    skip();
    if (pos >= text.size() || text[pos] != ':') return Corruption("offsetTable: ':' expected");
    ++pos;
    skip();
    if (!number(&offset))
      return Corruption("offsetTable has a bad value at byte " + std::to_string(pos));
    out[static_cast<int>(level)] = offset;
  }
}

int RunDelay(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err) {
  const std::string path = layout::ConfigPath(options.store_dir, layout::ConfigFile::kDelayOffset);
  std::map<int, int64_t> progress;
  auto text = ReadWholeFile(fs, path);
  if (text.ok()) {
    auto parsed = ParseDelayOffsets(*text);
    if (!parsed.ok())
      return Fail(err, Status(parsed.status().code(), path + ": " + parsed.status().message()));
    progress = std::move(*parsed);
  } else if (text.status().code() != StatusCode::kNotFound) {
    return Fail(err, text.status());
  }
  auto queues = LoadQueues(fs, options.store_dir);
  if (!queues.ok()) return Fail(err, queues.status());
  if (!options.json) {
    fmt::print(out, "delay levels ({}: {})\n", path, text.ok() ? "read" : "absent");
    fmt::print(out, "{:>5}  {:>5}  {:>10}  {:>10}  {:>10}  {:>8}  {}\n", "level", "queue", "min",
               "max", "delivered", "pending", "next due");
  }
  for (const auto& q : *queues) {
    if (q->topic != kScheduleTopic) continue;
    const int level = q->queue_id + 1;
    auto it = progress.find(level);
    const bool known = it != progress.end();
    // As the broker resumes: the stored offset clamped to the queue, 0 when none.
    const int64_t delivered =
        std::clamp<int64_t>(known ? it->second : 0, q->min_offset, q->max_offset);
    const int64_t pending = q->max_offset - delivered;
    std::optional<int64_t> due;
    if (pending > 0) {
      if (auto u = q->Unit(delivered); u && u->IsValid()) due = u->tags_code;
    }
    if (options.json) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "level");
        w.Int(level);
        Key(w, "queue");
        w.Int(q->queue_id);
        Key(w, "minOffset");
        w.Int64(q->min_offset);
        Key(w, "maxOffset");
        w.Int64(q->max_offset);
        Key(w, "delayOffset");
        if (known) {
          w.Int64(it->second);
        } else {
          w.Null();
        }
        Key(w, "pending");
        w.Int64(pending);
        Key(w, "nextDueMs");
        if (due) {
          w.Int64(*due);
        } else {
          w.Null();
        }
      });
    } else {
      fmt::print(out, "{:>5}  {:>5}  {:>10}  {:>10}  {:>10}  {:>8}  {}\n", level, q->queue_id,
                 q->min_offset, q->max_offset, known ? std::to_string(it->second) : "-", pending,
                 due ? FormatMillis(*due) : "-");
    }
  }
  for (const auto& [level, offset] : progress) {
    bool has_queue = false;
    for (const auto& q : *queues)
      has_queue |= q->topic == kScheduleTopic && q->queue_id + 1 == level;
    if (!has_queue && !options.json) {
      fmt::print(out, "{:>5}  {:>5}  {:>10}  {:>10}  {:>10}  {:>8}  {}\n", level, level - 1, "-",
                 "-", offset, 0, "(no queue files)");
    }
  }
  return 0;
}

}  // namespace rocketstore::tools::inspect
