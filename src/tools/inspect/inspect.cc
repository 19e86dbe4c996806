// File: tools/inspect/inspect.cc
//
// Read-only store inspection; see inspect.h. Every file is opened read-only and read
// through a read-only mapping; nothing here writes, creates, renames or locks.
#include "tools/inspect/inspect.h"

#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/coding.h"
#include "base/crc32.h"
#include "base/java_hash.h"
#include "store/format/checkpoint_record.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "store/segment/file_names.h"

namespace rocketstore::tools::inspect {
namespace {

using format::DecodeOutcome;
using format::DecodeResult;
using format::RecordView;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";

// ---- small helpers --------------------------------------------------------------------------

std::string FormatMillis(int64_t ms) {
  if (ms <= 0) return "-";
  const time_t secs = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string HumanBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= double(1 << 30)) return fmt::format("{:.2f} GiB", b / double(1 << 30));
  if (b >= double(1 << 20)) return fmt::format("{:.1f} MiB", b / double(1 << 20));
  if (b >= double(1 << 10)) return fmt::format("{:.1f} KiB", b / double(1 << 10));
  return fmt::format("{} B", bytes);
}

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    const unsigned char c = p[i];
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size() || (p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

std::string Base64(std::string_view s) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((s.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == s.size()) {
    const uint32_t v = uint32_t{p[i]} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == s.size()) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// Printable, single-line, at most `max` characters.
std::string Printable(std::string_view s, size_t max = 40) {
  std::string out;
  const bool utf8 = ValidUtf8(s);
  for (size_t i = 0; i < s.size() && out.size() < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x01) {
      out += '=';
    } else if (c == 0x02) {
      out += ' ';
    } else if (c < 0x20 || c == 0x7F || (c >= 0x80 && !utf8)) {
      out += '.';
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() >= max && s.size() > max) out += "...";
  return out;
}

void Key(JsonWriter& w, const char* k) { w.Key(k); }
void Str(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// Emits one JSON Lines object: fill(w) writes the members.
void JsonLine(std::FILE* out, const std::function<void(JsonWriter&)>& fill) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  fill(w);
  w.EndObject();
  std::fputs(buf.GetString(), out);
  std::fputc('\n', out);
}

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
                                                 const std::string& name) {
  auto f = std::make_unique<MappedFile>();
  f->name = name;
  f->path = JoinPath(dir, name);
  OpenOptions oo;  // read-only: writable = create = false
  RS_ASSIGN_OR_RETURN(f->file, fs.OpenFile(f->path, oo));
  RS_ASSIGN_OR_RETURN(f->size, f->file->Size());
  if (f->size > 0) {
    RS_ASSIGN_OR_RETURN(f->region, f->file->Map(0, static_cast<size_t>(f->size), false));
    f->data = f->region->data();
  }
  return f;
}

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
Result<SegmentSet> LoadSegments(FileSystem& fs, const std::string& dir) {
  SegmentSet set;
  set.dir = dir;
  auto names = fs.ListDir(dir);
  if (!names.ok()) {
    if (names.status().code() == StatusCode::kNotFound) return set;
    return names.status();
  }
  for (const std::string& name : *names) {
    auto start = ParseSegmentFileName(name);
    if (!start) continue;
    auto info = fs.Stat(JoinPath(dir, name));
    if (!info.ok() || info->is_directory) continue;
    RS_ASSIGN_OR_RETURN(auto f, OpenReadOnly(fs, dir, name));
    set.files.emplace_back(*start, std::move(f));
  }
  std::sort(set.files.begin(), set.files.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!set.files.empty()) set.file_size = static_cast<int64_t>(set.files.front().second->size);
  return set;
}

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

Result<CommitLog> LoadCommitLog(FileSystem& fs, const std::string& root) {
  CommitLog log;
  RS_ASSIGN_OR_RETURN(log.segs, LoadSegments(fs, JoinPath(root, "commitlog")));
  log.min_offset = log.segs.first_start();
  log.max_offset = log.Walk(log.min_offset, false, false, [&](const Step& s) {
    if (s.decoded.outcome == DecodeOutcome::kRecord) {
      log.max_store_timestamp = std::max(log.max_store_timestamp, s.decoded.record.store_timestamp);
    }
    return s.decoded.outcome == DecodeOutcome::kRecord ||
           s.decoded.outcome == DecodeOutcome::kBlank;
  });
  return log;
}

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

std::optional<int32_t> ParseQueueId(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

Result<std::unique_ptr<Queue>> LoadQueue(FileSystem& fs, const std::string& root,
                                         const std::string& topic, int32_t queue_id) {
  auto q = std::make_unique<Queue>();
  q->topic = topic;
  q->queue_id = queue_id;
  RS_ASSIGN_OR_RETURN(q->files,
                      LoadSegments(fs, JoinPath(JoinPath(JoinPath(root, "consumequeue"), topic),
                                                std::to_string(queue_id))));
  int64_t n = q->first_unit();
  const int64_t end = q->capacity_end();
  q->min_offset = -1;
  for (; n < end; ++n) {
    auto u = q->Unit(n);
    if (!u || !u->IsValid()) break;
    if (q->min_offset < 0 && !u->IsBlank()) q->min_offset = n;
  }
  q->max_offset = n;
  if (q->min_offset < 0) q->min_offset = n;
  q->valid_end = n;
  for (int64_t m = end - 1; m > n; --m) {
    auto u = q->Unit(m);
    if (u && u->IsValid()) {
      q->valid_end = m + 1;
      break;
    }
  }
  return q;
}

Result<std::vector<std::unique_ptr<Queue>>> LoadQueues(FileSystem& fs, const std::string& root) {
  std::vector<std::unique_ptr<Queue>> out;
  const std::string cq_root = JoinPath(root, "consumequeue");
  auto topics = fs.ListDir(cq_root);
  if (!topics.ok()) {
    if (topics.status().code() == StatusCode::kNotFound) return out;
    return topics.status();
  }
  std::sort(topics->begin(), topics->end());
  for (const std::string& topic : *topics) {
    auto ids = fs.ListDir(JoinPath(cq_root, topic));
    if (!ids.ok()) continue;  // not a directory
    std::vector<int32_t> qids;
    for (const std::string& s : *ids) {
      if (auto id = ParseQueueId(s)) qids.push_back(*id);
    }
    std::sort(qids.begin(), qids.end());
    for (int32_t id : qids) {
      RS_ASSIGN_OR_RETURN(auto q, LoadQueue(fs, root, topic, id));
      out.push_back(std::move(q));
    }
  }
  return out;
}

// ---- index files ----------------------------------------------------------------------------

bool IsIndexName(std::string_view name) {
  return name.size() == format::kIndexFileNameLength &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

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
                                              const InspectOptions& options) {
  std::vector<IndexView> out;
  const std::string dir = JoinPath(root, "index");
  auto names = fs.ListDir(dir);
  if (!names.ok()) {
    if (names.status().code() == StatusCode::kNotFound) return out;
    return names.status();
  }
  std::sort(names->begin(), names->end());
  for (const std::string& name : *names) {
    if (!IsIndexName(name)) continue;
    IndexView v;
    v.geometry = format::IndexGeometry{options.index_slots, options.index_entries};
    RS_ASSIGN_OR_RETURN(v.file, OpenReadOnly(fs, dir, name));
    v.geometry_ok = v.geometry.Valid() && v.file->size == v.geometry.FileSize();
    if (v.file->size >= format::kIndexHeaderSize) {
      v.header = format::DecodeIndexHeader(v.file->data);
      v.count = std::min(format::NormalizedIndexCount(v.header.index_count), options.index_entries);
    }
    out.push_back(std::move(v));
  }
  return out;
}

// ---- checkpoint ----------------------------------------------------------------------------

struct CheckpointView {
  bool present = false;
  uint64_t size = 0;
  format::CheckpointRecord record;
  format::CheckpointDecode decode = format::CheckpointDecode::kRocketMqOnly;
};

Result<CheckpointView> LoadCheckpoint(FileSystem& fs, const std::string& root) {
  CheckpointView v;
  if (!fs.Exists(JoinPath(root, "checkpoint"))) return v;
  RS_ASSIGN_OR_RETURN(auto f, OpenReadOnly(fs, root, "checkpoint"));
  v.present = true;
  v.size = f->size;
  if (f->size >= 40) v.decode = format::DecodeCheckpoint(f->bytes(), &v.record);
  return v;
}

// ---- record output -----------------------------------------------------------------------

std::vector<std::string_view> SplitKeys(std::string_view keys) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= keys.size()) {
    size_t j = keys.find(format::kKeySeparator, i);
    if (j == std::string_view::npos) j = keys.size();
    if (j > i) out.push_back(keys.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The keys the dispatcher indexes for a record: KEYS tokens and UNIQ_KEY.
std::vector<std::string_view> IndexedKeys(const RecordView& r) {
  std::vector<std::string_view> keys;
  if (auto u = format::FindProperty(r.properties, format::kPropertyUniqKey)) keys.push_back(*u);
  if (auto k = format::FindProperty(r.properties, format::kPropertyKeys)) {
    for (auto t : SplitKeys(*k)) keys.push_back(t);
  }
  return keys;
}

void WriteRecordMembers(JsonWriter& w, int64_t off, const RecordView& r) {
  Key(w, "physicalOffset"), w.Int64(off);
  Key(w, "totalSize"), w.Int(r.total_size);
  Key(w, "magicCode"), w.Int(static_cast<int32_t>(r.magic));
  Key(w, "bodyCRC"), w.Int(static_cast<int32_t>(r.body_crc));
  Key(w, "queueId"), w.Int(r.queue_id);
  Key(w, "flag"), w.Int(r.flag);
  Key(w, "queueOffset"), w.Int64(r.queue_offset);
  Key(w, "sysFlag"), w.Int(r.sys_flag);
  Key(w, "bornTimestamp"), w.Int64(r.born_timestamp);
  Key(w, "bornHost"), Str(w, r.born_host.ToString());
  Key(w, "storeTimestamp"), w.Int64(r.store_timestamp);
  Key(w, "storeHost"), Str(w, r.store_host.ToString());
  Key(w, "reconsumeTimes"), w.Int(r.reconsume_times);
  Key(w, "preparedTransactionOffset"), w.Int64(r.prepared_transaction_offset);
  Key(w, "topic"), Str(w, r.topic);
  Key(w, "properties");
  w.StartObject();
  for (const auto& [name, value] : format::ParseProperties(r.properties)) {
    Str(w, name);
    Str(w, value);
  }
  w.EndObject();
  Key(w, "msgId"), Str(w, format::EncodeOffsetMsgId(r.store_host, r.physical_offset));
  if (ValidUtf8(r.body)) {
    Key(w, "body"), Str(w, r.body);
  } else {
    Key(w, "bodyBase64"), Str(w, Base64(r.body));
  }
}

void WriteRecordJsonLine(std::FILE* out, int64_t off, const RecordView& r) {
  JsonLine(out, [&](JsonWriter& w) { WriteRecordMembers(w, off, r); });
}

void PrintRecordHeader(std::FILE* out) {
  fmt::print(out, "{:>12}  {:>6}  {:<16}  {:>5}  {:>8}  {:<24}  {:<8}  {:<16}  {:<32}  {}\n",
             "offset", "size", "topic", "queue", "q.offset", "store time (UTC)", "tags", "keys",
             "msgId", "body");
}

void PrintRecordRow(std::FILE* out, int64_t off, const RecordView& r) {
  const auto tags = format::FindProperty(r.properties, format::kPropertyTags);
  const auto keys = format::FindProperty(r.properties, format::kPropertyKeys);
  fmt::print(out, "{:>12}  {:>6}  {:<16}  {:>5}  {:>8}  {:<24}  {:<8}  {:<16}  {:<32}  {}\n", off,
             r.total_size, Printable(r.topic, 16), r.queue_id, r.queue_offset,
             FormatMillis(r.store_timestamp), tags ? Printable(*tags, 8) : "-",
             keys ? Printable(*keys, 16) : "-",
             format::EncodeOffsetMsgId(r.store_host, r.physical_offset), Printable(r.body));
}

// Every field, one per line (msgid).
void PrintRecordDetail(std::FILE* out, int64_t off, const RecordView& r, const std::string& file,
                       int64_t pos) {
  auto line = [&](std::string_view name, const std::string& value) {
    fmt::print(out, "  {:<28} {}\n", name, value);
  };
  line("segment file / position", fmt::format("{} @ {}", file, pos));
  line("physicalOffset", std::to_string(off));
  line("totalSize", std::to_string(r.total_size));
  line("magicCode", fmt::format("0x{:08X}", r.magic));
  line("bodyCRC", std::to_string(r.body_crc));
  line("queueId", std::to_string(r.queue_id));
  line("flag", std::to_string(r.flag));
  line("queueOffset", std::to_string(r.queue_offset));
  line("sysFlag", fmt::format("0x{:X}", r.sys_flag));
  line("bornTimestamp", fmt::format("{} ({})", r.born_timestamp, FormatMillis(r.born_timestamp)));
  line("bornHost", r.born_host.ToString());
  line("storeTimestamp",
       fmt::format("{} ({})", r.store_timestamp, FormatMillis(r.store_timestamp)));
  line("storeHost", r.store_host.ToString());
  line("reconsumeTimes", std::to_string(r.reconsume_times));
  line("preparedTransactionOffset", std::to_string(r.prepared_transaction_offset));
  line("topic", std::string(r.topic));
  for (const auto& [name, value] : format::ParseProperties(r.properties)) {
    line(fmt::format("properties.{}", name), Printable(value, 120));
  }
  line("msgId", format::EncodeOffsetMsgId(r.store_host, r.physical_offset));
  line("body",
       ValidUtf8(r.body) ? Printable(r.body, 200) : "(base64) " + Base64(r.body.substr(0, 150)));
}

// Decodes the record at `off` (CRC checked); error text on failure.
Result<RecordView> RecordAt(const CommitLog& log, int64_t off, std::string* why = nullptr) {
  auto bytes = log.At(off);
  if (bytes.empty()) return NotFound(fmt::format("no commit-log file holds offset {}", off));
  DecodeResult d = format::DecodeRecord(bytes, true);
  if (d.outcome == DecodeOutcome::kRecord) return d.record;
  if (d.outcome == DecodeOutcome::kBlank) {
    return NotFound(fmt::format("offset {} holds a BLANK record (end of segment)", off));
  }
  return Corruption(fmt::format("no valid record at offset {}: {}", off,
                                d.error.empty() ? "unreadable" : d.error));
}

int Fail(std::FILE* err, const Status& s) {
  fmt::print(err, "error: {}\n", s.ToString());
  return 2;
}

}  // namespace

// ==== summary ====================================================================================

int RunSummary(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err) {
  const std::string& root = options.store_dir;
  if (!fs.Exists(root)) return Fail(err, NotFound("no store at " + root));
  auto log = LoadCommitLog(fs, root);
  if (!log.ok()) return Fail(err, log.status());
  auto queues = LoadQueues(fs, root);
  if (!queues.ok()) return Fail(err, queues.status());
  auto index = LoadIndexFiles(fs, root, options);
  if (!index.ok()) return Fail(err, index.status());
  auto cp = LoadCheckpoint(fs, root);
  if (!cp.ok()) return Fail(err, cp.status());
  const bool abort_present = fs.Exists(JoinPath(root, "abort"));
  const bool lock_present = fs.Exists(JoinPath(root, "lock"));

  uint64_t cl_bytes = 0, cq_bytes = 0, index_bytes = 0;
  for (const auto& [start, f] : log->segs.files) cl_bytes += f->size;
  for (const auto& q : *queues) {
    for (const auto& [start, f] : q->files.files) cq_bytes += f->size;
  }
  for (const auto& v : *index) index_bytes += v.file->size;
  auto disk = fs.GetDiskUsage(root);

  if (options.json) {
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "commitlog");
      Key(w, "segmentSize"), w.Int64(log->segs.file_size);
      Key(w, "minOffset"), w.Int64(log->min_offset);
      Key(w, "maxOffset"), w.Int64(log->max_offset);
      Key(w, "segments"), w.Uint64(log->segs.files.size());
    });
    for (const auto& [start, f] : log->segs.files) {
      const int64_t end = start + static_cast<int64_t>(f->size);
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "segment");
        Key(w, "file"), Str(w, f->name);
        Key(w, "startOffset"), w.Int64(start);
        Key(w, "size"), w.Uint64(f->size);
        Key(w, "dataEnd"), w.Int64(std::clamp(log->max_offset, start, end));
      });
    }
    for (const auto& q : *queues) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "queue");
        Key(w, "topic"), Str(w, q->topic);
        Key(w, "queueId"), w.Int(q->queue_id);
        Key(w, "minOffset"), w.Int64(q->min_offset);
        Key(w, "maxOffset"), w.Int64(q->max_offset);
        Key(w, "files"), w.Uint64(q->files.files.size());
      });
    }
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "checkpoint");
      Key(w, "present"), w.Bool(cp->present);
      Key(w, "physicMsgTimestamp"), w.Int64(cp->record.physic_msg_timestamp);
      Key(w, "logicsMsgTimestamp"), w.Int64(cp->record.logics_msg_timestamp);
      Key(w, "indexMsgTimestamp"), w.Int64(cp->record.index_msg_timestamp);
      Key(w, "extension"),
          Str(w, cp->decode == format::CheckpointDecode::kWithExtension      ? "ok"
                 : cp->decode == format::CheckpointDecode::kCorruptExtension ? "corrupt"
                                                                             : "absent");
      Key(w, "durableCommitLogOffset"), w.Int64(cp->record.durable_commit_log_offset);
      Key(w, "dispatchedCommitLogOffset"), w.Int64(cp->record.dispatched_commit_log_offset);
    });
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "state");
      Key(w, "abort"), w.Bool(abort_present);
      Key(w, "lockFile"), w.Bool(lock_present);
    });
    for (const auto& v : *index) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "index");
        Key(w, "file"), Str(w, v.file->name);
        Key(w, "size"), w.Uint64(v.file->size);
        Key(w, "geometryMatches"), w.Bool(v.geometry_ok);
        Key(w, "beginTimestamp"), w.Int64(v.header.begin_timestamp);
        Key(w, "endTimestamp"), w.Int64(v.header.end_timestamp);
        Key(w, "beginPhyOffset"), w.Int64(v.header.begin_phy_offset);
        Key(w, "endPhyOffset"), w.Int64(v.header.end_phy_offset);
        Key(w, "hashSlotCount"), w.Int(v.header.hash_slot_count);
        Key(w, "indexCount"), w.Int(v.header.index_count);
      });
    }
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "disk");
      Key(w, "commitlogBytes"), w.Uint64(cl_bytes);
      Key(w, "consumequeueBytes"), w.Uint64(cq_bytes);
      Key(w, "indexBytes"), w.Uint64(index_bytes);
      if (disk.ok()) {
        Key(w, "totalBytes"), w.Uint64(disk->total_bytes);
        Key(w, "freeBytes"), w.Uint64(disk->free_bytes);
      }
    });
    return 0;
  }

  fmt::print(out, "store {}\n\n", root);
  fmt::print(out, "CommitLog ({}/commitlog): every message of every topic, appended in order\n",
             root);
  fmt::print(out, "  segment size {} (inferred from the files), {} segment(s), data [{}, {})\n",
             log->segs.file_size, log->segs.files.size(), log->min_offset, log->max_offset);
  fmt::print(out, "  {:<22}  {:>14}  {:>14}  {:>12}\n", "file", "start offset", "data end", "size");
  for (const auto& [start, f] : log->segs.files) {
    const int64_t end = start + static_cast<int64_t>(f->size);
    fmt::print(out, "  {:<22}  {:>14}  {:>14}  {:>12}\n", f->name, start,
               std::clamp(log->max_offset, start, end), f->size);
  }
  fmt::print(out,
             "\nConsumeQueues (consumequeue/<topic>/<queue>): 20-byte units pointing into "
             "the CommitLog\n");
  if (queues->empty())
    fmt::print(out, "  (none)\n");
  else
    fmt::print(out, "  {:<32}  {:>5}  {:>10}  {:>10}  {:>5}\n", "topic", "queue", "min offset",
               "max offset", "files");
  for (const auto& q : *queues) {
    fmt::print(out, "  {:<32}  {:>5}  {:>10}  {:>10}  {:>5}\n", q->topic, q->queue_id,
               q->min_offset, q->max_offset, q->files.files.size());
  }
  fmt::print(out, "\nCheckpoint ({}/checkpoint): how far the store knew itself durable\n", root);
  if (!cp->present) {
    fmt::print(out, "  (absent)\n");
  } else {
    fmt::print(out, "  physicMsgTimestamp  {:>14}  {}\n", cp->record.physic_msg_timestamp,
               FormatMillis(cp->record.physic_msg_timestamp));
    fmt::print(out, "  logicsMsgTimestamp  {:>14}  {}\n", cp->record.logics_msg_timestamp,
               FormatMillis(cp->record.logics_msg_timestamp));
    fmt::print(out, "  indexMsgTimestamp   {:>14}  {}\n", cp->record.index_msg_timestamp,
               FormatMillis(cp->record.index_msg_timestamp));
    switch (cp->decode) {
      case format::CheckpointDecode::kWithExtension:
        fmt::print(out, "  rocketstore extension: durable offset {}, dispatched offset {}\n",
                   cp->record.durable_commit_log_offset, cp->record.dispatched_commit_log_offset);
        break;
      case format::CheckpointDecode::kCorruptExtension:
        fmt::print(out, "  rocketstore extension: CRC MISMATCH (values not trusted)\n");
        break;
      default:
        fmt::print(out, "  no rocketstore extension (written by RocketMQ, or empty)\n");
    }
  }
  fmt::print(out, "\nState\n  abort file  {}\n  lock file   {}\n",
             abort_present ? "present: a broker is running, or the last one did not shut down "
                             "cleanly (next start recovers abnormally)"
                           : "absent: clean shutdown",
             lock_present ? "present (inspect never takes the lock)" : "absent");
  fmt::print(out,
             "\nIndex files (index/): hash of topic#key -> chain of commit-log offsets "
             "(geometry {} slots, {} entries)\n",
             options.index_slots, options.index_entries);
  if (index->empty()) fmt::print(out, "  (none)\n");
  for (const auto& v : *index) {
    fmt::print(out, "  {}  entries {:>9}  time [{} .. {}]  phy [{} .. {}]{}\n", v.file->name,
               v.count - 1, FormatMillis(v.header.begin_timestamp),
               FormatMillis(v.header.end_timestamp), v.header.begin_phy_offset,
               v.header.end_phy_offset,
               v.geometry_ok ? "" : "  (size does not match --index-slots/--index-entries)");
  }
  fmt::print(out, "\nDisk usage (apparent sizes)\n  commitlog {}  consumequeue {}  index {}\n",
             HumanBytes(cl_bytes), HumanBytes(cq_bytes), HumanBytes(index_bytes));
  if (disk.ok()) {
    fmt::print(out, "  file system: {} free of {}\n", HumanBytes(disk->free_bytes),
               HumanBytes(disk->total_bytes));
  }
  return 0;
}

// ==== commitlog ==================================================================================

int RunCommitLog(FileSystem& fs, const InspectOptions& options, int64_t from, int64_t count,
                 std::FILE* out, std::FILE* err) {
  auto log = LoadCommitLog(fs, options.store_dir);
  if (!log.ok()) return Fail(err, log.status());
  if (log->segs.empty()) {
    fmt::print(err, "no commit-log files under {}/commitlog\n", options.store_dir);
    return 0;
  }
  const int64_t start = from < 0 ? log->min_offset : from;
  if (!options.json) PrintRecordHeader(out);
  int64_t shown = 0;
  int rc = 0;
  const int64_t end = log->Walk(start, true, false, [&](const Step& s) {
    if (count >= 0 && shown >= count) return false;
    ++shown;
    const auto& d = s.decoded;
    if (d.outcome == DecodeOutcome::kRecord) {
      if (options.json)
        WriteRecordJsonLine(out, s.offset, d.record);
      else
        PrintRecordRow(out, s.offset, d.record);
    } else if (d.outcome == DecodeOutcome::kBlank) {
      if (options.json) {
        JsonLine(out, [&](JsonWriter& w) {
          Key(w, "physicalOffset"), w.Int64(s.offset);
          Key(w, "blank"), w.Bool(true);
          Key(w, "length"), w.Int(d.blank_length);
        });
      } else {
        fmt::print(out, "{:>12}  {:>6}  BLANK: end of segment {}, next record at {}\n", s.offset,
                   d.blank_length, s.file->name, s.file_start + static_cast<int64_t>(s.file->size));
      }
    } else {
      fmt::print(err, "{} @ {} (offset {}): {}\n", s.file->path, s.offset - s.file_start, s.offset,
                 d.error);
      rc = 1;
    }
    return true;
  });
  if (!options.json && (count < 0 || shown < count) && rc == 0) {
    fmt::print(out, "{:>12}  end of the commit log\n", end);
  }
  return rc;
}

// ==== cq =========================================================================================

int RunCq(FileSystem& fs, const InspectOptions& options, const std::string& topic, int32_t queue_id,
          int64_t from, int64_t count, bool follow, std::FILE* out, std::FILE* err) {
  auto q = LoadQueue(fs, options.store_dir, topic, queue_id);
  if (!q.ok()) return Fail(err, q.status());
  if ((*q)->files.empty()) {
    fmt::print(err, "no consume queue {}/consumequeue/{}/{}\n", options.store_dir, topic, queue_id);
    return 2;
  }
  std::optional<CommitLog> log;
  if (follow) {
    auto l = LoadCommitLog(fs, options.store_dir);
    if (!l.ok()) return Fail(err, l.status());
    log = std::move(*l);
  }
  const Queue& queue = **q;
  const int64_t start = from < 0 ? queue.min_offset : from;
  // Past a gap (an invalid unit) the queue ends for RocketMQ; show the units after it too.
  const int64_t last = queue.valid_end;
  const int64_t stop = count < 0 ? last : std::min(last, start + count);
  if (!options.json) {
    fmt::print(out, "consumequeue/{}/{}: units [{}, {}), {} units per file\n", topic, queue_id,
               queue.min_offset, queue.max_offset,
               queue.files.file_size / static_cast<int64_t>(format::kConsumeQueueUnitSize));
    fmt::print(out, "{:>10}  {:>14}  {:>8}  {:>12}  {}\n", "q.offset", "physical offset", "size",
               "tagsCode", "file @ position");
  }
  for (int64_t n = start; n < stop; ++n) {
    auto u = queue.Unit(n);
    if (!u) break;
    int64_t pos = 0;
    const std::string file = queue.FileOf(n, &pos);
    std::optional<RecordView> rec;
    std::string rec_error;
    if (follow && !u->IsBlank() && u->IsValid()) {
      auto r = RecordAt(*log, u->offset.value());
      if (r.ok())
        rec = *r;
      else
        rec_error = r.status().message();
    }
    if (options.json) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "queueOffset"), w.Int64(n);
        Key(w, "physicalOffset"), w.Int64(u->offset.value());
        Key(w, "size"), w.Int(u->size);
        Key(w, "tagsCode"), w.Int64(u->tags_code);
        if (u->IsBlank()) Key(w, "blank"), w.Bool(true);
        if (!u->IsValid()) Key(w, "invalid"), w.Bool(true);
        if (follow && !u->IsBlank() && u->IsValid()) {
          Key(w, "record");
          if (rec) {
            w.StartObject();
            WriteRecordMembers(w, u->offset.value(), *rec);
            w.EndObject();
          } else {
            w.Null();
            Key(w, "error"), Str(w, rec_error);
          }
        }
      });
    } else {
      fmt::print(out, "{:>10}  {:>14}  {:>8}  {:>12}  {} @ {}{}\n", n, u->offset.value(), u->size,
                 u->tags_code, file, pos,
                 u->IsBlank()    ? "  (blank pre-fill unit)"
                 : !u->IsValid() ? "  (INVALID: a gap; RocketMQ's queue ends here)"
                                 : "");
      if (follow && !u->IsBlank() && u->IsValid()) {
        if (rec) {
          fmt::print(out, "            -> ");
          PrintRecordRow(out, u->offset.value(), *rec);
        } else {
          fmt::print(out, "            -> {}\n", rec_error);
        }
      }
    }
  }
  return 0;
}

// ==== key ========================================================================================

int RunKey(FileSystem& fs, const InspectOptions& options, const std::string& topic,
           const std::string& key, int64_t begin, int64_t end, std::FILE* out, std::FILE* err) {
  auto index = LoadIndexFiles(fs, options.store_dir, options);
  if (!index.ok()) return Fail(err, index.status());
  auto log = LoadCommitLog(fs, options.store_dir);
  if (!log.ok()) return Fail(err, log.status());
  const std::string full_key = format::BuildIndexKey(topic, key);
  const int32_t hash = format::IndexKeyHash(full_key);
  const int32_t slot = format::IndexSlotOf(hash, options.index_slots);
  if (options.json) {
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "key");
      Key(w, "key"), Str(w, full_key);
      Key(w, "keyHash"), w.Int(hash);
      Key(w, "hashSlotNum"), w.Int(options.index_slots);
      Key(w, "slot"), w.Int(slot);
    });
  } else {
    fmt::print(out, "key      {}\n", full_key);
    fmt::print(out, "keyHash  |String.hashCode()| = {}\n", hash);
    fmt::print(out, "slot     {} % {} = {}\n\n", hash, options.index_slots, slot);
  }
  std::vector<int64_t> matched;
  // RocketMQ queries the newest file first.
  for (auto it = index->rbegin(); it != index->rend(); ++it) {
    const IndexView& v = *it;
    const bool time_ok = v.header.begin_timestamp <= end && v.header.end_timestamp >= begin;
    int32_t slot_value = 0;
    if (v.geometry_ok) slot_value = v.Slot(slot);
    if (options.json) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "indexFile");
        Key(w, "file"), Str(w, v.file->name);
        Key(w, "geometryMatches"), w.Bool(v.geometry_ok);
        Key(w, "timeMatched"), w.Bool(time_ok);
        Key(w, "beginTimestamp"), w.Int64(v.header.begin_timestamp);
        Key(w, "endTimestamp"), w.Int64(v.header.end_timestamp);
        Key(w, "indexCount"), w.Int(v.count);
        Key(w, "slotPosition"), w.Uint64(v.geometry.SlotPosition(slot));
        Key(w, "slotValue"), w.Int(slot_value);
      });
    } else {
      fmt::print(out, "index/{}  ({} entries, time [{} .. {}])\n", v.file->name, v.count - 1,
                 FormatMillis(v.header.begin_timestamp), FormatMillis(v.header.end_timestamp));
      if (!v.geometry_ok) {
        fmt::print(out,
                   "  size {} does not match --index-slots {} --index-entries {} "
                   "(expected {}): skipped\n",
                   v.file->size, options.index_slots, options.index_entries, v.geometry.FileSize());
        continue;
      }
      if (!time_ok) {
        fmt::print(out, "  outside [--begin, --end]: skipped\n");
        continue;
      }
      fmt::print(out, "  slot {} at byte {} holds entry {}{}\n", slot,
                 v.geometry.SlotPosition(slot), slot_value,
                 slot_value <= 0 ? " (empty: the key is not in this file)" : "");
    }
    if (!v.geometry_ok || !time_ok) continue;
    if (slot_value <= 0 || slot_value > v.count || v.count <= 1) continue;
    if (!options.json) {
      fmt::print(out, "  {:>8}  {:>11}  {:>14}  {:>8}  {:>9}  {}\n", "entry", "keyHash",
                 "phyOffset", "timeDiff", "prevIndex", "matched");
    }
    int32_t next = slot_value;
    for (int guard = 0; guard < v.count; ++guard) {
      const format::IndexEntry e = v.Entry(next);
      const int64_t time = format::IndexEntryTime(v.header.begin_timestamp, e.time_diff);
      const bool is_match = e.key_hash == hash && time >= begin && time <= end;
      if (is_match) matched.push_back(e.phy_offset);
      if (options.json) {
        JsonLine(out, [&](JsonWriter& w) {
          Key(w, "type"), Str(w, "entry");
          Key(w, "file"), Str(w, v.file->name);
          Key(w, "entryNumber"), w.Int(next);
          Key(w, "keyHash"), w.Int(e.key_hash);
          Key(w, "physicalOffset"), w.Int64(e.phy_offset);
          Key(w, "timeDiff"), w.Int(e.time_diff);
          Key(w, "prevIndex"), w.Int(e.prev_index);
          Key(w, "matched"), w.Bool(is_match);
        });
      } else {
        fmt::print(out, "  {:>8}  {:>11}  {:>14}  {:>8}  {:>9}  {}\n", next, e.key_hash,
                   e.phy_offset, e.time_diff, e.prev_index,
                   is_match ? "yes" : (e.key_hash == hash ? "no (time)" : "no (other key)"));
      }
      const int32_t prev = e.prev_index;
      if (prev <= format::kIndexInvalidEntry || prev > v.count || prev == next || time < begin) {
        break;
      }
      next = prev;
    }
  }
  if (!options.json) {
    fmt::print(out, "\n{} candidate offset(s); records whose topic and key really match:\n",
               matched.size());
    PrintRecordHeader(out);
  }
  int found = 0;
  for (int64_t off : matched) {
    auto r = RecordAt(*log, off);
    if (!r.ok()) {
      if (!options.json) fmt::print(out, "{:>12}  {}\n", off, r.status().message());
      continue;
    }
    bool real = r->topic == topic;
    if (real) {
      const auto keys = IndexedKeys(*r);
      real = std::find(keys.begin(), keys.end(), key) != keys.end();
    }
    if (!real) {
      if (!options.json) {
        fmt::print(out, "{:>12}  hash collision: the record's topic/keys differ\n", off);
      }
      continue;
    }
    ++found;
    if (options.json)
      WriteRecordJsonLine(out, off, *r);
    else
      PrintRecordRow(out, off, *r);
  }
  if (!options.json) fmt::print(out, "{} record(s)\n", found);
  return 0;
}

// ==== msgid ======================================================================================

int RunMsgId(FileSystem& fs, const InspectOptions& options, const std::string& msg_id,
             std::FILE* out, std::FILE* err) {
  auto id = format::DecodeOffsetMsgId(msg_id);
  if (!id.ok()) return Fail(err, id.status());
  auto log = LoadCommitLog(fs, options.store_dir);
  if (!log.ok()) return Fail(err, log.status());
  const int64_t off = id->physical_offset;
  auto r = RecordAt(*log, off);
  const auto* f = log->segs.Find(off);
  if (options.json) {
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "msgId");
      Key(w, "msgId"), Str(w, msg_id);
      Key(w, "storeHost"), Str(w, id->host.ToString());
      Key(w, "physicalOffset"), w.Int64(off);
      if (f) {
        Key(w, "file"), Str(w, f->second->name);
        Key(w, "position"), w.Int64(off - f->first);
      }
      if (!r.ok()) Key(w, "error"), Str(w, r.status().message());
    });
    if (r.ok()) WriteRecordJsonLine(out, off, *r);
  } else {
    fmt::print(out, "msgId {} = store host address + port + commit-log offset\n", msg_id);
    fmt::print(out, "  host {}  port {}  physical offset {}\n",
               id->host.ToString().substr(0, id->host.ToString().rfind(':')), id->host.port, off);
    if (f) {
      fmt::print(out, "  -> file commitlog/{} at position {} ({} - {})\n\n", f->second->name,
                 off - f->first, off, f->first);
    }
    if (r.ok()) {
      PrintRecordDetail(out, off, *r, f ? f->second->name : "?", f ? off - f->first : 0);
    } else {
      fmt::print(out, "  {}\n", r.status().message());
    }
  }
  if (!r.ok()) {
    fmt::print(err, "error: {}\n", r.status().message());
    return 1;
  }
  if (!(r->store_host == id->host)) {
    fmt::print(err, "note: the record's store host {} differs from the id's {}\n",
               r->store_host.ToString(), id->host.ToString());
  }
  return 0;
}

// ==== verify =====================================================================================

namespace {

struct Problems {
  std::FILE* out;
  bool json;
  int64_t count = 0;
  void Add(const std::string& file, int64_t offset, const std::string& what) {
    ++count;
    if (json) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "problem");
        Key(w, "file"), Str(w, file);
        Key(w, "offset"), w.Int64(offset);
        Key(w, "problem"), Str(w, what);
      });
    } else {
      fmt::print(out, "{} @ {}: {}\n", file, offset, what);
    }
  }
};

}  // namespace

int RunVerify(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err) {
  const std::string& root = options.store_dir;
  if (!fs.Exists(root)) return Fail(err, NotFound("no store at " + root));
  auto log_or = LoadCommitLog(fs, root);
  if (!log_or.ok()) return Fail(err, log_or.status());
  const CommitLog& log = *log_or;
  auto queues_or = LoadQueues(fs, root);
  if (!queues_or.ok()) return Fail(err, queues_or.status());
  auto index_or = LoadIndexFiles(fs, root, options);
  if (!index_or.ok()) return Fail(err, index_or.status());
  auto cp_or = LoadCheckpoint(fs, root);
  if (!cp_or.ok()) return Fail(err, cp_or.status());

  Problems problems{out, options.json};
  // A store holding only a commit log (e.g. `rocketstore demo`) has nothing to cross-check.
  const bool has_queues = fs.Exists(JoinPath(root, "consumequeue"));
  if (!has_queues) {
    if (options.json) {
      JsonLine(out, [&](JsonWriter& w) {
        Key(w, "type"), Str(w, "note");
        Key(w, "note"), Str(w, "no consumequeue directory: CommitLog -> CQ checks skipped");
      });
    } else {
      fmt::print(out, "note: no consumequeue directory: CommitLog -> CQ checks skipped\n");
    }
  }
  std::map<std::pair<std::string, int32_t>, const Queue*> queue_by_key;
  for (const auto& q : *queues_or) queue_by_key[{q->topic, q->queue_id}] = q.get();

  // 1. Segment files: equal sizes, adjacent names.
  uint64_t total_bytes = 0;
  for (size_t i = 0; i < log.segs.files.size(); ++i) {
    const auto& [start, f] = log.segs.files[i];
    total_bytes += f->size;
    if (static_cast<int64_t>(f->size) != log.segs.file_size) {
      problems.Add(f->path, 0,
                   fmt::format("segment size {} differs from the first segment's {}", f->size,
                               log.segs.file_size));
    }
    if (i > 0 && start != log.segs.files[i - 1].first + log.segs.file_size) {
      problems.Add(f->path, 0,
                   fmt::format("segment starts at {}, expected {} (previous + segment size)", start,
                               log.segs.files[i - 1].first + log.segs.file_size));
    }
  }

  // 2. Every record: CRC, stored physical offset, BLANK lengths; record -> CQ.
  Progress progress("verify: commit log", err, options.progress);
  std::vector<int64_t> starts;
  int64_t records = 0, blanks = 0;
  log.Walk(log.min_offset, false, true, [&](const Step& s) {
    const int64_t pos = s.offset - s.file_start;
    const auto& d = s.decoded;
    if (total_bytes > 0 && (records & 1023) == 0) {
      progress.Update(static_cast<double>(s.offset - log.min_offset) /
                      static_cast<double>(total_bytes));
    }
    if (d.outcome == DecodeOutcome::kBlank) {
      ++blanks;
      const int64_t remaining = static_cast<int64_t>(s.file->size) - pos;
      if (d.blank_length != remaining) {
        problems.Add(s.file->path, pos,
                     fmt::format("BLANK record length {}, expected {} (bytes to the end of the "
                                 "segment)",
                                 d.blank_length, remaining));
      }
      return true;
    }
    if (d.outcome != DecodeOutcome::kRecord) {
      problems.Add(s.file->path, pos,
                   fmt::format("{} record at offset {}: {}; the rest of this segment is "
                               "unreadable",
                               d.outcome == DecodeOutcome::kTruncated ? "truncated" : "corrupt",
                               s.offset, d.error));
      return true;
    }
    const RecordView& r = d.record;
    ++records;
    starts.push_back(s.offset);
    const uint32_t crc = RocketMqCrc32(r.body.data(), r.body.size());
    if (crc != r.body_crc) {
      problems.Add(s.file->path, pos,
                   fmt::format("body CRC mismatch: stored {}, computed {} (record at offset {})",
                               r.body_crc, crc, s.offset));
    }
    if (r.physical_offset != s.offset) {
      problems.Add(s.file->path, pos,
                   fmt::format("PHYSICALOFFSET field {} but the record is at {}", r.physical_offset,
                               s.offset));
    }
    const int tx = r.TransactionType();
    if (has_queues && (tx == format::kTransactionNotType || tx == format::kTransactionCommit)) {
      auto it = queue_by_key.find({std::string(r.topic), r.queue_id});
      if (it == queue_by_key.end()) {
        problems.Add(s.file->path, pos,
                     fmt::format("record at {} ({}/{} queue offset {}) has no consume queue "
                                 "directory",
                                 s.offset, r.topic, r.queue_id, r.queue_offset));
      } else {
        const Queue& q = *it->second;
        if (r.queue_offset >= q.first_unit()) {
          auto u = q.Unit(r.queue_offset);
          if (!u || !u->IsValid() || u->IsBlank()) {
            int64_t upos = 0;
            const std::string file = q.FileOf(r.queue_offset, &upos);
            problems.Add(s.file->path, pos,
                         fmt::format("record at {} ({}/{} queue offset {}) has no CQ unit "
                                     "({} @ {})",
                                     s.offset, r.topic, r.queue_id, r.queue_offset, file, upos));
          }
        }
      }
    }
    return true;
  });
  progress.Done();
  const int64_t log_end = log.max_offset;
  // Data past the end: a later segment whose first bytes are written.
  for (const auto& [start, f] : log.segs.files) {
    if (start > log_end && f->size > 0 && !format::HeaderIsZero(f->bytes())) {
      problems.Add(f->path, 0,
                   fmt::format("segment holds data but the log ends at {} before it", log_end));
    }
  }

  auto is_record_start = [&](int64_t off) {
    return std::binary_search(starts.begin(), starts.end(), off);
  };

  // 3. CQ -> CommitLog.
  for (const auto& qp : *queues_or) {
    const Queue& q = *qp;
    if (!q.files.empty()) {
      const int64_t unit_file = q.files.file_size;
      for (size_t i = 0; i < q.files.files.size(); ++i) {
        const auto& [start, f] = q.files.files[i];
        if (static_cast<int64_t>(f->size) != unit_file ||
            unit_file % static_cast<int64_t>(format::kConsumeQueueUnitSize) != 0) {
          problems.Add(f->path, 0,
                       fmt::format("CQ file size {} differs from {} or is not a "
                                   "multiple of 20",
                                   f->size, unit_file));
        }
        if (i > 0 && start != q.files.files[i - 1].first + unit_file) {
          problems.Add(f->path, 0,
                       fmt::format("CQ file starts at logical offset {}, expected {}", start,
                                   q.files.files[i - 1].first + unit_file));
        }
      }
    }
    const int64_t end = q.capacity_end();
    int64_t last_valid = -1;
    for (int64_t n = q.first_unit(); n < end; ++n) {
      auto u = q.Unit(n);
      if (u && u->IsValid()) last_valid = n;
    }
    for (int64_t n = q.first_unit(); n <= last_valid; ++n) {
      auto u = q.Unit(n);
      int64_t upos = 0;
      const std::string file = q.FileOf(n, &upos);
      if (!u || !u->IsValid()) {
        problems.Add(file, upos,
                     fmt::format("CQ gap: unit {} is not valid (offset {}, size {}) but unit {} "
                                 "after it is",
                                 n, u ? u->offset.value() : 0, u ? u->size : 0, last_valid));
        continue;
      }
      if (u->IsBlank()) {
        if (n >= q.min_offset) {
          problems.Add(file, upos, fmt::format("blank pre-fill unit {} after real units", n));
        }
        continue;
      }
      const int64_t off = u->offset.value();
      if (off < log.min_offset) continue;  // its segment was deleted by retention
      if (!is_record_start(off)) {
        problems.Add(file, upos,
                     fmt::format("CQ unit {} points to commit-log offset {}, which is not the "
                                 "start of a record{}",
                                 n, off, off >= log_end ? " (beyond the end of the log)" : ""));
        continue;
      }
      // CRC problems are reported by the scan; compare the structure here.
      DecodeResult dr = format::DecodeRecord(log.At(off), false);
      if (dr.outcome != DecodeOutcome::kRecord) continue;
      const RecordView* r = &dr.record;
      if (u->size != r->total_size) {
        problems.Add(file, upos,
                     fmt::format("CQ unit {} size {} but the record at {} is {} "
                                 "bytes",
                                 n, u->size, off, r->total_size));
      }
      // LMQ multi-dispatch: the record also belongs to the queues named in
      // INNER_MULTI_DISPATCH, at the offsets of INNER_MULTI_QUEUE_OFFSET.
      if (auto multi = format::FindProperty(r->properties, format::kPropertyInnerMultiDispatch);
          multi && r->topic != q.topic && multi->find(q.topic) != std::string_view::npos) {
        continue;
      }
      if (r->topic != q.topic || r->queue_id != q.queue_id) {
        problems.Add(
            file, upos,
            fmt::format("CQ unit {} points to a record of {}/{}", n, r->topic, r->queue_id));
      }
      if (r->queue_offset != n) {
        problems.Add(
            file, upos,
            fmt::format("CQ unit {} points to a record with queue offset {}", n, r->queue_offset));
      }
      if (q.topic != kScheduleTopic && !format::IsConsumeQueueExtAddress(u->tags_code)) {
        const auto tags = format::FindProperty(r->properties, format::kPropertyTags);
        const int64_t expect = tags ? int64_t{JavaStringHash(*tags)} : 0;
        if (u->tags_code != expect) {
          problems.Add(file, upos,
                       fmt::format("CQ unit {} tagsCode {} but hash(TAGS) of the "
                                   "record is {}",
                                   n, u->tags_code, expect));
        }
      }
    }
  }

  // 4. Index -> CommitLog.
  for (const IndexView& v : *index_or) {
    if (!v.geometry_ok) {
      problems.Add(v.file->path, 0,
                   fmt::format("size {} does not match --index-slots {} --index-entries {} "
                               "(expected {}); not checked",
                               v.file->size, options.index_slots, options.index_entries,
                               v.geometry.FileSize()));
      continue;
    }
    if (v.header.index_count > options.index_entries) {
      problems.Add(v.file->path, format::kIndexCountOffset,
                   fmt::format("indexCount {} exceeds the geometry's {} entries",
                               v.header.index_count, options.index_entries));
    }
    for (int32_t i = format::kIndexFirstEntry; i < v.count; ++i) {
      const format::IndexEntry e = v.Entry(i);
      const int64_t pos = static_cast<int64_t>(v.geometry.EntryPosition(i));
      if (e.prev_index < 0 || e.prev_index >= i) {
        problems.Add(
            v.file->path, pos,
            fmt::format("index entry {} has prevIndex {} (must be below it)", i, e.prev_index));
      }
      if (e.key_hash < 0 || format::IndexSlotOf(e.key_hash, options.index_slots) < 0) {
        problems.Add(v.file->path, pos,
                     fmt::format("index entry {} keyHash {} is negative", i, e.key_hash));
      }
      if (e.phy_offset < log.min_offset) continue;  // deleted by retention
      if (!is_record_start(e.phy_offset)) {
        problems.Add(v.file->path, pos,
                     fmt::format("index entry {} points to commit-log offset {}, which is not "
                                 "the start of a record",
                                 i, e.phy_offset));
        continue;
      }
      DecodeResult d = format::DecodeRecord(log.At(e.phy_offset), false);
      if (d.outcome != DecodeOutcome::kRecord) continue;
      bool hash_ok = false;
      for (auto k : IndexedKeys(d.record)) {
        if (format::IndexKeyHash(format::BuildIndexKey(d.record.topic, k)) == e.key_hash) {
          hash_ok = true;
          break;
        }
      }
      if (!hash_ok) {
        problems.Add(v.file->path, pos,
                     fmt::format("index entry {} keyHash {} matches no key of the record at {}", i,
                                 e.key_hash, e.phy_offset));
      }
    }
    for (int32_t s = 0; s < options.index_slots; ++s) {
      const int32_t sv = v.Slot(s);
      if (sv < 0 || sv >= v.count) {
        problems.Add(v.file->path, static_cast<int64_t>(v.geometry.SlotPosition(s)),
                     fmt::format("slot {} holds entry {}, outside [0, {})", s, sv, v.count));
      }
    }
  }

  // 5. Checkpoint vs data.
  const CheckpointView& cp = *cp_or;
  const std::string cp_path = JoinPath(root, "checkpoint");
  if (cp.present) {
    if (cp.size != format::kCheckpointFileSize) {
      problems.Add(
          cp_path, 0,
          fmt::format("checkpoint is {} bytes, expected {}", cp.size, format::kCheckpointFileSize));
    }
    if (cp.decode == format::CheckpointDecode::kCorruptExtension) {
      problems.Add(cp_path, static_cast<int64_t>(format::kCheckpointExtensionOffset),
                   "rocketstore checkpoint extension CRC mismatch");
    }
    const auto& c = cp.record;
    auto after = [&](int64_t ts, const char* name, int64_t at) {
      if (ts > log.max_store_timestamp && ts > 0) {
        problems.Add(cp_path, at,
                     fmt::format("{} {} ({}) is after the last record's store time {} ({})", name,
                                 ts, FormatMillis(ts), log.max_store_timestamp,
                                 FormatMillis(log.max_store_timestamp)));
      }
    };
    after(c.physic_msg_timestamp, "physicMsgTimestamp", 0);
    after(c.logics_msg_timestamp, "logicsMsgTimestamp", 8);
    after(c.index_msg_timestamp, "indexMsgTimestamp", 16);
    if (c.durable_commit_log_offset > log_end) {
      problems.Add(cp_path, static_cast<int64_t>(format::kCheckpointExtensionOffset) + 8,
                   fmt::format("durable commit-log offset {} is past the end of the log {}",
                               c.durable_commit_log_offset, log_end));
    }
    if (c.dispatched_commit_log_offset > log_end) {
      problems.Add(cp_path, static_cast<int64_t>(format::kCheckpointExtensionOffset) + 16,
                   fmt::format("dispatched commit-log offset {} is past the end of the log {}",
                               c.dispatched_commit_log_offset, log_end));
    }
  }

  const bool ok = problems.count == 0;
  if (options.json) {
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "verify");
      Key(w, "records"), w.Int64(records);
      Key(w, "blanks"), w.Int64(blanks);
      Key(w, "queues"), w.Uint64(queues_or->size());
      Key(w, "indexFiles"), w.Uint64(index_or->size());
      Key(w, "problems"), w.Int64(problems.count);
      Key(w, "consistent"), w.Bool(ok);
    });
  } else {
    fmt::print(out, "verified {} record(s), {} BLANK(s), {} queue(s), {} index file(s): {}\n",
               records, blanks, queues_or->size(), index_or->size(),
               ok ? "consistent" : fmt::format("{} problem(s)", problems.count));
  }
  return ok ? 0 : 1;
}

}  // namespace rocketstore::tools::inspect
