// File: broker/schedule/delay_level_table.h
//
// The delay levels (RocketMQ's messageDelayLevel, ScheduleMessageService.parseDelayLevel):
// a space-separated list of durations, level n (1-based) being the n-th, each a decimal
// number and one unit of s, m, h or d ("1s 5s 10s 30s 1m ... 2h" by default, 18 levels).
// A message with DELAY = n > 0 is stored in SCHEDULE_TOPIC_XXXX queue n - 1 and delivered
// to its real topic once its level's delay has passed since it was stored.
//
// Also the consume-queue tags code of a SCHEDULE_TOPIC_XXXX record, as RocketMQ 4.x writes
// it (CommitLog.checkMessageAndReturnSize): its deliver time, store timestamp + the delay of
// min(DELAY, max level), so a store written by a Java broker is read the same way here.
//
// Thread-safety: immutable after Parse; share freely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "store/store_options.h"  // DispatchRequest

namespace rocketstore::broker {

inline constexpr std::string_view kDefaultMessageDelayLevel =
    "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h";

class DelayLevelTable {
 public:
  // Parses `levels` (see the file comment). kInvalidArgument naming messageDelayLevel and
  // the bad item for an empty list, an unknown unit, a missing or negative number, or a
  // duration that does not fit in 64-bit milliseconds. Items are separated by single or
  // repeated spaces (Java splits on one space and fails on an empty item; rocketstore
  // accepts repeated spaces).
  static Result<DelayLevelTable> Parse(std::string_view levels);
  static DelayLevelTable Default();

  int max_level() const { return static_cast<int>(delays_ms_.size()); }
  // The delay of `level` in ms; REQUIRES: 1 <= level <= max_level().
  int64_t DelayMs(int level) const { return delays_ms_[static_cast<size_t>(level - 1)]; }
  // RocketMQ's computeDeliverTimestamp: store time + the level's delay (+ 1 s for a level
  // not in the table).
  int64_t DeliverTimestamp(int level, int64_t store_timestamp) const;
  // The levels as written ("1s 5s ..."), for logs and the inspect view.
  const std::string& text() const { return text_; }

  // The consume-queue tags code of `r` (StoreOptions::tags_code_policy): the deliver time
  // for a SCHEDULE_TOPIC_XXXX record with DELAY > 0, else DefaultTagsCode. Ordinary
  // topics cost one string comparison.
  int64_t TagsCode(const DispatchRequest& r) const;

 private:
  std::vector<int64_t> delays_ms_;
  std::string text_;
};

// queueId <-> level (ScheduleMessageService.queueId2DelayLevel / delayLevel2QueueId).
inline int DelayLevelOfQueue(int32_t queue_id) { return queue_id + 1; }
inline int32_t QueueOfDelayLevel(int level) { return level - 1; }

// Parses a DELAY property value as Java's Integer.parseInt does (optional sign, decimal
// digits, fits in int32). nullopt when it does not parse.
std::optional<int32_t> ParseDelayLevel(std::string_view value);

}  // namespace rocketstore::broker
