// File: store/commitlog/commit_log.h
//
// CommitLog: every message of every topic, appended in arrival order to a queue of
// fixed-size segment files (`<root>/commitlog/<20-digit start offset>`), each record in
// RocketMQ's byte format (store/format/message_record.h). Reads are random, by physical
// offset. The CommitLog appends and reads; it does not flush (store/flush does) and does
// not build consume queues (store/dispatch does).
//
// Appending (Put / PutBatch):
//   1. Checks, in RocketMQ's order, each answering with its PutMessageStatus and writing
//      nothing: store not writable or shut down -> SERVICE_NOT_AVAILABLE (with the
//      reason); append lock held > os_page_cache_busy_millis -> OS_PAGE_CACHE_BUSY;
//      properties > 32767 bytes -> PROPERTIES_SIZE_EXCEEDED; topic empty or > 127
//      bytes, body > max_message_body_bytes, or a record that cannot fit a segment ->
//      MESSAGE_ILLEGAL.
//   2. The body CRC is computed outside the lock.
//   3. Under the append lock: the store timestamp is taken (never smaller than the
//      previous one), the topic+queue's next queue offset assigned (NOT and COMMIT
//      transaction types only; PREPARED/ROLLBACK get 0), and the record encoded straight
//      into the mapped segment. If `L + 8 > remaining` the segment is closed with an
//      8-byte BLANK record and the record goes to offset 0 of the next segment.
// When Put returns PUT_OK the record is in the page cache (survives a process crash, not
// a power loss); durability is the flusher's job.
//
// Thread-safety: Put/PutBatch from any number of threads (serialised by the append
// lock); reads from any thread concurrently with appends (they see records once Put has
// returned). Open/TruncateTo require no concurrent users.
// Ownership: `fs`, `clock` and `health` must outlive the CommitLog.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/common/put_message_status.h"
#include "store/common/store_health.h"
#include "store/format/message_record.h"
#include "store/segment/mapped_file_queue.h"

namespace rocketstore {

struct CommitLogOptions {
  std::string dir;                           // e.g. <root>/commitlog
  int64_t segment_size = 1 << 30;            // mappedFileSizeCommitLog
  size_t max_message_body_bytes = 4 << 20;   // maxMessageSize (applies to the body)
  int64_t reserve_chunk_bytes = 16 << 20;    // disk reserved ahead of the writer
  int64_t prefault_window_bytes = 32 << 20;  // pages warmed ahead of the writer
  bool populate_pages = true;                // false: the window is only reserved
  bool readahead_while_writing = true;       // see MappedFile::Options
  // SYNC_FLUSH's write path: records are encoded into a write buffer and reach the file
  // with one pwrite() per commit (CommitPending(), called by the group commit before each
  // flush) instead of being stored into the writable map. The map's page-table entries
  // stay read-only, so writeback at each fdatasync has no writable mapping to clean and
  // sends no TLB-shootdown IPIs (measured here: ~30 % of the CPU with 64 producers), and
  // 64 producers cost one syscall per flush, not 64. Buffered records are invisible to
  // readers until committed; a process crash loses them (none was acknowledged).
  bool append_with_pwrite = false;
  // With append_with_pwrite: the preparer zero-fills and syncs ahead of the writer
  // (MappedFile::ZeroFill) so flushes need no extent conversion in the journal.
  bool zero_fill_ahead = false;
  int64_t os_page_cache_busy_millis = 1000;  // osPageCacheBusyTimeOutMills
  // > 0: flushed bytes this far behind the writer leave the page cache (see
  // MappedFileQueue::Options::resident_window_bytes); 0 keeps them cached.
  int64_t resident_window_bytes = 0;
};

// Where one appended record went.
struct AppendedRecord {
  PhysicalOffset offset;     // first byte of the record in the commit log
  int32_t size = 0;          // TOTALSIZE
  QueueOffset queue_offset;  // 0 for PREPARED/ROLLBACK records
  int64_t store_timestamp = 0;
};

struct PutMessageResult {
  PutMessageStatus status = PutMessageStatus::kUnknownError;
  std::string error;        // why, when status is not PUT_OK
  AppendedRecord first;     // the (first) record, when stored
  int32_t count = 0;        // records appended (batch size), when stored
  int64_t total_bytes = 0;  // bytes appended, when stored

  bool ok() const { return status == PutMessageStatus::kPutOk; }
  // One past the last appended byte: what must be durable for this put to be.
  PhysicalOffset end_offset() const { return first.offset + total_bytes; }
};

// A read-only view of commit-log bytes; keeps the segment mapped while alive.
struct CommitLogBytes {
  std::shared_ptr<MappedFile> file;
  std::span<const uint8_t> bytes;
};

class CommitLog {
 public:
  // Opens (creating if needed) the segment directory and loads existing segments. The
  // end of the log is NOT found here: recovery does that and calls SetEnd(). Until then
  // a loaded log counts every segment as full.
  static Result<std::unique_ptr<CommitLog>> Open(FileSystem& fs, const CommitLogOptions& options,
                                                 Clock& clock, StoreHealth& health);

  PutMessageResult Put(const format::MessageToStore& message);
  // Appends all records contiguously in one segment (all or nothing), with consecutive
  // queue offsets and one store timestamp. All must share topic and queue id.
  PutMessageResult PutBatch(std::span<const format::MessageToStore> messages);

  // append_with_pwrite: writes the buffered records into the file and publishes them.
  // A failed write is sticky (the store stops accepting writes). Any thread.
  Status CommitPending();
  bool HasPending() const;

  // `size` bytes at `offset`, if all of them are written. kOutOfRange past the end,
  // kNotFound when the segment holding them is gone (deleted by retention).
  Result<CommitLogBytes> Read(PhysicalOffset offset, int32_t size) const;
  // The record starting at `offset` (reads its TOTALSIZE first). CRC not checked.
  Result<CommitLogBytes> ReadRecord(PhysicalOffset offset) const;
  // All written bytes from `offset` to the end of its segment (what the dispatcher walks).
  Result<CommitLogBytes> ReadToSegmentEnd(PhysicalOffset offset) const;

  PhysicalOffset MinOffset() const { return files_.MinOffset(); }
  PhysicalOffset MaxOffset() const { return files_.MaxOffset(); }
  PhysicalOffset FlushedOffset() const { return files_.FlushedOffset(); }
  // The start of the segment after the one containing `offset` (rollNextFile).
  PhysicalOffset NextSegmentStart(PhysicalOffset offset) const;

  MappedFileQueue& segments() { return files_; }
  const MappedFileQueue& segments() const { return files_; }
  const CommitLogOptions& options() const { return options_; }

  // Recovery: the log ends at `end` (its last record stored at `last_store_timestamp`);
  // later bytes and segments are dropped.
  Status SetEnd(PhysicalOffset end, int64_t last_store_timestamp);

  // The queue-offset table: next queue offset per topic+queue. Rebuilt at startup from
  // the consume queues (or a commit-log scan) before the first put.
  QueueOffset NextQueueOffset(std::string_view topic, int32_t queue_id) const;
  void SetNextQueueOffset(std::string_view topic, int32_t queue_id, QueueOffset next);
  void ClearQueueOffsets();
  // Forgets every queue of `topic` (a deleted topic starts again at queue offset 0).
  void RemoveQueueOffsets(std::string_view topic);

  // 0 when no append is in progress, else when the current one took the lock (ms).
  int64_t begin_time_in_lock() const { return begin_time_in_lock_.load(); }
  bool IsOsPageCacheBusy() const;

 private:
  CommitLog(FileSystem& fs, const CommitLogOptions& options, Clock& clock, StoreHealth& health);

  PutMessageResult Reject(PutMessageStatus status, std::string error) const;
  Status CommitPendingLocked();
  // Room for `n` more bytes at file position `pos` in the write buffer.
  uint8_t* BufferLocked(const std::shared_ptr<MappedFile>& file, int64_t pos, int64_t n);
  PutMessageResult CheckStoreState() const;
  // The segment to append to, rolling to a new one when the current is full.
  Result<std::shared_ptr<MappedFile>> WritableSegmentLocked();
  PutMessageResult AppendLocked(std::span<const format::MessageToStore> messages,
                                std::span<const uint32_t> crcs, int64_t total_bytes);

  struct QueueKey {
    std::string topic;
    int32_t queue_id;
  };
  struct QueueKeyView {
    std::string_view topic;
    int32_t queue_id;
    QueueKeyView(std::string_view t, int32_t q) : topic(t), queue_id(q) {}
    QueueKeyView(const QueueKey& k) : topic(k.topic), queue_id(k.queue_id) {}  // NOLINT
  };
  struct QueueKeyHash {
    using is_transparent = void;
    size_t operator()(QueueKeyView k) const {
      return std::hash<std::string_view>()(k.topic) * 31 + static_cast<size_t>(k.queue_id);
    }
  };
  struct QueueKeyEq {
    using is_transparent = void;
    bool operator()(QueueKeyView a, QueueKeyView b) const {
      return a.queue_id == b.queue_id && a.topic == b.topic;
    }
  };

  const CommitLogOptions options_;
  Clock& clock_;
  StoreHealth& health_;
  MappedFileQueue files_;

  mutable std::mutex append_mu_;
  std::atomic<int64_t> begin_time_in_lock_{0};
  int64_t last_store_timestamp_ = 0;  // GUARDED_BY(append_mu_)
  // append_with_pwrite: records encoded but not yet written, for pending_file_ from
  // pending_pos_ on; committing publishes up to pending_end_ (the segment end after a
  // BLANK, whose 8 bytes stand for the rest of the file); pending_ts_ is the store
  // timestamp of the last record. GUARDED_BY(append_mu_)
  std::vector<uint8_t> pending_;
  std::shared_ptr<MappedFile> pending_file_;
  int64_t pending_pos_ = 0;
  int64_t pending_end_ = 0;
  int64_t pending_ts_ = 0;
  // The segment being appended to (saves the file-list lock per put). GUARDED_BY(append_mu_)
  std::shared_ptr<MappedFile> current_;
  // Next queue offset per topic+queue. GUARDED_BY(append_mu_).
  std::unordered_map<QueueKey, int64_t, QueueKeyHash, QueueKeyEq> queue_offsets_;
};

}  // namespace rocketstore
