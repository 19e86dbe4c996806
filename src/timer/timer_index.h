// File: timer/timer_index.h
//
// TimerIndex: the time-ordered index of pending timer messages (docs/format/timer.md),
// built as a DispatchSink from the timer topic's commit-log records.
//
// Structure. Entries (timer_format.h, 32 bytes) live in append-only bucket files, one per
// time window and level: level 0 windows of 10 s for deliveries less than 10 min ahead,
// level 1 windows of 10 min for less than a day ahead, level 2 windows of a day beyond
// (TimerIndexOptions). Only the level-0 windows within `load_ahead_ms` of now are in
// memory (an ordered set); every other pending timer costs 32 bytes on disk and nothing
// in memory but its bucket's summary. As time passes, Advance() splits a coarse bucket
// into finer ones when it comes within the finer level's horizon, then loads level-0
// windows into memory. A year ahead is ~370 level-2 files; the file count is bounded
// by the levels' horizons, not by the number of timers.
//
// Delivery state. delivered_through (T): every entry with deliver_ms <= T has been popped
// (PopDue). An entry filed at or below T (the dispatcher lagged, or a restart re-files
// it) goes to memory only and is due at once. Persisted progress is the pair (T, D)
// written by PersistProgress once the deliveries it covers are durable: every entry filed
// from a record below D with deliver_ms <= T was delivered. After a restart the store
// re-dispatches from min(D, `filed` mark): records below D due at or before T are skipped,
// everything else is filed again (duplicates in a bucket are harmless: the in-memory set
// keeps one entry per (time, kind, record)). So an acknowledged timer is delivered after
// any crash, and only deliveries after the last persisted progress can repeat.
//
// Thread-safety: Dispatch on the dispatcher thread; FlushForCheckpoint from the checkpoint
// writer; Advance, PopDue, Requeue, SnapshotProgress, PersistProgress, CollectRollCandidates
// and MarkRolled from one delivery thread; Stats from any thread. One internal mutex;
// bucket appends are page-cache writes under it, syncs happen outside it.
// Ownership: `fs` and `clock` must outlive the index.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/dispatch/sink.h"
#include "timer/timer_format.h"
#include "timer/timer_scan.h"

namespace rocketstore::timer {

struct TimerIndexOptions {
  std::string dir;                            // <root>/timer
  std::string topic = "rmq_sys_wheel_timer";  // the timer topic whose records are filed
  // Window width per level, and how far ahead of now an entry still goes into the
  // finer level (horizon_ms[k]: level k takes entries due less than this ahead).
  std::array<int64_t, kLevels> window_ms = {10'000, 600'000, 86'400'000};
  std::array<int64_t, kLevels - 1> horizon_ms = {600'000, 86'400'000};
  // Level-0 windows starting less than this ahead of now are held in memory.
  // Must be <= horizon_ms[0].
  int64_t load_ahead_ms = 20'000;
};

struct TimerIndexStats {
  int64_t bucket_files = 0;
  int64_t entries_on_disk = 0;  // entries in bucket files (adds, cancels, tombstones)
  int64_t in_memory = 0;        // entries held in the near set
  int64_t delivered_through_ms = 0;
  std::optional<int64_t> next_in_memory_ms;
  int64_t skipped_on_refile = 0;  // re-dispatched records already delivered
  int64_t ignored_records = 0;    // timer-topic records without a usable TIMER_OUT_MS
};

// What the delivery service persists (see the file comment).
struct TimerProgress {
  int64_t delivered_through_ms = 0;
  int64_t filed_below = 0;
  bool operator==(const TimerProgress&) const = default;
};

class TimerIndex final : public DispatchSink {
 public:
  TimerIndex(FileSystem& fs, Clock& clock, TimerIndexOptions options);
  ~TimerIndex() override;
  TimerIndex(const TimerIndex&) = delete;
  TimerIndex& operator=(const TimerIndex&) = delete;

  // --- DispatchSink ---
  std::string_view SinkName() const override { return "timer index"; }
  Status Dispatch(const DispatchRequest& request) override;
  Status PrepareRecovery() override;
  // Reads `progress` and `filed`, loads every bucket file (cutting torn tails and entries
  // whose source record is at or past ctx.commit_log_end) and answers
  // min(filed mark, progress's filed_below, commit_log_end).
  Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) override;
  // Syncs every bucket written since the last call, then records the filed mark.
  Status FlushForCheckpoint() override;

  // --- the delivery service's side ---
  // Splits coarse buckets that came within their finer level's horizon and loads the
  // level-0 windows starting before now + load_ahead_ms.
  Status Advance(int64_t now_ms);
  // Removes and returns the in-memory entries due at or before now_ms, in delivery order
  // (a tick is never split: cancels come with the adds of their time). At most about
  // `max` (the last tick is completed).
  std::vector<TimerEntry> PopDue(int64_t now_ms, size_t max);
  // Puts back entries PopDue returned that could not be delivered (due again at once).
  void Requeue(std::span<const TimerEntry> entries);
  TimerProgress SnapshotProgress() const;
  // Writes `progress` atomically, then deletes the level-0 files wholly delivered.
  // Call only once every delivery the snapshot covers is durable in the commit log.
  Status PersistProgress(const TimerProgress& progress);
  // Up to `max` pending adds whose record lies below `below_offset`, from buckets not in
  // memory, excluding those already rolled (MarkRolled) or superseded. Compacts the
  // buckets it reads (drops adds superseded by a roll, with their tombstones).
  Result<std::vector<TimerEntry>> CollectRollCandidates(int64_t below_offset, size_t max);
  // The add at `offset` was re-appended; its tombstone is on its way through dispatch.
  void MarkRolled(int64_t offset);

  TimerIndexStats Stats() const;
  const TimerIndexOptions& options() const { return options_; }

 private:
  struct Bucket;
  using BucketKey = std::pair<int, int64_t>;  // level, window start

  int LevelFor(int64_t deliver_ms, int64_t now_ms) const;
  int64_t WindowStart(int level, int64_t deliver_ms) const;
  Status FileEntryLocked(const TimerEntry& e, int64_t now_ms, int max_level);
  Status AppendLocked(int level, const TimerEntry& e);
  Result<Bucket*> BucketLocked(int level, int64_t start);
  Status SplitLocked(const BucketKey& key, int64_t now_ms);
  Status LoadLocked(Bucket& b);
  void InsertNearLocked(const TimerEntry& e);
  Status RemoveBucketLocked(const BucketKey& key);
  Status RewriteLocked(Bucket& b, const std::vector<TimerEntry>& entries);
  std::string PathOf(int level, int64_t start) const;

  FileSystem& fs_;
  Clock& clock_;
  const TimerIndexOptions options_;

  mutable std::mutex mu_;
  std::map<BucketKey, std::unique_ptr<Bucket>> buckets_;
  std::set<TimerEntry> near_;            // loaded windows + late entries
  int64_t delivered_through_ms_ = 0;     // T
  int64_t loaded_until_ms_ = 0;          // level-0 windows below this are in memory
  int64_t filed_below_ = 0;              // every record below it was dispatched
  TimerProgress restored_;               // the progress read by Recover
  bool dir_dirty_ = false;               // a bucket file was created since the last sync
  std::unordered_set<int64_t> rolling_;  // rolled adds whose tombstone is not filed yet
  int64_t skipped_on_refile_ = 0;
  int64_t ignored_records_ = 0;
};

}  // namespace rocketstore::timer
