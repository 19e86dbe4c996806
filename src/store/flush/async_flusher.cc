#include "store/flush/async_flusher.h"

namespace rocketstore {

Result<PhysicalOffset> AsyncFlusher::DoFlush() {
  if (!sticky_error_.ok()) return sticky_error_;
  Result<PhysicalOffset> r = segments_.Flush(options_.method);
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
