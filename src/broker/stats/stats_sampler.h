// File: broker/stats/stats_sampler.h
//
// StatsSampler: turns BrokerStats' running totals into RocketMQ's windows — a step
// function (RunOnce(now_ms), driven every second by a ServiceRunner; tests call it with
// a fake clock).
//
// Per (stats name, stats key), as Java's StatsItem: a sample of (time, times, value)
// every 10 s kept for the last minute (7 samples), every 10 min for the last hour (7),
// every hour for the last day (25). A window's figures are Java's StatsSnapshot:
// sum = last.value - first.value, tps = sum * 1000 / (last.time - first.time),
// avgpt = sum / (last.times - first.times). A key's first sample is preceded by a
// synthetic (now - period, 0, 0), as Java's, so a key's first window counts from zero.
// This answers VIEW_BROKER_STATS_DATA (315).
//
// Stats names and keys (BrokerStatsManager's):
//   TOPIC_PUT_NUMS, TOPIC_PUT_SIZE                 key = topic
//   GROUP_GET_NUMS, GROUP_GET_SIZE, SNDBCK_PUT_NUMS key = topic@group
//   GROUP_GET_LATENCY                              key = queueId@topic@group (Java's key
//       with enableDetailStat, its default): times = pulls that returned messages, value
//       = their serving ms, so avgpt is the average serving time in ms
//   BROKER_PUT_NUMS, BROKER_GET_NUMS               key = the broker's cluster name
// Answered "not exist", as by Java 4.9.8's 315: GROUP_GET_FALL_SIZE and
// GROUP_GET_FALL_TIME (MomentStatsItemSets there, only logged, not in the table 315
// reads), GROUP_GET_FROM_DISK_* and BROKER_GET_FROM_DISK_* (registered, never counted).
// Not kept, unlike Java: QUEUE_PUT_NUMS / QUEUE_PUT_SIZE (topic@queueId; counted there
// for sends and the schedule topic's send-backs) and QUEUE_GET_NUMS / QUEUE_GET_SIZE
// (the delay-level deliveries), which no admin tool reads; 315 answers "not exist".
//
// Broker-wide rates (StoreStatsService's putTps / getTransferedTps over 10, 60 and 600
// seconds, GET_BROKER_RUNTIME_INFO 28): one sample per step kept for 601 s.
//
// Thread-safety: RunOnce from one thread (the runner); the readers from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "broker/stats/broker_stats.h"

namespace rocketstore::broker {

struct StatsWindow {
  int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;
  int64_t times = 0;
};

// BrokerStatsData's three windows.
struct StatsView {
  StatsWindow minute;
  StatsWindow hour;
  StatsWindow day;
};

class StatsSampler {
 public:
  StatsSampler(const BrokerStats& stats, std::string cluster_name);

  void RunOnce(int64_t now_ms);

  // The windows of one stats item; nullopt when the name is unknown or the key has never
  // been counted (Java answers "The stats <name> <key> not exist").
  std::optional<StatsView> View(std::string_view stats_name, std::string_view stats_key) const;

  // Broker-wide rates per second over the last `seconds` (10, 60, 600): messages put,
  // messages got, bytes got. 0 before two samples exist.
  double PutTps(int seconds) const;
  double GetTps(int seconds) const;
  double GetTransferredBytesPerSecond(int seconds) const;
  // Totals at the last step (what the broker put / got since start).
  uint64_t PutMessagesTotal() const;
  uint64_t GetMessagesTotal() const;

 private:
  struct Call {
    int64_t time_ms;
    int64_t times;
    int64_t value;
  };
  struct Item {
    std::deque<Call> minute, hour, day;
  };
  struct Totals {
    int64_t time_ms;
    uint64_t put_msgs, get_msgs, get_bytes;
  };

  static void Sample(std::deque<Call>& list, int64_t now_ms, int64_t period_ms, size_t keep,
                     int64_t times, int64_t value);
  static StatsWindow Compute(const std::deque<Call>& list);
  double Rate(int seconds, uint64_t Totals::*field) const;

  const BrokerStats& stats_;
  const std::string cluster_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Item> items_;  // (name, key) GUARDED_BY(mu_)
  std::deque<Totals> seconds_;                                 // GUARDED_BY(mu_)
  bool sampled_ = false;                                       // GUARDED_BY(mu_)
  int64_t last_minute_sample_ = 0;                             // GUARDED_BY(mu_)
  int64_t last_hour_sample_ = 0;                               // GUARDED_BY(mu_)
  int64_t last_day_sample_ = 0;                                // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
