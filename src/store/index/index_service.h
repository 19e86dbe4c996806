// File: store/index/index_service.h
//
// IndexService: the message index of a store — every index file in `<root>/index/`
// (index_file.h), built from dispatched commit-log records and queried by key (spec §4).
//
// Building (Dispatch, spec §4.5), for each record in commit-log order:
//   * records at or before the last indexed offset are skipped (already indexed; see
//     "Deviations"), ROLLBACK records are skipped (NOT, PREPARED, COMMIT are indexed);
//   * keys `topic#UNIQ_KEY` (if present), then `topic#token` for each KEYS token split on
//     single spaces (empty tokens from repeated spaces are skipped, as Java's split);
//   * each key goes to the last file; a full file (indexCount >= indexNum) rolls to a new
//     one named by the clock's local time `yyyyMMddHHmmssSSS` (kept strictly increasing),
//     whose header starts from the previous file's end values (index_layout.h quirk).
//     As in RocketMQ, the first dispatched record creates the first file even if it has
//     no keys.
// Querying (QueryOffsets, spec §4.4): files newest to oldest, selected by time range,
// each followed slot -> chain, newest first; at most min(max_num, max_query_results)
// candidates. Candidates can be hash collisions: message_query.h reads each record and
// keeps only real matches.
//
// Durability: Dispatch writes to the page cache only. Flush() makes every file durable
// (full files the writer left behind, then the active one). After a crash, call
// RecoverTo() with the recovered commit-log end before dispatching again.
//
// Deviations from RocketMQ (all invisible in the file bytes):
//   * Skip rule `offset <= last indexed offset` (RocketMQ: `< endPhyOffset`), so a record
//     dispatched again after a restart does not get its keys indexed twice. A Dispatch
//     that failed part-way through a record's keys resumes after the keys it stored.
//   * Abnormal exit: RocketMQ deletes every index file newer than the checkpoint's
//     indexMsgTimestamp. RecoverTo keeps every entry it can prove was fully written and
//     cuts the rest (see there).
//   * File creation is tried once (RocketMQ: 3 times, 1 s apart); the error is returned.
//   * When the clock has not moved past the newest file's name (same millisecond, a step
//     back, a DST fall-back), the new name is that name + 1 as a 17-digit number, so name
//     order stays creation order (RocketMQ would reuse or misorder the name).
//   * A chain walk also stops at a prevIndex that does not point backwards (a damaged
//     file cannot loop a reader).
//
// Thread-safety: one dispatcher thread calls Dispatch; QueryOffsets and the accessors
// from any thread, concurrently with it; Flush and DeleteFilesBelow from any one thread
// each (they serialise internally with the writer where needed). Load and RecoverTo
// require no concurrent calls of any kind.
// Ownership: `fs` and `clock` must outlive the service.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/dispatch/sink.h"
#include "store/format/index_layout.h"
#include "store/index/index_file.h"

namespace rocketstore {

struct IndexOptions {
  std::string dir;                                               // <root>/index
  int32_t max_hash_slot_num = format::kDefaultIndexHashSlotNum;  // maxHashSlotNum
  int32_t max_index_num = format::kDefaultIndexNum;              // maxIndexNum
  int max_query_results = format::kDefaultMaxIndexQueryResults;  // maxMsgsNumBatch
  int64_t reserve_chunk_bytes = 4 << 20;  // entry disk space reserved ahead of the writer

  format::IndexGeometry geometry() const { return {max_hash_slot_num, max_index_num}; }
};

// IndexService.queryOffset's answer.
struct QueryOffsetResult {
  std::vector<PhysicalOffset> phy_offsets;  // candidates, newest first
  // End values of the newest file (0 without files): how far the index has got.
  int64_t index_last_update_timestamp = 0;
  PhysicalOffset index_last_update_phy_offset;
};

struct IndexRecoveryReport {
  // Every record at or before this offset has all its keys indexed; none after it has
  // any. nullopt: nothing is indexed. The store must dispatch every record after it again
  // (dispatching earlier records too is harmless: they are skipped).
  std::optional<PhysicalOffset> last_indexed;
  int files_trusted = 0;      // taken as they are (full, flushed per the checkpoint)
  int files_checked = 0;      // entries validated and slots rebuilt (or cut by undo)
  int files_cut_by_undo = 0;  // of those: cut by undoing puts (page cache intact)
  int files_rebuilt = 0;      // of those: slot tables recomputed from the entries
  int files_deleted = 0;      // no entry survived
  int64_t entries_dropped = 0;
};

// What RecoverTo may assume about the bytes of the index files.
enum class IndexFilesState {
  kUnknown,   // after a power loss: entries and slot tables may disagree (pages of either
              // lost); every checked file is rebuilt from its entries
  kWritten,   // after a process crash: every byte the last run wrote is there, but its
              // last put may have stopped between the slot and the count
  kComplete,  // after a clean shutdown: flushed, nothing half written
};

class IndexService final : public DispatchSink {
 public:
  IndexService(FileSystem& fs, Clock& clock, IndexOptions options);
  ~IndexService() override;
  IndexService(const IndexService&) = delete;
  IndexService& operator=(const IndexService&) = delete;

  // Creates the directory if needed and opens every index file in it (17-digit names, in
  // name order; leftover `<name>.tmp` files of an interrupted creation are removed, other
  // names ignored). kCorruption for a file whose size does not match the geometry.
  Status Load();

  // Indexes one record (see the file comment). Errors (kNoSpace, kIOError creating or
  // growing a file) leave what was stored in place; dispatching the same record again
  // continues with its remaining keys. (That memory is not persisted: a store that stops
  // after such an error must run RecoverTo at its next start, as after a crash.)
  Status Dispatch(const DispatchRequest& request) override;

  // DispatchSink, the store's driving of the index: Recover runs RecoverTo(end, the
  // checkpoint's indexMsgTimestamp, the files' state after ctx.last_run), keeps its report
  // (last_recovery_report) and resumes after last_indexed (the commit log's start when
  // nothing is indexed). FlushForCheckpoint is Flush; the checkpoint gets
  // flushed_full_file_timestamp() as indexMsgTimestamp.
  std::string_view SinkName() const override { return "index"; }
  Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) override;
  Status FlushForCheckpoint() override { return Flush(); }
  void ContributeToCheckpoint(SinkCheckpointFields& fields) const override {
    fields.index_msg_timestamp = flushed_full_file_timestamp();
  }
  // What the last Recover did (empty before).
  const IndexRecoveryReport& last_recovery_report() const { return last_recovery_report_; }

  // IndexService.queryOffset(topic, key, maxNum, begin, end): candidate offsets of
  // `topic#key` stored in [begin, end] (ms), newest first, at most
  // min(max_num, max_query_results). A file is searched if its time range overlaps
  // [begin, end]; the walk stops after a file that began before `begin`.
  QueryOffsetResult QueryOffsets(std::string_view topic, std::string_view key, int max_num,
                                 int64_t begin, int64_t end) const;

  // Makes the index consistent with a recovered commit log that ends at `commit_log_end`,
  // after a crash, keeping every entry that is provably complete:
  //   1. Files are checked oldest first. A full file with endTimestamp < trusted_timestamp
  //      (the checkpoint's indexMsgTimestamp: flushed and never written since) and
  //      endPhyOffset < commit_log_end is trusted as it is. In the others every entry
  //      below the stored count is validated: offsets never decrease (across files too)
  //      and stay below commit_log_end, keyHash/timeDiff are >= 0, prevIndex points
  //      backwards, the entry is not all zero, and entry 1 matches beginPhyOffset. The
  //      first entry that fails ends the index there (later files keep nothing).
  //   2. The entries of the last surviving message are dropped too, since a crash may have
  //      cut its keys short; the report's last_indexed is the message before it.
  //   3. Each file that was checked or cut is rebuilt from its kept entries
  //      (IndexFile::RebuildFromEntries: slots and chains recomputed, stale entries
  //      zeroed, header rewritten) and flushed; files left without entries are deleted.
  //      When the files hold every byte the last run wrote (`state` kComplete after a
  //      clean shutdown, kWritten after a process crash: the page cache survived) a file
  //      whose entries all passed step 1 has a slot table that matches them: it is cut by
  //      undoing the dropped puts instead (IndexFile::CutByUndo, same bytes, cost of the
  //      cut only; after a process crash also a put torn between slot and count, and a
  //      scan of the slot table), falling back to the rebuild if the table turns out not
  //      to match.
  // Queries never return an offset >= commit_log_end afterwards. The store then
  // re-dispatches from report.last_indexed, which re-adds every key of every surviving
  // message after it. trusted_timestamp 0 checks every file.
  Result<IndexRecoveryReport> RecoverTo(PhysicalOffset commit_log_end,
                                        int64_t trusted_timestamp = 0,
                                        IndexFilesState state = IndexFilesState::kUnknown);

  // Retention (spec §4.7): if the first file's endPhyOffset < commit_log_min, deletes
  // files oldest first while their endPhyOffset < commit_log_min, never the last file.
  // Readers holding a deleted file keep it mapped until they finish.
  Status DeleteFilesBelow(PhysicalOffset commit_log_min);

  // Makes everything indexed so far durable: full files first (without blocking the
  // writer), then the active file (blocking Dispatch for the duration of its msync).
  Status Flush();
  // End timestamp of the newest FULL file that Flush() made durable (0 if none): what
  // the store writes as the checkpoint's indexMsgTimestamp and later passes to RecoverTo.
  int64_t flushed_full_file_timestamp() const;

  // The offset of the last record whose keys were all indexed, if any.
  std::optional<PhysicalOffset> last_indexed_offset() const;
  const IndexOptions& options() const { return options_; }
  size_t file_count() const;
  // Snapshot of the files, oldest first.
  std::vector<std::shared_ptr<IndexFile>> Files() const;

 private:
  // The file to write to: the last one, or a new one if there is none or it is full.
  Result<std::shared_ptr<IndexFile>> WritableFileLocked();
  std::string NextFileNameLocked();
  // Puts one key, rolling to a new file when the last is full.
  // `seed` is format::IndexKeySeed(request.topic).
  Status PutKeyLocked(std::shared_ptr<IndexFile>* file, int32_t seed, std::string_view key,
                      const DispatchRequest& request);

  FileSystem& fs_;
  Clock& clock_;
  const IndexOptions options_;
  const IndexFile::Options file_options_;

  mutable std::mutex files_mu_;
  std::vector<std::shared_ptr<IndexFile>> files_;  // GUARDED_BY(files_mu_), oldest first

  // The writer: Dispatch, the active file's flush, RecoverTo.
  mutable std::mutex write_mu_;
  std::optional<PhysicalOffset> last_indexed_;  // GUARDED_BY(write_mu_)
  std::string last_name_;                       // GUARDED_BY(write_mu_), newest file name
  // A record whose keys were stored only in part (Dispatch failed): its offset and how
  // many of its keys are in. GUARDED_BY(write_mu_)
  std::optional<PhysicalOffset> partial_offset_;
  int partial_keys_done_ = 0;

  std::atomic<int64_t> flushed_full_timestamp_{0};
  IndexRecoveryReport last_recovery_report_;  // set by Recover (during Open only)
};

}  // namespace rocketstore
