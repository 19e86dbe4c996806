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
// The admin views (topic lists, write-permission changes, topic deletion, data-version
// queries) follow 4.9.8's RouteInfoManager; see docs/protocol.md "Name server admin codes".
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

// DataVersion of a broker's topic table: equal when both fields are.
struct DataVersion {
  int64_t counter = 0;
  int64_t timestamp = 0;
  bool operator==(const DataVersion&) const = default;
  std::string ToJson() const;  // {"counter":N,"timestamp":N}, as fastjson writes it
};

// A DataVersion JSON object (fastjson's shape; missing members are 0).
Result<DataVersion> ParseDataVersion(std::string_view json);

// A TopicList body: {"brokerAddr":"..","topicList":[..]} (brokerAddr only when set).
struct TopicList {
  std::set<std::string> topics;
  std::optional<std::string> broker_addr;
  std::string ToJson() const;
};

// What a registering broker is told (Java's RegisterBrokerResult): a slave gets its
// master's address and HA address when the master is registered.
struct RegisterResult {
  std::optional<std::string> master_addr;
  std::optional<std::string> ha_server_addr;
};

struct BrokerRegistration {
  std::string cluster_name;
  std::string broker_name;
  std::string broker_addr;
  std::string ha_server_addr;
  int64_t broker_id = 0;
  int64_t heartbeat_timeout_ms = 120000;
  uint64_t connection_id = 0;
  DataVersion data_version;
  std::map<std::string, QueueData> topics;  // topic → its queue data on this broker
  std::vector<std::string> filter_servers;  // RegisterBrokerBody.filterServerList
};

class RouteTable {
 public:
  RegisterResult Register(const BrokerRegistration& reg, int64_t now_ms);
  void Unregister(const std::string& cluster, const std::string& broker_name,
                  const std::string& broker_addr, int64_t broker_id);
  // Drops brokers whose last registration is older than their timeout; returns how many.
  int ScanInactive(int64_t now_ms);
  int OnConnectionClosed(uint64_t connection_id);

  // TopicRouteData JSON, or nullopt when the topic has no live route. `order_topic_conf`
  // (the ORDER_TOPIC_CONFIG KV value) is written as "orderTopicConf" when given.
  std::optional<std::string> RouteJson(
      const std::string& topic, const std::optional<std::string>& order_topic_conf = {}) const;
  std::string ClusterInfoJson() const;
  size_t broker_count() const;

  // --- admin views (4.9.8 RouteInfoManager) ---
  TopicList AllTopics() const;
  // Topics with queue data on a broker of `cluster` (empty for an unknown cluster).
  TopicList TopicsByCluster(const std::string& cluster) const;
  // Cluster names and broker names, with the address of the first broker that has one.
  TopicList SystemTopics() const;
  // Topics whose first queue data's topicSysFlag satisfies `pick`.
  TopicList TopicsBySysFlag(bool (*pick)(int32_t sys_flag)) const;
  // Removes the topic's queue data everywhere (cluster empty) or on the cluster's brokers.
  void DeleteTopic(const std::string& topic, const std::string& cluster);
  // WIPE: clears PERM_WRITE; ADD: sets perm to READ|WRITE, on every topic of broker_name.
  // Returns how many topics were changed.
  int WipeWritePerm(const std::string& broker_name);
  int AddWritePerm(const std::string& broker_name);
  // The data version stored at the broker's last registration, or nullopt.
  std::optional<DataVersion> StoredDataVersion(const std::string& broker_addr) const;
  // QUERY_DATA_VERSION: whether `v` differs from the stored version; when it does not,
  // the broker's liveness is refreshed (as a registration would). Returns `changed`.
  bool QueryDataVersion(const std::string& broker_addr, const DataVersion& v, int64_t now_ms);

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
    DataVersion data_version;
    std::string ha_server_addr;
  };
  void RemoveAddrLocked(const std::string& addr);
  int ChangeWritePermLocked(const std::string& broker_name, bool wipe);

  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> clusters_;
  std::map<std::string, BrokerData> brokers_;
  std::map<std::string, std::map<std::string, QueueData>> topics_;  // topic → broker → q
  std::map<std::string, Live> live_;                                // addr → liveness
  std::map<std::string, std::vector<std::string>> filter_servers_;  // addr → filter servers
};

}  // namespace rocketstore::namesrv
