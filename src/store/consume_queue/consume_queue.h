// File: store/consume_queue/consume_queue.h
//
// ConsumeQueue: the index of one topic queue, `<root>/consumequeue/<topic>/<queueId>/`.
// Unit n (20 bytes, store/format/consume_queue_unit.h) locates the queue's n-th message in
// the commit log. Files are fixed-size segments of `units_per_file` units named by the
// 20-digit logical byte offset of their first unit (MappedFileQueue). Spec §3, §8.2, §9.
//
// Offsets (QueueOffset counts units):
//   MinOffset()  first unit a reader may ask for. Starts past the blank pre-fill units
//                and moves up with CorrectMinOffset() as the commit log loses its head.
//   MaxOffset()  one past the last unit (counting blank pre-fill units); 0 when empty.
//   LastPhysicalEnd()  offset + size of the last non-blank unit (RocketMQ's
//                maxPhysicOffset / getLastOffset): the commit-log position this queue was
//                built to. PhysicalOffset(-1) when the queue holds no such unit.
//
// Writing (PutUnit, RocketMQ's putMessagePositionInfo) is idempotent, because the
// dispatcher replays records after a restart: a record ending at or before
// LastPhysicalEnd() is skipped, and so is a unit whose position is already written.
// Stricter than RocketMQ: a unit whose position lies PAST the end of the queue (a gap)
// is refused with kFailedPrecondition instead of being appended at the wrong place, and so
// is a record starting before LastPhysicalEnd() (physical offsets must increase).
//
// Durability: PutUnit leaves the unit in the page cache; Flush() makes it durable.
// Recover() makes the recovered prefix durable (it may be in the page cache only, after a
// process crash) before it counts as flushed.
//
// Lifecycle: Open() loads the files; a queue that has files must then be Recover()ed (and
// usually TruncateDirty()ed against the recovered commit log) before PutUnit, which
// otherwise answers kFailedPrecondition. A queue opened without files is ready at once.
//
// Thread-safety:
//   * One writer (the dispatcher): PutUnit, InitializeWithOffset.
//   * Any number of readers, concurrently with the writer: the offsets, GetUnit(s),
//     OffsetByTime, RollNextFile. The writer publishes a unit with a release store of the
//     file's committed position after writing all 20 bytes; readers look only below it,
//     so they never see a torn unit.
//   * One flusher: Flush, HasDirtyPages.
//   * One cleaner: CorrectMinOffset, DeleteFilesBelow (serialised with the writer by an
//     internal mutex).
//   * Recover and TruncateDirty require no concurrent users (startup only).
// Ownership: `fs` must outlive the queue. A UnitRange keeps its file mapped on its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "base/offsets.h"
#include "base/result.h"
#include "base/status.h"
#include "io/file_system.h"
#include "store/format/consume_queue_unit.h"
#include "store/layout/layout.h"
#include "store/segment/mapped_file.h"
#include "store/segment/mapped_file_queue.h"

namespace rocketstore {

// The directory under the store root that holds every consume queue (kept for callers
// outside the store; store/layout.h builds the paths).
inline constexpr const char* kConsumeQueueDirName = layout::kConsumeQueueDir;

// Topic names become directory names. InvalidArgument for a name that is empty, "." or
// "..", contains '/' or NUL, or is longer than 127 bytes (format::kMaxTopicLength), so no
// topic can name a path outside `<root>/consumequeue/`.
Status ValidateTopicDirName(std::string_view topic);

// `<root_dir>/consumequeue/<topic>/<queue_id>`. REQUIRES: ValidateTopicDirName(topic) ok.
std::string ConsumeQueueDir(const std::string& root_dir, std::string_view topic, int32_t queue_id);

class ConsumeQueue {
 public:
  static constexpr int64_t kUnitSize = static_cast<int64_t>(format::kConsumeQueueUnitSize);
  using Unit = format::ConsumeQueueUnit;

  struct Options {
    // mappedFileSizeConsumeQueue / 20 (format::ConsumeQueueUnitsPerFile for a byte size).
    int64_t units_per_file = format::kDefaultConsumeQueueUnitsPerFile;
    // Disk blocks are reserved (fallocate) this far ahead of the writer; files are sparse.
    int64_t reserve_chunk_bytes = 64 << 10;
  };

  // Consecutive units of one file, read in place (zero copy). `file` keeps the bytes
  // mapped even if the file is deleted meanwhile; written units never change.
  struct UnitRange {
    std::shared_ptr<MappedFile> file;
    QueueOffset first;               // queue offset of unit 0 of the range
    std::span<const uint8_t> bytes;  // size() * 20 bytes

    int size() const { return static_cast<int>(bytes.size() / format::kConsumeQueueUnitSize); }
    QueueOffset end() const { return first + size(); }
    // REQUIRES: 0 <= i < size().
    Unit operator[](int i) const {
      return format::DecodeConsumeQueueUnit(bytes.data() +
                                            static_cast<size_t>(i) * format::kConsumeQueueUnitSize);
    }
  };

  // The store time of the record (offset, size) in the commit log. kNotFound when the
  // record is gone (below the commit-log min offset); other errors are passed on.
  using StoreTimeFn = std::function<Result<int64_t>(PhysicalOffset, int32_t)>;

  // Opens (creating the directory if needed) and loads the queue's files: every file must
  // be exactly units_per_file * 20 bytes and the names contiguous (else kCorruption).
  // InvalidArgument for a bad topic name, a negative queue id or bad options.
  static Result<std::unique_ptr<ConsumeQueue>> Open(FileSystem& fs, const std::string& root_dir,
                                                    std::string_view topic, int32_t queue_id,
                                                    const Options& options);

  ConsumeQueue(const ConsumeQueue&) = delete;
  ConsumeQueue& operator=(const ConsumeQueue&) = delete;

  const std::string& topic() const { return topic_; }
  int32_t queue_id() const { return queue_id_; }
  const std::string& dir() const { return dir_; }
  int64_t units_per_file() const { return units_per_file_; }
  size_t file_count() const { return queue()->file_count(); }

  // --- startup (no concurrent users) ---
  // Spec §3.4: scans from the third-last file; the queue ends after the last valid unit
  // before the first invalid one. Later files are removed, the run of non-zero slots
  // starting at the end (a torn unit and what follows it) is zeroed so it can never rejoin
  // the queue, and the kept files of the scan are synced. Sets MinOffset past leading
  // blank units, and LastPhysicalEnd. Not handled (as in RocketMQ): valid-looking units
  // beyond a run of zero slots (pages written back out of order before a power loss).
  Status Recover();
  // Spec §3.4 truncateDirtyLogicFiles: drops every unit whose record starts at or past
  // `commit_log_end` (whole files when their first unit does), zeroing the dropped units
  // of the file that keeps the end, and syncing it.
  Status TruncateDirty(PhysicalOffset commit_log_end);

  // --- writer ---
  // Appends unit `queue_offset` = (offset, size, tags_code) (spec §3.2). OK without effect
  // when offset + size <= LastPhysicalEnd() or the position is already written. The first
  // unit of a queue without units may have any queue offset k >= MaxOffset(): its file is
  // created (or reused) and pre-filled with blank units up to k, and MinOffset() becomes
  // k. kFailedPrecondition for a gap
  // (queue_offset > MaxOffset()) or a record starting before LastPhysicalEnd();
  // kInvalidArgument for offset < 0, size <= 0 or queue_offset < 0; kNoSpace/kIOError
  // from creating or reserving the file (nothing is published; retrying is safe).
  Status PutUnit(PhysicalOffset offset, int32_t size, int64_t tags_code, QueueOffset queue_offset);
  // RocketMQ's initializeWithOffset: removes every file and restarts the (empty) queue at
  // `offset` (pre-filled), with MinOffset() == MaxOffset() == offset; flushed on return.
  Status InitializeWithOffset(QueueOffset offset);

  // --- readers ---
  QueueOffset MinOffset() const;
  QueueOffset MaxOffset() const;
  PhysicalOffset LastPhysicalEnd() const {
    return PhysicalOffset(max_physic_offset_.load(std::memory_order_acquire));
  }
  // Units from `from` to at most `max_units`, never past the end of the file holding
  // `from` (RocketMQ's getIndexBuffer). kOutOfRange: from < 0 or from >= MaxOffset().
  // kNotFound: not available, i.e. from < MinOffset() or its file is gone (RocketMQ's
  // OFFSET_FOUND_NULL; continue at RollNextFile(from) or MinOffset()).
  // kInvalidArgument: max_units <= 0.
  Result<UnitRange> GetUnits(QueueOffset from, int max_units) const;
  // One unit; the same errors as GetUnits.
  Result<Unit> GetUnit(QueueOffset offset) const;
  // The first queue offset of the file after the one holding `offset`.
  QueueOffset RollNextFile(QueueOffset offset) const;
  // Spec §9.3, 5.x BoundaryType.LOWER over the whole queue: the first unit in
  // [MinOffset(), MaxOffset()) whose record's store time is >= timestamp, or MaxOffset()
  // if there is none (0 for an empty queue). Store times never decrease along a queue, so
  // this is a binary search (O(log n) calls of store_time_of). A unit whose record is gone
  // (kNotFound) counts as older than any timestamp. Differs from 4.9.8: see below.
  Result<QueueOffset> OffsetByTime(int64_t timestamp, const StoreTimeFn& store_time_of) const;
  // RocketMQ 4.9.8's ConsumeQueue.getOffsetInQueueByTime, step for step:
  //   1. The file: the first whose last modification is at or after `timestamp`, else the
  //      last file. Java reads the file's mtime; here the store time of its last unit
  //      stands for it (deterministic; the two differ only within the few ms between a
  //      message's store time and its dispatch). An empty file counts as modified now.
  //   2. In that file, from max(0, min offset - file start), Java's binary search
  //      (mid = (low + high) / 40 * 20 in bytes): a unit whose record is gone (kNotFound,
  //      i.e. below the commit log's min offset), blank or invalid moves right without a
  //      time; an exact time match answers that unit (any of several equal ones).
  //   3. Otherwise the closest in time of the last unit before and the first after
  //      (a tie: the one before); only units after: the first after; only before: the
  //      last before (so past the newest message the answer is the LAST unit, max - 1).
  // An empty queue answers 0. Other store_time_of errors are returned (Java answers 0).
  Result<QueueOffset> OffsetByTimeRocketMq498(int64_t timestamp,
                                              const StoreTimeFn& store_time_of) const;

  // --- flusher ---
  // Makes every written unit durable. Returns the logical BYTE offset of the queue up to
  // which units are durable (a unit count times 20, in file-name units). Errors are
  // sticky for the caller: nothing past the failed file counts as flushed.
  Result<PhysicalOffset> Flush(FlushMethod method);
  // Whether at least `least_pages` 4 KiB pages are unflushed (any unit when 0).
  bool HasDirtyPages(int least_pages) const { return queue()->HasDirtyPages(least_pages); }

  // --- cleaner ---
  // Spec §3.3, 5.x correctMinOffset: MinOffset() becomes the first unit at or after the
  // current minimum whose record is at or past `commit_log_min` (binary search); if no
  // such unit exists, MinOffset() == MaxOffset(). Blank units count as below any minimum
  // (RocketMQ's commented-out TODO case: min stays past the pre-fill even for min 0).
  // Never moves MinOffset() backwards.
  void CorrectMinOffset(PhysicalOffset commit_log_min);
  // Spec §8.2: removes files from the oldest while the last unit of the file points below
  // `commit_log_min`, never the last file, then CorrectMinOffset(commit_log_min).
  // When it removes files it first flushes the queue, then drops the leading files
  // (MappedFileQueue::RemoveFilesBefore); readers holding a UnitRange are not disturbed.
  // Returns the error of a failed flush or removal; the queue stays usable and a retry
  // completes the deletion.
  Status DeleteFilesBelow(PhysicalOffset commit_log_min);

  // Removes every file of the queue (the directory stays); the queue is then empty.
  Status Destroy();

 private:
  ConsumeQueue(FileSystem& fs, std::string dir, std::string topic, int32_t queue_id,
               const Options& options);

  int64_t file_bytes() const { return units_per_file_ * kUnitSize; }
  // The current file list (see files_).
  std::shared_ptr<MappedFileQueue> queue() const;
  // One past the last published unit of `q`, in logical bytes.
  static int64_t MaxLogicBytes(const MappedFileQueue& q);
  // The unit at logical byte offset `pos` of `q`, if its file is there and it is published.
  static bool ReadUnitAt(const MappedFileQueue& q, int64_t pos, Unit* unit);

  // REQUIRES: write_mu_ held (they use files_ directly).
  Status StartQueueLocked(int64_t start_pos, const Unit* unit);
  Status AppendLocked(const std::shared_ptr<MappedFile>& file, const Unit& unit);
  // Makes `end` the end of the queue (positions there, later files removed). A queue
  // without units keeps its first file, empty, so that its offset survives.
  Status SetEndLocked(int64_t end);
  // Zeroes the run of non-zero slots starting at `end` in the file holding it and syncs
  // the file if anything changed.
  Status ZeroStaleTailLocked(int64_t end);
  // Recomputes LastPhysicalEnd from the last unit and clamps the minimum to the end.
  void ResetDerivedStateLocked(int64_t min_floor);
  void CorrectMinOffsetLocked(int64_t commit_log_min);
  Status RemoveLeadingFilesLocked(size_t count);

  FileSystem& fs_;
  const std::string dir_;
  const std::string topic_;
  const int32_t queue_id_;
  const int64_t units_per_file_;
  const MappedFileQueue::Options queue_options_;

  std::mutex write_mu_;  // serialises the writer, the cleaner and the startup calls
  // The segment files. The pointer is replaced only when leading files are deleted, with
  // write_mu_ AND queue_mu_ held: code holding write_mu_ may use it directly; everyone
  // else copies it under queue_mu_ (queue()) and keeps using that copy.
  mutable std::mutex queue_mu_;
  std::shared_ptr<MappedFileQueue> files_;
  bool recovered_ = false;                      // GUARDED_BY(write_mu_)
  std::atomic<int64_t> min_logic_offset_{0};    // logical bytes (RocketMQ's minLogicOffset)
  std::atomic<int64_t> max_physic_offset_{-1};  // LastPhysicalEnd()
};

}  // namespace rocketstore
