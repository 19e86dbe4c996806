// File: store/flush/async_flusher.h
//
// AsyncFlusher: ASYNC_FLUSH, RocketMQ's FlushRealTimeService as a step function.
// A put returns once its record is in the mapped segment (page cache); this service makes
// the data durable in the background:
//   * every `interval_ms` (500 ms) it flushes if at least `least_pages` (4) pages of 4 KiB
//     are dirty (or a whole segment filled up);
//   * every `thorough_interval_ms` (10 s) it flushes whatever is dirty, even one byte;
//   * FlushAll() (shutdown) flushes everything.
// So under ASYNC_FLUSH a power loss can cost up to ~10 s (or 16 KiB + 500 ms under load)
// of acknowledged messages; a process crash costs nothing (the page cache survives).
//
// A failed msync/fdatasync is sticky: the store's health turns not-writable with the
// cause, every later put answers SERVICE_NOT_AVAILABLE, and RunOnce keeps returning the
// error. It never retries and then reports success (the kernel may have dropped the pages).
//
// Driving: production wraps RunOnce in a ServiceRunner (base/service_runner.h) ticking
// every interval; tests call RunOnce(now) with a fake time.
// Thread-safety: RunOnce/FlushAll from one driver thread at a time.
// Ownership: `segments` and `health` must outlive the flusher.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "store/common/store_health.h"
#include "store/common/store_metrics.h"
#include "store/segment/mapped_file_queue.h"

namespace rocketstore {

class AsyncFlusher {
 public:
  struct Options {
    int64_t interval_ms = 500;             // flushIntervalCommitLog
    int least_pages = 4;                   // flushCommitLogLeastPages
    int64_t thorough_interval_ms = 10000;  // flushCommitLogThoroughInterval
    FlushMethod method = FlushMethod::kMsync;
  };

  AsyncFlusher(MappedFileQueue& segments, StoreHealth& health, const Options& options)
      : segments_(segments), health_(health), options_(options) {}

  const Options& options() const { return options_; }
  // Where each flush's latency and bytes are recorded (optional; set before use).
  void SetMetrics(StoreMetrics* metrics) { metrics_ = metrics; }

  // One round at time `now_ms`. Returns the flushed offset after the round, or the
  // (sticky) flush error.
  Result<PhysicalOffset> RunOnce(int64_t now_ms);

  // Flushes every written byte (shutdown, or a manual flush).
  Result<PhysicalOffset> FlushAll();

 private:
  Result<PhysicalOffset> DoFlush();

  MappedFileQueue& segments_;
  StoreHealth& health_;
  const Options options_;
  StoreMetrics* metrics_ = nullptr;
  int64_t last_thorough_ms_ = 0;  // as RocketMQ: the first round is thorough
  Status sticky_error_;
};

}  // namespace rocketstore
