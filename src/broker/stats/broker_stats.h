// File: broker/stats/broker_stats.h
//
// BrokerStats: the broker's message counters — one source of numbers for the admin
// protocol (VIEW_BROKER_STATS_DATA 315, GET_BROKER_RUNTIME_INFO 28) and the Prometheus
// exporter. What is counted, and where:
//   puts    per (topic, message type): messages, bytes, requests, a message-size
//           histogram — SendService, after the store accepted the message (Java's
//           TOPIC_PUT_NUMS / TOPIC_PUT_SIZE, RocketMQ 5's rocketmq_messages_in_total,
//           rocketmq_throughput_in_total, rocketmq_message_size)
//   gets    per (topic, consumer group): messages, bytes, requests — PullService, for
//           the messages a pull returned (GROUP_GET_NUMS / GROUP_GET_SIZE,
//           rocketmq_messages_out_total, rocketmq_throughput_out_total)
//   send-backs and DLQ moves per (topic, group) — RetryService (SNDBCK_PUT_NUMS,
//           rocketmq_send_to_dlq_messages_total)
//   get latency per (topic, group, queue id): pulls that found messages and the
//           milliseconds the broker took to serve each (from the pull's processing start
//           to its result), as RocketMQ 4.9.8's PullMessageProcessor.incGroupGetLatency —
//           PullService (GROUP_GET_LATENCY, key queueId@topic@group)
//   timers  per real topic: timer messages filed (SendService, after the store accepted
//           the timer record: rocketmq_timer_enqueue_total), delivered (TimerService:
//           rocketmq_timer_dequeue_total) and, of the ones filed since this start,
//           delivered or recalled (rocketmq_timing_messages = filed - settled)
//   transactions per real topic: commits and rollbacks by END_TRANSACTION
//           (TransactionService: rocketmq_commit_messages_total,
//           rocketmq_rollback_messages_total)
//
// The hot path takes no lock and allocates nothing once a key has been seen on a thread:
// every thread that counts has its own shard (a map from key to cells that only it
// writes), found through a thread-local cache; a cell is a handful of relaxed atomics
// with a single writer. The shard's mutex is taken by its owner only to insert a key it
// has not seen, and by readers (Collect) to walk the map.
//
// Cardinality is bounded: at most `max_keys` distinct keys per family (puts, gets,
// send-backs, get latency, timers, transactions) across all threads. Counts for a key past the cap
// go to one overflow cell per family and thread, reported under the key `kOverflowKey`, and
// `dropped_keys()` counts the keys that were folded in, each once per thread that saw it.
// The over-cap path is cheap too: a thread remembers the keys it folded by 64-bit hash in
// a fixed table (32 KiB per family, allocated at its first fold), so a remembered key
// costs a hash probe, no lock, no allocation. A thread that has folded more than 3072
// keys of one family remembers no more: each message of a further key then takes the
// registry's mutex (still no allocation) and is counted in `dropped_keys()` again, so in
// that case the count is an upper bound of the distinct keys.
//
// Thread-safety: every method from any thread. Ownership: no references kept to the
// caller's strings (PutKey views the BrokerStats' own copy). Durability: none; the counters live in
// memory and start at zero.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace rocketstore::broker {

// RocketMQ 5's TopicMessageType values as metric labels ("normal", "fifo", "delay",
// "transaction").
enum class MessageType : uint8_t { kNormal = 0, kFifo = 1, kDelay = 2, kTransaction = 3 };
std::string_view MessageTypeLabel(MessageType type);

// Upper bounds (bytes, inclusive) of the message-size histogram's buckets; RocketMQ 5's
// rocketmq_message_size buckets. A last implicit bucket holds everything larger (+Inf).
inline constexpr std::array<uint64_t, 6> kMessageSizeBuckets = {
    1024, 4 * 1024, 512 * 1024, 1024 * 1024, 2 * 1024 * 1024, 4 * 1024 * 1024};

struct PutTotals {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t requests = 0;
  // Cumulative per bucket as Prometheus wants it is left to the exporter: these are
  // per-bucket counts, the last one (+Inf) included.
  std::array<uint64_t, kMessageSizeBuckets.size() + 1> size_buckets{};
};

struct GetTotals {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  uint64_t requests = 0;
};

struct LatencyTotals {
  uint64_t pulls = 0;       // pulls that returned messages (Java's `times`)
  uint64_t latency_ms = 0;  // the sum of their serving times, ms (Java's `value`)
};

struct RetryTotals {
  uint64_t send_backs = 0;  // CONSUMER_SEND_MSG_BACK re-puts (to %RETRY% or %DLQ%)
  uint64_t to_dlq = 0;      // of which went to %DLQ%<group>
};

struct TimerTotals {
  uint64_t enqueued = 0;  // timer records stored by producers' sends since the start
  uint64_t dequeued = 0;  // timers delivered to their topic (filed before the start or not)
  uint64_t settled = 0;   // of the `enqueued` ones: delivered or recalled
  // Filed since the start and not yet delivered or recalled.
  uint64_t Timing() const { return enqueued > settled ? enqueued - settled : 0; }
};

struct TransactionTotals {
  uint64_t committed = 0;
  uint64_t rolled_back = 0;
};

// Everything counted so far, summed over the threads. Keys: puts (topic, type), gets
// and retries (topic, group), timers and transactions (topic).
struct StatsSnapshot {
  std::map<std::pair<std::string, MessageType>, PutTotals> puts;
  std::map<std::pair<std::string, std::string>, GetTotals> gets;
  std::map<std::pair<std::string, std::string>, RetryTotals> retries;
  // (topic, group, queue id)
  std::map<std::tuple<std::string, std::string, int32_t>, LatencyTotals> get_latency;
  std::map<std::string, TimerTotals> timers;
  std::map<std::string, TransactionTotals> transactions;
  uint64_t dropped_keys = 0;

  // Sums over every key (the broker's totals).
  uint64_t TotalPutMessages() const;
  uint64_t TotalGetMessages() const;
};

class BrokerStats {
 public:
  static constexpr size_t kDefaultMaxKeys = 10000;
  // The topic (and group) under which counts past the cardinality cap are reported.
  static constexpr std::string_view kOverflowKey = "__overflow__";

  explicit BrokerStats(size_t max_keys = kDefaultMaxKeys);
  ~BrokerStats();
  BrokerStats(const BrokerStats&) = delete;
  BrokerStats& operator=(const BrokerStats&) = delete;

  // One put request that stored `messages` messages of `bytes` in total (a batch is one
  // request; its messages are put in the histogram at their average size).
  void OnPut(std::string_view topic, MessageType type, uint32_t messages, uint64_t bytes);

  // A put's key, looked up on the sending thread so that the put can be counted later —
  // on another thread (a SYNC_FLUSH send completes on the flusher) — without copying the
  // topic: `topic` views this BrokerStats' own copy of it (or kOverflowKey), valid as long
  // as the BrokerStats. ResolvePut may admit the key (as OnPut would); OnPut(PutKey)
  // counts like OnPut(topic, ...) on the calling thread.
  struct PutKey {
    std::string_view topic;
    MessageType type = MessageType::kNormal;
    bool overflow = false;  // past the cap when resolved: counted under kOverflowKey
  };
  PutKey ResolvePut(std::string_view topic, MessageType type);
  void OnPut(const PutKey& key, uint32_t messages, uint64_t bytes);
  // One pull that returned `messages` messages of `bytes` (body + properties as stored).
  void OnGet(std::string_view topic, std::string_view group, uint32_t messages, uint64_t bytes);
  // A pull of `topic`/`queue_id` by `group` that returned messages, served in
  // `latency_ms` (negative counts as 0).
  void OnGetLatency(std::string_view topic, std::string_view group, int32_t queue_id,
                    int64_t latency_ms);
  // A consumer's send-back of a message of `topic` (the original topic); `to_dlq` when it
  // went to the dead-letter queue.
  void OnSendBack(std::string_view topic, std::string_view group, bool to_dlq);
  // A timer message of `topic` (its real topic) was filed in the timer index.
  void OnTimerEnqueue(std::string_view topic);
  // A timer of `topic` was delivered; `settles` when it was filed since the start (it
  // then leaves rocketmq_timing_messages).
  void OnTimerDequeue(std::string_view topic, bool settles);
  // A timer of `topic` filed since the start was recalled before it fell due.
  void OnTimerRecalled(std::string_view topic);
  // END_TRANSACTION committed (or rolled back) a half of `topic` (its real topic).
  void OnTransactionEnd(std::string_view topic, bool committed);

  StatsSnapshot Collect() const;
  uint64_t dropped_keys() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  struct Shard;
  struct Registry;
  Shard& LocalShard();

  const uint64_t id_;  // never reused, so a thread's stale cache entry never matches
  const size_t max_keys_;
  std::unique_ptr<Registry> registry_;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace rocketstore::broker
