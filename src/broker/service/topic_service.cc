#include "broker/service/topic_service.h"

#include <algorithm>
#include <set>
#include <string>

#include "broker/system_topics.h"

namespace rocketstore::broker {

std::optional<Verdict> TopicService::CreateOrUpdate(const TopicConfig& config, AnswerLater later) {
  if (!IsValidTopicName(config.name)) {
    return Verdict::Error(Outcome::kInvalidArgument,
                          "The specified topic is invalid: " + config.name +
                              " (1-127 characters of [A-Za-z0-9_%|-])");
  }
  if (IsSystemTopic(config.name) || IsExtraSystemTopic(config.name)) {
    return Verdict::Error(Outcome::kSystemError,
                          "The topic[" + config.name + "] is conflict with system topic.");
  }
  if (config.read_queue_nums < 1 || config.write_queue_nums < 1 ||
      config.read_queue_nums > kMaxQueueNums || config.write_queue_nums > kMaxQueueNums) {
    return Verdict::Error(Outcome::kInvalidArgument, "queue numbers must be in [1, 1024]");
  }
  const bool changed = topics_.Upsert(config);
  if (!changed && !later) return Verdict::Ok();
  return AnswerAfterRound(register_routes_, Verdict::Ok(), std::move(later));
}

namespace {
constexpr size_t kTopicMaxLength = 127;  // TopicValidator.TOPIC_MAX_LENGTH

// TopicValidator.validateTopic: its remarks, SYSTEM_ERROR.
Verdict ValidateTopicLikeJava(std::string_view topic) {
  bool blank = true;
  for (char c : topic) blank = blank && (c == ' ' || c == '\t' || c == '\n' || c == '\r');
  if (blank) return Verdict::Error(Outcome::kSystemError, "The specified topic is blank.");
  for (char c : topic) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    c == '%' || c == '-' || c == '_' || c == '|';
    if (!ok) {
      return Verdict::Error(Outcome::kSystemError,
                            "The specified topic contains illegal characters, allowing only "
                            "^[%|a-zA-Z0-9_-]+$");
    }
  }
  if (topic.size() > kTopicMaxLength) {
    return Verdict::Error(Outcome::kSystemError,
                          "The specified topic is longer than topic max length.");
  }
  return Verdict::Ok();
}
}  // namespace

std::optional<Verdict> TopicService::Delete(std::string_view topic, AnswerLater later) {
  if (Verdict v = ValidateTopicLikeJava(topic); !v.ok()) return v;
  if (IsSystemTopic(topic) || IsExtraSystemTopic(topic)) {
    return Verdict::Error(Outcome::kSystemError,
                          "The topic[" + std::string(topic) + "] is conflict with system topic.");
  }
  if (store_ == nullptr || offsets_ == nullptr) {
    return Verdict::Error(Outcome::kSystemError, "topic deletion is not available here");
  }
  const bool existed = topics_.Delete(topic);
  (void)offsets_->RemoveTopic(topic);
  Result<int> removed = store_->DeleteTopicQueues(topic);
  Verdict verdict = Verdict::Ok();
  if (!removed.ok()) {
    verdict = Verdict::Error(Outcome::kSystemError,
                             "topic " + std::string(topic) +
                                 " was deleted but its consume queue files were not all removed: " +
                                 removed.status().ToString() + "; remove them by hand");
  }
  if (!existed) return verdict;
  return AnswerAfterRound(register_routes_, std::move(verdict), std::move(later));
}

Verdict TopicService::Stats(std::string_view topic, std::vector<QueueStats>* out) const {
  std::optional<TopicConfig> config = topics_.Find(topic);
  if (!config) {
    return Verdict::Error(Outcome::kTopicNotExist, "topic[" + std::string(topic) + "] not exist");
  }
  if (store_ == nullptr) return Verdict::Error(Outcome::kSystemError, "no store");
  out->clear();
  for (int32_t i = 0; i < config->write_queue_nums; ++i) {
    QueueStats q;
    q.queue_id = i;
    q.min_offset = std::max<int64_t>(0, store_->GetMinOffsetInQueue(topic, i).value());
    q.max_offset = std::max<int64_t>(0, store_->GetMaxOffsetInQueue(topic, i).value());
    if (q.max_offset > 0) {
      auto t = store_->GetMessageStoreTime(topic, i, QueueOffset(q.max_offset - 1));
      q.last_update_timestamp = t.ok() ? *t : -1;  // Java's getStoreTime: -1 when unreadable
    }
    out->push_back(q);
  }
  return Verdict::Ok();
}

std::vector<std::string> TopicService::SystemTopics() const {
  std::set<std::string> all = {std::string(kAutoCreateTopicKey),
                               std::string(kScheduleTopic),
                               std::string(kBenchmarkTopic),
                               std::string(kTransHalfTopic),
                               std::string(kTraceTopic),
                               std::string(kTransOpHalfTopic),
                               std::string(kTransCheckMaxTimeTopic),
                               std::string(kSelfTestTopic),
                               std::string(kOffsetMovedEventTopic)};
  all.insert(extra_system_topics_.begin(), extra_system_topics_.end());
  return {all.begin(), all.end()};
}

bool TopicService::IsExtraSystemTopic(std::string_view name) const {
  for (const std::string& t : extra_system_topics_) {
    if (t == name) return true;
  }
  return false;
}

}  // namespace rocketstore::broker
