#include "broker/service/runtime_stats.h"

#include <ctime>

#include "broker/service/runtime_info_service.h"

namespace rocketstore::broker {

namespace {
int64_t LocalDay(int64_t now_ms) {
  const std::time_t t = static_cast<std::time_t>(now_ms / 1000);
  std::tm local{};
  localtime_r(&t, &local);
  return int64_t{local.tm_year} * 400 + local.tm_yday;
}
}  // namespace

void RuntimeStats::RunOnce(int64_t now_ms) {
  const StatsSnapshot snap = stats_.Collect();
  uint64_t found = 0, requests = 0, bytes = 0;
  for (const auto& [key, g] : snap.gets) found += g.requests;
  for (const auto& [key, p] : snap.puts) {
    requests += p.requests;
    bytes += p.bytes;
  }
  const uint64_t put_total = snap.TotalPutMessages();
  const uint64_t get_total = snap.TotalGetMessages();
  std::lock_guard l(mu_);
  const int64_t day = LocalDay(now_ms);
  if (day_ >= 0 && day != day_) {  // a midnight passed: Java's BrokerStats.record()
    put_yesterday_morning_ = put_today_morning_;
    get_yesterday_morning_ = get_today_morning_;
    put_today_morning_ = put_total;
    get_today_morning_ = get_total;
  }
  day_ = day;
  put_requests_ = requests;
  put_bytes_ = bytes;
  samples_.push_back({now_ms, found});
  while (samples_.size() > 1 && samples_.front().time_ms < now_ms - 601 * 1000) {
    samples_.pop_front();
  }
}

double RuntimeStats::FoundRate(int seconds) const {
  if (samples_.size() < 2) return 0;
  const Sample& last = samples_.back();
  const Sample* first = &samples_.front();
  for (const Sample& s : samples_) {
    if (s.time_ms >= last.time_ms - int64_t{seconds} * 1000) {
      first = &s;
      break;
    }
  }
  if (last.time_ms <= first->time_ms) return 0;
  return static_cast<double>(last.found_pulls - first->found_pulls) * 1000.0 /
         static_cast<double>(last.time_ms - first->time_ms);
}

void RuntimeStats::Fill(std::map<std::string, std::string>& t) const {
  auto d = RuntimeInfoService::JavaDouble;
  auto rates = [&d](auto fn) { return d(fn(10)) + " " + d(fn(60)) + " " + d(fn(600)); };
  t["putTps"] = rates([this](int s) { return sampler_.PutTps(s); });
  t["getTransferedTps"] = rates([this](int s) { return sampler_.GetTps(s); });
  std::lock_guard l(mu_);
  t["msgPutTotalTodayNow"] = std::to_string(sampler_.PutMessagesTotal());
  t["msgGetTotalTodayNow"] = std::to_string(sampler_.GetMessagesTotal());
  t["msgPutTotalTodayMorning"] = std::to_string(put_today_morning_);
  t["msgPutTotalYesterdayMorning"] = std::to_string(put_yesterday_morning_);
  t["msgGetTotalTodayMorning"] = std::to_string(get_today_morning_);
  t["msgGetTotalYesterdayMorning"] = std::to_string(get_yesterday_morning_);
  const std::string found = rates([this](int s) { return FoundRate(s); });
  t["getFoundTps"] = found;
  t["getTotalTps"] = found;
  t["getMissTps"] = "0.0 0.0 0.0";
  const uint64_t times = put_requests_ == 0 ? 1 : put_requests_;
  t["putMessageTimesTotal"] = std::to_string(times);
  t["putMessageSizeTotal"] = std::to_string(put_bytes_);
  t["putMessageAverageSize"] = d(static_cast<double>(put_bytes_) / static_cast<double>(times));
  t["putMessageFailedTimes"] = "0";
  t["putMessageEntireTimeMax"] = "0";
  t["getMessageEntireTimeMax"] = "0";
  t["putLatency99"] = "0.00";
  t["putLatency999"] = "0.00";
  t["putMessageDistributeTime"] =
      "[<=0ms]:0 [0~10ms]:0 [10~50ms]:0 [50~100ms]:0 [100~200ms]:0 [200~500ms]:0 "
      "[500ms~1s]:0 [1~2s]:0 [2~3s]:0 [3~4s]:0 [4~5s]:0 [5~10s]:0 [10s~]:0 ";
  t["dispatchMaxBuffer"] = "0";
}

}  // namespace rocketstore::broker
