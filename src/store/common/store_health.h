// File: store/common/store_health.h
//
// StoreHealth: whether the store may accept writes, and if not, why. RocketMQ's
// RunningFlags, made sticky and explained:
//   * A failed fsync/msync or a failed write is sticky: the store stops acknowledging
//     writes for good (until restart + recovery), because the page cache may have lost
//     the data the kernel failed to write (fsyncgate). Never retry-then-acknowledge.
//   * A full disk (DISK_FULL) is not sticky: retention clears it once space is freed.
//   * Shutdown is terminal.
// Every put checks Writable() first and answers SERVICE_NOT_AVAILABLE with Reason().
//
// Logging: each change is one log line, written once by the thread that makes it (outside
// the lock): a cause newly set logs `store: not writable reason=<Cause word>
// error="<full text>"` (io_error at error level, disk_full and read_only at warn,
// shut_down at info: a stop the operator asked for); setting a cause that is already set
// logs nothing (retention re-asserts DISK_FULL every round; only the first I/O error is
// kept); clearing DISK_FULL logs `store: disk full cleared` at info.
//
// Thread-safety: all methods may be called from any thread (SetIoErrorListener before
// any of them).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rocketstore {

class StoreHealth {
 public:
  bool Writable() const { return bits_.load(std::memory_order_acquire) == 0; }
  bool ShuttingDown() const { return bits_.load(std::memory_order_acquire) & kShutdown; }

  // Sticky: an I/O error on the write or flush path. Keeps the first cause.
  void SetFatalIoError(const Status& cause) { Set(kIoError, cause.ToString()); }
  // Called once, on the thread that reports the first I/O error, without the lock held.
  void SetIoErrorListener(std::function<void()> listener) {
    io_error_listener_ = std::move(listener);
  }
  void SetShutdown() { Set(kShutdown, "the store is shut down"); }
  void SetDiskFull(std::string why) { Set(kDiskFull, std::move(why)); }
  void ClearDiskFull();
  void SetReadOnly(std::string why) { Set(kReadOnly, std::move(why)); }  // e.g. slave role

  // Why the store does not accept writes ("" when it does); the most serious cause.
  std::string Reason() const {
    const uint32_t bits = bits_.load(std::memory_order_acquire);
    std::lock_guard<std::mutex> l(mu_);
    for (int i = 0; i < kCauses; ++i) {
      if (bits & (1u << i)) return reasons_[i];
    }
    return "";
  }

  // The most serious cause as one word of a fixed set — "" (writable), "io_error",
  // "shut_down", "disk_full", "read_only" — for labels, where free text would make a new
  // time series for every distinct message.
  std::string_view Cause() const {
    const uint32_t bits = bits_.load(std::memory_order_acquire);
    return bits == 0 ? std::string_view() : kCauseWords[__builtin_ctz(bits)];
  }

 private:
  // In order of seriousness; the index is the bit number.
  enum : uint32_t { kIoError = 1, kShutdown = 2, kDiskFull = 4, kReadOnly = 8 };
  static constexpr int kCauses = 4;
  static constexpr std::string_view kCauseWords[kCauses] = {"io_error", "shut_down", "disk_full",
                                                            "read_only"};

  void Set(uint32_t bit, std::string why);

  std::atomic<uint32_t> bits_{0};
  std::function<void()> io_error_listener_;
  mutable std::mutex mu_;
  std::string reasons_[kCauses];  // GUARDED_BY(mu_)
};

}  // namespace rocketstore
