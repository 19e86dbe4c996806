#include "broker/metrics/rpc_stats.h"

namespace rocketstore::broker {
namespace {

std::atomic<uint64_t> g_next_rpc_stats_id{1};

// Single-writer counter (the owning thread), read by any thread.
struct Counter {
  std::atomic<uint64_t> v{0};
  void Add(uint64_t n) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t Get() const { return v.load(std::memory_order_relaxed); }
};

struct Cell {
  std::atomic<bool> used{false};  // published (release) after the codes are written
  int32_t request_code = 0;
  int32_t response_code = 0;
  std::array<Counter, kRpcLatencyBucketsMs.size() + 1> buckets;
  Counter count;
  Counter sum_micros;

  void Record(int64_t latency_nanos) {
    const int64_t micros = latency_nanos < 0 ? 0 : latency_nanos / 1000;
    size_t i = 0;
    while (i < kRpcLatencyBucketsMs.size() && micros > kRpcLatencyBucketsMs[i] * 1000) ++i;
    buckets[i].Add(1);
    count.Add(1);
    sum_micros.Add(static_cast<uint64_t>(micros));
  }
  void AddTo(RpcTotals& t) const {
    for (size_t i = 0; i < buckets.size(); ++i) t.buckets[i] += buckets[i].Get();
    t.count += count.Get();
    t.sum_micros += sum_micros.Get();
  }
};

size_t SlotOf(int32_t request_code, int32_t response_code) {
  const uint64_t k = (static_cast<uint64_t>(static_cast<uint32_t>(request_code)) << 32) |
                     static_cast<uint32_t>(response_code);
  return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> 56) % RpcStats::kSlots;
}

}  // namespace

struct RpcStats::Shard {
  std::array<Cell, kSlots> cells;
  Cell overflow;
};

RpcStats::RpcStats() : id_(g_next_rpc_stats_id.fetch_add(1, std::memory_order_relaxed)) {}
RpcStats::~RpcStats() = default;

RpcStats::Shard& RpcStats::LocalShard() {
  thread_local std::vector<std::pair<uint64_t, Shard*>> cache;
  for (const auto& [id, shard] : cache) {
    if (id == id_) return *shard;
  }
  auto shard = std::make_unique<Shard>();
  Shard* raw = shard.get();
  {
    std::lock_guard<std::mutex> l(mu_);
    shards_.push_back(std::move(shard));
  }
  cache.emplace_back(id_, raw);
  return *raw;
}

void RpcStats::OnRpc(int32_t request_code, int32_t response_code, int64_t latency_nanos) {
  Shard& s = LocalShard();
  size_t slot = SlotOf(request_code, response_code);
  for (size_t probe = 0; probe < kSlots; ++probe, slot = (slot + 1) % kSlots) {
    Cell& c = s.cells[slot];
    if (!c.used.load(std::memory_order_relaxed)) {  // only this thread writes `used`
      c.request_code = request_code;
      c.response_code = response_code;
      c.used.store(true, std::memory_order_release);
      c.Record(latency_nanos);
      return;
    }
    if (c.request_code == request_code && c.response_code == response_code) {
      c.Record(latency_nanos);
      return;
    }
  }
  if (s.overflow.count.Get() == 0) dropped_.fetch_add(1, std::memory_order_relaxed);
  s.overflow.Record(latency_nanos);
}

RpcSnapshot RpcStats::Collect() const {
  RpcSnapshot out;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& s : shards_) {
    for (const Cell& c : s->cells) {
      if (!c.used.load(std::memory_order_acquire)) continue;
      c.AddTo(out.by_code[{c.request_code, c.response_code}]);
    }
    s->overflow.AddTo(out.overflow);
  }
  out.dropped_pairs = dropped_.load(std::memory_order_relaxed);
  return out;
}

}  // namespace rocketstore::broker
