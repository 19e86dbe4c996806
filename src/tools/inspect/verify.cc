// File: tools/inspect/verify.cc
//
// `rocketstore inspect verify`: the full consistency check of a store; see inspect.h.
// Read-only like every inspect subcommand.
#include <fmt/core.h>

#include <string>

#include "base/coding.h"
#include "base/crc32.h"
#include "base/java_hash.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"
#include "tools/inspect/inspect.h"
#include "tools/inspect/store_views.h"

namespace rocketstore::tools::inspect {

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
  const bool has_queues = fs.Exists(layout::ConsumeQueueRootDir(root));
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
    if (has_queues && format::TakesQueueOffset(r.sys_flag)) {
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
  const std::string cp_path = layout::CheckpointPath(root);
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
