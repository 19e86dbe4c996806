#include "broker/service/store_admin_service.h"

#include <algorithm>

namespace rocketstore::broker {

namespace {
std::string JsonEscaped(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* kHex = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[(c >> 4) & 0xf]);
      out.push_back(kHex[c & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

// ConsumerFilterData as fastjson writes it for a SQL92 subscription ("null" for TAG ones:
// Java's ConsumerFilterManager keeps none for them). rocketstore builds no bloom filter
// and keeps no born/dead time, so those members are absent.
std::string FilterDataJson(const std::string& group, const SubscriptionData& sub) {
  if (sub.expression_type != "SQL92") return "null";
  return "{\"clientVersion\":" + std::to_string(sub.sub_version) +
         ",\"consumerGroup\":" + JsonEscaped(group) +
         ",\"expression\":" + JsonEscaped(sub.sub_string) +
         ",\"expressionType\":\"SQL92\",\"topic\":" + JsonEscaped(sub.topic) + "}";
}
}  // namespace

Verdict StoreAdminService::QueryConsumeQueue(const std::string& topic, int32_t queue_id,
                                             int64_t index, int32_t count,
                                             const std::optional<std::string>& group,
                                             ConsumeQueueView* out) const {
  const std::string where = std::to_string(queue_id) + "@" + topic;
  if (!store_.consume_queues().Find(topic, queue_id)) {
    const auto config = topics_.Find(topic);
    if (!config || queue_id < 0 ||
        queue_id >= std::max(config->read_queue_nums, config->write_queue_nums)) {
      return Verdict::Error(Outcome::kSystemError, where + " is not exist!");
    }
    // A configured queue without messages: Java's (lazily made) consume queue is empty.
  }
  *out = ConsumeQueueView{};
  out->min_queue_index = store_.GetMinOffsetInQueue(topic, queue_id).value();
  out->max_queue_index = store_.GetMaxOffsetInQueue(topic, queue_id).value();
  if (group) {
    out->subscription = consumers_.FindSubscription(*group, topic);
    out->filter_data = out->subscription ? FilterDataJson(*group, *out->subscription)
                                         : *group + "@" + topic + " is not online!";
  }
  auto units = index < 0 ? Result<std::vector<format::ConsumeQueueUnit>>(NotFound("negative"))
                         : store_.GetQueueUnits(topic, queue_id, QueueOffset(index),
                                                std::max<int32_t>(count, 1));
  if (!units.ok() || units->empty()) {
    out->remark = "Index " + std::to_string(index) + " of " + where + " is not exist!";
    return Verdict::Ok();
  }
  auto& list = out->units.emplace();
  for (const format::ConsumeQueueUnit& u : *units) {
    if (static_cast<int32_t>(list.size()) >= count) break;
    list.push_back({u.offset.value(), u.size, u.tags_code});
  }
  return Verdict::Ok();
}

void StoreAdminService::CleanExpiredConsumeQueue(AnswerLater later) {
  store_.CleanConsumeQueuesNow([later = std::move(later)](Result<RetentionReport> report) {
    if (report.ok()) {
      later(Verdict::Ok());
    } else {
      later(Verdict::Error(Outcome::kSystemError,
                           "cleaning expired consume queues failed: " + report.status().ToString() +
                               "; the next retention round retries"));
    }
  });
}

}  // namespace rocketstore::broker
