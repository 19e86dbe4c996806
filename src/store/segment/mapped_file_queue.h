// File: store/segment/mapped_file_queue.h
//
// MappedFileQueue: the ordered list of equal-size segment files of one directory — the
// CommitLog's `commitlog/` or one ConsumeQueue's `consumequeue/<topic>/<queue>/`.
//
//   dir/00000000000000000000   bytes [0, S)
//   dir/0000000000000000S      bytes [S, 2S)      (S = file_size; names per file_names.h)
//   ...
// Only the last file is written; offsets are "physical" (absolute bytes of the queue).
//
// Lifecycle: construct, Load() (existing files; every one must be exactly S bytes and
// their names contiguous), recovery sets the end with TruncateTo(), then appends.
// Files are created on demand by the appender (GetWritableFile) or ahead of time by a
// preparer (PrepareNext), which also reserves and prefaults pages ahead of the writer;
// each creation syncs the directory so the new name survives a power loss.
//
// Thread-safety: the file list is guarded by an internal mutex; readers get
// std::shared_ptr<MappedFile> snapshots that stay valid (mapped) even if the file is
// removed from the queue meanwhile. One appender thread, one flusher, one preparer
// and many readers may run concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/segment/mapped_file.h"

namespace rocketstore {

class MappedFileQueue {
 public:
  struct Options {
    int64_t file_size = 1 << 30;
    MappedFile::Options file;
    // The preparer keeps this many bytes ahead of the writer reserved and prefaulted.
    int64_t prefault_window_bytes = 32 << 20;
    // false: the preparer only reserves the window and leaves the pages alone (under
    // SYNC_FLUSH, faulted-in pages would be dirty zeros for every fdatasync to write).
    bool populate_pages = true;
    // With file.zero_fill_ahead: the preparer keeps this many bytes past the writer
    // zero-filled and synced (MappedFile::ZeroFill), in steps of at most 1 MiB.
    int64_t zero_fill_window_bytes = 4 << 20;
    // > 0: the preparer gives back the page-cache memory of flushed bytes more than this
    // far behind the write position (MappedFile::DropCache), so that the pages the writer
    // needs next are ones just freed rather than fresh memory. 0: keep everything cached.
    int64_t resident_window_bytes = 0;
  };

  // `fs` must outlive the queue.
  MappedFileQueue(FileSystem& fs, std::string dir, const Options& options);

  const std::string& dir() const { return dir_; }
  int64_t file_size() const { return options_.file_size; }

  // Creates the directory if needed and opens every segment in it, in name order.
  // Files that are not segments (other names) are ignored. kCorruption for a file of the
  // wrong size or a gap between names.
  Status Load();

  bool empty() const;
  size_t file_count() const;
  std::vector<std::shared_ptr<MappedFile>> Files() const;
  std::shared_ptr<MappedFile> FirstFile() const;
  std::shared_ptr<MappedFile> LastFile() const;
  // The file holding `offset`, or nullptr if no file does.
  std::shared_ptr<MappedFile> FindFile(PhysicalOffset offset) const;

  // First byte still stored (the first file's start), or 0 when empty.
  PhysicalOffset MinOffset() const;
  // One past the last written byte.
  PhysicalOffset MaxOffset() const;
  // One past the last byte made durable by Flush().
  PhysicalOffset FlushedOffset() const;

  // The file to append to: the last file if it is not full; otherwise a new file that
  // starts where the last ends (or at `start_if_empty` for an empty queue), taken from
  // the preparer when it already made it.
  Result<std::shared_ptr<MappedFile>> GetWritableFile(PhysicalOffset start_if_empty);

  // Flushes every file holding unflushed data in order. Returns the new flushed offset.
  // An error stops the flush; nothing past the failed file counts as flushed.
  Result<PhysicalOffset> Flush(FlushMethod method);
  // Whether at least `least_pages` 4 KiB pages are written but unflushed (or any byte
  // when least_pages is 0, or a full unflushed file).
  bool HasDirtyPages(int least_pages) const;
  // Store timestamp of the last record known flushed (checkpoint physicMsgTimestamp).
  int64_t FlushedStoreTimestamp() const;

  // Preparer step: reserve + prefault (or zero-fill) the window ahead of the writer in the last
  // file, and once it is more than half written create the next file (and sync the directory);
  // then drop the page cache of flushed bytes behind the resident window. Both halves run
  // even if the other fails; the first error is returned.
  Status PrepareNext();

  // Sets the end of the queue to `end`: the file containing it gets its positions set
  // there; files starting at or after `end` are removed (and the directory synced).
  Status TruncateTo(PhysicalOffset end);

  // Retention: removes, oldest first, every leading file that ends at or before `end`,
  // but never the last file (the active one). Each file is unlinked, then dropped from
  // the list, then the directory is synced. Returns how many files were removed.
  // Readers holding a removed file's shared_ptr keep a valid mapping; lookups of a
  // removed range (FindFile) find nothing and MinOffset() moves up. On an error the
  // files removed so far stay removed (a file that is already gone counts as removed),
  // so a retry completes the work. Not for use concurrently with TruncateTo/RemoveAll.
  Result<int> RemoveFilesBefore(PhysicalOffset end);

  // Removes every file and the list (used when the queue is destroyed).
  Status RemoveAll();

 private:
  // PrepareNext's first half: prefault (or zero-fill) ahead, create the next segment.
  Status PrepareAhead();
  // Reserves and prefaults `file` up to prefault_window_bytes past its write position.
  Status PrefaultAhead(MappedFile& file, bool being_written);
  // Drops the cache of flushed bytes more than resident_window_bytes behind the end of
  // `last`, in whole steps.
  Status DropBehind(const MappedFile& last);
  Result<std::shared_ptr<MappedFile>> CreateFile(PhysicalOffset start);

  FileSystem& fs_;
  const std::string dir_;
  const Options options_;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<MappedFile>> files_;  // GUARDED_BY(mu_), ordered by start
  std::shared_ptr<MappedFile> prepared_;            // GUARDED_BY(mu_), next file, not listed
  std::mutex create_mu_;                            // one creator at a time
};

}  // namespace rocketstore
