// File: console/rate_sampler.h
//
// RateSampler: the web console's numbers over time. A step function (RunOnce(now_ms))
// reads a set of named readings from a Source, and keeps per name a ring of the last
// `capacity` samples: for a counter (a total that only grows, e.g. a topic's summed max
// queue offsets) the rate per second since the previous step; for a gauge (e.g. a
// group's lag) the value itself. A name that the source no longer reports is dropped,
// and at most `max_series` names are kept (the rest counted in dropped_series()), so
// many topics x groups cannot grow memory without bound. Production drives RunOnce
// with a ServiceRunner (every second); tests call it with a FakeClock's time.
//
// Thread-safety: RunOnce from one thread at a time; readers from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rocketstore::console {

struct Reading {
  enum class Kind { kCounter, kGauge };
  int64_t value = 0;
  Kind kind = Kind::kGauge;
};

struct Sample {
  int64_t time_ms = 0;
  double value = 0;
};

class RateSampler {
 public:
  using Source = std::function<std::map<std::string, Reading>()>;
  RateSampler(Source source, size_t capacity = 120, size_t max_series = 2000);

  void RunOnce(int64_t now_ms);

  // Oldest first; empty for an unknown name.
  std::vector<Sample> Series(const std::string& name) const;
  // The newest sample's value (0 when there is none yet).
  double Latest(const std::string& name) const;
  size_t dropped_series() const;

 private:
  struct Entry {
    Reading::Kind kind = Reading::Kind::kGauge;
    int64_t last_value = 0;
    int64_t last_ms = 0;
    std::vector<Sample> ring;  // capacity_ slots once full
    size_t next = 0;           // slot of the next sample once the ring is full
  };
  void Push(Entry& e, Sample s) const;

  const Source source_;
  const size_t capacity_;
  const size_t max_series_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> series_;  // GUARDED_BY(mu_)
  size_t dropped_ = 0;                   // GUARDED_BY(mu_)
};

}  // namespace rocketstore::console
