// File: store/common/store_metrics.h
//
// StoreMetrics: what the store measures about its own work, for the broker's Prometheus
// exporter (docs/observability.md, "Store metrics"):
//   flush_micros     time of each commit-log flush (msync / fdatasync), µs — both the
//                    ASYNC_FLUSH flusher and SYNC_FLUSH's group commit
//   flush_bytes      bytes each flush made durable
//   group_commit_batch  producers (blocking and callback waiters) one group-commit flush
//                    released: how well SYNC_FLUSH batches
//   recovery_nanos   how long the last Open() spent recovering (commit log, queues, index)
// Owned by the MessageStore; the flushers get a pointer (null: not measured).
//
// Thread-safety: any thread (AtomicHistogram, relaxed atomics). No lock, no allocation.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "base/histogram.h"

namespace rocketstore {

// µs: 100 µs .. 1 s.
inline constexpr std::array<int64_t, 10> kFlushMicrosBuckets = {
    100, 250, 500, 1000, 2500, 5000, 10000, 50000, 250000, 1000000};
// Bytes per flush: 4 KiB .. 64 MiB.
inline constexpr std::array<int64_t, 8> kFlushBytesBuckets = {4096,    16384,   65536,    262144,
                                                              1048576, 4194304, 16777216, 67108864};
// Producers per group-commit flush.
inline constexpr std::array<int64_t, 9> kGroupCommitBatchBuckets = {1,  2,  4,   8,  16,
                                                                    32, 64, 128, 256};

struct StoreMetrics {
  AtomicHistogram<kFlushMicrosBuckets.size()> flush_micros{kFlushMicrosBuckets};
  AtomicHistogram<kFlushBytesBuckets.size()> flush_bytes{kFlushBytesBuckets};
  AtomicHistogram<kGroupCommitBatchBuckets.size()> group_commit_batch{kGroupCommitBatchBuckets};
  std::atomic<int64_t> recovery_nanos{0};
};

}  // namespace rocketstore
