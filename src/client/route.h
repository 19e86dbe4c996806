// File: client/route.h
//
// Topic routes as the name server gives them (GET_ROUTEINFO_BY_TOPIC 105's TopicRouteData
// body: queueDatas, brokerDatas with brokerAddrs keyed by broker id, bare or quoted), the
// producer's view of them (the writable queues of brokers with a master, sorted by broker
// name as Java's TopicPublishInfo), the consumer's (readable queues), and RouteCache, which
// asks the name servers and keeps each route for refresh_ms (or until MarkStale). When no
// name server answers, a route it already has is used past its age, as Java's clients keep
// their route table while the name servers are down.
//
// Thread-safety: TopicRoute / PublishInfo are values. RouteCache: any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "client/message.h"
#include "client/transport.h"

namespace rocketstore::client {

inline constexpr int32_t kPermRead = 4;
inline constexpr int32_t kPermWrite = 2;

struct QueueData {
  std::string broker_name;
  int32_t read_queue_nums = 0;
  int32_t write_queue_nums = 0;
  int32_t perm = 0;
  int32_t topic_sys_flag = 0;
};

struct BrokerData {
  std::string cluster;
  std::string broker_name;
  std::map<int64_t, std::string> addrs;  // broker id -> "ip:port" (0 = master)
  std::string MasterAddr() const;
};

struct TopicRoute {
  std::vector<QueueData> queue_datas;
  std::vector<BrokerData> broker_datas;
  std::string order_topic_conf;  // "orderTopicConf" when the name server has one

  static Result<TopicRoute> Decode(std::string_view json);
  const BrokerData* FindBroker(std::string_view name) const;
  // Writable queues of brokers with a master, broker names sorted, queue ids ascending.
  std::vector<MessageQueue> WritableQueues(std::string_view topic) const;
  // Readable queues (readQueueNums) of every broker with a master.
  std::vector<MessageQueue> ReadableQueues(std::string_view topic) const;
};

struct RouteCacheOptions {
  std::vector<std::string> namesrv_addrs;  // tried in order, rotating on failure
  int64_t refresh_ms = 30000;              // Java's pollNameServerInterval
  int64_t timeout_ms = 3000;
};

class RouteCache {
 public:
  RouteCache(Transport& transport, RouteCacheOptions options, Clock& clock = Clock::Real());

  // The cached route when younger than refresh_ms and not marked stale, else a fresh one;
  // the cached one when no name server answers. kNotFound when the name server has no
  // route for the topic (TOPIC_NOT_EXIST).
  Result<std::shared_ptr<const TopicRoute>> Get(const std::string& topic);
  // Always asks the name server (and caches the answer).
  Result<std::shared_ptr<const TopicRoute>> Refresh(const std::string& topic);
  // The next Get asks the name server (the route stays cached as a fallback).
  void MarkStale(const std::string& topic);
  // Forgets the route.
  void Invalidate(const std::string& topic);
  // The master address of broker_name from any cached route, or "" when none is known.
  std::string BrokerAddr(const std::string& broker_name) const;
  // The master addresses of every cached route's brokers (deduplicated, sorted).
  std::vector<std::string> MasterAddrs() const;
  // GET_BROKER_CLUSTER_INFO (106), the raw JSON body.
  Result<std::string> ClusterInfoJson();
  // Sends a request to a name server (rotating on connection failures).
  Result<protocol::RemotingCommand> InvokeNamesrv(const protocol::RemotingCommand& request);

 private:
  struct Entry {
    std::shared_ptr<const TopicRoute> route;
    int64_t fetched_ms = 0;
    bool stale = false;
  };
  Transport& transport_;
  RouteCacheOptions options_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> routes_;
  size_t next_namesrv_ = 0;
};

// Splits "host:port;host:port" (commas accepted too) into addresses.
std::vector<std::string> SplitNamesrvAddrs(std::string_view text);

}  // namespace rocketstore::client
