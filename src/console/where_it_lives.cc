#include "console/where_it_lives.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "io/posix_file_system.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/properties.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"
#include "tools/inspect/inspect.h"

namespace rocketstore::console {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// `inspect key` for topic#key as JSON Lines, captured in memory.
struct Captured {
  int rc = 2;
  std::string out, err;
};

Captured InspectKey(const StoreOptions& so, const std::string& topic, const std::string& key) {
  tools::inspect::InspectOptions io;
  io.store_dir = so.root_dir;
  io.json = true;
  io.index_slots = so.index_hash_slot_num;
  io.index_entries = so.index_num;
  io.progress = false;
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  Captured c;
  if (out && err) {
    c.rc = tools::inspect::RunKey(PosixFileSystem::Default(), io, topic, key, 0,
                                  std::numeric_limits<int64_t>::max(), out, err);
  }
  if (out) std::fclose(out);
  if (err) std::fclose(err);
  if (out_buf) c.out.assign(out_buf, out_len);
  if (err_buf) c.err.assign(err_buf, err_len);
  std::free(out_buf);
  std::free(err_buf);
  return c;
}

}  // namespace

void WriteWhereItLives(Writer& w, MessageStore& store, const format::RecordView& r) {
  const StoreOptions& so = store.options();
  const int64_t off = r.physical_offset;
  const int64_t seg_start = off - off % so.commit_log_segment_size;
  w.Key("commitLog");
  w.StartObject();
  w.Key("file"), Str(w, layout::CommitLogDir(so.root_dir) + "/" + SegmentFileName(seg_start));
  w.Key("segmentStart"), w.Int64(seg_start);
  w.Key("position"), w.Int64(off - seg_start);
  w.Key("physicalOffset"), w.Int64(off);
  w.Key("size"), w.Int(r.total_size);
  w.Key("flushed"), w.Bool(off + r.total_size <= store.FlushedPhysicalOffset().value());
  w.EndObject();

  const std::string topic(r.topic);
  const int64_t unit_bytes = static_cast<int64_t>(format::kConsumeQueueUnitSize);
  const int64_t file_bytes = so.consume_queue_units_per_file * unit_bytes;
  const int64_t logical = r.queue_offset * unit_bytes;
  const int64_t cq_start = logical - logical % file_bytes;
  w.Key("consumeQueue");
  w.StartObject();
  w.Key("topic"), Str(w, topic);
  w.Key("queueId"), w.Int(r.queue_id);
  w.Key("unit"), w.Int64(r.queue_offset);
  w.Key("file"), Str(w, layout::ConsumeQueueDir(so.root_dir, topic, r.queue_id) + "/" +
                            SegmentFileName(cq_start));
  w.Key("position"), w.Int64(logical - cq_start);
  auto units = store.GetQueueUnits(topic, r.queue_id, QueueOffset(r.queue_offset), 1);
  if (units.ok() && !units->empty()) {
    const format::ConsumeQueueUnit& u = units->front();
    w.Key("unitCommitLogOffset"), w.Int64(u.offset.value());
    w.Key("unitSize"), w.Int(u.size);
    w.Key("unitTagsCode"), w.Int64(u.tags_code);
    w.Key("unitPointsHere"), w.Bool(u.offset.value() == off && u.size == r.total_size);
  } else {
    w.Key("unitPointsHere"), w.Bool(false);
    w.Key("unitError"), Str(w, units.ok() ? "no unit at this queue offset (not dispatched, or "
                                            "removed by retention)"
                                          : units.status().ToString());
  }
  w.EndObject();

  // The keys the dispatcher indexed: KEYS tokens, then UNIQ_KEY.
  std::vector<std::string> keys;
  if (auto k = format::FindProperty(r.properties, format::kPropertyKeys)) {
    for (std::string_view t : format::SplitKeys(*k)) keys.emplace_back(t);
  }
  if (auto u = format::FindProperty(r.properties, format::kPropertyUniqKey)) keys.emplace_back(*u);
  w.Key("indexEnabled"), w.Bool(so.message_index_enable);
  w.Key("index");
  w.StartArray();
  for (const std::string& key : keys) {
    if (!so.message_index_enable) break;
    Captured c = InspectKey(so, topic, key);
    w.StartObject();
    w.Key("key"), Str(w, key);
    w.Key("steps");
    w.StartArray();
    std::istringstream lines(c.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (!line.empty()) w.RawValue(line.data(), line.size(), rapidjson::kObjectType);
    }
    w.EndArray();
    if (c.rc != 0) w.Key("error"), Str(w, c.err.empty() ? "inspect key failed" : c.err);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace rocketstore::console
