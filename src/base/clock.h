// File: base/clock.h
//
// Injectable time. Everything in the store that reads the time takes a Clock&, so tests
// drive background services with a FakeClock and never sleep.
//   NowMillis()      wall clock, ms since the Unix epoch (store timestamps, file names).
//   MonotonicNanos() steady clock for intervals and deadlines.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace rocketstore {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMillis() const = 0;
  virtual int64_t MonotonicNanos() const = 0;

  // The process-wide real clock. Never destroyed.
  static Clock& Real();
};

class SystemClock final : public Clock {
 public:
  int64_t NowMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t MonotonicNanos() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

inline Clock& Clock::Real() {
  static SystemClock* clock = new SystemClock();
  return *clock;
}

// A clock that moves only when told. Wall and monotonic time advance together.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_millis = 1700000000000) : millis_(start_millis) {}
  int64_t NowMillis() const override { return millis_.load(std::memory_order_relaxed); }
  int64_t MonotonicNanos() const override {
    return millis_.load(std::memory_order_relaxed) * 1000000;
  }
  void AdvanceMillis(int64_t ms) { millis_.fetch_add(ms, std::memory_order_relaxed); }
  void SetMillis(int64_t ms) { millis_.store(ms, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> millis_;
};

}  // namespace rocketstore
