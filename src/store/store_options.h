// File: store/store_options.h
//
// Everything that configures a MessageStore, with RocketMQ's defaults (spec §14). The
// RocketMQ config key each field corresponds to is named in its comment.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/offsets.h"
#include "base/result.h"
#include "io/file_system.h"
#include "store/cleanup/retention.h"
#include "store/dispatch/sink.h"
#include "store/flush/async_flusher.h"
#include "store/segment/mapped_file.h"

namespace rocketstore {

enum class FlushDiskType {
  kAsyncFlush,  // ASYNC_FLUSH: a put returns once the record is in the page cache
  kSyncFlush,   // SYNC_FLUSH: a put (WAIT=true) returns once the record is on disk
};

// What an extra sink's factory gets (StoreOptions::extra_sinks). The references stay valid
// for the store's life.
struct SinkContext {
  FileSystem& fs;
  Clock& clock;
  const std::string& root_dir;  // the store directory; a sink keeps its files in its own
                                // subdirectory (not one named in store/layout.h)
};
using SinkFactory = std::function<Result<std::unique_ptr<DispatchSink>>(const SinkContext&)>;

// Called when the durable (flushed) commit-log offset advances: every byte below `durable`
// is on disk. Called one at a time with increasing offsets, on the thread that finished the
// flush (a flush service or, under SYNC_FLUSH, a producer leading a group commit). Must be
// short, must not block and must not put or flush (it would deadlock).
using DurabilityListener = std::function<void(PhysicalOffset durable)>;

struct StoreOptions {
  std::string root_dir = "./data";                             // storePathRootDir
  int64_t commit_log_segment_size = int64_t{1} << 30;          // mappedFileSizeCommitLog
  size_t max_message_body_bytes = 4 << 20;                     // maxMessageSize
  FlushDiskType flush_disk_type = FlushDiskType::kAsyncFlush;  // flushDiskType
  int64_t sync_flush_timeout_ms = 5000;                        // syncFlushTimeout
  // SYNC_FLUSH: how long the group commit sleeps with nothing to flush (every put that
  // waits for its flush wakes it). Tests set it long to prove that they do.
  int64_t group_commit_idle_ms = 10;
  // How SYNC_FLUSH makes data durable. fdatasync measured faster here (docs/durability.md).
  FlushMethod sync_flush_method = FlushMethod::kFdatasync;
  AsyncFlusher::Options async_flush;  // flushIntervalCommitLog etc.
  bool check_crc_on_recover = true;   // checkCRCOnRecover
  // mappedFileSizeConsumeQueue / 20: units per ConsumeQueue file.
  int64_t consume_queue_units_per_file = 300000;
  int64_t flush_consume_queue_interval_ms = 1000;            // flushIntervalConsumeQueue
  int flush_consume_queue_least_pages = 2;                   // flushConsumeQueueLeastPages
  int64_t flush_consume_queue_thorough_interval_ms = 60000;  // flushConsumeQueueThoroughInterval
  bool message_index_enable = true;                          // messageIndexEnable
  int32_t index_hash_slot_num = 5000000;                     // maxHashSlotNum
  int32_t index_num = 20000000;                              // maxIndexNum
  int64_t reserve_chunk_bytes = 16 << 20;
  // Bytes prepared ahead of the writer by the segment preparer. -1 = automatic (32 MiB).
  // Under ASYNC_FLUSH they are reserved and their pages faulted in. Under SYNC_FLUSH they
  // are only reserved: faulted-in pages would be dirty zeros for every fdatasync to write.
  int64_t prefault_window_bytes = -1;
  // The preparer runs when appends cross a prepare step (1 MiB, less for small segments)
  // and at least this often (a fallback; it also drops the page cache behind the writer).
  int64_t prepare_interval_ms = 1000;
  // SYNC_FLUSH only: the preparer writes zeros (and syncs them) a few MiB ahead of the
  // writer, so flushes land on written extents and need no metadata write. Costs a second
  // write of every segment; flushes measured ~1.5x faster here (docs/durability.md).
  bool sync_flush_zero_fill = true;
  // Page-cache memory of the commit log kept behind the writer. Flushed bytes further
  // behind are dropped from the page cache by the segment preparer, so that appending
  // reuses just-freed memory instead of touching fresh memory, which costs ~10x more on
  // VMs that hand freed memory back to the host (docs/benchmarks.md). Consumers reading
  // further behind read from disk. 0 = keep everything cached. -1 (the default) = the
  // part of the log RocketMQ itself counts as in memory: access_message_in_memory_max_ratio
  // percent of physical memory (see ResidentWindowBytes()).
  int64_t commit_log_resident_window_bytes = -1;  // rocketstore's commitLogResidentWindow
  int access_message_in_memory_max_ratio = 40;    // accessMessageInMemoryMaxRatio

  // How much of the newest log counts as in memory (RocketMQ: totalPhysicalMemorySize *
  // accessMessageInMemoryMaxRatio / 100): GetMessage's in-memory vs on-disk batch limits,
  // and the default resident window. 0 when the ratio is 0 or out of [0, 100].
  int64_t InMemoryBytes(uint64_t physical_memory_bytes) const {
    if (access_message_in_memory_max_ratio <= 0 || access_message_in_memory_max_ratio > 100) {
      return 0;
    }
    return static_cast<int64_t>(physical_memory_bytes / 100 *
                                static_cast<uint64_t>(access_message_in_memory_max_ratio));
  }

  // The window in effect: commit_log_resident_window_bytes, or for -1 InMemoryBytes.
  int64_t ResidentWindowBytes(uint64_t physical_memory_bytes) const {
    if (commit_log_resident_window_bytes >= 0) return commit_log_resident_window_bytes;
    return InMemoryBytes(physical_memory_bytes);
  }

  // Retention and disk safety (fileReservedTime, deleteWhen, diskMaxUsedSpaceRatio...).
  RetentionOptions retention;
  // How often the retention thread runs a round (RocketMQ's cleanResourceInterval); admin
  // requests (306, 329) wake it sooner.
  int64_t retention_interval_ms = 10000;
  // Where disk usage comes from (tests inject a fake); null = the file system's numbers.
  DiskUsageSource disk_usage;

  // --- seams for broker features (the store knows nothing of the features) ---
  // Extra dispatch sinks, after the built-in consume queues and index (which the store
  // registers itself), in this order. Open calls each factory once, after the store's own
  // files are open and before recovery; the store owns the sinks, drives their recovery,
  // dispatch and checkpoint flushes (store/dispatch/sink.h) and destroys them last. A
  // factory's error fails Open.
  std::vector<SinkFactory> extra_sinks;
  // The tags code written into each consume-queue unit; empty = RocketMQ's jhash(TAGS)
  // (DefaultTagsCode in store/dispatch/dispatcher.h). A delay queue sets the delivery time
  // for its topic here, as RocketMQ 4.x does for SCHEDULE_TOPIC_XXXX.
  TagsCodePolicy tags_code_policy;
  // Told on the dispatcher thread, in commit-log order, when a queue gets new messages
  // (long polling). Fixed before Open: there is no way to add one to a running store.
  std::vector<ArrivalListener> arrival_listeners;
  // Told when the durable commit-log offset advances (DurabilityListener above).
  std::vector<DurabilityListener> durability_listeners;

  // Tests drive the background steps themselves (RunFlushStep, RunPrepareStep) when false.
  bool start_background_services = true;
  // Crash-harness self-test only: acknowledge SYNC_FLUSH puts before flushing.
  bool unsafe_ack_before_flush_for_testing = false;
};

}  // namespace rocketstore
