// File: store/segment/mapped_file.h
//
// MappedFile: one fixed-size segment file, named by the offset of its first byte
// (file_names.h), memory-mapped read-write as a whole. Writes go into the mapping
// (the page cache); durability comes from Flush().
//
// Three positions, all file-relative, with the invariant
//     flushed <= committed <= wrote <= file_size
//   wrote      bytes the single appender has written into the map;
//   committed  bytes published to readers (readers never look past it);
//   flushed    bytes made durable by Flush() (msync or fdatasync).
// Today every append publishes at once (committed == wrote after Advance()); the split
// leaves room for a write-buffer mode (RocketMQ's transient store pool).
//
// Disk space: the file is created at full size but sparse; blocks are reserved with
// fallocate in chunks ahead of the write position (Reserve()), so a fresh store does not
// take a whole segment at once and a full disk surfaces as kNoSpace from Reserve(), never
// as SIGBUS from a store into an unbacked page. Prefault() warms pages off the hot path.
//
// Zero fill (Options::zero_fill_ahead, the SYNC_FLUSH write-buffer path): fallocate leaves
// *unwritten* extents, and the first fdatasync over each newly written block must also
// make the extent conversion durable (a journal commit, or on a file system without a
// journal — this project's VM — a write of the extent blocks after the data write
// completes): a second serial round trip to the disk. Measured here, a flush of
// 64 KiB into unwritten extents took ~550-900 us against ~350-450 us into blocks already
// written. So the preparer writes zeros ahead of the appender and syncs them (ZeroFill),
// turning the blocks into written extents off the hot path; every segment is then written
// twice, which is why only SYNC_FLUSH, whose producers wait on each flush, does it.
// ZeroFill and Write() exclude each other by range: the zero filler never writes below the
// highest byte a Write() has claimed, and a Write() above `zero_filled` waits for a zero
// write in progress (zero_mu_), so zeros never land on records.
//
// Thread-safety: one appender thread (Reserve/Advance/bytes written past `wrote`),
// any number of readers of [0, committed), one flusher (Flush), and a preparer
// (Reserve/Prefault ahead of the appender) may run concurrently. Reserve is internally
// serialised. SetPositions (recovery) requires no concurrent users.
//
// Ownership: the FileSystem must outlive the MappedFile. Users hold
// std::shared_ptr<MappedFile> so that a file being deleted stays mapped until the last
// reader lets go.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"

namespace rocketstore {

enum class FlushMethod {
  kMsync,      // msync(MS_SYNC) of the dirty page range of the map
  kFdatasync,  // fdatasync(fd): writes back every dirty page of the file
};

// A segment being created is named `<20 digits>.tmp` until it has its full size.
inline constexpr char kSegmentTempSuffix[] = ".tmp";

class MappedFile {
 public:
  struct Options {
    // Disk blocks are reserved in chunks of this size ahead of the writer.
    int64_t reserve_chunk_bytes = 16 << 20;
    // false: page faults bring in single pages while the segment is being written
    // (MappedRegion::SetReadahead). Under SYNC_FLUSH, readahead's large folios made every
    // flush write back up to a MiB for a few KiB of records (docs/durability.md).
    bool readahead_while_writing = true;
    // Allow ZeroFill(). REQUIRES: every byte is written with Write(), never through the
    // map (a zero fill could otherwise overwrite bytes the appender just stored there).
    bool zero_fill_ahead = false;
  };

  // Creates `dir/<20-digit start>` at `file_size` bytes (sparse, size durable) and maps
  // it. Fails with kAlreadyExists if the file exists. The directory entry is not yet
  // durable: the caller syncs the directory (MappedFileQueue does).
  static Result<std::unique_ptr<MappedFile>> Create(FileSystem& fs, const std::string& dir,
                                                    PhysicalOffset start, int64_t file_size,
                                                    const Options& options);

  // Opens and maps an existing segment. Its size must be exactly `file_size` (kCorruption
  // with a message naming the file otherwise). All positions start at file_size (a loaded
  // file counts as full and reserved) until recovery calls SetPositions().
  static Result<std::unique_ptr<MappedFile>> Open(FileSystem& fs, const std::string& path,
                                                  PhysicalOffset start, int64_t file_size,
                                                  const Options& options);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  PhysicalOffset start_offset() const { return start_; }
  int64_t file_size() const { return file_size_; }
  // One past the last byte this file can hold.
  PhysicalOffset end_offset() const { return start_ + file_size_; }

  uint8_t* data() { return region_->data(); }
  const uint8_t* data() const { return region_->data(); }
  // Bytes of the file in the page cache now (MappedRegion::ResidentBytes). Any thread.
  Result<size_t> ResidentBytes() const { return region_->ResidentBytes(0, region_->size()); }

  int64_t wrote_position() const { return wrote_.load(std::memory_order_acquire); }
  int64_t committed_position() const { return committed_.load(std::memory_order_acquire); }
  int64_t flushed_position() const { return flushed_.load(std::memory_order_acquire); }
  int64_t remaining() const { return file_size_ - wrote_position(); }
  bool IsFull() const { return wrote_position() == file_size_; }

  // --- appender ---
  // Ensures disk blocks are reserved for [0, end). Fast when already reserved.
  Status Reserve(int64_t end) {
    if (end <= reserved_.load(std::memory_order_acquire)) return Status::OK();
    return ReserveSlow(end);
  }
  // Writes bytes at `pos` through the file (pwrite) instead of the map; the map sees them
  // at once (same page cache). REQUIRES: pos >= wrote, reserved.
  Status Write(int64_t pos, std::span<const uint8_t> bytes) {
    const int64_t end = pos + static_cast<int64_t>(bytes.size());
    if (options_.zero_fill_ahead && end > zero_filled_.load(std::memory_order_acquire)) {
      ClaimForWrite(end);
    }
    return file_->PWrite(static_cast<uint64_t>(pos), bytes.data(), bytes.size());
  }
  // Publishes bytes [wrote, new_wrote) written into the map. REQUIRES: reserved.
  void Advance(int64_t new_wrote, int64_t last_store_timestamp);
  // Write-buffer mode (the commit log's SYNC_FLUSH path): bytes up to `new_wrote` are
  // assigned but still in the appender's buffer; readers do not see them until Commit().
  void AdvanceWrote(int64_t new_wrote) { wrote_.store(new_wrote, std::memory_order_release); }
  // The buffered bytes up to `new_committed` are now in the file (Write): publish them.
  // REQUIRES: new_committed <= wrote.
  void Commit(int64_t new_committed, int64_t last_store_timestamp);

  // --- preparer ---
  // Reserves and faults in [from, to) so the appender's first touch is cheap.
  Status Prefault(int64_t from, int64_t to);
  // Gives the page-cache memory of [dropped, to) back to the OS: unmaps those pages
  // (MappedRegion::Unmap) and asks the page cache to drop them (File::DropCache). Only
  // flushed bytes go (`to` is clamped to `flushed`, rounded down to 2 MiB, the largest
  // page-cache folio, but for the file's end). No byte
  // changes: a reader touching them later reads them in again from the file. Returns
  // the new `dropped` position. Serialised with Prefault.
  Result<int64_t> DropCache(int64_t to);
  int64_t dropped_position() const { return dropped_.load(std::memory_order_acquire); }
  int64_t prefaulted_position() const { return prefaulted_.load(std::memory_order_acquire); }
  int64_t reserved_position() const { return reserved_.load(std::memory_order_acquire); }
  // Zero fill (Options::zero_fill_ahead): reserves up to `to`, writes zeros over the part
  // of [zero_filled, to) that no Write() has claimed and no record is assigned to
  // (`wrote`), then syncs the file so the blocks become written extents. A failed sync is
  // sticky: every later Flush() returns it (the sync consumed the kernel's error report,
  // so the flusher's own fdatasync could no longer see it).
  Status ZeroFill(int64_t to);
  // The zero filler never writes below this position again.
  int64_t zero_filled_position() const { return zero_filled_.load(std::memory_order_acquire); }

  // Readahead off while the segment is written (Options::readahead_while_writing), back
  // on once it is full, so readers of old segments keep normal readahead.
  Status DisableReadahead();
  Status RestoreReadahead();  // no-op unless disabled
  bool readahead_disabled() const { return readahead_off_.load(std::memory_order_acquire); }

  // --- flusher ---
  // Makes [flushed, committed) durable and advances `flushed`. Returns the new flushed
  // position. On error nothing advances; the caller treats the error as sticky.
  Result<int64_t> Flush(FlushMethod method);
  // Store timestamp of the last record appended when `flushed` was last advanced (for
  // the checkpoint's physicMsgTimestamp): never newer than the flushed data.
  int64_t flushed_store_timestamp() const {
    return flushed_timestamp_.load(std::memory_order_acquire);
  }
  int64_t last_store_timestamp() const { return last_timestamp_.load(std::memory_order_acquire); }

  // Makes every byte of the file durable regardless of the positions (fdatasync).
  // Recovery uses it: loaded data may still sit in the page cache after a process crash.
  Status SyncWholeFile() { return file_->Sync(); }
  // File::NextDataRange of the segment file: where bytes at or after `from` may be
  // non-zero (never-written blocks are skipped without being read).
  Result<File::DataRange> NextDataRange(int64_t from) const {
    return file_->NextDataRange(static_cast<uint64_t>(from));
  }

  // --- recovery ---
  // Sets wrote = committed = flushed = position (bytes after it are not zeroed; they are
  // overwritten by later appends). REQUIRES: no concurrent users.
  void SetPositions(int64_t position);

 private:
  MappedFile(std::string path, std::unique_ptr<File> file, std::unique_ptr<MappedRegion> region,
             PhysicalOffset start, int64_t file_size, const Options& options);
  Status ReserveSlow(int64_t end);
  void ClaimForWrite(int64_t end);

  const std::string path_;  // the segment's name (the File may know its temporary name)
  std::unique_ptr<File> file_;
  std::unique_ptr<MappedRegion> region_;
  const PhysicalOffset start_;
  const int64_t file_size_;
  const Options options_;

  std::atomic<int64_t> wrote_{0};
  std::atomic<int64_t> committed_{0};
  std::atomic<int64_t> flushed_{0};
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> prefaulted_{0};
  std::atomic<int64_t> dropped_{0};
  std::atomic<int64_t> last_timestamp_{0};
  std::atomic<int64_t> flushed_timestamp_{0};
  std::atomic<bool> readahead_off_{false};
  std::atomic<int64_t> zero_filled_{0};
  int64_t write_claimed_ = 0;  // GUARDED_BY(zero_mu_): Write() has bytes below this
  Status zero_sync_error_;     // GUARDED_BY(flush_mu_): sticky failure of a ZeroFill sync
  std::mutex zero_mu_;         // held while zeros are written; see "Zero fill" above
  std::mutex reserve_mu_;      // serialises ReserveSlow
  std::mutex prefault_mu_;     // serialises Prefault
  std::mutex flush_mu_;        // one flush at a time
};

}  // namespace rocketstore
