#include "store/recovery/commit_log_recovery.h"

#include <algorithm>
#include <cstring>

#include "base/coding.h"

namespace rocketstore {
namespace {

using EndKind = CommitLogRecoveryReport::EndKind;

bool AllZero(const uint8_t* p, size_t n) {
  // Word-at-a-time check; the tail of a fresh segment is zero pages.
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w != 0) return false;
  }
  for (; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// Offset one past the last non-zero byte in [p, p+n), or 0 if all zero.
size_t EndOfNonZero(const uint8_t* p, size_t n) {
  constexpr size_t kChunk = 4096;
  size_t end = 0;
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t len = std::min(kChunk, n - off);
    if (!AllZero(p + off, len)) {
      for (size_t i = len; i > 0; --i) {
        if (p[off + i - 1] != 0) {
          end = off + i;
          break;
        }
      }
    }
  }
  return end;
}

// Bytes of `file` from `from` up to its last non-zero byte (0 if all zero), reading only
// the ranges the file system says may hold data: the unwritten rest of a segment is
// neither read nor brought into the page cache.
Result<int64_t> NonZeroBytesFrom(const MappedFile& file, int64_t from) {
  const int64_t size = file.file_size();
  int64_t end = from;  // one past the last non-zero byte seen
  for (int64_t pos = from; pos < size;) {
    RS_ASSIGN_OR_RETURN(File::DataRange r, file.NextDataRange(pos));
    const int64_t start = std::max(pos, static_cast<int64_t>(r.start));
    const int64_t stop = std::min(size, static_cast<int64_t>(r.end));
    if (start >= size || stop <= start) break;
    const size_t used = EndOfNonZero(file.data() + start, static_cast<size_t>(stop - start));
    if (used > 0) end = start + static_cast<int64_t>(used);
    pos = stop;
  }
  return end - from;
}

}  // namespace

const char* EndKindName(EndKind kind) {
  switch (kind) {
    case EndKind::kEmpty:
      return "empty";
    case EndKind::kCleanEnd:
      return "clean end";
    case EndKind::kTornTail:
      return "torn tail";
    case EndKind::kCorruption:
      return "corruption";
  }
  return "?";
}

std::string CommitLogRecoveryReport::Summary() const {
  std::string s = "commit log recovered to offset " + std::to_string(end.value()) + " (" +
                  EndKindName(end_kind) + "): " + std::to_string(records) +
                  " records walked from offset " + std::to_string(scan_start.value());
  if (dropped_bytes > 0 || removed_segments > 0) {
    s += ", dropped " + std::to_string(dropped_bytes) + " bytes";
    if (removed_segments > 0) s += " and " + std::to_string(removed_segments) + " segment(s)";
  }
  if (!detail.empty()) s += "; " + detail;
  return s;
}

Result<CommitLogRecoveryReport> RecoverCommitLog(
    CommitLog& log, const CommitLogRecoveryOptions& options, const RecoveredRecordVisitor& visitor,
    const std::function<void(int64_t, int64_t)>& progress) {
  CommitLogRecoveryReport report;
  std::vector<std::shared_ptr<MappedFile>> files = log.segments().Files();
  if (files.empty()) {
    report.end_kind = EndKind::kEmpty;
    RS_RETURN_IF_ERROR(log.SetEnd(PhysicalOffset(0), 0));
    return report;
  }

  size_t index = 0;
  switch (options.start) {
    case CommitLogRecoveryOptions::Start::kFirstSegment:
      break;
    case CommitLogRecoveryOptions::Start::kThirdLastSegment:
      index = files.size() > 3 ? files.size() - 3 : 0;
      break;
    case CommitLogRecoveryOptions::Start::kAtOffset:
      while (index + 1 < files.size() && files[index]->end_offset() <= options.start_offset) {
        ++index;
      }
      break;
  }
  report.scan_start = files[index]->start_offset();
  const int64_t total_bytes =
      static_cast<int64_t>(files.size() - index) * log.options().segment_size;

  PhysicalOffset end = files[index]->start_offset();
  report.end_kind = EndKind::kCleanEnd;
  size_t stop_index = index;
  int64_t stop_pos = 0;
  bool stopped = false;
  for (size_t i = index; i < files.size() && !stopped; ++i) {
    MappedFile& file = *files[i];
    const uint8_t* base = file.data();
    const int64_t size = file.file_size();
    int64_t pos = 0;
    while (true) {
      if (progress && (report.records & 0xFFFF) == 0) {
        progress(report.scanned_bytes + pos, total_bytes);
      }
      if (size - pos < 8 || AllZero(base + pos, 8)) {
        // Zeros (never-written tail) or no room for even a BLANK: a clean end, unless
        // later segments hold data (checked below).
        stop_index = i, stop_pos = pos, stopped = true;
        break;
      }
      format::DecodeResult d = format::DecodeRecord(
          std::span<const uint8_t>(base + pos, static_cast<size_t>(size - pos)), options.check_crc);
      if (d.outcome == format::DecodeOutcome::kBlank) {
        // The segment is complete: continue at the next one. Without a next segment the
        // log ends at this segment's end (the BLANK is valid data; the next append starts
        // a new segment).
        if (i + 1 == files.size()) {
          stop_index = i, stop_pos = size, stopped = true;
        }
        end = file.end_offset();
        break;
      }
      if (d.outcome != format::DecodeOutcome::kRecord) {
        stop_index = i, stop_pos = pos, stopped = true;
        report.detail =
            "at offset " + std::to_string((file.start_offset() + pos).value()) + ": " + d.error;
        // A torn tail has nothing valid after it; corruption does.
        bool valid_after = false;
        const int32_t claimed = DecodeInt32BE(base + pos);
        if (claimed >= static_cast<int32_t>(format::kMinRecordSizeV1) && claimed < size - pos - 8) {
          format::DecodeResult next = format::DecodeRecord(
              std::span<const uint8_t>(base + pos + claimed,
                                       static_cast<size_t>(size - pos - claimed)),
              true);
          valid_after = next.outcome == format::DecodeOutcome::kRecord ||
                        next.outcome == format::DecodeOutcome::kBlank;
        }
        report.end_kind = valid_after ? EndKind::kCorruption : EndKind::kTornTail;
        break;
      }
      if (visitor) visitor(file.start_offset() + pos, d.record);
      report.records++;
      report.last_store_timestamp = d.record.store_timestamp;
      pos += d.record.total_size;
      end = file.start_offset() + pos;
    }
    report.scanned_bytes += stopped ? stop_pos : size;
  }
  if (!stopped) {  // ended on a BLANK of the last segment... handled above; or full walk
    stop_index = files.size() - 1;
    stop_pos = files.back()->file_size();
  }
  if (stopped) end = files[stop_index]->start_offset() + stop_pos;

  // What truncation will drop: the rest of the stop segment, and all later segments.
  {
    MappedFile& file = *files[stop_index];
    RS_ASSIGN_OR_RETURN(const int64_t rest_used,
                        NonZeroBytesFrom(file, static_cast<int64_t>(stop_pos)));
    report.dropped_bytes += rest_used;
    for (size_t i = stop_index + 1; i < files.size(); ++i) {
      RS_ASSIGN_OR_RETURN(const int64_t used, NonZeroBytesFrom(*files[i], 0));
      report.dropped_bytes += used;
      report.removed_segments++;
      if (used > 0 && report.end_kind == EndKind::kCleanEnd) {
        report.end_kind = EndKind::kCorruption;
        report.detail = "segment " + files[i]->path() + " holds data after the end of the log";
      } else if (used > 0 && report.end_kind == EndKind::kTornTail) {
        report.end_kind = EndKind::kCorruption;
      }
    }
    if (report.end_kind == EndKind::kCleanEnd && report.dropped_bytes > 0) {
      // Zeros at the stop point but data after them inside the segment.
      report.end_kind = EndKind::kCorruption;
      report.detail = "zero bytes at offset " + std::to_string(end.value()) + " followed by data";
    }
  }
  report.end = end;

  if (options.durable_floor.value() > 0 && end < options.durable_floor) {
    return Corruption("commit log " + log.options().dir + ": the last valid record ends at " +
                      std::to_string(end.value()) + " but data up to " +
                      std::to_string(options.durable_floor.value()) +
                      " was acknowledged as durable (" + report.detail +
                      "); refusing to drop acknowledged messages. Inspect the store with "
                      "`rocketstore inspect verify` and restore the damaged segment");
  }
  if (progress) progress(total_bytes, total_bytes);
  RS_RETURN_IF_ERROR(log.SetEnd(end, report.last_store_timestamp));
  return report;
}

}  // namespace rocketstore
