#include "timer/timer_index.h"

#include <algorithm>
#include <climits>

#include "io/atomic_file.h"
#include "store/format/properties.h"

namespace rocketstore::timer {

struct TimerIndex::Bucket {
  int level = 0;
  int64_t start = 0;
  std::string path;
  std::shared_ptr<File> file;  // open for appends
  uint64_t size = 0;
  bool dirty = false;   // appended since the last sync
  bool loaded = false;  // level 0: its entries are in near_
  int64_t entries = 0;
  int64_t min_add_offset = INT64_MAX;

  void Count(const TimerEntry& e) {
    ++entries;
    if (e.kind == TimerEntryKind::kAdd) min_add_offset = std::min(min_add_offset, e.offset);
  }
};

TimerIndex::TimerIndex(FileSystem& fs, Clock& clock, TimerIndexOptions options)
    : fs_(fs), clock_(clock), options_(std::move(options)) {}

TimerIndex::~TimerIndex() = default;

std::string TimerIndex::PathOf(int level, int64_t start) const {
  return JoinPath(options_.dir, BucketFileName(level, start));
}

int TimerIndex::LevelFor(int64_t deliver_ms, int64_t now_ms) const {
  const int64_t ahead = deliver_ms - now_ms;
  for (int level = 0; level < kLevels - 1; ++level) {
    if (ahead < options_.horizon_ms[level]) return level;
  }
  return kLevels - 1;
}

int64_t TimerIndex::WindowStart(int level, int64_t deliver_ms) const {
  const int64_t w = options_.window_ms[level];
  const int64_t t = std::max<int64_t>(deliver_ms, 0);
  return t / w * w;
}

Status TimerIndex::PrepareRecovery() { return fs_.CreateDirs(options_.dir); }

Result<TimerIndex::Bucket*> TimerIndex::BucketLocked(int level, int64_t start) {
  auto it = buckets_.find({level, start});
  if (it != buckets_.end()) return it->second.get();
  auto b = std::make_unique<Bucket>();
  b->level = level;
  b->start = start;
  b->path = PathOf(level, start);
  OpenOptions o;
  o.create = true;
  o.writable = true;
  RS_ASSIGN_OR_RETURN(std::unique_ptr<File> f, fs_.OpenFile(b->path, o));
  RS_ASSIGN_OR_RETURN(b->size, f->Size());
  b->file = std::move(f);
  b->loaded = level == 0 && start < loaded_until_ms_;
  dir_dirty_ = true;
  Bucket* raw = b.get();
  buckets_.emplace(BucketKey{level, start}, std::move(b));
  return raw;
}

Status TimerIndex::AppendLocked(int level, const TimerEntry& e) {
  RS_ASSIGN_OR_RETURN(Bucket * b, BucketLocked(level, WindowStart(level, e.deliver_ms)));
  uint8_t buf[kEntrySize];
  EncodeEntry(e, buf);
  RS_RETURN_IF_ERROR(b->file->PWrite(b->size, buf, kEntrySize));
  b->size += kEntrySize;
  b->dirty = true;
  b->Count(e);
  return Status::OK();
}

void TimerIndex::InsertNearLocked(const TimerEntry& e) {
  if (e.kind == TimerEntryKind::kRolledAway) {
    TimerEntry add;
    add.deliver_ms = e.deliver_ms;
    add.offset = e.offset;
    add.kind = TimerEntryKind::kAdd;
    near_.erase(add);
    return;
  }
  near_.insert(e);
}

Status TimerIndex::FileEntryLocked(const TimerEntry& e, int64_t now_ms, int max_level) {
  if (e.deliver_ms <= delivered_through_ms_) {  // late: due at once, memory only
    InsertNearLocked(e);
    return Status::OK();
  }
  if (e.deliver_ms < loaded_until_ms_) {
    RS_RETURN_IF_ERROR(AppendLocked(0, e));
    InsertNearLocked(e);
    return Status::OK();
  }
  const int level = std::min(LevelFor(e.deliver_ms, now_ms), max_level);
  RS_RETURN_IF_ERROR(AppendLocked(level, e));
  if (e.kind == TimerEntryKind::kRolledAway) {
    // The superseded add may sit in a coarser bucket: a tombstone goes next to it so
    // compaction and splitting always see the pair.
    for (int l = level + 1; l < kLevels; ++l) {
      if (buckets_.count({l, WindowStart(l, e.deliver_ms)})) RS_RETURN_IF_ERROR(AppendLocked(l, e));
    }
  }
  return Status::OK();
}

Status TimerIndex::Dispatch(const DispatchRequest& r) {
  const int64_t offset = r.commit_log_offset.value();
  const int64_t end = offset + r.size;
  std::lock_guard<std::mutex> l(mu_);
  if (r.topic == options_.topic) {
    static constexpr std::string_view kNames[] = {kPropTimerOutMs, format::kPropertyRealTopic,
                                                  kPropTimerDelUniqKey, kPropTimerRolledFrom};
    std::optional<std::string_view> v[4];
    format::FindProperties(r.properties, kNames, v);
    const std::optional<int64_t> deliver = v[0] ? ParseLong(*v[0]) : std::nullopt;
    if (!deliver) {
      ++ignored_records_;
    } else if (offset < restored_.filed_below && *deliver <= restored_.delivered_through_ms) {
      ++skipped_on_refile_;  // delivered before the restart
    } else {
      TimerEntry e;
      e.deliver_ms = *deliver;
      e.offset = offset;
      e.size = r.size;
      if (v[2]) {
        e.kind = TimerEntryKind::kCancel;
        e.key_hash = KeyHash(*v[2]);
      } else {
        e.key_hash = KeyHash(DeleteKey(v[1].value_or(""), r.uniq_key));
      }
      const int64_t now = clock_.NowMillis();
      RS_RETURN_IF_ERROR(FileEntryLocked(e, now, kLevels - 1));
      if (std::optional<int64_t> from = v[3] ? ParseLong(*v[3]) : std::nullopt; from) {
        TimerEntry t;
        t.deliver_ms = *deliver;
        t.offset = *from;
        t.kind = TimerEntryKind::kRolledAway;
        t.by_offset = offset;
        RS_RETURN_IF_ERROR(FileEntryLocked(t, now, kLevels - 1));
        rolling_.erase(*from);
      }
    }
  }
  filed_below_ = std::max(filed_below_, end);
  return Status::OK();
}

Status TimerIndex::RewriteLocked(Bucket& b, const std::vector<TimerEntry>& entries) {
  std::string bytes(entries.size() * kEntrySize, '\0');
  b.entries = 0;
  b.min_add_offset = INT64_MAX;
  for (size_t i = 0; i < entries.size(); ++i) {
    EncodeEntry(entries[i], reinterpret_cast<uint8_t*>(bytes.data()) + i * kEntrySize);
    b.Count(entries[i]);
  }
  b.file.reset();
  AtomicWriteOptions o;
  o.keep_backup = false;
  RS_RETURN_IF_ERROR(WriteFileAtomically(fs_, b.path, bytes, o));
  OpenOptions oo;
  oo.writable = true;
  RS_ASSIGN_OR_RETURN(std::unique_ptr<File> f, fs_.OpenFile(b.path, oo));
  b.file = std::move(f);
  b.size = bytes.size();
  b.dirty = false;
  return Status::OK();
}

Result<PhysicalOffset> TimerIndex::Recover(const SinkRecoveryContext& ctx) {
  std::lock_guard<std::mutex> l(mu_);
  const int64_t end = ctx.commit_log_end.value();
  std::optional<StateRecord> progress, filed;
  for (auto [name, out] : {std::pair{kProgressFile, &progress}, std::pair{kFiledFile, &filed}}) {
    Result<std::string> bytes = ReadWholeFile(fs_, JoinPath(options_.dir, name));
    if (!bytes.ok() && bytes.status().code() == StatusCode::kNotFound) continue;
    if (!bytes.ok()) return bytes.status();
    Result<StateRecord> s = DecodeState(*bytes);
    if (!s.ok()) {
      return Corruption("timer index: " + JoinPath(options_.dir, name) + ": " +
                        s.status().message());
    }
    *out = *s;
  }
  if (progress) {
    restored_.delivered_through_ms = progress->a;
    restored_.filed_below = std::min(progress->b, end);
  }
  delivered_through_ms_ = restored_.delivered_through_ms;
  loaded_until_ms_ = 0;
  RS_ASSIGN_OR_RETURN(std::vector<std::string> names, fs_.ListDir(options_.dir));
  for (const std::string& n : names) {
    std::optional<BucketName> bn = ParseBucketFileName(n);
    if (!bn) continue;
    const std::string path = JoinPath(options_.dir, n);
    RS_ASSIGN_OR_RETURN(BucketContents c, ReadBucketFile(fs_, path));
    if (bn->level == 0 &&
        bn->window_start_ms + options_.window_ms[0] - 1 <= delivered_through_ms_) {
      RS_RETURN_IF_ERROR(fs_.RemoveFile(path));  // wholly delivered
      dir_dirty_ = true;
      continue;
    }
    std::vector<TimerEntry> keep;
    for (const TimerEntry& e : c.entries) {
      if (e.source_offset() < end) keep.push_back(e);  // else: its record was lost
    }
    auto b = std::make_unique<Bucket>();
    b->level = bn->level;
    b->start = bn->window_start_ms;
    b->path = path;
    if (c.bad_bytes > 0 || keep.size() != c.entries.size()) {
      RS_RETURN_IF_ERROR(RewriteLocked(*b, keep));
    } else {
      OpenOptions o;
      o.writable = true;
      RS_ASSIGN_OR_RETURN(std::unique_ptr<File> f, fs_.OpenFile(path, o));
      b->file = std::move(f);
      b->size = c.good_bytes;
      for (const TimerEntry& e : keep) b->Count(e);
    }
    buckets_.emplace(BucketKey{b->level, b->start}, std::move(b));
  }
  int64_t resume = std::min(filed ? filed->a : ctx.commit_log_min.value(), end);
  if (progress) resume = std::min(resume, restored_.filed_below);
  resume = std::max(resume, ctx.commit_log_min.value());
  filed_below_ = resume;
  return PhysicalOffset(resume);
}

Status TimerIndex::FlushForCheckpoint() {
  std::vector<std::shared_ptr<File>> files;
  bool sync_dir = false;
  int64_t filed = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    filed = filed_below_;
    for (auto& [key, b] : buckets_) {
      if (b->dirty && b->file) files.push_back(b->file);
      b->dirty = false;
    }
    sync_dir = dir_dirty_;
    dir_dirty_ = false;
  }
  Status s;
  for (const auto& f : files) {
    s = f->Sync();
    if (!s.ok()) break;
  }
  if (s.ok() && sync_dir) s = fs_.SyncDir(options_.dir);
  if (!s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [key, b] : buckets_) b->dirty = true;
    dir_dirty_ = true;
    return s;
  }
  AtomicWriteOptions o;
  o.keep_backup = false;
  return WriteFileAtomically(fs_, JoinPath(options_.dir, kFiledFile), EncodeState({filed, 0}), o);
}

Status TimerIndex::RemoveBucketLocked(const BucketKey& key) {
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return Status::OK();
  const std::string path = it->second->path;
  buckets_.erase(it);
  RS_RETURN_IF_ERROR(fs_.RemoveFile(path));
  dir_dirty_ = true;
  return Status::OK();
}

Status TimerIndex::SplitLocked(const BucketKey& key, int64_t now_ms) {
  Bucket& b = *buckets_.at(key);
  RS_ASSIGN_OR_RETURN(BucketContents c, ReadBucketFile(fs_, b.path));
  for (const TimerEntry& e : c.entries) {
    // Only a stale copy (a file whose removal a power loss undid) can hold entries
    // delivered before the restart: they are not due again.
    if (e.deliver_ms <= restored_.delivered_through_ms) continue;
    RS_RETURN_IF_ERROR(FileEntryLocked(e, now_ms, key.first - 1));
  }
  // The finer copies are durable before the coarse file goes: a crash in between leaves
  // duplicates, which loading removes.
  for (auto& [k, other] : buckets_) {
    if (k.first < key.first && other->dirty) {
      RS_RETURN_IF_ERROR(other->file->Sync());
      other->dirty = false;
    }
  }
  if (dir_dirty_) RS_RETURN_IF_ERROR(fs_.SyncDir(options_.dir));
  return RemoveBucketLocked(key);
}

Status TimerIndex::LoadLocked(Bucket& b) {
  RS_ASSIGN_OR_RETURN(BucketContents c, ReadBucketFile(fs_, b.path));
  std::set<std::pair<int64_t, int64_t>> gone;
  for (const TimerEntry& e : c.entries) {
    if (e.kind == TimerEntryKind::kRolledAway) gone.insert({e.deliver_ms, e.offset});
  }
  for (const TimerEntry& e : c.entries) {
    if (e.kind == TimerEntryKind::kRolledAway) continue;
    if (e.deliver_ms <= restored_.delivered_through_ms) continue;  // delivered before
    if (e.kind == TimerEntryKind::kAdd && gone.count({e.deliver_ms, e.offset})) continue;
    near_.insert(e);
  }
  b.loaded = true;
  return Status::OK();
}

Status TimerIndex::Advance(int64_t now_ms) {
  std::lock_guard<std::mutex> l(mu_);
  for (int level = kLevels - 1; level >= 1; --level) {
    std::vector<BucketKey> near_keys;
    for (const auto& [key, b] : buckets_) {
      if (key.first == level && key.second < now_ms + options_.horizon_ms[level - 1]) {
        near_keys.push_back(key);
      }
    }
    for (const BucketKey& key : near_keys) RS_RETURN_IF_ERROR(SplitLocked(key, now_ms));
  }
  const int64_t target = WindowStart(0, now_ms + options_.load_ahead_ms) + options_.window_ms[0];
  for (auto& [key, b] : buckets_) {
    if (key.first != 0 || key.second >= target) continue;
    if (!b->loaded) RS_RETURN_IF_ERROR(LoadLocked(*b));
  }
  loaded_until_ms_ = std::max(loaded_until_ms_, target);
  return Status::OK();
}

std::vector<TimerEntry> TimerIndex::PopDue(int64_t now_ms, size_t max) {
  std::lock_guard<std::mutex> l(mu_);
  // Entries at or past loaded_until_ms_ may still be in files.
  const int64_t limit = std::min(now_ms, loaded_until_ms_ - 1);
  std::vector<TimerEntry> out;
  while (!near_.empty()) {
    auto it = near_.begin();
    if (it->deliver_ms > limit) break;
    if (out.size() >= max && it->deliver_ms != out.back().deliver_ms) break;
    out.push_back(*it);
    near_.erase(it);
  }
  const int64_t through =
      (near_.empty() || near_.begin()->deliver_ms > limit) ? limit : near_.begin()->deliver_ms - 1;
  delivered_through_ms_ = std::max(delivered_through_ms_, through);
  return out;
}

void TimerIndex::Requeue(std::span<const TimerEntry> entries) {
  std::lock_guard<std::mutex> l(mu_);
  for (const TimerEntry& e : entries) near_.insert(e);
}

TimerProgress TimerIndex::SnapshotProgress() const {
  std::lock_guard<std::mutex> l(mu_);
  TimerProgress p{delivered_through_ms_, filed_below_};
  for (auto it = near_.begin(); it != near_.end() && it->deliver_ms <= delivered_through_ms_;
       ++it) {
    p.filed_below = std::min(p.filed_below, it->source_offset());  // not delivered yet
  }
  return p;
}

Status TimerIndex::PersistProgress(const TimerProgress& p) {
  AtomicWriteOptions o;
  o.keep_backup = false;
  RS_RETURN_IF_ERROR(WriteFileAtomically(fs_, JoinPath(options_.dir, kProgressFile),
                                         EncodeState({p.delivered_through_ms, p.filed_below}), o));
  std::lock_guard<std::mutex> l(mu_);
  std::vector<BucketKey> done;
  for (const auto& [key, b] : buckets_) {
    if (key.first == 0 && key.second + options_.window_ms[0] - 1 <= p.delivered_through_ms) {
      done.push_back(key);
    }
  }
  for (const BucketKey& key : done) RS_RETURN_IF_ERROR(RemoveBucketLocked(key));
  return Status::OK();
}

Result<std::vector<TimerEntry>> TimerIndex::CollectRollCandidates(int64_t below_offset,
                                                                  size_t max) {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<TimerEntry> out;
  for (auto& [key, b] : buckets_) {
    if (out.size() >= max) break;
    if (b->loaded || b->min_add_offset >= below_offset) continue;
    RS_ASSIGN_OR_RETURN(BucketContents c, ReadBucketFile(fs_, b->path));
    std::set<std::pair<int64_t, int64_t>> gone;
    for (const TimerEntry& e : c.entries) {
      if (e.kind == TimerEntryKind::kRolledAway) gone.insert({e.deliver_ms, e.offset});
    }
    std::vector<TimerEntry> keep;
    std::set<TimerEntry> seen;
    for (const TimerEntry& e : c.entries) {
      const bool paired = gone.count({e.deliver_ms, e.offset}) > 0;
      if (paired && e.kind != TimerEntryKind::kCancel) continue;  // add + its tombstone
      if (!seen.insert(e).second) continue;                       // duplicate
      keep.push_back(e);
    }
    if (keep.size() != c.entries.size() || c.bad_bytes > 0)
      RS_RETURN_IF_ERROR(RewriteLocked(*b, keep));
    for (const TimerEntry& e : keep) {
      if (e.kind == TimerEntryKind::kAdd && e.offset < below_offset && !rolling_.count(e.offset)) {
        out.push_back(e);
        if (out.size() >= max) break;
      }
    }
  }
  return out;
}

void TimerIndex::MarkRolled(int64_t offset) {
  std::lock_guard<std::mutex> l(mu_);
  rolling_.insert(offset);
}

TimerIndexStats TimerIndex::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  TimerIndexStats s;
  s.bucket_files = static_cast<int64_t>(buckets_.size());
  for (const auto& [key, b] : buckets_) s.entries_on_disk += b->entries;
  s.in_memory = static_cast<int64_t>(near_.size());
  s.delivered_through_ms = delivered_through_ms_;
  if (!near_.empty()) s.next_in_memory_ms = near_.begin()->deliver_ms;
  s.skipped_on_refile = skipped_on_refile_;
  s.ignored_records = ignored_records_;
  return s;
}

}  // namespace rocketstore::timer
