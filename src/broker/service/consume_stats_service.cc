#include "broker/service/consume_stats_service.h"

namespace rocketstore::broker {

int64_t GroupConsumeStats::TotalDiff() const {
  int64_t diff = 0;
  for (const auto& q : queues) diff += q.lag();
  return diff;
}

int64_t ConsumeStatsService::StoreTime(const std::string& topic, int32_t queue_id,
                                       int64_t offset) const {
  if (offset < 0) return -1;
  auto t = store_.GetMessageStoreTime(topic, queue_id, QueueOffset(offset));
  return t.ok() ? *t : -1;
}

double ConsumeStatsService::GroupGetTps(const std::string& group, const std::string& topic) const {
  if (sampler_ == nullptr) return 0;
  auto view = sampler_->View("GROUP_GET_NUMS", topic + "@" + group);
  return view ? view->minute.tps : 0;
}

bool ConsumeStatsService::SkippedByLiveSubscriptions(const std::string& group,
                                                     const std::string& topic) const {
  auto g = consumers_.Find(group);
  if (!g || g->subscriptions.empty()) return false;
  return !g->subscriptions.contains(topic);
}

void ConsumeStatsService::AddQueues(const std::string& group, const std::string& topic,
                                    int32_t queues, GroupConsumeStats& out) const {
  for (int32_t i = 0; i < queues; ++i) {
    QueueConsumeStat q;
    q.topic = topic;
    q.queue_id = i;
    q.broker_offset = std::max<int64_t>(0, store_.GetMaxOffsetInQueue(topic, i).value());
    q.consumer_offset = std::max<int64_t>(0, offsets_.Query(group, topic, i));
    if (q.consumer_offset > 0) {
      const int64_t t = StoreTime(topic, i, q.consumer_offset - 1);
      if (t > 0) q.last_timestamp = t;
    }
    out.queues.push_back(std::move(q));
  }
  out.consume_tps += GroupGetTps(group, topic);
}

GroupConsumeStats ConsumeStatsService::ConsumeStats(const std::string& group,
                                                    const std::optional<std::string>& topic) const {
  std::set<std::string> topics;
  if (!topic || topic->find_first_not_of(" \t\r\n") == std::string::npos) {
    topics = offsets_.TopicsOf(group);
  } else {
    topics.insert(*topic);
  }
  GroupConsumeStats out;
  for (const auto& t : topics) {
    auto config = topics_.Find(t);
    if (!config || SkippedByLiveSubscriptions(group, t)) continue;
    AddQueues(group, t, config->read_queue_nums, out);
  }
  return out;
}

BrokerConsumeStats ConsumeStatsService::BrokerWide(bool only_order) const {
  BrokerConsumeStats out;
  for (const auto& g : groups_.List()) {
    std::vector<GroupConsumeStats> per_topic;
    for (const auto& t : offsets_.TopicsOf(g.name)) {
      auto config = topics_.Find(t);
      if (!config || (only_order && !config->order)) continue;
      if (SkippedByLiveSubscriptions(g.name, t)) continue;
      GroupConsumeStats s;
      AddQueues(g.name, t, config->write_queue_nums, s);
      out.total_diff += s.TotalDiff();
      per_topic.push_back(std::move(s));
    }
    out.groups.emplace_back(g.name, std::move(per_topic));
  }
  return out;
}

std::set<std::string> ConsumeStatsService::ConsumedBy(const std::string& topic) const {
  std::set<std::string> groups = consumers_.GroupsConsuming(topic);
  for (auto& g : offsets_.GroupsOf(topic)) groups.insert(g);
  return groups;
}

TimeSpanResult ConsumeStatsService::TimeSpans(const std::string& topic, const std::string& group,
                                              int64_t now_ms) const {
  TimeSpanResult out;
  auto config = topics_.Find(topic);
  if (!config) {
    out.verdict = Verdict::Error(Outcome::kTopicNotExist, "topic[" + topic + "] not exist");
    return out;
  }
  for (int32_t i = 0; i < config->write_queue_nums; ++i) {
    QueueTimeSpan s;
    s.queue_id = i;
    auto earliest = store_.GetEarliestMessageTime(topic, i);
    s.min_time_stamp = earliest.ok() ? *earliest : -1;
    const int64_t max = store_.GetMaxOffsetInQueue(topic, i).value();
    s.max_time_stamp = StoreTime(topic, i, max - 1);
    const int64_t consumer_offset = offsets_.Query(group, topic, i);
    s.consume_time_stamp =
        consumer_offset > 0 ? StoreTime(topic, i, consumer_offset - 1) : s.min_time_stamp;
    if (consumer_offset < max) {
      // Java asks for the store time at consumerOffset (which is -1 for a group without
      // one: no message there, so the delay is measured from -1, as Java's is).
      s.delay_time = now_ms - StoreTime(topic, i, consumer_offset);
    }
    out.spans.push_back(s);
  }
  return out;
}

}  // namespace rocketstore::broker
