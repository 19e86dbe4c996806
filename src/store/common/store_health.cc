#include "store/common/store_health.h"

#include "log/log.h"

namespace rocketstore {

void StoreHealth::Set(uint32_t bit, std::string why) {
  const int index = __builtin_ctz(bit);
  bool newly_set = false;
  std::string text;  // what the log line says, copied under the lock
  {
    std::lock_guard<std::mutex> l(mu_);
    const bool was_set = bits_.load(std::memory_order_relaxed) & bit;
    // The first I/O error is the root cause; later ones are consequences.
    if (!was_set || bit != kIoError) reasons_[index] = std::move(why);
    newly_set = !was_set;
    if (newly_set) text = reasons_[index];
    bits_.fetch_or(bit, std::memory_order_acq_rel);
  }
  if (!newly_set) return;
  const std::string_view word = kCauseWords[index];
  switch (bit) {
    case kIoError:
      RS_LOG_ERROR("store: not writable reason={} error=\"{}\"", word, text);
      break;
    case kShutdown:
      RS_LOG_INFO("store: not writable reason={} error=\"{}\"", word, text);
      break;
    default:
      RS_LOG_WARN("store: not writable reason={} error=\"{}\"", word, text);
      break;
  }
  if (bit == kIoError && io_error_listener_) io_error_listener_();
}

void StoreHealth::ClearDiskFull() {
  uint32_t before = 0;
  {
    std::lock_guard<std::mutex> l(mu_);  // orders the change against Set's was_set test
    before = bits_.fetch_and(~kDiskFull, std::memory_order_acq_rel);
  }
  if (!(before & kDiskFull)) return;
  const uint32_t now = before & ~kDiskFull;
  RS_LOG_INFO("store: disk full cleared writable={} reason={}", now == 0,
              now == 0 ? std::string_view() : kCauseWords[__builtin_ctz(now)]);
}

}  // namespace rocketstore
