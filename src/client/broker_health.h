// File: client/broker_health.h
//
// Whether a broker takes writes, judged from the outside the same way for every broker of
// a cluster (rocketstore or Apache RocketMQ 4.9.8): from its GET_BROKER_RUNTIME_INFO (28)
// answer, its GET_BROKER_CONFIG (26) and the permission the name server routes it with.
// RocketMQ's own refusal conditions, each named with the setting it crosses:
//   * unreachable: 28 got no answer;
//   * slave: brokerRole SLAVE (or a broker id other than 0) — its store refuses puts;
//   * disk full: commitLogDiskRatio above diskSpaceWarningLevelRatio (26's key when the
//     broker has one, else 4.9.8's default 0.90) — the store refuses puts until space is
//     freed;
//   * read only: brokerPermission without the write bit — sends answer NO_PERMISSION;
//   * wiped: the name server routes the broker's own topic without the write bit
//     (WIPE_WRITE_PERM_OF_BROKER, 205) — producers are given no writable queue on it;
//   * busy: a put holding the commit-log lock longer than osPageCacheBusyTimeOutMills, or
//     the send queue's head waiting longer than waitTimeMillsInSendQueue — sends answer
//     SYSTEM_BUSY / SYSTEM_ERROR "broker busy" until it clears.
// A store stopped by an I/O error is not among them: 4.9.8's 28 has no field for its
// RunningFlags, so no tool can see it from outside (rocketstore's /metrics can:
// rocketstore_storage_writable).
// Used by `rocketstore cluster status` (HEALTH column) and the web console's Cluster screen
// (every broker, the console's own included), so both say the same of the same broker.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rocketstore::client {

struct TopicRoute;  // client/route.h

struct BrokerHealth {
  // "ok", "unreachable", "slave", "disk full", "read only", "wiped", "busy"; "ok" when
  // nothing says otherwise (see `reason` for what could not be asked).
  std::string state = "ok";
  bool writable = true;
  std::string reason;  // what crossed which setting, or what was not known; "" when ok
};

using StringMap = std::map<std::string, std::string>;

// runtime: the 28 table (its error when the broker did not answer); config: the 26
// properties (an error leaves permission and role unknown, noted in the reason);
// route_perm: the perm the name server routes the broker's own topic with (the topic named
// after the broker, perm 7 while brokerTopicEnable), -1 when unknown.
BrokerHealth AssessBrokerHealth(int64_t broker_id, const Result<StringMap>& runtime,
                                const Result<StringMap>& config, int route_perm);

// Whether the route of the broker's own topic says anything of its writes: a master
// (id 0) whose 26 has brokerTopicEnable=true (only then is that topic routed perm 7).
bool OwnTopicRouteApplies(int64_t broker_id, const StringMap& config);

// The perm `route` (the name server's answer for the topic named `broker_name`) gives
// that broker's queues; -1 when it lists none of them.
int OwnTopicRoutePerm(const TopicRoute& route, std::string_view broker_name);

}  // namespace rocketstore::client
