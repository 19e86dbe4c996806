#include "broker/hooks/timer_hook.h"

#include <optional>
#include <span>

#include "broker/system_topics.h"
#include "store/format/properties.h"
#include "timer/timer_format.h"

namespace rocketstore::broker {

namespace {

using timer::kPropTimerDelayMs;
using timer::kPropTimerDelaySec;
using timer::kPropTimerDeliverMs;

Verdict Illegal(std::string remark) {
  return Verdict::Error(Outcome::kMessageIllegal, std::move(remark));
}

std::string Days(int64_t sec) {
  return std::to_string(sec) + " s = " + std::to_string(sec / 86400) + " days";
}

}  // namespace

int64_t TimerHook::RoundUp(int64_t deliver_ms, int64_t precision_ms) {
  const int64_t r = deliver_ms % precision_ms;
  return r == 0 ? deliver_ms : deliver_ms - r + precision_ms;
}

Verdict TimerHook::BeforePut(const PutContext& context, DraftMessage& message) {
  if (context.origin == PutOrigin::kSendBack || context.origin == PutOrigin::kScheduled) {
    return Verdict::Ok();
  }
  const std::string_view props = message.properties();
  static constexpr std::string_view kNames[] = {
      kPropTimerDelaySec,     kPropTimerDelayMs,      kPropTimerDeliverMs,
      format::kPropertyDelay, timer::kPropTimerOutMs, timer::kPropTimerDelUniqKey};
  std::optional<std::string_view> v[6];
  // The three timer names first: most sends carry none, and end here.
  message.FindProperties(std::span(kNames).first(3), std::span(v).first(3));
  if (!v[0] && !v[1] && !v[2]) return Verdict::Ok();
  message.FindProperties(std::span(kNames).subspan(3), std::span(v).subspan(3));
  if (std::optional<int64_t> level = v[3] ? timer::ParseLong(*v[3]) : std::nullopt;
      level && *level > 0) {
    format::PropertiesBuilder b = format::PropertiesBuilder::FromString(props);
    for (std::string_view n : {kPropTimerDelaySec, kPropTimerDelayMs, kPropTimerDeliverMs})
      b.Remove(n);
    message.SetProperties(b.Build());
    return Verdict::Ok();  // the delay level wins
  }
  if (message.topic() == kTimerTopic || v[4]) return Verdict::Ok();
  if (!options_.enabled) {
    return Illegal("timer messages are disabled on this broker (timerWheelEnable=false)");
  }
  if (context.batch) {
    return Illegal(
        "timer properties (TIMER_DELIVER_MS, TIMER_DELAY_SEC, TIMER_DELAY_MS) are not "
        "supported in a batch; send timer messages one by one");
  }
  const int which = v[0] ? 0 : v[1] ? 1 : 2;
  const std::string_view name = kNames[which];
  const std::optional<int64_t> value = timer::ParseLong(*v[which]);
  if (!value) {
    return Illegal(std::string(name) + " must be a decimal integer, got '" +
                   std::string(*v[which]) + "'");
  }
  if (*value < 0) {
    return Illegal(std::string(name) + " must not be negative, got " + std::to_string(*value));
  }
  const int64_t now = clock_.NowMillis();
  const int64_t max_ms = options_.max_delay_sec * 1000;
  int64_t ahead = 0;
  if (which == 0) {
    ahead = *value > max_ms / 1000 ? max_ms + 1 : *value * 1000;
  } else if (which == 1) {
    ahead = *value;
  } else {
    ahead = *value - now;
  }
  if (ahead > max_ms) {
    return Illegal(std::string(name) + "=" + std::to_string(*value) +
                   " is beyond the broker's limit of " + Days(options_.max_delay_sec) +
                   " ahead (timerMaxDelaySec)");
  }
  if (ahead <= options_.precision_ms) {
    if (v[5]) return Illegal("recall failed: the message's delivery time has passed");
    return Verdict::Ok();  // due within one tick: a plain message, delivered at once
  }
  const int64_t out_ms = RoundUp(now + ahead, options_.precision_ms);
  format::PropertiesBuilder b = message.PropertyMap();  // with the producer's WAIT, as 5.x
  b.Put(timer::kPropTimerOutMs, std::to_string(out_ms));
  b.Put(format::kPropertyRealTopic, message.topic());
  b.Put(format::kPropertyRealQueueId, std::to_string(message.queue_id));
  message.SetProperties(b.Build());
  message.SetTopic(std::string(kTimerTopic));
  message.queue_id = 0;
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
