#include "broker/stats/stats_sampler.h"

#include <utility>

namespace rocketstore::broker {
namespace {

constexpr int64_t kMinutePeriodMs = 10'000;
constexpr int64_t kHourPeriodMs = 10 * 60'000;
constexpr int64_t kDayPeriodMs = 60 * 60'000;
constexpr size_t kMinuteKeep = 7;
constexpr size_t kHourKeep = 7;
constexpr size_t kDayKeep = 25;
constexpr size_t kSecondsKeep = 601;

struct Reading {
  int64_t times = 0;
  int64_t value = 0;
};

}  // namespace

StatsSampler::StatsSampler(const BrokerStats& stats, std::string cluster_name)
    : stats_(stats), cluster_(std::move(cluster_name)) {}

void StatsSampler::Sample(std::deque<Call>& list, int64_t now_ms, int64_t period_ms, size_t keep,
                          int64_t times, int64_t value) {
  if (list.empty()) list.push_back(Call{now_ms - period_ms, 0, 0});
  list.push_back(Call{now_ms, times, value});
  while (list.size() > keep) list.pop_front();
}

StatsWindow StatsSampler::Compute(const std::deque<Call>& list) {
  StatsWindow w;
  if (list.empty()) return w;
  const Call& first = list.front();
  const Call& last = list.back();
  w.sum = last.value - first.value;
  const int64_t span = last.time_ms - first.time_ms;
  w.tps = span > 0 ? static_cast<double>(w.sum) * 1000.0 / static_cast<double>(span) : 0;
  w.times = last.times - first.times;
  if (w.times > 0) w.avgpt = static_cast<double>(w.sum) / static_cast<double>(w.times);
  return w;
}

void StatsSampler::RunOnce(int64_t now_ms) {
  const StatsSnapshot snap = stats_.Collect();

  std::map<std::pair<std::string, std::string>, Reading> readings;
  Reading broker_put, broker_get;
  uint64_t get_bytes = 0;
  for (const auto& [key, t] : snap.puts) {
    Reading& nums = readings[{"TOPIC_PUT_NUMS", key.first}];
    nums.times += static_cast<int64_t>(t.requests);
    nums.value += static_cast<int64_t>(t.messages);
    Reading& size = readings[{"TOPIC_PUT_SIZE", key.first}];
    size.times += static_cast<int64_t>(t.requests);
    size.value += static_cast<int64_t>(t.bytes);
    broker_put.times += static_cast<int64_t>(t.requests);
    broker_put.value += static_cast<int64_t>(t.messages);
  }
  for (const auto& [key, t] : snap.gets) {
    const std::string k = key.first + "@" + key.second;
    readings[{"GROUP_GET_NUMS", k}] = {static_cast<int64_t>(t.requests),
                                       static_cast<int64_t>(t.messages)};
    readings[{"GROUP_GET_SIZE", k}] = {static_cast<int64_t>(t.requests),
                                       static_cast<int64_t>(t.bytes)};
    broker_get.times += static_cast<int64_t>(t.requests);
    broker_get.value += static_cast<int64_t>(t.messages);
    get_bytes += t.bytes;
  }
  for (const auto& [key, t] : snap.get_latency) {
    // enableDetailStat (Java's default): queueId@topic@group.
    readings[{"GROUP_GET_LATENCY", std::to_string(std::get<2>(key)) + "@" + std::get<0>(key) + "@" +
                                       std::get<1>(key)}] = {static_cast<int64_t>(t.pulls),
                                                             static_cast<int64_t>(t.latency_ms)};
  }
  for (const auto& [key, t] : snap.retries) {
    readings[{"SNDBCK_PUT_NUMS", key.first + "@" + key.second}] = {
        static_cast<int64_t>(t.send_backs), static_cast<int64_t>(t.send_backs)};
  }
  if (broker_put.times > 0) readings[{"BROKER_PUT_NUMS", cluster_}] = broker_put;
  if (broker_get.times > 0) readings[{"BROKER_GET_NUMS", cluster_}] = broker_get;

  std::lock_guard<std::mutex> l(mu_);
  const bool first = !sampled_;
  sampled_ = true;
  const bool minute = first || now_ms - last_minute_sample_ >= kMinutePeriodMs;
  const bool hour = first || now_ms - last_hour_sample_ >= kHourPeriodMs;
  const bool day = first || now_ms - last_day_sample_ >= kDayPeriodMs;
  if (minute) last_minute_sample_ = now_ms;
  if (hour) last_hour_sample_ = now_ms;
  if (day) last_day_sample_ = now_ms;
  if (minute || hour || day) {
    for (const auto& [name_key, r] : readings) {
      Item& item = items_[name_key];
      if (minute) Sample(item.minute, now_ms, kMinutePeriodMs, kMinuteKeep, r.times, r.value);
      if (hour) Sample(item.hour, now_ms, kHourPeriodMs, kHourKeep, r.times, r.value);
      if (day) Sample(item.day, now_ms, kDayPeriodMs, kDayKeep, r.times, r.value);
    }
  }
  seconds_.push_back(Totals{now_ms, static_cast<uint64_t>(broker_put.value),
                            static_cast<uint64_t>(broker_get.value), get_bytes});
  while (seconds_.size() > kSecondsKeep) seconds_.pop_front();
}

std::optional<StatsView> StatsSampler::View(std::string_view stats_name,
                                            std::string_view stats_key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = items_.find({std::string(stats_name), std::string(stats_key)});
  if (it == items_.end()) return std::nullopt;
  return StatsView{Compute(it->second.minute), Compute(it->second.hour), Compute(it->second.day)};
}

double StatsSampler::Rate(int seconds, uint64_t Totals::*field) const {
  std::lock_guard<std::mutex> l(mu_);
  if (seconds_.size() < 2 || seconds <= 0) return 0;
  const Totals& last = seconds_.back();
  const size_t back = std::min<size_t>(static_cast<size_t>(seconds), seconds_.size() - 1);
  const Totals& prior = seconds_[seconds_.size() - 1 - back];
  const int64_t span = last.time_ms - prior.time_ms;
  if (span <= 0) return 0;
  return static_cast<double>(last.*field - prior.*field) * 1000.0 / static_cast<double>(span);
}

double StatsSampler::PutTps(int seconds) const { return Rate(seconds, &Totals::put_msgs); }
double StatsSampler::GetTps(int seconds) const { return Rate(seconds, &Totals::get_msgs); }
double StatsSampler::GetTransferredBytesPerSecond(int seconds) const {
  return Rate(seconds, &Totals::get_bytes);
}

uint64_t StatsSampler::PutMessagesTotal() const {
  std::lock_guard<std::mutex> l(mu_);
  return seconds_.empty() ? 0 : seconds_.back().put_msgs;
}

uint64_t StatsSampler::GetMessagesTotal() const {
  std::lock_guard<std::mutex> l(mu_);
  return seconds_.empty() ? 0 : seconds_.back().get_msgs;
}

}  // namespace rocketstore::broker
