#include "store/index/index_file.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace rocketstore {
namespace {

using format::IndexEntry;
using format::IndexGeometry;
using format::kIndexFirstEntry;
using format::kIndexInvalidEntry;

// Slots are read by concurrent readers while the writer updates them: 4-byte atomic
// accesses on the (4-byte aligned) mapped bytes, stored big-endian.
int32_t LoadSlot(const uint8_t* p, int order) {
  const uint32_t raw = __atomic_load_n(reinterpret_cast<const uint32_t*>(p), order);
  return DecodeInt32BE(&raw);
}
void StoreSlot(uint8_t* p, int32_t value, int order) {
  uint32_t raw;
  EncodeFixed32BE(&raw, static_cast<uint32_t>(value));
  __atomic_store_n(reinterpret_cast<uint32_t*>(p), raw, order);
}

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

}  // namespace

std::string FormatIndexFileName(int64_t millis) {
  int64_t secs = millis / 1000;
  int64_t ms = millis % 1000;
  if (ms < 0) {  // floor for times before the epoch
    ms += 1000;
    secs -= 1;
  }
  const time_t t = static_cast<time_t>(secs);
  struct tm tm;
  localtime_r(&t, &tm);
  char buf[96];  // room for any int the compiler imagines; 17 chars in practice
  std::snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d%03d", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

bool IsIndexFileName(std::string_view name) {
  return name.size() == format::kIndexFileNameLength &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

IndexFile::IndexFile(std::string path, std::string name, std::unique_ptr<File> file,
                     std::unique_ptr<MappedRegion> region, const Options& options)
    : path_(std::move(path)),
      name_(std::move(name)),
      file_(std::move(file)),
      region_(std::move(region)),
      options_(options),
      base_(region_->data()) {}

Result<std::unique_ptr<IndexFile>> IndexFile::Create(FileSystem& fs, const std::string& dir,
                                                     const std::string& name,
                                                     const Options& options,
                                                     int64_t prev_end_phy_offset,
                                                     int64_t prev_end_timestamp) {
  const IndexGeometry& g = options.geometry;
  if (!g.Valid()) return InvalidArgument("index geometry needs >= 1 slot and >= 2 entries");
  const std::string path = JoinPath(dir, name);
  if (fs.Exists(path)) return AlreadyExists(path + " already exists");
  // Built under a temporary name and renamed into place once its size is durable, so a
  // crash never leaves an index file of the wrong size (which would stop the load).
  const std::string tmp = path + kIndexTempSuffix;
  OpenOptions oo;
  oo.writable = oo.create = true;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(tmp, oo));
  RS_RETURN_IF_ERROR(file->Truncate(0));
  RS_RETURN_IF_ERROR(file->Truncate(g.FileSize()));
  // IndexFile's constructor: begin = end = the previous file's end values, each only when
  // > 0. hashSlotCount and indexCount stay 0 on disk until the first putKey.
  format::IndexHeader h;
  if (prev_end_phy_offset > 0) h.begin_phy_offset = h.end_phy_offset = prev_end_phy_offset;
  if (prev_end_timestamp > 0) h.begin_timestamp = h.end_timestamp = prev_end_timestamp;
  uint8_t header[format::kIndexHeaderSize];
  format::EncodeIndexHeader(h, header);
  RS_RETURN_IF_ERROR(file->PWrite(0, header, sizeof header));
  RS_RETURN_IF_ERROR(file->Sync());
  RS_RETURN_IF_ERROR(fs.Rename(tmp, path));
  RS_ASSIGN_OR_RETURN(auto region, file->Map(0, g.FileSize(), true));
  auto f = std::unique_ptr<IndexFile>(
      new IndexFile(path, name, std::move(file), std::move(region), options));
  if (reinterpret_cast<uintptr_t>(f->base_) % 8 != 0) return Internal(path + ": unaligned map");
  f->LoadHeader();
  RS_RETURN_IF_ERROR(f->Reserve(g.EntriesStart()));
  return f;
}

Result<std::unique_ptr<IndexFile>> IndexFile::Open(FileSystem& fs, const std::string& path,
                                                   const Options& options) {
  const IndexGeometry& g = options.geometry;
  if (!g.Valid()) return InvalidArgument("index geometry needs >= 1 slot and >= 2 entries");
  OpenOptions oo;
  oo.writable = true;
  RS_ASSIGN_OR_RETURN(auto file, fs.OpenFile(path, oo));
  RS_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size != g.FileSize()) {
    return Corruption(path + " is " + std::to_string(size) + " bytes but index files of " +
                      std::to_string(g.hash_slot_num) + " slots and " +
                      std::to_string(g.index_num) + " entries are " + std::to_string(g.FileSize()) +
                      " bytes; configure the geometry the file was written with, or move "
                      "the file away");
  }
  RS_ASSIGN_OR_RETURN(auto region, file->Map(0, g.FileSize(), true));
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto f = std::unique_ptr<IndexFile>(
      new IndexFile(path, std::move(name), std::move(file), std::move(region), options));
  if (reinterpret_cast<uintptr_t>(f->base_) % 8 != 0) return Internal(path + ": unaligned map");
  f->LoadHeader();
  return f;
}

void IndexFile::LoadHeader() {
  const format::IndexHeader h = format::DecodeIndexHeader(base_);
  begin_timestamp_.store(h.begin_timestamp, std::memory_order_relaxed);
  end_timestamp_.store(h.end_timestamp, std::memory_order_relaxed);
  begin_phy_offset_.store(h.begin_phy_offset, std::memory_order_relaxed);
  end_phy_offset_.store(h.end_phy_offset, std::memory_order_relaxed);
  hash_slot_count_.store(h.hash_slot_count, std::memory_order_relaxed);
  // Clamped so that no entry number taken from the file can reach past the mapping.
  const int32_t count =
      std::min(format::NormalizedIndexCount(h.index_count), options_.geometry.index_num);
  flushed_count_.store(count, std::memory_order_relaxed);
  index_count_.store(count, std::memory_order_release);
}

format::IndexHeader IndexFile::header() const {
  format::IndexHeader h;
  h.index_count = index_count();
  h.begin_timestamp = begin_timestamp();
  h.end_timestamp = end_timestamp();
  h.begin_phy_offset = begin_phy_offset();
  h.end_phy_offset = end_phy_offset();
  h.hash_slot_count = hash_slot_count();
  return h;
}

void IndexFile::StoreHeaderBytes() { format::EncodeIndexHeader(header(), base_); }

Status IndexFile::Reserve(size_t end) {
  if (end <= reserved_) return Status::OK();
  const size_t file_size = options_.geometry.FileSize();
  const size_t chunk = static_cast<size_t>(std::max<int64_t>(options_.reserve_chunk_bytes, 4096));
  size_t target = std::max(end, options_.geometry.EntriesStart());
  target = std::min(file_size, (target + chunk - 1) / chunk * chunk);
  Status s = file_->Allocate(reserved_, target - reserved_);
  if (!s.ok()) {
    if (target == end) return s.WithContext(path_);
    // A full disk may still have room for exactly what is needed now.
    RS_RETURN_IF_ERROR(file_->Allocate(reserved_, end - reserved_).WithContext(path_));
    target = end;
  }
  reserved_ = target;
  return Status::OK();
}

Result<bool> IndexFile::PutKey(std::string_view full_key, PhysicalOffset phy_offset,
                               int64_t store_timestamp) {
  return PutKeyHash(format::IndexKeyHash(full_key), phy_offset, store_timestamp);
}

Result<bool> IndexFile::PutKeyHash(int32_t key_hash, PhysicalOffset phy_offset,
                                   int64_t store_timestamp) {
  const IndexGeometry& g = options_.geometry;
  const int32_t count = index_count_.load(std::memory_order_relaxed);
  if (count >= g.index_num) return false;
  const size_t entry_pos = g.EntryPosition(count);
  RS_RETURN_IF_ERROR(Reserve(entry_pos + format::kIndexEntrySize));

  uint8_t* slot_ptr = base_ + g.SlotPosition(format::IndexSlotOf(key_hash, g.hash_slot_num));
  int32_t slot_value = LoadSlot(slot_ptr, __ATOMIC_RELAXED);
  if (slot_value <= kIndexInvalidEntry || slot_value > count) slot_value = kIndexInvalidEntry;

  const int64_t begin_ts = begin_timestamp_.load(std::memory_order_relaxed);
  IndexEntry e;
  e.key_hash = key_hash;
  e.phy_offset = phy_offset.value();
  e.time_diff = format::IndexTimeDiff(store_timestamp, begin_ts);
  e.prev_index = slot_value;
  format::EncodeIndexEntry(e, base_ + entry_pos);
  // Publish: entry, then slot (release), then header values, then the count (release).
  StoreSlot(slot_ptr, count, __ATOMIC_RELEASE);
  if (count <= kIndexFirstEntry) {
    begin_phy_offset_.store(phy_offset.value(), std::memory_order_relaxed);
    begin_timestamp_.store(store_timestamp, std::memory_order_relaxed);
  }
  if (slot_value == kIndexInvalidEntry) {
    hash_slot_count_.store(hash_slot_count_.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
  }
  end_phy_offset_.store(phy_offset.value(), std::memory_order_relaxed);
  end_timestamp_.store(store_timestamp, std::memory_order_relaxed);
  header_dirty_.store(true, std::memory_order_relaxed);
  index_count_.store(count + 1, std::memory_order_release);
  StoreHeaderBytes();
  return true;
}

void IndexFile::SelectPhyOffsets(std::string_view full_key, size_t max_num, int64_t begin,
                                 int64_t end, std::vector<PhysicalOffset>* out) const {
  SelectPhyOffsetsByHash(format::IndexKeyHash(full_key), max_num, begin, end, out);
}

void IndexFile::SelectPhyOffsetsByHash(int32_t key_hash, size_t max_num, int64_t begin, int64_t end,
                                       std::vector<PhysicalOffset>* out) const {
  const IndexGeometry& g = options_.geometry;
  const int32_t count = index_count_.load(std::memory_order_acquire);
  const int32_t slot_value = LoadSlot(
      base_ + g.SlotPosition(format::IndexSlotOf(key_hash, g.hash_slot_num)), __ATOMIC_ACQUIRE);
  if (slot_value <= kIndexInvalidEntry || slot_value > count || count <= kIndexFirstEntry) {
    return;
  }
  const int64_t begin_ts = begin_timestamp_.load(std::memory_order_acquire);
  for (int32_t next = slot_value;;) {
    if (out->size() >= max_num) break;
    // Entry numbers only point backwards in a well-formed file; the bound keeps a
    // damaged file from sending a reader past the mapping.
    if (next >= g.index_num) break;
    const IndexEntry e = format::DecodeIndexEntry(base_ + g.EntryPosition(next));
    if (e.time_diff < 0) break;
    const int64_t time_read = format::IndexEntryTime(begin_ts, e.time_diff);
    if (e.key_hash == key_hash && time_read >= begin && time_read <= end) {
      out->push_back(PhysicalOffset(e.phy_offset));
    }
    if (e.prev_index <= kIndexInvalidEntry || e.prev_index > count || e.prev_index >= next ||
        time_read < begin) {
      break;
    }
    next = e.prev_index;
  }
}

bool IndexFile::IsTimeMatched(int64_t begin, int64_t end) const {
  const int64_t fb = begin_timestamp();
  const int64_t fe = end_timestamp();
  return (begin < fb && end > fe) || (begin >= fb && begin <= fe) || (end >= fb && end <= fe);
}

format::IndexEntry IndexFile::Entry(int32_t i) const {
  return format::DecodeIndexEntry(base_ + options_.geometry.EntryPosition(i));
}

int32_t IndexFile::Slot(int32_t slot) const {
  return LoadSlot(base_ + options_.geometry.SlotPosition(slot), __ATOMIC_ACQUIRE);
}

bool IndexFile::dirty() const {
  return header_dirty_.load(std::memory_order_acquire) ||
         index_count() != flushed_count_.load(std::memory_order_acquire);
}

Status IndexFile::Flush() {
  std::lock_guard<std::mutex> l(flush_mu_);
  const IndexGeometry& g = options_.geometry;
  const int32_t count = index_count_.load(std::memory_order_acquire);
  const int32_t from = flushed_count_.load(std::memory_order_relaxed);
  const bool header = header_dirty_.load(std::memory_order_acquire);
  if (count == from && !header) return Status::OK();
  // Entries first: a crash between the two syncs leaves durable entries that the header
  // does not count yet, which recovery treats as not written (they are re-dispatched).
  if (count > from) {
    const size_t begin = g.EntryPosition(from);
    RS_RETURN_IF_ERROR(region_->Sync(begin, g.EntryPosition(count) - begin).WithContext(path_));
  }
  RS_RETURN_IF_ERROR(region_->Sync(0, g.EntriesStart()).WithContext(path_));
  header_dirty_.store(false, std::memory_order_release);
  flushed_count_.store(count, std::memory_order_release);
  return Status::OK();
}

Status IndexFile::CheckCut(int32_t new_index_count) const {
  const int32_t old_count = index_count_.load(std::memory_order_relaxed);
  if (new_index_count < kIndexFirstEntry || new_index_count > old_count) {
    return InvalidArgument(path_ + ": cannot keep " + std::to_string(new_index_count) + " of " +
                           std::to_string(old_count) + " entries");
  }
  return Status::OK();
}

Result<int32_t> IndexFile::ZeroStaleEntries(int32_t new_index_count) {
  const IndexGeometry& g = options_.geometry;
  RS_RETURN_IF_ERROR(CheckCut(new_index_count));
  const int32_t old_count = index_count_.load(std::memory_order_relaxed);
  // Stale entries past the new end are zeroed, including any left past the old count by
  // an earlier cut or a lost header update, so a later recovery cannot mistake them for
  // entries of this generation.
  int32_t extent = old_count;
  while (extent < g.index_num &&
         !AllZero(base_ + g.EntryPosition(extent), format::kIndexEntrySize)) {
    ++extent;
  }
  RS_RETURN_IF_ERROR(Reserve(g.EntryPosition(extent)));
  if (extent > new_index_count) {
    std::memset(base_ + g.EntryPosition(new_index_count), 0,
                g.EntryPosition(extent) - g.EntryPosition(new_index_count));
  }
  return extent;
}

Status IndexFile::RebuildFromEntries(int32_t new_index_count) {
  const IndexGeometry& g = options_.geometry;
  RS_ASSIGN_OR_RETURN(const int32_t extent, ZeroStaleEntries(new_index_count));
  std::memset(base_ + g.SlotPosition(0), 0, g.EntriesStart() - g.SlotPosition(0));
  int32_t slots_used = 0;
  for (int32_t i = kIndexFirstEntry; i < new_index_count; ++i) {
    uint8_t* p = base_ + g.EntryPosition(i);
    IndexEntry e = format::DecodeIndexEntry(p);
    uint8_t* slot_ptr = base_ + g.SlotPosition(format::IndexSlotOf(e.key_hash, g.hash_slot_num));
    const int32_t prev = LoadSlot(slot_ptr, __ATOMIC_RELAXED);
    if (prev == kIndexInvalidEntry) ++slots_used;
    EncodeFixed32BE(p + format::kIndexEntryPrevIndexOffset, static_cast<uint32_t>(prev));
    StoreSlot(slot_ptr, i, __ATOMIC_RELAXED);
  }
  return FinishCut(new_index_count, slots_used, extent);
}

Result<bool> IndexFile::CutByUndo(int32_t new_index_count, bool torn_put_possible) {
  const IndexGeometry& g = options_.geometry;
  RS_RETURN_IF_ERROR(CheckCut(new_index_count));
  const int32_t old_count = index_count_.load(std::memory_order_relaxed);
  int32_t slots_used = hash_slot_count_.load(std::memory_order_relaxed);
  if (torn_put_possible && old_count < g.index_num &&
      !AllZero(base_ + g.EntryPosition(old_count), format::kIndexEntrySize)) {
    // PutKey stores the entry, then the slot: a slot pointing at the uncounted entry means
    // the entry is complete and the slot must get its prevIndex back.
    const IndexEntry e = Entry(old_count);
    if (e.key_hash >= 0 && e.prev_index >= 0 && e.prev_index < old_count) {
      uint8_t* slot_ptr = base_ + g.SlotPosition(format::IndexSlotOf(e.key_hash, g.hash_slot_num));
      if (LoadSlot(slot_ptr, __ATOMIC_RELAXED) == old_count) {
        StoreSlot(slot_ptr, e.prev_index, __ATOMIC_RELAXED);
      }
    }
  }
  // Newest first, each dropped entry must head its slot's chain (the newer ones being
  // undone already): then the table matches the entries. A refusal part way leaves some
  // slots restored, which the rebuild does not read (it recomputes the whole table).
  for (int32_t i = old_count - 1; i >= new_index_count; --i) {
    const IndexEntry e = Entry(i);
    if (e.key_hash < 0 || e.prev_index < 0 || e.prev_index >= i) return false;
    uint8_t* slot_ptr = base_ + g.SlotPosition(format::IndexSlotOf(e.key_hash, g.hash_slot_num));
    if (LoadSlot(slot_ptr, __ATOMIC_RELAXED) != i) return false;
    StoreSlot(slot_ptr, e.prev_index, __ATOMIC_RELAXED);
    if (e.prev_index == kIndexInvalidEntry) --slots_used;
  }
  if (torn_put_possible) {
    // Also the proof that no slot still points past the kept entries.
    const std::optional<int32_t> used = CountUsedSlotsBelow(new_index_count);
    if (!used) return false;
    slots_used = *used;
  }
  RS_ASSIGN_OR_RETURN(const int32_t extent, ZeroStaleEntries(new_index_count));
  RS_RETURN_IF_ERROR(FinishCut(new_index_count, slots_used, extent));
  return true;
}

std::optional<int32_t> IndexFile::CountUsedSlotsBelow(int32_t limit) const {
  const IndexGeometry& g = options_.geometry;
  int32_t used = 0;
  for (int32_t s = 0; s < g.hash_slot_num; ++s) {
    const int32_t v = LoadSlot(base_ + g.SlotPosition(s), __ATOMIC_RELAXED);
    if (v == kIndexInvalidEntry) continue;
    if (v < kIndexFirstEntry || v >= limit) return std::nullopt;
    ++used;
  }
  return used;
}

Status IndexFile::FinishCut(int32_t new_index_count, int32_t slots_used, int32_t extent) {
  const IndexGeometry& g = options_.geometry;
  const int64_t stored_end_phy = end_phy_offset_.load(std::memory_order_relaxed);
  if (new_index_count > kIndexFirstEntry) {
    const IndexEntry first = Entry(kIndexFirstEntry);
    const IndexEntry last = Entry(new_index_count - 1);
    const int64_t begin_ts = begin_timestamp_.load(std::memory_order_relaxed);
    begin_phy_offset_.store(first.phy_offset, std::memory_order_relaxed);
    end_phy_offset_.store(last.phy_offset, std::memory_order_relaxed);
    // The stored end values are kept when they belong to the last kept entry's message
    // (all entries of one message share its store time); otherwise the time is rebuilt
    // from the entry, to the second.
    if (stored_end_phy != last.phy_offset) {
      const int64_t approx = new_index_count == kIndexFirstEntry + 1
                                 ? begin_ts
                                 : format::IndexEntryTime(begin_ts, last.time_diff);
      end_timestamp_.store(std::max(begin_ts, approx), std::memory_order_relaxed);
    }
  } else {
    // No entries left: the header goes back to its preset (begin = end values).
    end_phy_offset_.store(begin_phy_offset_.load(std::memory_order_relaxed),
                          std::memory_order_relaxed);
    end_timestamp_.store(begin_timestamp_.load(std::memory_order_relaxed),
                         std::memory_order_relaxed);
  }
  hash_slot_count_.store(slots_used, std::memory_order_relaxed);
  index_count_.store(new_index_count, std::memory_order_release);
  StoreHeaderBytes();

  std::lock_guard<std::mutex> l(flush_mu_);
  const size_t entries = g.EntriesStart();
  if (extent > kIndexFirstEntry) {
    RS_RETURN_IF_ERROR(
        region_->Sync(entries, g.EntryPosition(extent) - entries).WithContext(path_));
  }
  RS_RETURN_IF_ERROR(region_->Sync(0, entries).WithContext(path_));
  header_dirty_.store(false, std::memory_order_release);
  flushed_count_.store(new_index_count, std::memory_order_release);
  return Status::OK();
}

}  // namespace rocketstore
