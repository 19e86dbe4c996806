#include "broker/service/runtime_info_service.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "broker/system_topics.h"
#include "store/layout/layout.h"

namespace rocketstore::broker {

std::string RuntimeInfoService::HumanReadableBytes(int64_t bytes) {
  constexpr int kUnit = 1024;
  if (bytes < kUnit) return std::to_string(bytes) + " B";
  const int exp = static_cast<int>(std::log(static_cast<double>(bytes)) / std::log(kUnit));
  const char pre = "KMGTPE"[exp - 1];
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f %ciB", static_cast<double>(bytes) / std::pow(kUnit, exp),
                pre);
  return buf;
}

std::string RuntimeInfoService::JavaDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const double a = std::fabs(v);
  if (v == 0 || (a >= 1e-3 && a < 1e7)) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    std::string s(buf, end);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  }
  // Java: "1.0E-5", "1.2345E7".
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, end);
  const size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  std::string exp = s.substr(e + 1);
  if (mant.find('.') == std::string::npos) mant += ".0";
  const bool neg = !exp.empty() && exp[0] == '-';
  size_t i = (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) ? 1 : 0;
  while (i + 1 < exp.size() && exp[i] == '0') ++i;
  return mant + "E" + (neg ? "-" : "") + exp.substr(i);
}

std::string RuntimeInfoService::FormatRuntime(int64_t elapsed_ms) {
  const int64_t s = std::max<int64_t>(0, elapsed_ms) / 1000;
  return "[ " + std::to_string(s / 86400) + " days, " + std::to_string(s % 86400 / 3600) +
         " hours, " + std::to_string(s % 3600 / 60) + " minutes, " + std::to_string(s % 60) +
         " seconds ]";
}

RuntimeInfoService::Table RuntimeInfoService::Collect() const {
  Table t;
  MessageStore& store = *s_.store;
  const int64_t now = s_.clock->NowMillis();
  // Version (MQVersion.CURRENT_VERSION: V4_9_8 = 409, what the clients send).
  t["brokerVersionDesc"] = "V4_9_8";
  t["brokerVersion"] = "409";
  t["bootTimestamp"] = std::to_string(s_.boot_ms);
  t["runtime"] = FormatRuntime(now - s_.boot_ms);
  // The commit log.
  t["commitLogMinOffset"] = std::to_string(store.MinPhysicalOffset().value());
  t["commitLogMaxOffset"] = std::to_string(store.MaxPhysicalOffset().value());
  t["dispatchBehindBytes"] = std::to_string(store.DispatchBehindBytes());
  const int64_t in_lock = store.begin_time_in_lock();
  t["pageCacheLockTimeMills"] =
      std::to_string(in_lock == 0 ? 0 : std::max<int64_t>(0, now - in_lock));
  t["remainHowManyDataToFlush"] = HumanReadableBytes(std::max<int64_t>(
      0, store.MaxPhysicalOffset().value() - store.FlushedPhysicalOffset().value()));
  // No transient store pool (its buffers are Integer.MAX_VALUE when the pool is off).
  t["remainTransientStoreBufferNumbs"] = std::to_string(INT32_MAX);
  auto earliest = store.GetEarliestMessageTime();
  t["earliestMessageTimeStamp"] = std::to_string(earliest.ok() ? *earliest : -1);
  // startAcceptSendRequestTimeStamp: a broker config rocketstore does not have; 0 is
  // Java's default (sends accepted from the start).
  t["startAcceptSendRequestTimeStamp"] = "0";
  // Disks: used ratios of the commit-log and consume-queue paths, the root's capacity.
  // RocketMQ's getDiskPartitionSpaceUsedPercent: (total - free) / total, rounded up to a
  // whole percent (as the store's retention computes it).
  auto usage = [this](const std::string& path) -> Result<double> {
    RS_ASSIGN_OR_RETURN(DiskUsage du, s_.fs->GetDiskUsage(path));
    if (du.total_bytes == 0) return -1.0;
    const uint64_t used = du.total_bytes - std::min(du.free_bytes, du.total_bytes);
    return std::ceil(static_cast<double>(used) * 100.0 / static_cast<double>(du.total_bytes)) /
           100.0;
  };
  const std::string log_dir = layout::CommitLogDir(s_.root_dir);
  auto log_ratio = usage(log_dir);
  const std::string log_ratio_text = JavaDouble(log_ratio.ok() ? *log_ratio : -1.0);
  t["commitLogDiskRatio"] = log_ratio_text;
  t["commitLogDiskRatio_" + log_dir] = log_ratio_text;
  auto cq_ratio = usage(layout::ConsumeQueueRootDir(s_.root_dir));
  t["consumeQueueDiskRatio"] = JavaDouble(cq_ratio.ok() ? *cq_ratio : -1.0);
  if (auto du = s_.fs->GetDiskUsage(s_.root_dir); du.ok()) {
    t["commitLogDirCapacity"] =
        "Total : " + HumanReadableBytes(static_cast<int64_t>(du->total_bytes)) +
        ", Free : " + HumanReadableBytes(static_cast<int64_t>(du->free_bytes)) + ".";
  }
  // Delay levels: "<delivered offset>,<max offset>" per level with progress.
  if (s_.delay_offsets != nullptr) {
    for (const auto& [level, offset] : s_.delay_offsets->All()) {
      t["scheduleMessageOffset_" + std::to_string(level)] =
          std::to_string(offset) + "," +
          std::to_string(store.GetMaxOffsetInQueue(kScheduleTopic, level - 1).value());
    }
  }
  // Request queues: rocketstore runs requests on the io threads, with no queue in front
  // of them, so there is never a backlog nor a wait; Java's capacity keys name a queue
  // that does not exist here: 0.
  for (const char* pool : {"send", "pull", "query"}) {
    const std::string p = std::string(pool) + "ThreadPoolQueue";
    t[p + "Size"] = "0";
    t[p + "Capacity"] = "0";
    t[p + "HeadWaitTimeMills"] = "0";
  }
  t["EndTransactionQueueSize"] = "0";
  t["EndTransactionThreadPoolQueueCapacity"] = "0";
  if (s_.stats) s_.stats(t);
  return t;
}

}  // namespace rocketstore::broker
