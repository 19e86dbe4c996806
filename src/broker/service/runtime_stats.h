// File: broker/service/runtime_stats.h
//
// RuntimeStats: the statistics keys of GET_BROKER_RUNTIME_INFO (28), from BrokerStats
// and StatsSampler (broker/stats/):
//   msgPutTotalTodayNow / msgGetTotalTodayNow   messages put / got since start
//   msg{Put,Get}TotalTodayMorning, …YesterdayMorning   those totals at the last and the
//       one before last local midnight (Java's BrokerStats.record; 0 until one passed)
//   putTps, getTransferedTps   "<10 s> <60 s> <600 s>" messages per second put / got
//   getFoundTps, getTotalTps   pulls that returned messages per second (same windows)
//   getMissTps                 "0.0 0.0 0.0": pulls that found nothing are not counted
//   putMessageTimesTotal, putMessageSizeTotal, putMessageAverageSize  put requests,
//       bytes put, bytes per request (Java divides by 1 when nothing was put)
//   putMessageFailedTimes, putMessageEntireTimeMax, getMessageEntireTimeMax,
//   putLatency99, putLatency999, putMessageDistributeTime   rocketstore does not time
//       puts or count refused ones (yet): "0", "0.00" and the distribution with every
//       bucket 0 (docs/protocol.md says so)
//   dispatchMaxBuffer          "0" (never set in Java 4.9.8 either)
// RunOnce(now_ms) is the step of the broker's stats runner (after the sampler's), which
// rolls the midnight totals and samples the found-pull rate; tests drive it directly.
//
// Thread-safety: RunOnce from one thread, Fill from any. Ownership: `stats` and `sampler`
// must outlive it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "broker/stats/broker_stats.h"
#include "broker/stats/stats_sampler.h"

namespace rocketstore::broker {

class RuntimeStats {
 public:
  RuntimeStats(const BrokerStats& stats, const StatsSampler& sampler)
      : stats_(stats), sampler_(sampler) {}

  void RunOnce(int64_t now_ms);
  void Fill(std::map<std::string, std::string>& table) const;

 private:
  struct Sample {
    int64_t time_ms;
    uint64_t found_pulls;
  };
  double FoundRate(int seconds) const;  // REQUIRES: mu_ held

  const BrokerStats& stats_;
  const StatsSampler& sampler_;
  mutable std::mutex mu_;
  int64_t day_ = -1;                    // GUARDED_BY(mu_): local day of the last step
  uint64_t put_today_morning_ = 0;      // GUARDED_BY(mu_)
  uint64_t put_yesterday_morning_ = 0;  // GUARDED_BY(mu_)
  uint64_t get_today_morning_ = 0;      // GUARDED_BY(mu_)
  uint64_t get_yesterday_morning_ = 0;  // GUARDED_BY(mu_)
  uint64_t put_requests_ = 0;           // GUARDED_BY(mu_): at the last step
  uint64_t put_bytes_ = 0;              // GUARDED_BY(mu_)
  std::deque<Sample> samples_;          // GUARDED_BY(mu_): last 601 s
};

}  // namespace rocketstore::broker
