// File: base/histogram.h
//
// AtomicHistogram: a fixed-bucket histogram any thread may record into without a lock
// (one relaxed fetch_add per bucket, count and sum). Meant for events counted at most a
// few thousand times a second (flushes, recoveries); hot per-message paths use per-thread
// cells instead (broker/stats/broker_stats.h).
//
// Buckets: `bounds` are inclusive upper bounds in ascending order; a value above the last
// one goes to the implicit +Inf bucket. Snapshot() returns per-bucket (not cumulative)
// counts, the +Inf bucket last.
//
// Thread-safety: Record and Snapshot from any thread; a snapshot taken during a Record may
// see the bucket but not yet the sum (each field is exact on its own).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rocketstore {

template <size_t N>
struct HistogramSnapshot {
  std::array<int64_t, N> bounds{};
  std::array<uint64_t, N + 1> counts{};  // per bucket; counts[N] is +Inf
  uint64_t count = 0;
  int64_t sum = 0;
};

template <size_t N>
class AtomicHistogram {
 public:
  explicit constexpr AtomicHistogram(const std::array<int64_t, N>& bounds) : bounds_(bounds) {}

  void Record(int64_t value) {
    size_t i = 0;
    while (i < N && value > bounds_[i]) ++i;
    counts_[i].fetch_add(1, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
  }

  HistogramSnapshot<N> Snapshot() const {
    HistogramSnapshot<N> s;
    s.bounds = bounds_;
    for (size_t i = 0; i <= N; ++i) s.counts[i] = counts_[i].load(std::memory_order_relaxed);
    s.count = count_.load(std::memory_order_relaxed);
    s.sum = sum_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  const std::array<int64_t, N> bounds_;
  std::array<std::atomic<uint64_t>, N + 1> counts_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<int64_t> sum_{0};
};

}  // namespace rocketstore
