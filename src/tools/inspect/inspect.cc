// File: tools/inspect/inspect.cc
//
// Read-only store inspection, see inspect.h: the summary, commitlog, cq, key and msgid
// subcommands (verify is in verify.cc; the shared views in store_views.h). Every file is
// opened read-only and read through a read-only mapping; nothing here writes, creates,
// renames or locks.
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
#include "store/checkpoint/checkpoint.h"
#include "store/format/checkpoint_record.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"
#include "tools/inspect/store_views.h"

namespace rocketstore::tools::inspect {

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
  // The abort file holds the boot id of the run that wrote it (docs/durability.md): the
  // same as now means that run's page cache is still there.
  const LastExit last_exit = ReadLastExit(fs, root);
  const bool abort_present = last_exit != LastExit::kClean;
  const bool abort_this_boot = last_exit == LastExit::kProcessCrash;
  const bool lock_present = fs.Exists(layout::LockPath(root));

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
    for (const auto& entry : log->segs.files) {
      // Plain locals, not a structured binding: the lambda below captures them (clang 14
      // does not implement capturing structured bindings).
      const int64_t start = entry.first;
      const auto& f = entry.second;
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
                 : cp->decode == format::CheckpointDecode::kStaleExtension   ? "stale"
                                                                             : "absent");
      Key(w, "durableCommitLogOffset"), w.Int64(cp->record.durable_commit_log_offset);
      Key(w, "dispatchedCommitLogOffset"), w.Int64(cp->record.dispatched_commit_log_offset);
    });
    JsonLine(out, [&](JsonWriter& w) {
      Key(w, "type"), Str(w, "state");
      Key(w, "abort"), w.Bool(abort_present);
      Key(w, "abortThisBoot"), w.Bool(abort_this_boot);
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
      case format::CheckpointDecode::kStaleExtension:
        fmt::print(out,
                   "  rocketstore extension: stale (RocketMQ rewrote its fields since; its "
                   "values above are used, the extension is ignored)\n");
        break;
      default:
        fmt::print(out, "  no rocketstore extension (written by RocketMQ, or empty)\n");
    }
  }
  fmt::print(out, "\nState\n  abort file  {}\n  lock file   {}\n",
             !abort_present    ? "absent: clean shutdown"
             : abort_this_boot ? "present, written in this boot: a broker is running, or it "
                                 "crashed with the machine up (next start recovers abnormally; "
                                 "the page cache kept every write, the index is cut by undo)"
                               : "present, from another boot or without a boot id (RocketMQ's): "
                                 "the last run did not shut down cleanly (next start recovers "
                                 "as after a power loss)",
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

}  // namespace rocketstore::tools::inspect
