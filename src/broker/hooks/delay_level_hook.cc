#include "broker/hooks/delay_level_hook.h"

#include "broker/system_topics.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

namespace {
constexpr std::string_view kTimerProperties[] = {"TIMER_DELIVER_MS", "TIMER_DELAY_SEC",
                                                 "TIMER_DELAY_MS"};

}  // namespace

Verdict DelayLevelHook::BeforePut(const PutContext& context, DraftMessage& message) {
  if (context.origin == PutOrigin::kScheduled) return Verdict::Ok();
  // NOT_TYPE and COMMIT_TYPE only, as Java: a half or rollback record is not delayed.
  if (!format::TakesQueueOffset(message.sys_flag)) return Verdict::Ok();
  // A half is delayed when committed (its commit re-put passes this hook), not before.
  if (message.topic() == kTransHalfTopic) return Verdict::Ok();
  const auto delay = message.FindProperty(format::kPropertyDelay);
  if (!delay) return Verdict::Ok();
  const std::string levels_hint = "the broker has " + std::to_string(levels_.max_level()) +
                                  " delay levels (1.." + std::to_string(levels_.max_level()) +
                                  ": " + levels_.text() + "); 0 delivers now";
  const auto parsed = ParseDelayLevel(*delay);
  if (!parsed) {
    return Verdict::Error(Outcome::kMessageIllegal, "property DELAY=\"" + std::string(*delay) +
                                                        "\" is not a number: " + levels_hint);
  }
  int level = *parsed;
  const bool client = context.origin == PutOrigin::kClient;
  const bool capped = !client || message.topic().starts_with(kRetryGroupTopicPrefix);
  if (level < 0 && client) {
    return Verdict::Error(Outcome::kMessageIllegal, "property DELAY=" + std::to_string(level) +
                                                        " is negative: " + levels_hint);
  }
  if (level <= 0) return Verdict::Ok();
  if (context.batch) {
    return Verdict::Error(Outcome::kMessageIllegal,
                          "property DELAY is not allowed in a batch: send delayed messages one "
                          "by one");
  }
  // As 4.9.8's CommitLog: puts into the message's HashMap, then messageProperties2String
  // (so REAL_TOPIC / REAL_QID land in HashMap order, byte-identical to a Java broker's). The
  // map still holds the producer's WAIT (DraftMessage::PropertyMap).
  format::PropertiesBuilder props = message.PropertyMap();
  if (level > levels_.max_level()) {
    if (!capped) {
      return Verdict::Error(Outcome::kMessageIllegal,
                            "property DELAY=" + std::to_string(level) +
                                " is past the last delay level: " + levels_hint);
    }
    level = levels_.max_level();
    props.Put(format::kPropertyDelay, std::to_string(level));
  }
  for (std::string_view name : kTimerProperties) props.Remove(name);
  props.Put(format::kPropertyRealTopic, message.topic());
  props.Put(format::kPropertyRealQueueId, std::to_string(message.queue_id));
  message.SetProperties(props.Build());
  message.SetTopic(std::string(kScheduleTopic));
  message.queue_id = QueueOfDelayLevel(level);
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
