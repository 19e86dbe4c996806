#include "broker/metrics/broker_metrics.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "broker/system_topics.h"
#include "protocol/request_code.h"

namespace rocketstore::broker {
namespace {

template <size_t N>
std::vector<double> Bounds(const std::array<int64_t, N>& b, double scale = 1.0) {
  std::vector<double> out;
  for (int64_t v : b) out.push_back(static_cast<double>(v) * scale);
  return out;
}

template <size_t N>
std::vector<double> Bounds(const std::array<uint64_t, N>& b) {
  std::vector<double> out;
  for (uint64_t v : b) out.push_back(static_cast<double>(v));
  return out;
}

void WriteMessageFamilies(PromTextWriter& w, const StatsSnapshot& s) {
  w.Family("rocketmq_messages_in_total", "counter",
           "Messages stored by producers' sends, by topic and message type");
  for (const auto& [k, v] : s.puts) {
    w.Sample({{"topic", k.first}, {"message_type", MessageTypeLabel(k.second)}},
             static_cast<double>(v.messages));
  }
  w.Family("rocketmq_throughput_in_total", "counter",
           "Bytes of the messages stored by producers' sends (body and properties as stored)");
  for (const auto& [k, v] : s.puts) {
    w.Sample({{"topic", k.first}, {"message_type", MessageTypeLabel(k.second)}},
             static_cast<double>(v.bytes));
  }
  w.Family("rocketmq_message_size", "histogram", "Size of the messages stored, bytes");
  const std::vector<double> size_bounds = Bounds(kMessageSizeBuckets);
  for (const auto& [k, v] : s.puts) {
    // The sum is the bytes counted (a batch is put in the buckets at its average size).
    w.Histogram({{"topic", k.first}, {"message_type", MessageTypeLabel(k.second)}}, size_bounds,
                v.size_buckets, static_cast<double>(v.bytes));
  }
  w.Family("rocketmq_messages_out_total", "counter",
           "Messages handed to consumers by pulls, by topic and consumer group");
  for (const auto& [k, v] : s.gets) {
    w.Sample({{"topic", k.first}, {"consumer_group", k.second}}, static_cast<double>(v.messages));
  }
  w.Family("rocketmq_throughput_out_total", "counter",
           "Bytes of the messages handed to consumers by pulls");
  for (const auto& [k, v] : s.gets) {
    w.Sample({{"topic", k.first}, {"consumer_group", k.second}}, static_cast<double>(v.bytes));
  }
  w.Family("rocketmq_send_to_dlq_messages_total", "counter",
           "Messages a consumer group sent back that went to its dead-letter queue");
  for (const auto& [k, v] : s.retries) {
    w.Sample({{"topic", k.first}, {"consumer_group", k.second}}, static_cast<double>(v.to_dlq));
  }
  w.Family("rocketmq_send_back_messages_total", "counter",
           "Messages consumers sent back (CONSUMER_SEND_MSG_BACK) to retry or to the DLQ");
  for (const auto& [k, v] : s.retries) {
    w.Sample({{"topic", k.first}, {"consumer_group", k.second}}, static_cast<double>(v.send_backs));
  }
  w.Family("rocketmq_metrics_dropped_label_sets_total", "counter",
           "Label sets (topic x type, topic x group) counted under topic=\"__overflow__\" "
           "because the counters reached their cardinality cap");
  w.Sample({}, static_cast<double>(s.dropped_keys));
}

void WriteRpc(PromTextWriter& w, const RpcSnapshot& r) {
  w.Family("rocketmq_rpc_latency", "histogram",
           "Time from dispatching a remoting request to queueing its response, ms");
  const std::vector<double> bounds = Bounds(kRpcLatencyBucketsMs);
  for (const auto& [codes, t] : r.by_code) {
    const std::string req = std::to_string(codes.first);
    const std::string resp = std::to_string(codes.second);
    w.Histogram({{"protocol_type", "remoting"}, {"request_code", req}, {"response_code", resp}},
                bounds, t.buckets, static_cast<double>(t.sum_micros) / 1000.0);
  }
  if (r.overflow.count > 0) {
    w.Histogram({{"protocol_type", "remoting"},
                 {"request_code", "overflow"},
                 {"response_code", "overflow"}},
                bounds, r.overflow.buckets, static_cast<double>(r.overflow.sum_micros) / 1000.0);
  }
}

struct GroupLag {
  int64_t lag = 0, inflight = 0, ready = 0;
  int64_t oldest_unconsumed_ms = -1;  // store time of the first unconsumed message
  int64_t oldest_unpulled_ms = -1;    // store time of the first message not yet pulled
};

// Computes at most `w.max_series()` (topic, group) series: the pairs are walked in key
// order in chunks, and once the cap is reached the rest are counted as left out without
// being evaluated (no consume stats, no store reads). The count is then an upper bound:
// it includes pairs GET_CONSUME_STATS would have skipped.
void WriteConsumerLag(PromTextWriter& w, const MetricsSources& src, int64_t now_ms) {
  // (topic, group) → what the group's queues of the topic hold. The queues and their
  // offsets are GET_CONSUME_STATS' (208, the console's and the CLI's): every read queue of
  // the topic, 0 for one without a commit, topics skipped by Java's rules.
  constexpr size_t kChunk = 256;
  std::map<std::pair<std::string, std::string>, GroupLag> lags;
  std::string after;  // the key ("topic@group") of the last pair evaluated
  size_t not_evaluated = 0;
  for (bool more = true; more;) {
    const auto chunk = src.offsets->PairsAfter(after, kChunk);
    more = chunk.size() == kChunk;
    for (const auto& [topic, group] : chunk) {
      if (lags.size() >= w.max_series()) {
        not_evaluated = src.offsets->CountPairsAfter(after);
        more = false;
        break;
      }
      after = topic + "@" + group;
      std::vector<QueueConsumeStat> queues;
      if (src.consume_stats != nullptr) {
        queues = src.consume_stats->ConsumeStats(group, topic).queues;
      }
      if (queues.empty()) continue;  // skipped as 208 skips it: no series
      GroupLag& g = lags[{topic, group}];
      for (const QueueConsumeStat& q : queues) {
        const int64_t max = q.broker_offset;
        const int64_t committed = q.consumer_offset;
        const int64_t lag = std::max<int64_t>(0, max - committed);
        g.lag += lag;
        int64_t pulled = src.offsets->QueryPull(group, topic, q.queue_id);
        if (pulled < committed) pulled = committed;  // nothing handed out past the commit
        pulled = std::min(pulled, max);
        g.inflight += pulled - std::min(committed, pulled);
        g.ready += std::max<int64_t>(0, max - pulled);
        // The store time at the committed offset (lag latency) and at the pull offset
        // (RocketMQ 5's queueing latency: the next message to hand out), each read only
        // when there is a message there, and once when the two offsets are the same.
        // (clang 14 does not capture a structured binding: `topic` through a reference.)
        const std::string& topic_name = topic;
        auto store_time = [&](int64_t offset) {
          return src.store->GetMessageStoreTime(topic_name, q.queue_id, QueueOffset(offset));
        };
        auto keep_oldest = [](const Result<int64_t>& t, int64_t* oldest_ms) {
          if (t.ok() && (*oldest_ms < 0 || *t < *oldest_ms)) *oldest_ms = *t;
        };
        std::optional<Result<int64_t>> at_committed;
        if (lag > 0) {
          at_committed = store_time(committed);
          keep_oldest(*at_committed, &g.oldest_unconsumed_ms);
        }
        if (max > pulled) {
          keep_oldest(pulled == committed && at_committed ? *at_committed : store_time(pulled),
                      &g.oldest_unpulled_ms);
        }
      }
    }
  }
  auto each = [&](auto value) {
    for (const auto& [k, g] : lags) {
      w.Sample({{"topic", k.first}, {"consumer_group", k.second}}, value(g));
    }
    w.CountDropped(not_evaluated);
  };
  w.Family("rocketmq_consumer_lag_messages", "gauge",
           "Messages stored but not yet committed by the consumer group (max offset - committed "
           "offset, summed over the topic's queues)");
  each([](const GroupLag& g) { return static_cast<double>(g.lag); });
  w.Family("rocketmq_consumer_lag_latency", "gauge",
           "Age of the oldest message the group has not committed, ms (0 without lag)");
  each([now_ms](const GroupLag& g) {
    return g.oldest_unconsumed_ms < 0
               ? 0.0
               : static_cast<double>(std::max<int64_t>(0, now_ms - g.oldest_unconsumed_ms));
  });
  w.Family("rocketmq_consumer_queueing_latency", "gauge",
           "Age of the oldest message the group has not pulled yet, ms (0 when all are pulled)");
  each([now_ms](const GroupLag& g) {
    return g.oldest_unpulled_ms < 0
               ? 0.0
               : static_cast<double>(std::max<int64_t>(0, now_ms - g.oldest_unpulled_ms));
  });
  w.Family("rocketmq_consumer_inflight_messages", "gauge",
           "Messages pulled by the group but not yet committed (pull offset - committed offset)");
  each([](const GroupLag& g) { return static_cast<double>(g.inflight); });
  w.Family("rocketmq_consumer_ready_messages", "gauge",
           "Messages stored but not yet pulled by the group (max offset - pull offset)");
  each([](const GroupLag& g) { return static_cast<double>(g.ready); });
}

std::string LanguageLabel(int32_t language) {
  std::string name(protocol::LanguageName(static_cast<protocol::LanguageCode>(language)));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

void WriteConnections(PromTextWriter& w, const MetricsSources& src) {
  if (src.producers != nullptr) {
    std::map<std::string, int64_t> by_language;
    for (const auto& group : src.producers->Groups()) {
      for (const auto& m : src.producers->Members(group)) ++by_language[LanguageLabel(m.language)];
    }
    w.Family("rocketmq_producer_connections", "gauge",
             "Producer connections (channels registered by heartbeats), by client language");
    for (const auto& [lang, n] : by_language) {
      w.Sample({{"language", lang}, {"protocol_type", "remoting"}}, static_cast<double>(n));
    }
  }
  if (src.consumers != nullptr) {
    std::map<std::pair<std::string, std::string>, int64_t> by_group;
    for (const auto& group : src.consumers->Groups()) {
      auto g = src.consumers->Find(group);
      if (!g) continue;
      for (const auto& m : g->members) ++by_group[{group, LanguageLabel(m.language)}];
    }
    w.Family("rocketmq_consumer_connections", "gauge",
             "Consumer connections, by consumer group and client language");
    for (const auto& [k, n] : by_group) {
      w.Sample({{"consumer_group", k.first}, {"language", k.second}, {"protocol_type", "remoting"}},
               static_cast<double>(n));
    }
  }
}

void WriteStore(PromTextWriter& w, const MessageStore& store, int64_t now_ms) {
  const PromLabels local = {{"storage_type", "local"}, {"storage_medium", "disk"}};
  w.Family("rocketmq_storage_size", "gauge",
           "Bytes of the commit log's segment files (preallocated at full size)");
  w.Sample(local, static_cast<double>(store.CommitLogFileBytes()));
  w.Family("rocketmq_storage_flush_behind_bytes", "gauge",
           "Commit-log bytes appended but not yet flushed to disk");
  w.Sample(local,
           static_cast<double>(std::max<int64_t>(
               0, store.MaxPhysicalOffset().value() - store.FlushedPhysicalOffset().value())));
  w.Family("rocketmq_storage_dispatch_behind_bytes", "gauge",
           "Commit-log bytes not yet dispatched to the consume queues and index");
  w.Sample(local, static_cast<double>(store.DispatchBehindBytes()));
  w.Family("rocketmq_storage_message_reserve_time", "gauge",
           "Age of the oldest message still in the commit log, ms (0 when empty)");
  auto earliest = store.EarliestStoreTime();
  w.Sample(local,
           earliest.ok() ? static_cast<double>(std::max<int64_t>(0, now_ms - *earliest)) : 0);

  // Page-cache residency of the newest segments (mincore; a scrape examines at most
  // kResidencyMaxSegments of them, 16 KiB of scratch at a time). Reads of resident bytes
  // cost no disk I/O; Java's accessMessageInMemoryMaxRatio decides with the same notion.
  constexpr size_t kResidencyMaxSegments = 64;
  if (auto res = store.CommitLogResidency(kResidencyMaxSegments); res.ok()) {
    w.Family("rocketstore_storage_page_cache_resident_bytes", "gauge",
             "Bytes of the newest commit-log segments (at most 64) in the page cache now");
    w.Sample(local, static_cast<double>(res->resident_bytes));
    w.Family("rocketstore_storage_page_cache_examined_bytes", "gauge",
             "Bytes of commit-log segments the residency gauge examined (its denominator)");
    w.Sample(local, static_cast<double>(res->examined_bytes));
  }

  const StoreMetrics& m = store.metrics();
  auto hist = [&w](const auto& snap, double scale, double sum_scale) {
    std::vector<double> bounds;
    for (int64_t b : snap.bounds) bounds.push_back(static_cast<double>(b) * scale);
    w.Histogram({}, bounds, snap.counts, static_cast<double>(snap.sum) * sum_scale);
  };
  w.Family("rocketstore_storage_flush_latency_seconds", "histogram",
           "Time of each commit-log flush (msync / fdatasync), async flusher and group commit");
  hist(m.flush_micros.Snapshot(), 1e-6, 1e-6);
  w.Family("rocketstore_storage_flush_bytes", "histogram", "Bytes made durable by each flush");
  hist(m.flush_bytes.Snapshot(), 1.0, 1.0);
  w.Family("rocketstore_storage_group_commit_batch", "histogram",
           "Producers released by one SYNC_FLUSH group-commit flush");
  hist(m.group_commit_batch.Snapshot(), 1.0, 1.0);
  w.Family("rocketstore_storage_recovery_duration_seconds", "gauge",
           "How long the last start spent recovering the commit log, queues and index");
  w.Sample({}, static_cast<double>(m.recovery_nanos.load(std::memory_order_relaxed)) / 1e9);
  w.Family("rocketstore_storage_last_exit_clean", "gauge",
           "1 when the previous run shut down cleanly, 0 when this start recovered a crash");
  w.Sample({}, store.last_exit() == LastExit::kClean ? 1 : 0);
  const StoreHealth& h = store.health();
  // The reason label is one word of a fixed set (StoreHealth::Cause), so a changing error
  // text never makes new series; the text itself is in the log, the console and 28.
  const std::string_view cause = h.Cause();
  w.Family("rocketstore_storage_writable", "gauge",
           "1 while the store accepts writes; 0 with the reason as a label: io_error (sticky "
           "I/O error), shut_down, disk_full, read_only");
  w.Sample({{"reason", std::string(cause)}}, cause.empty() ? 1 : 0);
}

void WriteTransactions(PromTextWriter& w, const TransactionService& tx, const StatsSnapshot* s) {
  w.Family("rocketmq_half_messages", "gauge",
           "Transaction half messages awaiting commit or rollback, by their real topic");
  for (const auto& [topic, n] : tx.PendingCountsByTopic()) {
    w.Sample({{"topic", topic}}, static_cast<double>(n));
  }
  if (s != nullptr) {
    w.Family("rocketmq_commit_messages_total", "counter",
             "Transaction messages committed by END_TRANSACTION (a check-back's answer too), "
             "by real topic");
    for (const auto& [topic, t] : s->transactions) {
      w.Sample({{"topic", topic}}, static_cast<double>(t.committed));
    }
    w.Family("rocketmq_rollback_messages_total", "counter",
             "Transaction messages rolled back by END_TRANSACTION, by real topic");
    for (const auto& [topic, t] : s->transactions) {
      w.Sample({{"topic", topic}}, static_cast<double>(t.rolled_back));
    }
  }
  w.Family("rocketstore_transaction_checks_total", "counter",
           "CHECK_TRANSACTION_STATE requests sent to producers");
  w.Sample({}, static_cast<double>(tx.counters().checks_sent));
}

void WriteTimer(PromTextWriter& w, const MetricsSources& src, const StatsSnapshot* snap,
                int64_t now_ms) {
  if (src.timers != nullptr && snap != nullptr) {
    w.Family("rocketmq_timer_enqueue_total", "counter",
             "Timer messages filed in the timer index (accepted by a send), by real topic");
    for (const auto& [topic, t] : snap->timers) {
      w.Sample({{"topic", topic}}, static_cast<double>(t.enqueued));
    }
    w.Family("rocketmq_timer_dequeue_total", "counter",
             "Timer messages delivered to their topic when due, by real topic");
    for (const auto& [topic, t] : snap->timers) {
      w.Sample({{"topic", topic}}, static_cast<double>(t.dequeued));
    }
    w.Family("rocketmq_timing_messages", "gauge",
             "Timer messages filed since the broker started and not yet delivered or recalled, "
             "by real topic");
    for (const auto& [topic, t] : snap->timers) {
      w.Sample({{"topic", topic}}, static_cast<double>(t.Timing()));
    }
  }
  if (src.timers != nullptr) {
    const TimerServiceStats s = src.timers->stats();
    w.Family("rocketstore_timer_recalled_total", "counter", "Timer messages recalled (370)");
    w.Sample({}, static_cast<double>(s.recalled));
  }
  if (src.timer_index != nullptr) {
    const timer::TimerIndexStats s = src.timer_index->Stats();
    w.Family("rocketmq_timer_dequeue_latency", "gauge",
             "How far timer delivery is behind the wall clock, ms");
    w.Sample({}, static_cast<double>(s.delivered_through_ms > 0
                                         ? std::max<int64_t>(0, now_ms - s.delivered_through_ms)
                                         : 0));
    w.Family("rocketstore_timer_entries_in_memory", "gauge",
             "Timer entries held in memory (due within the near window)");
    w.Sample({}, static_cast<double>(s.in_memory));
    w.Family("rocketstore_timer_entries_on_disk", "gauge",
             "Entries in the timer's bucket files (adds, cancels, tombstones)");
    w.Sample({}, static_cast<double>(s.entries_on_disk));
  }
}

void WriteDelay(PromTextWriter& w, const MetricsSources& src) {
  const std::map<int, int64_t> done = src.delay_offsets->All();
  w.Family("rocketstore_delay_messages", "gauge",
           "Delay-level messages stored in SCHEDULE_TOPIC_XXXX and not yet delivered, by level");
  for (int level = 1; level <= src.delay_levels; ++level) {
    const int64_t max = src.store->GetMaxOffsetInQueue(kScheduleTopic, level - 1).value();
    auto it = done.find(level);
    const int64_t delivered = it == done.end() ? 0 : it->second;
    const std::string l = std::to_string(level);
    w.Sample({{"delay_level", l}}, static_cast<double>(std::max<int64_t>(0, max - delivered)));
  }
}

}  // namespace

std::string RenderBrokerMetrics(const MetricsSources& src, size_t max_series) {
  PromTextWriter w({{"cluster", src.cluster}, {"node_type", "broker"}, {"node_id", src.node_id}},
                   max_series);
  const int64_t now_ms = src.clock != nullptr ? src.clock->NowMillis() : 0;
  std::optional<StatsSnapshot> snap;
  if (src.stats != nullptr) {
    snap = src.stats->Collect();
    WriteMessageFamilies(w, *snap);
  }
  const StatsSnapshot* counted = snap ? &*snap : nullptr;
  if (src.rpc != nullptr) WriteRpc(w, src.rpc->Collect());
  if (src.permission != nullptr) {
    w.Family("rocketmq_broker_permission", "gauge",
             "The broker's permission bits (brokerPermission: 4 read, 2 write, 1 inherit)");
    w.Sample({}, static_cast<double>(src.permission->get()));
  }
  if (src.topics != nullptr) {
    w.Family("rocketmq_topic_number", "gauge", "Topics configured on the broker");
    w.Sample({}, static_cast<double>(src.topics->Count()));
  }
  if (src.groups != nullptr) {
    w.Family("rocketmq_consumer_group_number", "gauge", "Subscription groups configured");
    w.Sample({}, static_cast<double>(src.groups->Count()));
  }
  if (src.offsets != nullptr && src.store != nullptr) WriteConsumerLag(w, src, now_ms);
  WriteConnections(w, src);
  if (src.store != nullptr) WriteStore(w, *src.store, now_ms);
  if (src.transactions != nullptr) WriteTransactions(w, *src.transactions, counted);
  WriteTimer(w, src, counted, now_ms);
  if (src.delay_offsets != nullptr && src.store != nullptr && src.delay_levels > 0) {
    WriteDelay(w, src);
  }
  return w.Finish();
}

}  // namespace rocketstore::broker
