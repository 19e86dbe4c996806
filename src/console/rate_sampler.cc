#include "console/rate_sampler.h"

#include <utility>

namespace rocketstore::console {

RateSampler::RateSampler(Source source, size_t capacity, size_t max_series)
    : source_(std::move(source)),
      capacity_(capacity == 0 ? 1 : capacity),
      max_series_(max_series) {}

void RateSampler::Push(Entry& e, Sample s) const {
  if (e.ring.size() < capacity_) {
    e.ring.push_back(s);
    return;
  }
  e.ring[e.next] = s;
  e.next = (e.next + 1) % capacity_;
}

void RateSampler::RunOnce(int64_t now_ms) {
  std::map<std::string, Reading> readings = source_();  // outside the lock: it reads the broker
  std::lock_guard lock(mu_);
  for (auto it = series_.begin(); it != series_.end();) {
    it = readings.count(it->first) ? std::next(it) : series_.erase(it);
  }
  size_t dropped = 0;
  for (const auto& [name, r] : readings) {
    auto it = series_.find(name);
    if (it == series_.end()) {
      if (series_.size() >= max_series_) {
        ++dropped;
        continue;
      }
      Entry e;
      e.kind = r.kind;
      e.last_value = r.value;
      e.last_ms = now_ms;
      // A counter's first reading has no rate yet; a gauge is a sample at once.
      if (r.kind == Reading::Kind::kGauge) Push(e, {now_ms, static_cast<double>(r.value)});
      series_.emplace(name, std::move(e));
      continue;
    }
    Entry& e = it->second;
    if (e.kind == Reading::Kind::kGauge || r.kind == Reading::Kind::kGauge) {
      e.kind = r.kind;
      Push(e, {now_ms, static_cast<double>(r.value)});
    } else if (now_ms > e.last_ms) {
      // A counter that went down (a topic deleted and re-created) restarts at 0/s.
      const int64_t delta = r.value >= e.last_value ? r.value - e.last_value : 0;
      Push(e,
           {now_ms, static_cast<double>(delta) * 1000.0 / static_cast<double>(now_ms - e.last_ms)});
    }
    e.last_value = r.value;
    e.last_ms = now_ms;
  }
  dropped_ = dropped;
}

std::vector<Sample> RateSampler::Series(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(name);
  if (it == series_.end()) return {};
  const Entry& e = it->second;
  std::vector<Sample> out;
  out.reserve(e.ring.size());
  for (size_t i = 0; i < e.ring.size(); ++i) out.push_back(e.ring[(e.next + i) % e.ring.size()]);
  return out;
}

double RateSampler::Latest(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(name);
  if (it == series_.end() || it->second.ring.empty()) return 0;
  const Entry& e = it->second;
  return e.ring[(e.next + e.ring.size() - 1) % e.ring.size()].value;
}

size_t RateSampler::dropped_series() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace rocketstore::console
