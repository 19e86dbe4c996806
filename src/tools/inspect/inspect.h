// File: tools/inspect/inspect.h
//
// `rocketstore inspect`: the three files of a RocketMQ store, read by hand, as a tool.
// Every subcommand is read-only: files are opened read-only through FileSystem and read
// through read-only mappings; the `lock` file is never taken, so it works offline or
// beside a live broker (it then sees a moment's state), and on a store written by
// Apache RocketMQ 4.9.
//
//   summary    segments and their offset ranges, queues with min/max offsets, checkpoint
//              values as dates, abort/lock state, index files, disk usage
//   commitlog  decoded records from --from (default: the first segment's start)
//   cq         ConsumeQueue units of one queue, optionally followed into the CommitLog
//   key        the index walk for topic#key: hash, slot, chain, matching records
//   msgid      decode an offset msgId and show the record it names
//   verify     full consistency check; exit 0 only when the store is consistent
//   delay      the delay-level queues (SCHEDULE_TOPIC_XXXX): per level the queue's range,
//              the progress in config/delayOffset.json, pending messages and the next
//              deliver time (the tags code of the first pending unit)
//   timers     pending timer messages (timer/timer_scan.h)
//   transactions  the pending transaction halves (RMQ_SYS_TRANS_HALF_TOPIC without an op
//              record "d"), each with its latest copy's offsets, check count, producer
//              group, real topic/queue and whether a commit intent awaits the next start
//
// Output: readable tables, or JSON Lines with `json`. Segment and CQ file sizes are
// inferred from the files; the index geometry is not stored in the files and must be
// given (RocketMQ defaults 5,000,000 slots / 20,000,000 entries).
//
// Entry points write to `out` (results) and `err` (diagnostics) and return the process
// exit code: 0 success, 1 problem found (verify) or nothing found (msgid/key: 0 still),
// 2 usage / I/O error.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "io/file_system.h"

namespace rocketstore::tools::inspect {

struct InspectOptions {
  std::string store_dir = ".";
  bool json = false;
  int32_t index_slots = 5'000'000;     // maxHashSlotNum of the writer
  int32_t index_entries = 20'000'000;  // maxIndexNum of the writer
  // verify: draw a progress bar on `err` when it is a terminal.
  bool progress = true;
};

int RunSummary(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err);

// from < 0: start at the first segment. count < 0: all.
int RunCommitLog(FileSystem& fs, const InspectOptions& options, int64_t from, int64_t count,
                 std::FILE* out, std::FILE* err);

// from < 0: start at the queue's min offset. count < 0: all.
int RunCq(FileSystem& fs, const InspectOptions& options, const std::string& topic, int32_t queue_id,
          int64_t from, int64_t count, bool follow, std::FILE* out, std::FILE* err);

// Time range [begin, end] in ms; defaults: everything.
int RunKey(FileSystem& fs, const InspectOptions& options, const std::string& topic,
           const std::string& key, int64_t begin, int64_t end, std::FILE* out, std::FILE* err);

int RunMsgId(FileSystem& fs, const InspectOptions& options, const std::string& msg_id,
             std::FILE* out, std::FILE* err);

// The delay-level view (see the file comment); 2 when delayOffset.json is unreadable.
int RunDelay(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err);
// Pending timer messages (<store>/timer/): count, next due, progress, per-day histogram,
// bucket files. 0 also when there is no timer directory; 2 when it cannot be read.
int RunTimers(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err);

// The pending transaction halves (see the file comment).
int RunTransactions(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err);

// Returns 0 when consistent, 1 when problems were found, 2 when the store cannot be read.
int RunVerify(FileSystem& fs, const InspectOptions& options, std::FILE* out, std::FILE* err);

}  // namespace rocketstore::tools::inspect
