#include "broker/service/offset_service.h"

namespace rocketstore::broker {

OffsetResult OffsetService::Query(const std::string& group, const std::string& topic,
                                  int32_t queue_id, bool set_zero_if_not_found) const {
  OffsetResult r;
  const int64_t committed = offsets_.Query(group, topic, queue_id);
  if (committed >= 0) {
    r.offset = committed;
    return r;
  }
  const int64_t min = store_.GetMinOffsetInQueue(topic, queue_id).value();
  if (set_zero_if_not_found && min <= 0 &&
      !store_.CheckInDiskByConsumeOffset(topic, queue_id, QueueOffset(0))) {
    r.offset = 0;
    return r;
  }
  r.verdict = Verdict::Error(Outcome::kQueryNotFound,
                             "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
  return r;
}

Verdict OffsetService::Update(const std::string& group, const std::string& topic, int32_t queue_id,
                              int64_t offset) {
  if (queue_id < 0) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "queueId " + std::to_string(queue_id) + " is negative");
  }
  offsets_.Commit(group, topic, queue_id, offset);
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
