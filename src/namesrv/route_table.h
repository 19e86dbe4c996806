// File: namesrv/route_table.h
//
// RouteTable: the name server's state (remoting-protocol.md §A.6), pure and clock-injected.
//
//   cluster → broker names; broker name → {cluster, id → address};
//   topic → (broker name → QueueData); broker address → liveness (last update, timeout,
//   owning connection id).
//
// Register applies a broker's topic table only on its first registration or when the
// data version changed. Unregister/Expire remove an address; a broker name left with no
// address loses its queue data everywhere. ScanInactive(now) drops brokers silent for
// longer than their heartbeat timeout (120 s default); OnConnectionClosed drops the
// brokers registered over that connection.
//
// JSON output (route, cluster info) is standard JSON with quoted brokerId keys ("0").
// Thread-safety: internally locked.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"

namespace rocketstore::namesrv {

struct QueueData {
  std::string broker_name;
  int32_t read_queue_nums = 0;
  int32_t write_queue_nums = 0;
  int32_t perm = 6;
  int32_t topic_sys_flag = 0;
};

struct BrokerRegistration {
  std::string cluster_name;
  std::string broker_name;
  std::string broker_addr;
  int64_t broker_id = 0;
  int64_t heartbeat_timeout_ms = 120000;
  uint64_t connection_id = 0;
  std::string data_version;                 // compared as text
  std::map<std::string, QueueData> topics;  // topic → its queue data on this broker
};

class RouteTable {
 public:
  void Register(const BrokerRegistration& reg, int64_t now_ms);
  void Unregister(const std::string& cluster, const std::string& broker_name,
                  const std::string& broker_addr, int64_t broker_id);
  // Drops brokers whose last registration is older than their timeout; returns how many.
  int ScanInactive(int64_t now_ms);
  int OnConnectionClosed(uint64_t connection_id);

  // TopicRouteData JSON, or nullopt when the topic has no live route.
  std::optional<std::string> RouteJson(const std::string& topic) const;
  std::string ClusterInfoJson() const;
  size_t broker_count() const;

 private:
  struct BrokerData {
    std::string cluster;
    std::map<int64_t, std::string> addrs;
  };
  struct Live {
    std::string cluster, broker_name;
    int64_t broker_id = 0;
    int64_t last_update_ms = 0;
    int64_t timeout_ms = 120000;
    uint64_t connection_id = 0;
    std::string data_version;
  };
  void RemoveAddrLocked(const std::string& addr);

  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> clusters_;
  std::map<std::string, BrokerData> brokers_;
  std::map<std::string, std::map<std::string, QueueData>> topics_;  // topic → broker → q
  std::map<std::string, Live> live_;                                // addr → liveness
};

// Parses a REGISTER_BROKER JSON body (RegisterBrokerBody) into reg.topics and
// reg.data_version. Accepts fastjson's unquoted integer keys.
Status ParseRegisterBody(std::string_view body, BrokerRegistration& reg);

}  // namespace rocketstore::namesrv
