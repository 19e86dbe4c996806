#include "store/flush/async_flusher.h"

#include <algorithm>
#include <chrono>

namespace rocketstore {

Result<PhysicalOffset> AsyncFlusher::DoFlush() {
  if (!sticky_error_.ok()) return sticky_error_;
  const int64_t before = segments_.FlushedOffset().value();
  const auto t0 = std::chrono::steady_clock::now();
  Result<PhysicalOffset> r = segments_.Flush(options_.method);
  if (metrics_ != nullptr && r.ok()) {
    const auto took = std::chrono::steady_clock::now() - t0;
    metrics_->flush_micros.Record(
        std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    metrics_->flush_bytes.Record(std::max<int64_t>(0, r->value() - before));
  }
  if (!r.ok()) {
    sticky_error_ = r.status().WithContext(
        "commit log flush failed; the store stops "
        "accepting writes until restarted");
    health_.SetFatalIoError(sticky_error_);
    return sticky_error_;
  }
  return r;
}

Result<PhysicalOffset> AsyncFlusher::RunOnce(int64_t now_ms) {
  int least_pages = options_.least_pages;
  if (now_ms - last_thorough_ms_ >= options_.thorough_interval_ms) {
    last_thorough_ms_ = now_ms;
    least_pages = 0;
  }
  if (!sticky_error_.ok()) return sticky_error_;
  if (!segments_.HasDirtyPages(least_pages)) return segments_.FlushedOffset();
  return DoFlush();
}

Result<PhysicalOffset> AsyncFlusher::FlushAll() { return DoFlush(); }

}  // namespace rocketstore
