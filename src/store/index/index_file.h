// File: store/index/index_file.h
//
// IndexFile: one index file (`<root>/index/<yyyyMMddHHmmssSSS>`), a hash table from
// `topic#key` to commit-log offsets laid out as store/format/index_layout.h specifies
// (byte-compatible with RocketMQ's IndexFile). The whole file is memory-mapped
// read-write; IndexService (index_service.h) owns the files of a store and decides when
// to create, roll, flush, cut and delete them.
//
// Writing (PutKey) follows RocketMQ's putKey to the byte, with one ordering rule so that
// concurrent readers never see a half-written entry: the 20 entry bytes are written
// first, then the slot is stored with release semantics, then the header fields, and the
// index count last (release). A reader loads the count and the slot with acquire
// semantics, so every entry it can reach is complete. Header values are mirrored in
// atomics; readers never read header bytes from the map.
//
// Disk space: the file is created at full size but sparse. The header and the slot table
// (4*S bytes, 20 MB by default) are reserved with fallocate before the first write, entry
// space in chunks ahead of the writer, so a full disk is kNoSpace from PutKey, not SIGBUS.
//
// Durability: nothing is durable until Flush(), which makes the new entries durable
// first and then the header and the slot table. Recovery (RebuildFromEntries) trusts only
// entries and rebuilds the rest, so any crash point leaves a file recovery can use.
//
// Thread-safety: one writer (PutKey, Flush of a file being written, RebuildFromEntries)
// and any number of concurrent readers (SelectPhyOffsets, IsTimeMatched, accessors).
// Flush may run concurrently with readers, and with other Flush calls, but not with
// PutKey. RebuildFromEntries requires no concurrent users at all.
// Ownership: `fs` must outlive the IndexFile; users share it through std::shared_ptr so a
// file deleted by retention stays mapped until its last reader lets go.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/format/index_layout.h"

namespace rocketstore {

// A file being created is named `<name>.tmp` until its size is durable.
inline constexpr char kIndexTempSuffix[] = ".tmp";

// `millis` (ms since the epoch) as `yyyyMMddHHmmssSSS` in the process's local time zone
// (localtime_r; RocketMQ's UtilAll.timeMillisToHumanString).
std::string FormatIndexFileName(int64_t millis);
// Whether `name` is 17 decimal digits.
bool IsIndexFileName(std::string_view name);

class IndexFile {
 public:
  struct Options {
    format::IndexGeometry geometry;
    // Entry space is reserved (fallocate) in chunks of this size ahead of the writer.
    int64_t reserve_chunk_bytes = 4 << 20;
  };

  // Creates `dir/name` at full size (sparse; size durable; the directory entry is not:
  // the caller syncs `dir`) and maps it. The header starts from the previous file's end
  // values, each applied only when > 0, as RocketMQ does. kAlreadyExists if it exists.
  static Result<std::unique_ptr<IndexFile>> Create(FileSystem& fs, const std::string& dir,
                                                   const std::string& name, const Options& options,
                                                   int64_t prev_end_phy_offset,
                                                   int64_t prev_end_timestamp);

  // Opens and maps an existing file. kCorruption if its size is not geometry.FileSize()
  // (a file written with another geometry). The stored index count is normalised (<= 0
  // reads as 1) and clamped to the geometry; bytes are otherwise taken as they are.
  static Result<std::unique_ptr<IndexFile>> Open(FileSystem& fs, const std::string& path,
                                                 const Options& options);

  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }
  const format::IndexGeometry& geometry() const { return options_.geometry; }

  // Header values (what RocketMQ keeps in IndexHeader's atomics).
  int64_t begin_timestamp() const { return begin_timestamp_.load(std::memory_order_acquire); }
  int64_t end_timestamp() const { return end_timestamp_.load(std::memory_order_acquire); }
  int64_t begin_phy_offset() const { return begin_phy_offset_.load(std::memory_order_acquire); }
  int64_t end_phy_offset() const { return end_phy_offset_.load(std::memory_order_acquire); }
  int32_t hash_slot_count() const { return hash_slot_count_.load(std::memory_order_acquire); }
  // The next entry number (1 for a file without entries).
  int32_t index_count() const { return index_count_.load(std::memory_order_acquire); }
  int32_t entry_count() const { return index_count() - format::kIndexFirstEntry; }
  format::IndexHeader header() const;
  // RocketMQ's isWriteFull: index_count() >= index_num.
  bool IsFull() const { return index_count() >= options_.geometry.index_num; }

  // --- writer ---
  // putKey: adds `full_key` (topic#key) -> phy_offset. Returns true when stored, false
  // when the file is full (nothing written). Errors: kNoSpace/kIOError reserving disk
  // space (nothing written).
  Result<bool> PutKey(std::string_view full_key, PhysicalOffset phy_offset,
                      int64_t store_timestamp);
  Result<bool> PutKeyHash(int32_t key_hash, PhysicalOffset phy_offset, int64_t store_timestamp);

  // --- readers ---
  // selectPhyOffset: appends to `out` the offsets of the entries of `full_key`'s chain
  // whose keyHash equals the key's and whose time is in [begin, end], newest first,
  // until out->size() >= max_num (the count includes what `out` already holds, as
  // RocketMQ's shared result list does). Candidates may be hash collisions.
  void SelectPhyOffsets(std::string_view full_key, size_t max_num, int64_t begin, int64_t end,
                        std::vector<PhysicalOffset>* out) const;
  void SelectPhyOffsetsByHash(int32_t key_hash, size_t max_num, int64_t begin, int64_t end,
                              std::vector<PhysicalOffset>* out) const;
  // isTimeMatched: whether [begin, end] overlaps the file's [beginTimestamp, endTimestamp].
  bool IsTimeMatched(int64_t begin, int64_t end) const;

  // Entry `i` as stored. REQUIRES: 0 <= i < geometry().index_num. For entries below
  // index_count() the bytes are complete; others may be anything (recovery validates).
  format::IndexEntry Entry(int32_t i) const;
  // The stored slot value of `slot`.
  int32_t Slot(int32_t slot) const;
  // The raw mapped bytes (tests, tools): geometry().FileSize() of them.
  const uint8_t* data() const { return base_; }

  // --- flusher ---
  // Makes every entry written so far durable, then the header and slot table. Not
  // concurrent with PutKey. On error nothing counts as flushed; the caller treats the
  // error as sticky.
  Status Flush();
  // Whether something was written since the last successful Flush.
  bool dirty() const;

  // --- recovery (no concurrent users) ---
  // Keeps entries [1, new_index_count) and rebuilds everything else from them: the slot
  // table and every kept entry's prevIndex are recomputed (slot chains as putKey would
  // have built them), later entries are zeroed (up to the first all-zero entry past the
  // old count), and the header is rewritten: begin values kept (beginPhyOffset = entry 1),
  // endPhyOffset = the last kept entry's, endTimestamp = the stored one if it belongs to
  // that entry, else beginTimestamp + 1000*timeDiff of that entry (second precision).
  // Then flushes. REQUIRES: 1 <= new_index_count <= index_count(). Cost: the whole slot
  // table and every kept entry (about 2 s for a full 20 M-entry file here).
  Status RebuildFromEntries(int32_t new_index_count);

  // The same result as RebuildFromEntries(new_index_count), byte for byte, at a cost
  // proportional to the entries dropped instead of the whole file — for a file whose slot
  // table is known to match its entries: every byte this code wrote is in it (flushed
  // before a clean shutdown, or left in the page cache by a process crash). Puts are
  // undone newest first: each dropped entry's slot gets back the entry's prevIndex.
  // Returns false if a slot does not point at the entry being undone (the table does not
  // match: the caller must rebuild); the entries and the header are then unchanged, and
  // the slots RebuildFromEntries recomputes anyway may be part way undone.
  // `torn_put_possible` (after a process crash): the writer may have died inside PutKey,
  // past the slot store but before the count — entry index_count() written and its slot
  // pointing at it — and with the header bytes half stored. That put is undone too, and
  // the header's slot count, which may or may not include it, is recounted from the slot
  // table (a scan of 4*S bytes, still far less than a rebuild).
  // REQUIRES as RebuildFromEntries.
  Result<bool> CutByUndo(int32_t new_index_count, bool torn_put_possible = false);

 private:
  // kInvalidArgument unless 1 <= new_index_count <= index_count().
  Status CheckCut(int32_t new_index_count) const;
  // Slots holding an entry index (what the header's hashSlotCount counts); nullopt if a
  // slot holds anything but 0 or an index in [1, limit).
  std::optional<int32_t> CountUsedSlotsBelow(int32_t limit) const;
  // RebuildFromEntries / CutByUndo: zeroes stale entries from new_index_count up to the
  // first all-zero entry at or past the old count; returns that extent (entry index).
  Result<int32_t> ZeroStaleEntries(int32_t new_index_count);
  // Then: header values for the kept entries, and the flush of what changed.
  Status FinishCut(int32_t new_index_count, int32_t slots_used, int32_t extent);
  IndexFile(std::string path, std::string name, std::unique_ptr<File> file,
            std::unique_ptr<MappedRegion> region, const Options& options);
  void LoadHeader();
  void StoreHeaderBytes();
  Status Reserve(size_t end);

  const std::string path_;
  const std::string name_;
  std::unique_ptr<File> file_;
  std::unique_ptr<MappedRegion> region_;
  const Options options_;
  uint8_t* const base_;

  std::atomic<int64_t> begin_timestamp_{0};
  std::atomic<int64_t> end_timestamp_{0};
  std::atomic<int64_t> begin_phy_offset_{0};
  std::atomic<int64_t> end_phy_offset_{0};
  std::atomic<int32_t> hash_slot_count_{0};
  std::atomic<int32_t> index_count_{format::kIndexFirstEntry};

  // Writer-only state.
  size_t reserved_ = 0;  // bytes [0, reserved_) hold disk blocks

  std::mutex flush_mu_;
  std::atomic<bool> header_dirty_{false};  // header/slots changed since the flush
  std::atomic<int32_t> flushed_count_{format::kIndexFirstEntry};  // entries below are durable
};

}  // namespace rocketstore
