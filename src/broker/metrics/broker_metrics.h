// File: broker/metrics/broker_metrics.h
//
// RenderBrokerMetrics: one Prometheus scrape of a broker (text format 0.0.4), built from
// the same numbers the admin protocol reads — BrokerStats (puts, gets, DLQ moves), RpcStats
// (rocketmq_rpc_latency), the consumer offsets and the store — plus what is computed at
// scrape time (lag, connections, storage, timer, transaction and delay gauges). Names and
// labels follow RocketMQ 5's BrokerMetricsConstant / DefaultStoreMetricsConstant /
// RemotingMetricsConstant; docs/observability.md lists every metric.
//
// Every sample carries cluster, node_type="broker" and node_id (the broker name), as
// RocketMQ 5's exporter does. Per-scrape gauges keyed by topic x group are capped at
// `max_series` label sets per metric (see PromTextWriter).
//
// Cost: runs on the scrape thread only; it takes the managers' locks briefly (copies) and
// reads the store (max offsets, one store time per lagging queue). Nothing on the message
// path. Thread-safety: any thread, concurrently with the broker's work. Every pointer in
// MetricsSources may be null (that family is then left out) and must outlive the call.
#pragma once

#include <cstddef>
#include <string>

#include "base/clock.h"
#include "broker/config/consumer_offset_manager.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/config/subscription_group_manager.h"
#include "broker/config/topic_config_manager.h"
#include "broker/metrics/prom_text.h"
#include "broker/metrics/rpc_stats.h"
#include "broker/service/broker_permission.h"
#include "broker/service/consume_stats_service.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/producer_manager.h"
#include "broker/service/timer_service.h"
#include "broker/stats/broker_stats.h"
#include "broker/transaction/transaction_service.h"
#include "store/message_store.h"
#include "timer/timer_index.h"

namespace rocketstore::broker {

struct MetricsSources {
  std::string cluster;  // brokerClusterName
  std::string node_id;  // brokerName
  const BrokerStats* stats = nullptr;
  const RpcStats* rpc = nullptr;
  const MessageStore* store = nullptr;
  const ConsumerOffsetManager* offsets = nullptr;
  // Lag: the queues and offsets of GET_CONSUME_STATS (208); without it no lag series.
  const ConsumeStatsService* consume_stats = nullptr;
  const ConsumerManager* consumers = nullptr;
  const ProducerManager* producers = nullptr;
  const TopicConfigManager* topics = nullptr;
  const SubscriptionGroupManager* groups = nullptr;
  const BrokerPermission* permission = nullptr;  // rocketmq_broker_permission
  const DelayOffsetManager* delay_offsets = nullptr;
  int delay_levels = 0;  // SCHEDULE_TOPIC_XXXX queues (level n is queue n - 1)
  const TransactionService* transactions = nullptr;
  const TimerService* timers = nullptr;
  const timer::TimerIndex* timer_index = nullptr;
  const Clock* clock = nullptr;
};

std::string RenderBrokerMetrics(const MetricsSources& sources,
                                size_t max_series = PromTextWriter::kDefaultMaxSeries);

}  // namespace rocketstore::broker
