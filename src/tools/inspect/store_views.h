// File: tools/inspect/store_views.h
//
// What the `rocketstore inspect` subcommands (inspect.cc, verify.cc) share: read-only
// views of a store's files — segments mapped read-only, the commit log walked record by
// record, consume queues, index files, the checkpoint — and the record and JSON output
// helpers. Internal to tools/inspect/; nothing here writes, creates, renames or locks.
//
// Thread-safety: none needed (the tool is single-threaded). The views own their files and
// mappings; RecordView and spans they hand out point into those mappings.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"
#include "store/format/checkpoint_record.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/format/message_record.h"
#include "store/segment/file_names.h"
#include "tools/inspect/inspect.h"

namespace rocketstore::tools::inspect {

using format::DecodeOutcome;
using format::DecodeResult;
using format::RecordView;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

inline constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";

// ---- small helpers --------------------------------------------------------------------------

std::string FormatMillis(int64_t ms);

std::string HumanBytes(uint64_t bytes);

bool ValidUtf8(std::string_view s);

std::string Base64(std::string_view s);

// Printable, single-line, at most `max` characters.
std::string Printable(std::string_view s, size_t max = 40);

inline void Key(JsonWriter& w, const char* k) { w.Key(k); }

void Str(JsonWriter& w, std::string_view s);

// Emits one JSON Lines object: fill(w) writes the members.
void JsonLine(std::FILE* out, const std::function<void(JsonWriter&)>& fill);

// A progress line on `err` when it is a terminal (as bench/bench_util.h's Progress).
class Progress {
 public:
  Progress(std::string label, std::FILE* err, bool enabled)
      : label_(std::move(label)), err_(err), tty_(enabled && err && isatty(fileno(err))) {}
  void Update(double fraction) {
    if (!tty_) return;
    const int pct = static_cast<int>(fraction * 100);
    if (pct == last_) return;
    last_ = pct;
    const int filled = std::clamp(static_cast<int>(fraction * 30), 0, 30);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(30, '.');
    std::fprintf(err_, "\r[%s] %3d%% %s", bar.c_str(), pct, label_.c_str());
    std::fflush(err_);
  }
  void Done() {
    if (tty_) std::fprintf(err_, "\r%*s\r", 40 + static_cast<int>(label_.size()), "");
  }

 private:
  std::string label_;
  std::FILE* err_;
  bool tty_;
  int last_ = -1;
};

// ---- read-only files ------------------------------------------------------------------------

// One file, opened read-only and mapped read-only in full (nothing mapped when empty).
struct MappedFile {
  std::string name;
  std::string path;
  uint64_t size = 0;
  std::unique_ptr<File> file;
  std::unique_ptr<MappedRegion> region;
  const uint8_t* data = nullptr;

  std::span<const uint8_t> bytes() const { return {data, static_cast<size_t>(size)}; }
};

Result<std::unique_ptr<MappedFile>> OpenReadOnly(FileSystem& fs, const std::string& dir,
                                                 const std::string& name);

// Files named by the 20-digit offset of their first byte (commit log, one consume queue).
struct SegmentSet {
  std::string dir;
  std::vector<std::pair<int64_t, std::unique_ptr<MappedFile>>> files;  // sorted by start
  int64_t file_size = 0;  // inferred: the size of the first file

  bool empty() const { return files.empty(); }
  int64_t first_start() const { return files.empty() ? 0 : files.front().first; }

  // The file holding `off`, or nullptr.
  const std::pair<int64_t, std::unique_ptr<MappedFile>>* Find(int64_t off) const {
    auto it = std::upper_bound(files.begin(), files.end(), off,
                               [](int64_t o, const auto& f) { return o < f.first; });
    if (it == files.begin()) return nullptr;
    --it;
    if (off - it->first >= static_cast<int64_t>(it->second->size)) return nullptr;
    return &*it;
  }
  // Bytes from `off` to the end of its file (empty if no file holds it).
  std::span<const uint8_t> At(int64_t off) const {
    const auto* f = Find(off);
    if (!f) return {};
    return f->second->bytes().subspan(static_cast<size_t>(off - f->first));
  }
};

// Loads every segment-named file of `dir`. A missing directory is an empty set.
Result<SegmentSet> LoadSegments(FileSystem& fs, const std::string& dir);

// ---- the commit log ---------------------------------------------------------------------------

struct Step {
  int64_t offset = 0;
  const MappedFile* file = nullptr;
  int64_t file_start = 0;
  DecodeResult decoded;  // kRecord / kBlank / kCorrupt / kTruncated
};

struct CommitLog {
  SegmentSet segs;
  int64_t min_offset = 0;  // first segment's start
  int64_t max_offset = 0;  // end of the readable records (first zero header or damage)
  int64_t max_store_timestamp = 0;

  std::span<const uint8_t> At(int64_t off) const { return segs.At(off); }

  // Walks from `from` while `cb` returns true. Stops at the first zero header (the end),
  // and after a kCorrupt / kTruncated step unless `skip_damaged`, in which case it
  // continues with the next segment. Returns the offset where the walk ended.
  int64_t Walk(int64_t from, bool check_crc, bool skip_damaged,
               const std::function<bool(const Step&)>& cb) const {
    int64_t off = from;
    while (true) {
      const auto* f = segs.Find(off);
      if (!f) {
        // Past a file's end: continue at the next file if it starts exactly here.
        auto it = std::find_if(segs.files.begin(), segs.files.end(),
                               [&](const auto& s) { return s.first == off; });
        if (it == segs.files.end() || it->second->size == 0) return off;
        f = &*it;
      }
      const size_t pos = static_cast<size_t>(off - f->first);
      std::span<const uint8_t> bytes = f->second->bytes().subspan(pos);
      if (format::HeaderIsZero(bytes)) return off;
      Step s;
      s.offset = off;
      s.file = f->second.get();
      s.file_start = f->first;
      s.decoded = format::DecodeRecord(bytes, check_crc);
      if (!cb(s)) return off;
      switch (s.decoded.outcome) {
        case DecodeOutcome::kRecord:
          off += s.decoded.record.total_size;
          break;
        case DecodeOutcome::kBlank:
          off = f->first + static_cast<int64_t>(f->second->size);
          break;
        default:
          if (!skip_damaged) return off;
          off = f->first + static_cast<int64_t>(f->second->size);
          break;
      }
    }
  }
};

Result<CommitLog> LoadCommitLog(FileSystem& fs, const std::string& root);

// ---- consume queues -----------------------------------------------------------------------

struct Queue {
  std::string topic;
  int32_t queue_id = 0;
  SegmentSet files;
  int64_t min_offset = 0;  // first valid, non-blank unit
  int64_t max_offset = 0;  // first invalid unit (one past the last)
  int64_t valid_end = 0;   // one past the last valid unit (> max_offset after a gap)

  std::optional<format::ConsumeQueueUnit> Unit(int64_t n) const {
    if (n < 0) return std::nullopt;
    auto b = files.At(n * static_cast<int64_t>(format::kConsumeQueueUnitSize));
    if (b.size() < format::kConsumeQueueUnitSize) return std::nullopt;
    return format::DecodeConsumeQueueUnit(b.data());
  }
  int64_t first_unit() const {
    return files.first_start() / static_cast<int64_t>(format::kConsumeQueueUnitSize);
  }
  // Units the files can hold: one past the last slot of the last file.
  int64_t capacity_end() const {
    if (files.empty()) return 0;
    const auto& last = files.files.back();
    return (last.first + static_cast<int64_t>(last.second->size)) /
           static_cast<int64_t>(format::kConsumeQueueUnitSize);
  }
  std::string FileOf(int64_t n, int64_t* pos) const {
    const int64_t logical = n * static_cast<int64_t>(format::kConsumeQueueUnitSize);
    const auto* f = files.Find(logical);
    if (!f) {
      *pos = 0;
      return JoinPath(files.dir, SegmentFileName(logical));
    }
    *pos = logical - f->first;
    return f->second->path;
  }
};

std::optional<int32_t> ParseQueueId(const std::string& s);

Result<std::unique_ptr<Queue>> LoadQueue(FileSystem& fs, const std::string& root,
                                         const std::string& topic, int32_t queue_id);

Result<std::vector<std::unique_ptr<Queue>>> LoadQueues(FileSystem& fs, const std::string& root);

// ---- index files ----------------------------------------------------------------------------

bool IsIndexName(std::string_view name);

struct IndexView {
  std::unique_ptr<MappedFile> file;
  bool geometry_ok = false;
  format::IndexHeader header;
  int32_t count = 1;  // normalised index count (next entry number)
  format::IndexGeometry geometry;

  int32_t Slot(int32_t s) const { return DecodeInt32BE(file->data + geometry.SlotPosition(s)); }
  format::IndexEntry Entry(int32_t i) const {
    return format::DecodeIndexEntry(file->data + geometry.EntryPosition(i));
  }
};

Result<std::vector<IndexView>> LoadIndexFiles(FileSystem& fs, const std::string& root,
                                              const InspectOptions& options);

// ---- checkpoint ----------------------------------------------------------------------------

struct CheckpointView {
  bool present = false;
  uint64_t size = 0;
  format::CheckpointRecord record;
  format::CheckpointDecode decode = format::CheckpointDecode::kRocketMqOnly;
};

Result<CheckpointView> LoadCheckpoint(FileSystem& fs, const std::string& root);

// ---- record output -----------------------------------------------------------------------

// The keys the dispatcher indexes for a record: KEYS tokens and UNIQ_KEY.
std::vector<std::string_view> IndexedKeys(const RecordView& r);

void WriteRecordMembers(JsonWriter& w, int64_t off, const RecordView& r);

void WriteRecordJsonLine(std::FILE* out, int64_t off, const RecordView& r);

void PrintRecordHeader(std::FILE* out);

void PrintRecordRow(std::FILE* out, int64_t off, const RecordView& r);

// Every field, one per line (msgid).
void PrintRecordDetail(std::FILE* out, int64_t off, const RecordView& r, const std::string& file,
                       int64_t pos);

// Decodes the record at `off` (CRC checked); error text on failure.
Result<RecordView> RecordAt(const CommitLog& log, int64_t off, std::string* why = nullptr);

int Fail(std::FILE* err, const Status& s);

}  // namespace rocketstore::tools::inspect
