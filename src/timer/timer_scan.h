// File: timer/timer_scan.h
//
// Read-only access to a timer directory (timer_format.h): one bucket file's entries, and
// a summary of every pending timer for `rocketstore inspect` and tests. Never writes.
// Thread-safety: free functions; safe to call concurrently with a running index only in
// the sense that a torn last entry is reported as such.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"
#include "timer/timer_format.h"

namespace rocketstore::timer {

struct BucketContents {
  std::vector<TimerEntry> entries;  // the whole entries before the first bad one
  uint64_t good_bytes = 0;          // entries.size() * kEntrySize
  uint64_t bad_bytes = 0;           // from the first bad (torn, zero, damaged) entry on
};

// Reads a bucket file. kNotFound when missing.
Result<BucketContents> ReadBucketFile(FileSystem& fs, const std::string& path);

struct TimerDirSummary {
  struct Bucket {
    int level = 0;
    int64_t window_start_ms = 0;
    int64_t adds = 0, cancels = 0, tombstones = 0;
    uint64_t bad_bytes = 0;
    std::optional<int64_t> first_due_ms;
  };
  std::vector<Bucket> buckets;                  // in (level, start) order
  std::optional<int64_t> delivered_through_ms;  // from `progress`, when present
  std::optional<int64_t> filed_below;
  std::optional<int64_t> filed_durable_below;  // from `filed`
  int64_t pending = 0;  // adds not superseded or cancelled, due after delivered_through
  std::optional<int64_t> next_due_ms;
  // Pending adds per day-sized window (start ms -> count).
  std::map<int64_t, int64_t> per_day;
  std::vector<std::string> problems;  // unreadable state files, damaged tails
};

// kNotFound when `dir` does not exist.
Result<TimerDirSummary> SummarizeTimerDir(FileSystem& fs, const std::string& dir);

}  // namespace rocketstore::timer
