// File: broker/service/consume_stats_service.h
//
// ConsumeStatsService: what a consumer group has consumed and how far behind it is — the
// numbers behind GET_CONSUME_STATS (208), GET_BROKER_CONSUME_STATS (317),
// QUERY_TOPIC_CONSUME_BY_WHO (300) and QUERY_CONSUME_TIME_SPAN (303), and what the web
// console and the CLI read lag from. Everything is computed on demand from the store's
// queue ends and store times, the committed offsets (consumerOffset.json) and the live
// subscriptions, as RocketMQ 4.9.8's AdminBrokerProcessor does:
//
//   ConsumeStats(group, topic?): per queue (0 .. readQueueNums-1) of each topic — the one
//     given, else every topic the group has committed offsets of — the queue's max offset
//     (brokerOffset), the group's committed offset (consumerOffset, 0 when none) and the
//     store time of the last consumed message (lastTimestamp, 0 when nothing consumed);
//     consumeTps sums GROUP_GET_NUMS' minute tps for topic@group. A topic without a
//     config is skipped; so is one the group does not subscribe to while it has live
//     subscriptions (Java's findSubscriptionDataCount > 0).
//   BrokerConsumeStats(only_order): the same for every subscription group (queues
//     0 .. writeQueueNums-1, as Java's fetchAllConsumeStatsInBroker), and the total lag.
//   ConsumedBy(topic): groups with a live subscription of the topic, plus groups with
//     committed offsets of it.
//   TimeSpans(topic, group, now_ms): per write queue the first / last store times, the
//     time of the last consumed message and how long the next one has waited; an unknown
//     topic is kTopicNotExist "topic[<t>] not exist".
//
// Thread-safety: any thread (the parts it reads are thread-safe). Ownership: references
// only; the referents outlive it.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "broker/metadata.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "broker/stats/stats_sampler.h"
#include "store/message_store.h"

namespace rocketstore::broker {

struct QueueConsumeStat {
  std::string topic;
  int32_t queue_id = 0;
  int64_t broker_offset = 0;
  int64_t consumer_offset = 0;
  int64_t last_timestamp = 0;
  int64_t lag() const { return broker_offset - consumer_offset; }
};

struct GroupConsumeStats {
  std::vector<QueueConsumeStat> queues;  // by topic, then queue id
  double consume_tps = 0;
  int64_t TotalDiff() const;
};

struct BrokerConsumeStats {
  // Per subscription group (by name): one GroupConsumeStats per topic it has offsets of.
  std::vector<std::pair<std::string, std::vector<GroupConsumeStats>>> groups;
  int64_t total_diff = 0;
};

struct QueueTimeSpan {
  int32_t queue_id = 0;
  int64_t min_time_stamp = 0;      // store time of the queue's first message (-1: empty)
  int64_t max_time_stamp = 0;      // of its last message (-1: empty)
  int64_t consume_time_stamp = 0;  // of the last consumed one (min when none consumed)
  int64_t delay_time = 0;          // now - store time of the next unconsumed (0: caught up)
};

struct TimeSpanResult {
  Verdict verdict;
  std::vector<QueueTimeSpan> spans;
};

class ConsumeStatsService {
 public:
  ConsumeStatsService(Clock& clock, std::string broker_name, const MessageStore& store,
                      const TopicConfigManager& topics, const ConsumerOffsetManager& offsets,
                      const SubscriptionGroupManager& groups, const ConsumerManager& consumers,
                      const StatsSampler* sampler)
      : clock_(clock),
        broker_name_(std::move(broker_name)),
        store_(store),
        topics_(topics),
        offsets_(offsets),
        groups_(groups),
        consumers_(consumers),
        sampler_(sampler) {}

  GroupConsumeStats ConsumeStats(const std::string& group,
                                 const std::optional<std::string>& topic) const;
  BrokerConsumeStats BrokerWide(bool only_order) const;
  std::set<std::string> ConsumedBy(const std::string& topic) const;
  TimeSpanResult TimeSpans(const std::string& topic, const std::string& group,
                           int64_t now_ms) const;

  // What the answers name the broker by: its name (MessageQueue.brokerName) and address
  // (ConsumeStatsList.brokerAddr; known once the server listens).
  const std::string& broker_name() const { return broker_name_; }
  std::string broker_addr() const {
    std::lock_guard lock(mu_);
    return broker_addr_;
  }
  void set_broker_addr(std::string addr) {
    std::lock_guard lock(mu_);
    broker_addr_ = std::move(addr);
  }
  int64_t NowMs() const { return clock_.NowMillis(); }

 private:
  // One topic's queues 0 .. queues-1 for `group`.
  void AddQueues(const std::string& group, const std::string& topic, int32_t queues,
                 GroupConsumeStats& out) const;
  // Whether `group`'s live subscriptions exclude `topic` (Java's skip rule).
  bool SkippedByLiveSubscriptions(const std::string& group, const std::string& topic) const;
  double GroupGetTps(const std::string& group, const std::string& topic) const;
  int64_t StoreTime(const std::string& topic, int32_t queue_id, int64_t offset) const;

  Clock& clock_;
  const std::string broker_name_;
  mutable std::mutex mu_;
  std::string broker_addr_;  // GUARDED_BY(mu_)
  const MessageStore& store_;
  const TopicConfigManager& topics_;
  const ConsumerOffsetManager& offsets_;
  const SubscriptionGroupManager& groups_;
  const ConsumerManager& consumers_;
  const StatsSampler* sampler_;  // null: consumeTps is 0
};

}  // namespace rocketstore::broker
