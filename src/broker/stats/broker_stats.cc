#include "broker/stats/broker_stats.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace rocketstore::broker {
namespace {

// A key of any family: puts use (a = topic, c = type), gets and retries (a = topic,
// b = group), get latency (a = topic, b = group, q = queue id). Looked up through KeyView
// so the hot path builds no string.
struct KeyView {
  std::string_view a;
  std::string_view b;
  uint8_t c = 0;
  int32_t q = 0;
};

struct Key {
  std::string a;
  std::string b;
  uint8_t c = 0;
  int32_t q = 0;
  KeyView view() const { return {a, b, c, q}; }
};

struct KeyHash {
  using is_transparent = void;
  size_t operator()(const KeyView& k) const noexcept {
    const size_t h1 = std::hash<std::string_view>{}(k.a);
    const size_t h2 = std::hash<std::string_view>{}(k.b);
    return h1 ^ (h2 * 0x9E3779B97F4A7C15ull) ^ (size_t{k.c} << 1) ^
           (static_cast<size_t>(static_cast<uint32_t>(k.q)) * 0xC2B2AE3D27D4EB4Full);
  }
  size_t operator()(const Key& k) const noexcept { return (*this)(k.view()); }
};

struct KeyEq {
  using is_transparent = void;
  static bool Eq(const KeyView& x, const KeyView& y) {
    return x.c == y.c && x.q == y.q && x.a == y.a && x.b == y.b;
  }
  bool operator()(const Key& x, const Key& y) const { return Eq(x.view(), y.view()); }
  bool operator()(const Key& x, const KeyView& y) const { return Eq(x.view(), y); }
  bool operator()(const KeyView& x, const Key& y) const { return Eq(x, y.view()); }
};

// Single-writer counter: the owning thread adds without a locked instruction; readers
// see a torn-free value through the atomic.
struct Counter {
  std::atomic<uint64_t> v{0};
  void Add(uint64_t n) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t Get() const { return v.load(std::memory_order_relaxed); }
};

struct PutCell {
  Counter messages, bytes, requests;
  std::array<Counter, kMessageSizeBuckets.size() + 1> buckets;
};
struct GetCell {
  Counter messages, bytes, requests;
};
struct RetryCell {
  Counter send_backs, to_dlq;
};
struct LatencyCell {
  Counter pulls, latency_ms;
};
struct TimerCell {
  Counter enqueued, dequeued, settled;
};
struct TransactionCell {
  Counter committed, rolled_back;
};

size_t BucketOf(uint64_t size) {
  for (size_t i = 0; i < kMessageSizeBuckets.size(); ++i) {
    if (size <= kMessageSizeBuckets[i]) return i;
  }
  return kMessageSizeBuckets.size();
}

void AddPut(PutCell& c, uint32_t messages, uint64_t bytes) {
  c.messages.Add(messages);
  c.bytes.Add(bytes);
  c.requests.Add(1);
  if (messages > 0) c.buckets[BucketOf(bytes / messages)].Add(messages);
}

std::atomic<uint64_t> g_next_id{1};

}  // namespace

// Over-cap keys a thread remembers per family, by 64-bit hash (open addressing in a
// table of kFoldedSlots, filled to at most kFoldedRemembered): 32 KiB, allocated at the
// family's first fold on that thread.
constexpr size_t kFoldedSlots = 4096;
constexpr size_t kFoldedRemembered = kFoldedSlots * 3 / 4;

// One thread's cells. `owned` holds the cells of admitted keys; `folded` the hashes of the
// keys past the cap this thread has seen (their counts go to `overflow`).
template <typename Cell>
struct Family {
  std::unordered_map<Key, std::unique_ptr<Cell>, KeyHash, KeyEq> owned;
  std::unique_ptr<uint64_t[]> folded;  // 0 = empty slot
  size_t folded_count = 0;
  Cell overflow;
  bool overflow_used = false;  // written under the shard's mutex (Collect reads it so)
  // The owned key found last, and its cell: a thread counts the same key message after
  // message, and this skips hashing it. Only the owning thread reads or writes these;
  // owned entries are never erased, so the pointers stay valid.
  const Key* last_key = nullptr;
  Cell* last_cell = nullptr;

  // Whether `h` is remembered; inserts it when `insert` and there is room (then returns
  // false: it was not remembered before).
  bool Folded(uint64_t h, bool insert) {
    if (!folded) {
      if (!insert) return false;
      folded = std::make_unique<uint64_t[]>(kFoldedSlots);  // zeroed
    }
    if (h == 0) h = 1;
    for (size_t i = h & (kFoldedSlots - 1);; i = (i + 1) & (kFoldedSlots - 1)) {
      if (folded[i] == h) return true;
      if (folded[i] == 0) {
        if (insert && folded_count < kFoldedRemembered) {
          folded[i] = h;
          ++folded_count;
        }
        return false;
      }
    }
  }
};

struct BrokerStats::Shard {
  std::mutex mu;  // the owner takes it to insert; Collect to read the maps
  Family<PutCell> puts;
  Family<GetCell> gets;
  Family<RetryCell> retries;
  Family<LatencyCell> latency;
  Family<TimerCell> timers;
  Family<TransactionCell> transactions;
};

struct BrokerStats::Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Shard>> shards;
  // The distinct keys admitted so far per family, across threads.
  std::unordered_set<Key, KeyHash, KeyEq> put_keys, get_keys, retry_keys, latency_keys, timer_keys,
      transaction_keys;
};

namespace {

// A cell found for a key, with the thread's own copy of the key (null: the overflow cell).
template <typename Cell>
struct Found {
  Cell* cell;
  const Key* key;
};

// The hot path: the cell for `k` in this thread's family. An admitted key this thread has
// seen costs one hash lookup; a remembered over-cap key one more (no lock, no
// allocation). The first time a thread sees a key: the registry's mutex for the cap and,
// if admitted, the shard's mutex and one allocation to insert it; if over the cap, the
// key's hash is remembered (no allocation after the family's first fold) and counted
// once in `dropped`. A thread that remembers kFoldedRemembered over-cap keys of a family
// remembers no more: each message of another one takes the registry's mutex (no
// allocation) and counts again in `dropped`.
template <typename Cell>
Found<Cell> CellFor(Family<Cell>& f, std::mutex& shard_mu, const KeyView& k, std::mutex& reg_mu,
                    std::unordered_set<Key, KeyHash, KeyEq>& admitted, size_t max_keys,
                    std::atomic<uint64_t>& dropped) {
  if (f.last_key != nullptr && KeyEq::Eq(f.last_key->view(), k)) return {f.last_cell, f.last_key};
  if (auto it = f.owned.find(k); it != f.owned.end()) {
    f.last_key = &it->first;
    f.last_cell = it->second.get();
    return {f.last_cell, f.last_key};
  }
  // A 64-bit hash stands for the key: a new key colliding with a folded one would be
  // folded too (odds ~ 3072 / 2^64).
  const uint64_t h = KeyHash{}(k);
  if (f.Folded(h, /*insert=*/false)) return {&f.overflow, nullptr};
  bool admit;
  {
    std::lock_guard<std::mutex> l(reg_mu);
    admit = admitted.find(k) != admitted.end();
    if (!admit && admitted.size() < max_keys) {
      admitted.insert(Key{std::string(k.a), std::string(k.b), k.c, k.q});
      admit = true;
    }
  }
  if (admit) {
    auto cell = std::make_unique<Cell>();
    std::lock_guard<std::mutex> l(shard_mu);
    auto [it, inserted] =
        f.owned.emplace(Key{std::string(k.a), std::string(k.b), k.c, k.q}, std::move(cell));
    return {it->second.get(), &it->first};
  }
  (void)f.Folded(h, /*insert=*/true);
  dropped.fetch_add(1, std::memory_order_relaxed);
  if (!f.overflow_used) {
    std::lock_guard<std::mutex> l(shard_mu);
    f.overflow_used = true;
  }
  return {&f.overflow, nullptr};
}

}  // namespace

std::string_view MessageTypeLabel(MessageType type) {
  switch (type) {
    case MessageType::kNormal:
      return "normal";
    case MessageType::kFifo:
      return "fifo";
    case MessageType::kDelay:
      return "delay";
    case MessageType::kTransaction:
      return "transaction";
  }
  return "normal";
}

uint64_t StatsSnapshot::TotalPutMessages() const {
  uint64_t n = 0;
  for (const auto& [k, v] : puts) n += v.messages;
  return n;
}

uint64_t StatsSnapshot::TotalGetMessages() const {
  uint64_t n = 0;
  for (const auto& [k, v] : gets) n += v.messages;
  return n;
}

BrokerStats::BrokerStats(size_t max_keys)
    : id_(g_next_id.fetch_add(1, std::memory_order_relaxed)),
      max_keys_(max_keys),
      registry_(std::make_unique<Registry>()) {}

BrokerStats::~BrokerStats() = default;

BrokerStats::Shard& BrokerStats::LocalShard() {
  // (instance id, shard) pairs of the instances this thread has counted for. Ids are never
  // reused, so the entry of a destroyed instance is never matched again.
  thread_local std::vector<std::pair<uint64_t, Shard*>> cache;
  for (const auto& [id, shard] : cache) {
    if (id == id_) return *shard;
  }
  auto shard = std::make_unique<Shard>();
  Shard* raw = shard.get();
  {
    std::lock_guard<std::mutex> l(registry_->mu);
    registry_->shards.push_back(std::move(shard));
  }
  cache.emplace_back(id_, raw);
  return *raw;
}

void BrokerStats::OnPut(std::string_view topic, MessageType type, uint32_t messages,
                        uint64_t bytes) {
  Shard& s = LocalShard();
  PutCell& c = *CellFor(s.puts, s.mu, KeyView{topic, {}, static_cast<uint8_t>(type)}, registry_->mu,
                        registry_->put_keys, max_keys_, dropped_)
                    .cell;
  AddPut(c, messages, bytes);
}

BrokerStats::PutKey BrokerStats::ResolvePut(std::string_view topic, MessageType type) {
  Shard& s = LocalShard();
  const auto found = CellFor(s.puts, s.mu, KeyView{topic, {}, static_cast<uint8_t>(type)},
                             registry_->mu, registry_->put_keys, max_keys_, dropped_);
  if (found.key == nullptr) return PutKey{kOverflowKey, type, true};
  return PutKey{found.key->a, type, false};
}

void BrokerStats::OnPut(const PutKey& key, uint32_t messages, uint64_t bytes) {
  Shard& s = LocalShard();
  if (key.overflow) {  // already counted as dropped where it was resolved
    if (!s.puts.overflow_used) {
      std::lock_guard<std::mutex> l(s.mu);
      s.puts.overflow_used = true;
    }
    AddPut(s.puts.overflow, messages, bytes);
    return;
  }
  OnPut(key.topic, key.type, messages, bytes);
}

void BrokerStats::OnGet(std::string_view topic, std::string_view group, uint32_t messages,
                        uint64_t bytes) {
  Shard& s = LocalShard();
  GetCell& c = *CellFor(s.gets, s.mu, KeyView{topic, group, 0}, registry_->mu, registry_->get_keys,
                        max_keys_, dropped_)
                    .cell;
  c.messages.Add(messages);
  c.bytes.Add(bytes);
  c.requests.Add(1);
}

void BrokerStats::OnGetLatency(std::string_view topic, std::string_view group, int32_t queue_id,
                               int64_t latency_ms) {
  Shard& s = LocalShard();
  LatencyCell& c = *CellFor(s.latency, s.mu, KeyView{topic, group, 0, queue_id}, registry_->mu,
                            registry_->latency_keys, max_keys_, dropped_)
                        .cell;
  c.pulls.Add(1);
  c.latency_ms.Add(latency_ms > 0 ? static_cast<uint64_t>(latency_ms) : 0);
}

void BrokerStats::OnSendBack(std::string_view topic, std::string_view group, bool to_dlq) {
  Shard& s = LocalShard();
  RetryCell& c = *CellFor(s.retries, s.mu, KeyView{topic, group, 0}, registry_->mu,
                          registry_->retry_keys, max_keys_, dropped_)
                      .cell;
  c.send_backs.Add(1);
  if (to_dlq) c.to_dlq.Add(1);
}

void BrokerStats::OnTimerEnqueue(std::string_view topic) {
  Shard& s = LocalShard();
  CellFor(s.timers, s.mu, KeyView{topic, {}, 0}, registry_->mu, registry_->timer_keys, max_keys_,
          dropped_)
      .cell->enqueued.Add(1);
}

void BrokerStats::OnTimerDequeue(std::string_view topic, bool settles) {
  Shard& s = LocalShard();
  TimerCell& c = *CellFor(s.timers, s.mu, KeyView{topic, {}, 0}, registry_->mu,
                          registry_->timer_keys, max_keys_, dropped_)
                      .cell;
  c.dequeued.Add(1);
  if (settles) c.settled.Add(1);
}

void BrokerStats::OnTimerRecalled(std::string_view topic) {
  Shard& s = LocalShard();
  CellFor(s.timers, s.mu, KeyView{topic, {}, 0}, registry_->mu, registry_->timer_keys, max_keys_,
          dropped_)
      .cell->settled.Add(1);
}

void BrokerStats::OnTransactionEnd(std::string_view topic, bool committed) {
  Shard& s = LocalShard();
  TransactionCell& c = *CellFor(s.transactions, s.mu, KeyView{topic, {}, 0}, registry_->mu,
                                registry_->transaction_keys, max_keys_, dropped_)
                            .cell;
  (committed ? c.committed : c.rolled_back).Add(1);
}

StatsSnapshot BrokerStats::Collect() const {
  StatsSnapshot out;
  std::vector<Shard*> shards;
  {
    std::lock_guard<std::mutex> l(registry_->mu);
    for (const auto& s : registry_->shards) shards.push_back(s.get());
  }
  const std::string overflow(kOverflowKey);
  auto add_put = [](PutTotals& t, const PutCell& c) {
    t.messages += c.messages.Get();
    t.bytes += c.bytes.Get();
    t.requests += c.requests.Get();
    for (size_t i = 0; i < t.size_buckets.size(); ++i) t.size_buckets[i] += c.buckets[i].Get();
  };
  auto add_get = [](GetTotals& t, const GetCell& c) {
    t.messages += c.messages.Get();
    t.bytes += c.bytes.Get();
    t.requests += c.requests.Get();
  };
  auto add_retry = [](RetryTotals& t, const RetryCell& c) {
    t.send_backs += c.send_backs.Get();
    t.to_dlq += c.to_dlq.Get();
  };
  auto add_latency = [](LatencyTotals& t, const LatencyCell& c) {
    t.pulls += c.pulls.Get();
    t.latency_ms += c.latency_ms.Get();
  };
  auto add_timer = [](TimerTotals& t, const TimerCell& c) {
    t.enqueued += c.enqueued.Get();
    t.dequeued += c.dequeued.Get();
    t.settled += c.settled.Get();
  };
  auto add_tx = [](TransactionTotals& t, const TransactionCell& c) {
    t.committed += c.committed.Get();
    t.rolled_back += c.rolled_back.Get();
  };
  for (Shard* s : shards) {
    std::lock_guard<std::mutex> l(s->mu);
    for (const auto& [k, c] : s->latency.owned) {
      add_latency(out.get_latency[{k.a, k.b, k.q}], *c);
    }
    if (s->latency.overflow_used) {
      add_latency(out.get_latency[{overflow, overflow, -1}], s->latency.overflow);
    }
    for (const auto& [k, c] : s->puts.owned) add_put(out.puts[{k.a, MessageType(k.c)}], *c);
    if (s->puts.overflow_used)
      add_put(out.puts[{overflow, MessageType::kNormal}], s->puts.overflow);
    for (const auto& [k, c] : s->gets.owned) add_get(out.gets[{k.a, k.b}], *c);
    if (s->gets.overflow_used) add_get(out.gets[{overflow, overflow}], s->gets.overflow);
    for (const auto& [k, c] : s->retries.owned) add_retry(out.retries[{k.a, k.b}], *c);
    if (s->retries.overflow_used) {
      add_retry(out.retries[{overflow, overflow}], s->retries.overflow);
    }
    for (const auto& [k, c] : s->timers.owned) add_timer(out.timers[k.a], *c);
    if (s->timers.overflow_used) add_timer(out.timers[overflow], s->timers.overflow);
    for (const auto& [k, c] : s->transactions.owned) add_tx(out.transactions[k.a], *c);
    if (s->transactions.overflow_used) add_tx(out.transactions[overflow], s->transactions.overflow);
  }
  out.dropped_keys = dropped_.load(std::memory_order_relaxed);
  return out;
}

}  // namespace rocketstore::broker
