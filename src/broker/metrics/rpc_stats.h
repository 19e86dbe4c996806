// File: broker/metrics/rpc_stats.h
//
// RpcStats: rocketmq_rpc_latency — a latency histogram per (request code, response code)
// of every request the remoting server answered, measured by net::RemotingServer from
// dispatch to the response being queued (deferred answers included). RocketMQ 5's
// buckets (ms): 1, 3, 5, 7, 10, 100, 1000, 2000, 3000, +Inf.
//
// Hot path: no lock and no allocation per request. Each answering thread has its own
// shard: a fixed open-addressed table of kSlots cells, each written only by that thread
// (relaxed single-writer atomics; a cell is published with a release store of its key).
// A shard is created, under a mutex, the first time a thread answers a request. A code
// pair that finds its shard's table full is counted in the shard's overflow cell, reported
// with request_code="overflow" and counted in dropped_pairs().
//
// Thread-safety: OnRpc and Collect from any thread. Ownership: nothing kept from callers.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "net/remoting_server.h"

namespace rocketstore::broker {

// Upper bounds in ms (RocketMQ 5's RemotingMetricsManager).
inline constexpr std::array<int64_t, 9> kRpcLatencyBucketsMs = {1,   3,    5,    7,   10,
                                                                100, 1000, 2000, 3000};

struct RpcTotals {
  std::array<uint64_t, kRpcLatencyBucketsMs.size() + 1> buckets{};  // per bucket, +Inf last
  uint64_t count = 0;
  uint64_t sum_micros = 0;
};

struct RpcSnapshot {
  // (request code, response code) -> totals.
  std::map<std::pair<int32_t, int32_t>, RpcTotals> by_code;
  RpcTotals overflow;  // pairs that found their thread's table full
  uint64_t dropped_pairs = 0;
};

class RpcStats final : public net::RpcObserver {
 public:
  static constexpr size_t kSlots = 256;  // distinct code pairs per answering thread

  RpcStats();
  ~RpcStats() override;
  RpcStats(const RpcStats&) = delete;
  RpcStats& operator=(const RpcStats&) = delete;

  void OnRpc(int32_t request_code, int32_t response_code, int64_t latency_nanos) override;
  RpcSnapshot Collect() const;

 private:
  struct Shard;
  Shard& LocalShard();

  const uint64_t id_;  // never reused: a thread's cached shard of a dead instance never matches
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Shard>> shards_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace rocketstore::broker
