// File: store/recovery/commit_log_recovery.h
//
// Finding the end of the CommitLog after a restart (spec §6.3, §6.4).
//
// The walk: start at a segment chosen by the policy, decode record after record with the
// body CRC checked. A BLANK record sends the walk to the next segment. The first record
// that does not decode ends the log: everything from there on is dropped, and the
// segment holding that point becomes the last one (later segments are removed).
//
// How the end is classified (reported, so operators know what happened):
//   kEmpty       no segments at all.
//   kCleanEnd    the walk met zero bytes (the preallocated, never written tail) or the
//                end of the last segment: nothing was lost.
//   kTornTail    an incomplete or invalid record with nothing valid after it: the writer
//                died mid-record (or the OS lost the last unflushed pages). Expected after
//                a crash; the partial record was never acknowledged as durable.
//   kCorruption  an invalid record (bad CRC, bad magic, bad length) FOLLOWED by a valid
//                record or by further segments: bytes inside the log went bad. The walk
//                still stops there (RocketMQ's rule), and the report says how many bytes
//                were dropped; a caller that knows the durable end (checkpoint) refuses
//                to drop acknowledged data instead (`durable_floor`).
// `dropped_bytes` counts the bytes between the recovered end and the last non-zero byte
// of the segment where the walk stopped, plus all bytes of the removed later segments.
//
// Thread-safety: call before the store starts; no concurrent users of the CommitLog.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/offsets.h"
#include "base/result.h"
#include "store/commitlog/commit_log.h"
#include "store/format/message_record.h"

namespace rocketstore {

struct CommitLogRecoveryOptions {
  // Where the walk starts: the first segment whose start is >= this offset's segment.
  // Normal recovery uses the third-last segment (kFromThirdLastSegment); abnormal
  // recovery starts from the checkpoint (see store recovery); -1 selects the default.
  enum class Start { kFirstSegment, kThirdLastSegment, kAtOffset };
  Start start = Start::kThirdLastSegment;
  PhysicalOffset start_offset;  // with kAtOffset; rounded down to its segment
  bool check_crc = true;        // checkCRCOnRecover
  // Bytes below this offset were acknowledged as durable: if the walk would end below
  // it, recovery fails with kCorruption instead of dropping them. 0 disables the check.
  PhysicalOffset durable_floor;
};

struct CommitLogRecoveryReport {
  enum class EndKind { kEmpty, kCleanEnd, kTornTail, kCorruption };
  EndKind end_kind = EndKind::kEmpty;
  PhysicalOffset scan_start;
  PhysicalOffset end;   // the recovered end: one past the last valid record
  int64_t records = 0;  // valid records walked
  int64_t scanned_bytes = 0;
  int64_t last_store_timestamp = 0;
  int64_t dropped_bytes = 0;
  int64_t removed_segments = 0;
  std::string detail;  // why the walk stopped, when not a clean end

  std::string Summary() const;  // one human line
};

const char* EndKindName(CommitLogRecoveryReport::EndKind kind);

// Called for every valid record walked, in log order (abnormal recovery re-dispatches
// through it; the queue-offset table can be rebuilt from it).
using RecoveredRecordVisitor = std::function<void(PhysicalOffset, const format::RecordView&)>;

// Walks, classifies, and truncates `log` to the recovered end (CommitLog::SetEnd).
// Progress: `progress(done_bytes, total_bytes)` is called now and then when set.
Result<CommitLogRecoveryReport> RecoverCommitLog(
    CommitLog& log, const CommitLogRecoveryOptions& options,
    const RecoveredRecordVisitor& visitor = nullptr,
    const std::function<void(int64_t, int64_t)>& progress = nullptr);

}  // namespace rocketstore
