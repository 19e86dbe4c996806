// File: tools/inspect/store_views.cc
//
// The shared read-only views and output helpers of `rocketstore inspect`; see
// store_views.h.
#include "tools/inspect/store_views.h"

#include <fmt/core.h>

#include <ctime>

#include "base/coding.h"
#include "base/crc32.h"
#include "base/java_hash.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"

namespace rocketstore::tools::inspect {

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

std::string Printable(std::string_view s, size_t max) {
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

void Str(JsonWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void JsonLine(std::FILE* out, const std::function<void(JsonWriter&)>& fill) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  fill(w);
  w.EndObject();
  std::fputs(buf.GetString(), out);
  std::fputc('\n', out);
}

// ---- read-only files ------------------------------------------------------------------------

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

Result<CommitLog> LoadCommitLog(FileSystem& fs, const std::string& root) {
  CommitLog log;
  RS_ASSIGN_OR_RETURN(log.segs, LoadSegments(fs, layout::CommitLogDir(root)));
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
  RS_ASSIGN_OR_RETURN(q->files, LoadSegments(fs, layout::ConsumeQueueDir(root, topic, queue_id)));
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
  const std::string cq_root = layout::ConsumeQueueRootDir(root);
  auto topics = fs.ListDir(cq_root);
  if (!topics.ok()) {
    if (topics.status().code() == StatusCode::kNotFound) return out;
    return topics.status();
  }
  std::sort(topics->begin(), topics->end());
  for (const std::string& topic : *topics) {
    auto ids = fs.ListDir(layout::ConsumeQueueTopicDir(root, topic));
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

Result<std::vector<IndexView>> LoadIndexFiles(FileSystem& fs, const std::string& root,
                                              const InspectOptions& options) {
  std::vector<IndexView> out;
  const std::string dir = layout::IndexDir(root);
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

Result<CheckpointView> LoadCheckpoint(FileSystem& fs, const std::string& root) {
  CheckpointView v;
  if (!fs.Exists(layout::CheckpointPath(root))) return v;
  RS_ASSIGN_OR_RETURN(auto f, OpenReadOnly(fs, root, layout::kCheckpointFile));
  v.present = true;
  v.size = f->size;
  if (f->size >= 40) v.decode = format::DecodeCheckpoint(f->bytes(), &v.record);
  return v;
}

// ---- record output -----------------------------------------------------------------------

std::vector<std::string_view> IndexedKeys(const RecordView& r) {
  std::vector<std::string_view> keys;
  if (auto u = format::FindProperty(r.properties, format::kPropertyUniqKey)) keys.push_back(*u);
  if (auto k = format::FindProperty(r.properties, format::kPropertyKeys)) {
    for (auto t : format::SplitKeys(*k)) keys.push_back(t);
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

Result<RecordView> RecordAt(const CommitLog& log, int64_t off, std::string* why) {
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

}  // namespace rocketstore::tools::inspect
