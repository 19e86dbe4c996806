// File: timer/timer_format.h
//
// The on-disk format of the timer index (`<root>/timer/`), the spec for
// docs/format/timer.md. Every multi-byte field is big-endian. Pure encoding; no I/O.
//
// A timer message is a commit-log record of the timer topic (rmq_sys_wheel_timer, queue
// 0) carrying TIMER_OUT_MS (its delivery time), REAL_TOPIC and REAL_QID. The index is
// derived from those records and can be rebuilt from the commit log.
//
// Bucket files `<level>_<20-digit window start ms>` hold the entries whose delivery time
// falls in [start, start + window(level)), appended in filing order (not time order):
//
//   offset size field
//   0      8    deliver_ms          TIMER_OUT_MS of the record (ms since the epoch)
//   8      8    commit_log_offset   the record the entry is about
//   16     4    size                that record's TOTALSIZE
//   20     4    key_hash            Crc32 of the delete key "<REAL_TOPIC>+<UNIQ_KEY>"
//                                   (kAdd) or of TIMER_DEL_UNIQKEY (kCancel)
//   (kRolledAway: bytes 16..24 are instead by_offset, the int64 offset of the rolled copy
//    whose filing wrote this entry; commit_log_offset is the superseded record)
//   24     1    kind                TimerEntryKind
//   25     3    reserved            zero
//   28     4    crc                 Crc32 of bytes [0, 28)
//
// A bucket file is a sequence of whole entries. A torn or zero tail (a crash while
// appending) ends the file; recovery truncates it there.
//
// Small state files, each replaced whole with io/atomic_file.h (28 bytes):
//   0 magic "RSTM" | 4 version (1) | 8 a | 16 b | 24 crc32 of [0, 24)
//   `progress`: a = delivered_through_ms, b = filed_below (see timer_index.h: every entry
//               filed from a record below b with deliver_ms <= a has been delivered)
//   `filed`:    a = filed_durable_below (every timer record below it is in a synced
//               bucket file), b = 0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rocketstore::timer {

inline constexpr size_t kEntrySize = 32;
inline constexpr size_t kStateFileSize = 28;
inline constexpr uint32_t kStateMagic = 0x5253544D;  // "RSTM"
inline constexpr uint32_t kStateVersion = 1;
inline constexpr char kProgressFile[] = "progress";
inline constexpr char kFiledFile[] = "filed";
inline constexpr int kLevels = 3;  // fine, middle, far

// Property names (RocketMQ 5 MessageConst) and rocketstore's own.
inline constexpr std::string_view kPropTimerDeliverMs = "TIMER_DELIVER_MS";
inline constexpr std::string_view kPropTimerDelaySec = "TIMER_DELAY_SEC";
inline constexpr std::string_view kPropTimerDelayMs = "TIMER_DELAY_MS";
inline constexpr std::string_view kPropTimerOutMs = "TIMER_OUT_MS";
inline constexpr std::string_view kPropTimerEnqueueMs = "TIMER_ENQUEUE_MS";
inline constexpr std::string_view kPropTimerDequeueMs = "TIMER_DEQUEUE_MS";
inline constexpr std::string_view kPropTimerRollTimes = "TIMER_ROLL_TIMES";
inline constexpr std::string_view kPropTimerDelUniqKey = "TIMER_DEL_UNIQKEY";
// rocketstore: on a rolled copy, the commit-log offset of the record it replaces.
inline constexpr std::string_view kPropTimerRolledFrom = "TIMER_ROLLED_FROM";

enum class TimerEntryKind : uint8_t {
  kAdd = 1,         // a timer message to deliver at deliver_ms
  kCancel = 2,      // a recall: drops the kAdd of the same deliver_ms and key
  kRolledAway = 3,  // the kAdd at commit_log_offset was re-appended (rolled); drop it
};

struct TimerEntry {
  int64_t deliver_ms = 0;
  int64_t offset = 0;
  int32_t size = 0;
  uint32_t key_hash = 0;
  TimerEntryKind kind = TimerEntryKind::kAdd;
  int64_t by_offset = 0;  // kRolledAway only

  // The commit-log record whose filing wrote this entry (recovery drops entries whose
  // source was lost with a torn commit-log tail).
  int64_t source_offset() const { return kind == TimerEntryKind::kRolledAway ? by_offset : offset; }

  // Delivery order: time, then cancels and tombstones before adds, then log order.
  bool operator<(const TimerEntry& o) const;
  bool operator==(const TimerEntry& o) const = default;
};

void EncodeEntry(const TimerEntry& e, uint8_t* dst);  // kEntrySize bytes
// nullopt for a bad CRC, an unknown kind or non-zero reserved bytes.
std::optional<TimerEntry> DecodeEntry(const uint8_t* src);

// The hash stored in key_hash for a delete key.
uint32_t KeyHash(std::string_view delete_key);
// RocketMQ's TimerMessageStore.buildDeleteKey: "<real topic>+<uniq key>".
std::string DeleteKey(std::string_view real_topic, std::string_view uniq_key);

std::string BucketFileName(int level, int64_t window_start_ms);
// Parses a bucket file name; nullopt for any other name.
struct BucketName {
  int level = 0;
  int64_t window_start_ms = 0;
};
std::optional<BucketName> ParseBucketFileName(std::string_view name);

struct StateRecord {
  int64_t a = 0;
  int64_t b = 0;
};
std::string EncodeState(const StateRecord& s);
Result<StateRecord> DecodeState(std::string_view bytes);

// Decimal int64 as Java's Long.parseLong (optional sign, digits only, no overflow).
std::optional<int64_t> ParseLong(std::string_view s);

}  // namespace rocketstore::timer
