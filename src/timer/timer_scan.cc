#include "timer/timer_scan.h"

#include <set>
#include <tuple>

#include "io/atomic_file.h"

namespace rocketstore::timer {

Result<BucketContents> ReadBucketFile(FileSystem& fs, const std::string& path) {
  RS_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(fs, path));
  BucketContents c;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t pos = 0;
  for (; pos + kEntrySize <= bytes.size(); pos += kEntrySize) {
    std::optional<TimerEntry> e = DecodeEntry(p + pos);
    if (!e) break;
    c.entries.push_back(*e);
  }
  c.good_bytes = pos;
  c.bad_bytes = bytes.size() - pos;
  return c;
}

namespace {

void ReadState(FileSystem& fs, const std::string& path, std::optional<int64_t>* a,
               std::optional<int64_t>* b, std::vector<std::string>* problems) {
  Result<std::string> bytes = ReadWholeFile(fs, path);
  if (!bytes.ok()) {
    if (bytes.status().code() != StatusCode::kNotFound) {
      problems->push_back(path + ": " + bytes.status().ToString());
    }
    return;
  }
  Result<StateRecord> s = DecodeState(*bytes);
  if (!s.ok()) {
    problems->push_back(path + ": " + s.status().ToString());
    return;
  }
  *a = s->a;
  if (b) *b = s->b;
}

}  // namespace

Result<TimerDirSummary> SummarizeTimerDir(FileSystem& fs, const std::string& dir) {
  RS_ASSIGN_OR_RETURN(std::vector<std::string> names, fs.ListDir(dir));
  TimerDirSummary s;
  ReadState(fs, JoinPath(dir, kProgressFile), &s.delivered_through_ms, &s.filed_below, &s.problems);
  ReadState(fs, JoinPath(dir, kFiledFile), &s.filed_durable_below, nullptr, &s.problems);
  const int64_t through = s.delivered_through_ms.value_or(INT64_MIN);
  std::map<std::pair<int, int64_t>, std::string> sorted;
  for (const std::string& n : names) {
    if (auto b = ParseBucketFileName(n)) sorted[{b->level, b->window_start_ms}] = n;
  }
  constexpr int64_t kDay = 86'400'000;
  for (const auto& [key, name] : sorted) {
    RS_ASSIGN_OR_RETURN(BucketContents c, ReadBucketFile(fs, JoinPath(dir, name)));
    TimerDirSummary::Bucket b;
    b.level = key.first;
    b.window_start_ms = key.second;
    b.bad_bytes = c.bad_bytes;
    if (c.bad_bytes > 0) {
      s.problems.push_back(name + ": " + std::to_string(c.bad_bytes) +
                           " bytes after the last whole entry (torn tail)");
    }
    std::set<std::pair<int64_t, int64_t>> gone;     // (deliver, offset) rolled away
    std::set<std::pair<int64_t, uint32_t>> cancel;  // (deliver, key hash)
    std::set<std::pair<int64_t, int64_t>> seen;     // duplicates of one add
    for (const TimerEntry& e : c.entries) {
      if (e.kind == TimerEntryKind::kRolledAway) {
        ++b.tombstones;
        gone.insert({e.deliver_ms, e.offset});
      } else if (e.kind == TimerEntryKind::kCancel) {
        ++b.cancels;
        cancel.insert({e.deliver_ms, e.key_hash});
      }
    }
    for (const TimerEntry& e : c.entries) {
      if (e.kind != TimerEntryKind::kAdd) continue;
      ++b.adds;
      if (e.deliver_ms <= through || gone.count({e.deliver_ms, e.offset}) ||
          cancel.count({e.deliver_ms, e.key_hash}) ||
          !seen.insert({e.deliver_ms, e.offset}).second) {
        continue;
      }
      ++s.pending;
      ++s.per_day[e.deliver_ms / kDay * kDay];
      if (!b.first_due_ms || e.deliver_ms < *b.first_due_ms) b.first_due_ms = e.deliver_ms;
      if (!s.next_due_ms || e.deliver_ms < *s.next_due_ms) s.next_due_ms = e.deliver_ms;
    }
    s.buckets.push_back(b);
  }
  return s;
}

}  // namespace rocketstore::timer
