#include "client/broker_health.h"

#include <fmt/format.h>

#include <cstdlib>

#include "client/route.h"

namespace rocketstore::client {

namespace {

// RocketMQ 4.9.8's defaults, for a broker whose 26 does not say.
constexpr double kDefaultDiskWarningPercent = 90;  // rocketmq.broker.diskSpaceWarningLevelRatio
constexpr int64_t kDefaultPageCacheBusyMs = 1000;  // osPageCacheBusyTimeOutMills
constexpr int64_t kDefaultSendQueueWaitMs = 200;   // waitTimeMillsInSendQueue

// A number the whole text is, or nothing.
bool ParseDouble(const StringMap& m, const char* key, double* out) {
  auto it = m.find(key);
  if (it == m.end() || it->second.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

int64_t IntOr(const StringMap& m, const char* key, int64_t dflt) {
  double v = 0;
  return ParseDouble(m, key, &v) ? static_cast<int64_t>(v) : dflt;
}

BrokerHealth Bad(const char* state, std::string reason) {
  return BrokerHealth{state, false, std::move(reason)};
}

}  // namespace

BrokerHealth AssessBrokerHealth(int64_t broker_id, const Result<StringMap>& runtime,
                                const Result<StringMap>& config, int route_perm) {
  if (!runtime.ok()) {
    return Bad("unreachable",
               "GET_BROKER_RUNTIME_INFO (28) got no answer: " + runtime.status().message());
  }
  const StringMap& rt = *runtime;
  static const StringMap kNone;
  const StringMap& conf = config.ok() ? *config : kNone;

  auto role = conf.find("brokerRole");
  if ((role != conf.end() && role->second == "SLAVE") || broker_id != 0) {
    return Bad("slave", "a slave (broker id " + std::to_string(broker_id) +
                            (role != conf.end() ? ", brokerRole " + role->second : std::string()) +
                            "): its store refuses puts; producers write to the master (id 0)");
  }

  double used = 0;
  if (ParseDouble(rt, "commitLogDiskRatio", &used) && used >= 0) {
    double warn = kDefaultDiskWarningPercent;
    const bool configured = ParseDouble(conf, "diskSpaceWarningLevelRatio", &warn);
    if (used > warn / 100.0) {
      return Bad("disk full",
                 fmt::format("commit-log disk {:.0f}% used > diskSpaceWarningLevelRatio {:.0f}%{}: "
                             "the store refuses puts until retention frees space",
                             used * 100.0, warn,
                             configured ? "" : " (RocketMQ's default; the broker does not say)"));
    }
  }

  auto perm = conf.find("brokerPermission");
  if (perm != conf.end()) {
    const int64_t p = IntOr(conf, "brokerPermission", 6);
    if ((p & kPermWrite) == 0) {
      return Bad("read only", "brokerPermission " + perm->second +
                                  " has no write bit (2): sends are answered NO_PERMISSION");
    }
  }

  if (route_perm >= 0 && (route_perm & kPermWrite) == 0) {
    return Bad("wiped", "the name server routes it without write permission (perm " +
                            std::to_string(route_perm) +
                            ", after WIPE_WRITE_PERM_OF_BROKER 205): producers get no writable "
                            "queue on it; ADD_WRITE_PERM_OF_BROKER (327) gives it back");
  }

  const int64_t lock_ms = IntOr(rt, "pageCacheLockTimeMills", 0);
  const int64_t lock_limit = IntOr(conf, "osPageCacheBusyTimeOutMills", kDefaultPageCacheBusyMs);
  if (lock_ms > lock_limit) {
    return Bad("busy", fmt::format("a put has held the commit-log lock for {} ms > "
                                   "osPageCacheBusyTimeOutMills {}: sends are answered "
                                   "'broker busy' until it finishes",
                                   lock_ms, lock_limit));
  }
  const int64_t wait_ms = IntOr(rt, "sendThreadPoolQueueHeadWaitTimeMills", 0);
  const int64_t wait_limit = IntOr(conf, "waitTimeMillsInSendQueue", kDefaultSendQueueWaitMs);
  if (wait_ms > 0 && wait_ms >= wait_limit) {
    return Bad("busy", fmt::format("the oldest queued send has waited {} ms >= "
                                   "waitTimeMillsInSendQueue {}: queued sends are answered "
                                   "SYSTEM_BUSY",
                                   wait_ms, wait_limit));
  }

  BrokerHealth ok;
  if (!config.ok()) {
    ok.reason = "brokerPermission and brokerRole not known: GET_BROKER_CONFIG (26) failed: " +
                config.status().message();
  }
  return ok;
}

bool OwnTopicRouteApplies(int64_t broker_id, const StringMap& config) {
  auto bte = config.find("brokerTopicEnable");
  return broker_id == 0 && bte != config.end() && bte->second == "true";
}

int OwnTopicRoutePerm(const TopicRoute& route, std::string_view broker_name) {
  int perm = -1;
  for (const QueueData& q : route.queue_datas) {
    if (q.broker_name == broker_name) perm = q.perm;
  }
  return perm;
}

}  // namespace rocketstore::client
