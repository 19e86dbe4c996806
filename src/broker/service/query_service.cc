#include "broker/service/query_service.h"

#include <algorithm>

namespace rocketstore::broker {

QueryResult QueryService::QueryByKey(const QueryByKeyRequest& req) const {
  QueryResult r;
  int32_t n = req.max_num;
  if (req.unique_key) n = std::min(n, 32);
  auto result = store_.QueryMessage(req.topic, req.key, n, req.begin_timestamp, req.end_timestamp);
  if (!result.ok() || result->messages.empty()) {
    r.verdict = Verdict::Error(Outcome::kQueryNotFound,
                               result.ok() ? "can not find message, maybe time range not correct"
                                           : "can not find message: " + result.status().message());
    return r;
  }
  for (auto& m : result->messages) {
    auto bytes = store_.ReadRecord(m.offset);
    if (bytes.ok()) r.records.push_back(std::move(bytes).value());
  }
  r.index_last_update_timestamp = result->index_last_update_timestamp;
  r.index_last_update_phy_offset = result->index_last_update_phy_offset.value();
  return r;
}

QueryResult QueryService::ViewByOffset(int64_t commit_log_offset) const {
  QueryResult r;
  auto bytes = store_.ReadRecord(PhysicalOffset(commit_log_offset));
  if (!bytes.ok()) {
    r.verdict = Verdict::Error(Outcome::kSystemError, "can not find message by the offset, " +
                                                          std::to_string(commit_log_offset));
    return r;
  }
  r.records.push_back(std::move(bytes).value());
  return r;
}

int64_t QueryService::MaxOffset(const std::string& topic, int32_t queue_id) const {
  return store_.GetMaxOffsetInQueue(topic, queue_id).value();
}

int64_t QueryService::MinOffset(const std::string& topic, int32_t queue_id) const {
  return store_.GetMinOffsetInQueue(topic, queue_id).value();
}

int64_t QueryService::EarliestStoreTime(const std::string& topic, int32_t queue_id) const {
  auto t = store_.GetEarliestMessageTime(topic, queue_id);
  return t.ok() ? *t : -1;
}

int64_t QueryService::SearchOffset(const std::string& topic, int32_t queue_id, int64_t ts,
                                   TimeBoundary boundary) const {
  if (boundary == TimeBoundary::kNone) {
    auto off = store_.GetOffsetInQueueByTime(topic, queue_id, ts);
    return off.ok() ? off->value() : 0;
  }
  if (boundary == TimeBoundary::kLower) {
    auto off = store_.GetFirstOffsetInQueueAtOrAfter(topic, queue_id, ts);
    return off.ok() ? off->value() : 0;
  }
  // Largest offset stored at or before ts: one before the first one stored after it.
  auto after = store_.GetFirstOffsetInQueueAtOrAfter(topic, queue_id, ts + 1);
  const int64_t min = MinOffset(topic, queue_id);
  const int64_t max = MaxOffset(topic, queue_id);
  const int64_t v = after.ok() ? after->value() - 1 : 0;
  return max == 0 ? 0 : std::clamp<int64_t>(v, min, max - 1);
}

}  // namespace rocketstore::broker
