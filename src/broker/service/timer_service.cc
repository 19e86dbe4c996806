#include "broker/service/timer_service.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "broker/system_topics.h"
#include "store/format/properties.h"
#include "store/segment/file_names.h"
#include "timer/recall_handle.h"

namespace rocketstore::broker {

using timer::TimerEntry;
using timer::TimerEntryKind;

TimerService::TimerService(Clock& clock, timer::TimerIndex& index, const Reputter& reputter,
                           DurableOffset durable_offset, RollBelow roll_below,
                           TimerServiceOptions options)
    : clock_(clock),
      index_(index),
      reput_(reputter),
      durable_offset_(std::move(durable_offset)),
      roll_below_(std::move(roll_below)),
      options_(std::move(options)) {}

bool TimerService::FiledSinceStart(int64_t offset, std::string_view properties) const {
  if (offset < options_.started_at_offset) return false;
  const auto from = format::FindProperty(properties, timer::kPropTimerRolledFrom);
  if (!from) return true;
  const std::optional<int64_t> from_offset = timer::ParseLong(*from);
  return from_offset && *from_offset >= options_.started_at_offset;
}

Status TimerService::Deliver(const TimerEntry& e, int64_t now_ms) {
  Result<StoredMessage> m = reput_.Read(e.offset);
  if (!m.ok() && m.status().code() == StatusCode::kNotFound) {
    ++lost_;  // deleted before it could roll (disk pressure): nothing left to deliver
    return Status::OK();
  }
  RS_RETURN_IF_ERROR(m.status());
  format::PropertiesBuilder b = format::PropertiesBuilder::FromString(m->record.properties);
  const std::optional<std::string_view> topic = b.Get(format::kPropertyRealTopic);
  const std::optional<std::string_view> qid = b.Get(format::kPropertyRealQueueId);
  const int64_t queue = qid ? timer::ParseLong(*qid).value_or(-1) : -1;
  if (!topic || topic->empty() || queue < 0 || queue > INT32_MAX) {
    ++lost_;  // not a timer record we wrote (no real topic): nowhere to deliver
    return Status::OK();
  }
  DraftMessage d = DraftFromRecord(m->record);
  d.SetTopic(std::string(*topic));
  d.queue_id = static_cast<int32_t>(queue);
  b.Remove(format::kPropertyRealTopic);
  b.Remove(format::kPropertyRealQueueId);
  b.Remove(timer::kPropTimerRolledFrom);
  b.Put(timer::kPropTimerEnqueueMs, std::to_string(m->record.store_timestamp));
  b.Put(timer::kPropTimerDequeueMs, std::to_string(now_ms));
  d.SetProperties(b.Build());
  ReputResult r = reput_.Put(PutOrigin::kScheduled, d);
  if (!r.stored()) {
    return Unavailable("timer delivery of the message at commit-log offset " +
                       std::to_string(e.offset) + " to " + std::string(d.topic()) + ": " +
                       r.verdict.remark);
  }
  last_put_end_ = std::max(last_put_end_, r.put.end_offset().value());
  ++delivered_;
  if (options_.stats != nullptr) {
    options_.stats->OnTimerDequeue(d.topic(), FiledSinceStart(e.offset, m->record.properties));
  }
  return Status::OK();
}

Status TimerService::RunOnce(int64_t now_ms) {
  if (pending_ && durable_offset_() >= pending_->need_durable) {
    RS_RETURN_IF_ERROR(index_.PersistProgress(pending_->progress));
    persisted_ = pending_->progress;
    pending_.reset();
    ++progress_writes_;
  }
  RS_RETURN_IF_ERROR(index_.Advance(now_ms));
  std::vector<TimerEntry> due = index_.PopDue(now_ms, options_.max_per_step);
  std::unordered_map<uint32_t, std::unordered_set<std::string>> cancels;  // of this tick
  int64_t tick = INT64_MIN;
  Status status;
  for (size_t i = 0; i < due.size(); ++i) {
    const TimerEntry& e = due[i];
    if (e.deliver_ms != tick) {
      cancels.clear();
      tick = e.deliver_ms;
    }
    if (e.kind == TimerEntryKind::kCancel) {
      if (Result<StoredMessage> m = reput_.Read(e.offset); m.ok()) {
        if (auto key = format::FindProperty(m->record.properties, timer::kPropTimerDelUniqKey)) {
          cancels[e.key_hash].insert(std::string(*key));
        }
      }
      continue;
    }
    if (e.kind != TimerEntryKind::kAdd) continue;
    if (auto it = cancels.find(e.key_hash); it != cancels.end()) {
      Result<StoredMessage> m = reput_.Read(e.offset);
      if (m.ok()) {
        const std::string key = timer::DeleteKey(
            format::FindProperty(m->record.properties, format::kPropertyRealTopic).value_or(""),
            format::FindProperty(m->record.properties, format::kPropertyUniqKey).value_or(""));
        if (it->second.count(key)) {
          ++recalled_;
          if (options_.stats != nullptr && FiledSinceStart(e.offset, m->record.properties)) {
            options_.stats->OnTimerRecalled(
                format::FindProperty(m->record.properties, format::kPropertyRealTopic)
                    .value_or(""));
          }
          continue;
        }
      }
    }
    status = Deliver(e, now_ms);
    if (!status.ok()) {
      // Put back this entry and the rest (with their tick's cancels) for the next step.
      size_t from = i;
      while (from > 0 && due[from - 1].deliver_ms == e.deliver_ms) --from;
      index_.Requeue(std::span<const TimerEntry>(due).subspan(from));
      break;
    }
  }
  if (!pending_ && now_ms - last_snapshot_ms_ >= options_.progress_interval_ms) {
    last_snapshot_ms_ = now_ms;
    const timer::TimerProgress p = index_.SnapshotProgress();
    if (!(p == persisted_)) pending_ = Pending{p, last_put_end_};
  }
  RS_RETURN_IF_ERROR(status);
  if (roll_below_ && now_ms - last_roll_ms_ >= options_.roll_check_interval_ms) {
    last_roll_ms_ = now_ms;
    RS_RETURN_IF_ERROR(Roll(now_ms));
  }
  return Status::OK();
}

Status TimerService::Roll(int64_t now_ms) {
  RS_ASSIGN_OR_RETURN(std::vector<TimerEntry> old,
                      index_.CollectRollCandidates(roll_below_(now_ms), options_.roll_batch));
  for (const TimerEntry& e : old) {
    Result<StoredMessage> m = reput_.Read(e.offset);
    if (!m.ok() && m.status().code() == StatusCode::kNotFound) {
      ++lost_;
      continue;
    }
    RS_RETURN_IF_ERROR(m.status());
    format::PropertiesBuilder b = format::PropertiesBuilder::FromString(m->record.properties);
    const int64_t times =
        timer::ParseLong(b.Get(timer::kPropTimerRollTimes).value_or("0")).value_or(0);
    b.Put(timer::kPropTimerRollTimes, std::to_string(times + 1));
    b.Put(timer::kPropTimerRolledFrom, std::to_string(e.offset));
    DraftMessage d = DraftFromRecord(m->record);  // still the timer topic, queue 0
    d.SetProperties(b.Build());
    ReputResult r = reput_.Put(PutOrigin::kScheduled, d);
    if (!r.stored()) {
      return Unavailable("rolling the timer at commit-log offset " + std::to_string(e.offset) +
                         ": " + r.verdict.remark);
    }
    index_.MarkRolled(e.offset);
    ++rolled_;
  }
  return Status::OK();
}

RecallResult TimerService::Recall(const RecallRequest& request, int64_t now_ms) const {
  RecallResult out;
  auto illegal = [&out](std::string remark) {
    out.verdict = Verdict::Error(Outcome::kIllegalOperation, std::move(remark));
    return out;
  };
  if (topic_exists_ && !topic_exists_(request.topic)) {
    out.verdict = Verdict::Error(Outcome::kTopicNotExist,
                                 "recall failed, the topic[" + request.topic + "] not exist");
    return out;
  }
  Result<timer::RecallHandle> h = timer::DecodeRecallHandle(request.recall_handle);
  if (!h.ok()) return illegal(std::string(h.status().message()));
  if (h->topic != request.topic) return illegal("recall failed, topic not match");
  if (h->broker_name != options_.broker_name) {
    return illegal("recall failed, broker service not available");
  }
  const std::optional<int64_t> ts = timer::ParseLong(h->timestamp);
  const int64_t left = ts ? *ts - now_ms : -1;
  if (left <= 0 || left >= options_.max_delay_sec * 1000) {
    return illegal("recall failed, timestamp invalid");
  }
  format::PropertiesBuilder b;
  b.Put(format::kPropertyTags, "_RECALL_TAG_");
  b.Put(timer::kPropTimerDelUniqKey, timer::DeleteKey(h->topic, h->message_id));
  b.Put(format::kPropertyUniqKey, h->message_id);
  // The handle carries TIMER_OUT_MS + 1 (RocketMQ's "consider of floor"); the cancel is
  // filed under TIMER_OUT_MS itself, the timer's own tick.
  b.Put(timer::kPropTimerDeliverMs, std::to_string(*ts - 1));
  b.Put(format::kPropertyProducerGroup, request.producer_group);
  const std::string props = b.Build();
  DraftMessage d;
  d.ViewTopic(h->topic);
  d.ViewBody("0");
  d.ViewProperties(props);
  d.born_timestamp = now_ms;
  d.born_host = request.born_host;
  ReputResult r = reput_.Put(PutOrigin::kSystem, d);
  if (!r.stored()) {
    out.verdict = Verdict::Error(Outcome::kSystemError, "recall failed, execute error");
    return out;
  }
  out.msg_id = h->message_id;
  return out;
}

int64_t CommitLogRollBoundary(FileSystem& fs, const std::string& commit_log_dir, int64_t now_ms,
                              int64_t min_age_ms) {
  Result<std::vector<std::string>> names = fs.ListDir(commit_log_dir);
  if (!names.ok()) return 0;
  std::vector<int64_t> starts;
  for (const std::string& n : *names) {
    if (std::optional<int64_t> s = ParseSegmentFileName(n)) starts.push_back(*s);
  }
  std::sort(starts.begin(), starts.end());
  for (int64_t s : starts) {
    Result<FileInfo> info = fs.Stat(JoinPath(commit_log_dir, SegmentFileName(s)));
    if (info.ok() && info->mtime_millis > now_ms - min_age_ms) return s;
  }
  return starts.empty() ? 0 : starts.back();
}

TimerServiceStats TimerService::stats() const {
  TimerServiceStats s;
  s.delivered = delivered_;
  s.recalled = recalled_;
  s.rolled = rolled_;
  s.lost = lost_;
  s.progress_writes = progress_writes_;
  return s;
}

}  // namespace rocketstore::broker
