#include "broker/schedule/schedule_delivery_service.h"

#include <algorithm>
#include <chrono>

#include "broker/system_topics.h"
#include "log/log.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

ScheduleDeliveryService::ScheduleDeliveryService(const DelayLevelTable& levels, MessageStore& store,
                                                 const Reputter& reputter,
                                                 DelayOffsetManager& offsets, Clock& clock,
                                                 Options options)
    : table_(levels),
      store_(store),
      reputter_(reputter),
      offsets_(offsets),
      clock_(clock),
      options_(options) {
  for (int level = 1; level <= table_.max_level(); ++level) {
    Level l;
    l.level = level;
    l.delay_ms = table_.DelayMs(level);
    const int32_t q = QueueOfDelayLevel(level);
    const int64_t stored = offsets_.Query(level);
    const int64_t min = store_.GetMinOffsetInQueue(kScheduleTopic, q).value();
    const int64_t max = store_.GetMaxOffsetInQueue(kScheduleTopic, q).value();
    int64_t start = std::max<int64_t>(stored, 0);
    // Java's correctDelayOffset: an offset outside the queue is moved to its edge.
    if (stored >= 0 && (start < min || start > max)) {
      start = std::clamp(start, min, max);
      RS_LOG_WARN(
          "delay: delayOffset.json offset outside the queue level={} offset={} queue={} "
          "min={} max={} continue_at={}",
          level, stored, q, min, max, start);
    }
    l.next = l.committed = start;
    levels_.push_back(std::move(l));
  }
  runner_ = std::make_unique<ServiceRunner>("broker-schedule",
                                            std::chrono::milliseconds(options_.tick_ms), [this] {
                                              if (RunOnce(clock_.NowMillis()) <= clock_.NowMillis())
                                                runner_->Wake();
                                            });
}

int64_t ScheduleDeliveryService::RunOnce(int64_t now_ms) {
  std::lock_guard lock(mu_);
  const int64_t durable = store_.FlushedPhysicalOffset().value();
  int64_t earliest = kNothingPending;
  for (Level& l : levels_) {
    earliest = std::min(earliest, StepLevel(l, now_ms));
    CommitDurable(l, durable);
  }
  return earliest;
}

int64_t ScheduleDeliveryService::StepLevel(Level& l, int64_t now_ms) {
  const int32_t q = QueueOfDelayLevel(l.level);
  int budget = options_.max_per_level_step;
  l.next_due = kNothingPending;
  while (budget > 0) {
    auto units = store_.GetQueueUnits(kScheduleTopic, q, QueueOffset(l.next), budget);
    if (!units.ok()) {
      if (units.status().code() != StatusCode::kNotFound) {
        RS_LOG_WARN("delay: reading the queue failed level={} queue={} offset={} error=\"{}\"",
                    l.level, q, l.next, units.status().ToString());
        return l.next_due = now_ms + options_.retry_after_ms;
      }
      const int64_t min = store_.GetMinOffsetInQueue(kScheduleTopic, q).value();
      RS_LOG_WARN("delay: offset gone from the queue level={} offset={} queue={} continue_at={}",
                  l.level, l.next, q, min);
      if (min <= l.next) return l.next_due = now_ms + options_.retry_after_ms;
      skipped_.fetch_add(static_cast<uint64_t>(min - l.next), std::memory_order_relaxed);
      l.next = min - 1;
      Advance(l, 0);
      continue;
    }
    if (units->empty()) return kNothingPending;
    for (const format::ConsumeQueueUnit& unit : *units) {
      int64_t reput_end = 0;
      switch (DeliverUnit(l, unit, now_ms, &reput_end)) {
        case UnitOutcome::kNotDue:
          return l.next_due;
        case UnitOutcome::kRetryLater:
          return l.next_due = now_ms + options_.retry_after_ms;
        case UnitOutcome::kDelivered:
          delivered_.fetch_add(1, std::memory_order_relaxed);
          Advance(l, reput_end);
          break;
        case UnitOutcome::kSkipped:
          skipped_.fetch_add(1, std::memory_order_relaxed);
          Advance(l, 0);
          break;
      }
      --budget;
    }
  }
  return l.next_due = now_ms;  // budget used up: more now
}

ScheduleDeliveryService::UnitOutcome ScheduleDeliveryService::DeliverUnit(
    Level& l, const format::ConsumeQueueUnit& unit, int64_t now_ms, int64_t* reput_end) {
  int64_t deliver_ms = unit.tags_code;
  if (format::IsConsumeQueueExtAddress(deliver_ms)) deliver_ms = now_ms;  // no ext file here
  // correctDeliverTimestamp: further than the level's delay ahead means the clock went back.
  if (deliver_ms > now_ms + l.delay_ms) deliver_ms = now_ms;
  if (deliver_ms > now_ms) {
    l.next_due = deliver_ms;
    return UnitOutcome::kNotDue;
  }
  auto stored = reputter_.Read(unit.offset.value());
  if (!stored.ok()) {
    RS_LOG_WARN("delay: message skipped level={} queue_offset={} commitlog_offset={} error=\"{}\"",
                l.level, l.next, unit.offset.value(), stored.status().ToString());
    return UnitOutcome::kSkipped;
  }
  const format::RecordView& r = stored->record;
  auto real_topic = format::FindProperty(r.properties, format::kPropertyRealTopic);
  auto real_qid = format::FindProperty(r.properties, format::kPropertyRealQueueId);
  auto qid = real_qid ? ParseDelayLevel(*real_qid) : std::nullopt;
  if (!real_topic || real_topic->empty() || !qid || *qid < 0) {
    RS_LOG_ERROR(
        "delay: message skipped reason=no_usable_REAL_TOPIC_or_REAL_QID level={} "
        "commitlog_offset={}",
        l.level, unit.offset.value());
    return UnitOutcome::kSkipped;
  }
  if (*real_topic == kTransHalfTopic) {
    RS_LOG_ERROR(
        "delay: message discarded reason=real_topic_is_the_half_topic level={} "
        "commitlog_offset={}",
        l.level, unit.offset.value());
    return UnitOutcome::kSkipped;
  }
  DraftMessage d = DraftFromRecord(r);
  d.ViewTopic(*real_topic);
  d.queue_id = *qid;
  ReputResult put = reputter_.Put(PutOrigin::kScheduled, d);
  if (put.stored()) {
    *reput_end = put.put.end_offset().value();
    return UnitOutcome::kDelivered;
  }
  switch (put.verdict.outcome) {
    case Outcome::kMessageIllegal:
    case Outcome::kInvalidArgument:
    case Outcome::kNoPermission:
      RS_LOG_ERROR(
          "delay: message skipped reason=refused level={} commitlog_offset={} topic={} "
          "queue={} error=\"{}\"",
          l.level, unit.offset.value(), *real_topic, *qid, put.verdict.remark);
      return UnitOutcome::kSkipped;
    default:
      failed_.fetch_add(1, std::memory_order_relaxed);
      RS_LOG_WARN("delay: re-put failed, retrying level={} topic={} queue={} error=\"{}\"", l.level,
                  *real_topic, *qid, put.verdict.remark);
      return UnitOutcome::kRetryLater;
  }
}

void ScheduleDeliveryService::Advance(Level& l, int64_t reput_end) {
  ++l.next;
  if (reput_end == 0 && !l.awaiting_durability.empty()) {
    reput_end = l.awaiting_durability.back().first;  // commits with the re-put before it
  }
  if (!l.awaiting_durability.empty() && l.awaiting_durability.back().first == reput_end) {
    l.awaiting_durability.back().second = l.next;
  } else {
    l.awaiting_durability.emplace_back(reput_end, l.next);
  }
}

void ScheduleDeliveryService::CommitDurable(Level& l, int64_t durable) {
  int64_t commit = -1;
  while (!l.awaiting_durability.empty() && l.awaiting_durability.front().first <= durable) {
    commit = l.awaiting_durability.front().second;
    l.awaiting_durability.pop_front();
  }
  if (commit >= 0 && commit != l.committed) {
    l.committed = commit;
    offsets_.Commit(l.level, commit);
  }
}

void ScheduleDeliveryService::CommitAllPending() {
  std::lock_guard lock(mu_);
  for (Level& l : levels_) CommitDurable(l, std::numeric_limits<int64_t>::max());
}

void ScheduleDeliveryService::Start() { runner_->Start(); }
void ScheduleDeliveryService::Stop() {
  if (runner_) runner_->Stop();
}

void ScheduleDeliveryService::OnArrival(int32_t queue_id) {
  const int level = DelayLevelOfQueue(queue_id);
  if (level < 1 || level > table_.max_level()) return;
  if (table_.DelayMs(level) < options_.tick_ms) runner_->Wake();
}

std::vector<ScheduleDeliveryService::LevelView> ScheduleDeliveryService::Levels() const {
  std::lock_guard lock(mu_);
  std::vector<LevelView> out;
  for (const Level& l : levels_) {
    LevelView v;
    v.level = l.level;
    v.delay_ms = l.delay_ms;
    v.next_offset = l.next;
    v.committed_offset = l.committed;
    v.max_offset = store_.GetMaxOffsetInQueue(kScheduleTopic, QueueOfDelayLevel(l.level)).value();
    v.next_due_ms = l.next_due;
    out.push_back(v);
  }
  return out;
}

}  // namespace rocketstore::broker
