// File: broker/hooks/timer_hook.h
//
// TimerHook: turns a client's timer message (RocketMQ 5's TIMER_DELIVER_MS, TIMER_DELAY_SEC,
// TIMER_DELAY_MS; first found in that order of precedence: DELAY_SEC, DELAY_MS,
// DELIVER_MS, as HookUtils.transformTimerMessage) into a record of the timer topic
// `rmq_sys_wheel_timer` queue 0 carrying TIMER_OUT_MS (the delivery time rounded UP to
// the precision), REAL_TOPIC and REAL_QID. The timer index (timer/timer_index.h) files the
// record; the timer service puts it back to its real topic when it falls due.
//
//   - origin kSendBack / kScheduled: untouched (a due timer keeps its properties, as in
//     RocketMQ, and is not scheduled again).
//   - DELAY > 0 also set: the delay level wins (RocketMQ 5 HookUtils.checkIfTimerMessage):
//     the TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS properties are removed.
//   - the timer topic itself, or TIMER_OUT_MS already present: untouched (already a timer
//     record: a rolled copy or a due message passing again).
//   - a value that is not a decimal number, negative, or more than max_delay_sec ahead:
//     refused (kMessageIllegal) with a remark naming the property and the limit.
//   - a time within one precision tick of now (or past): stored as a plain message of its
//     topic, delivered at once. A recall (TIMER_DEL_UNIQKEY) for such a time is refused
//     as in RocketMQ.
//   - in a batch: refused (each message of a batch goes to the batch's one queue).
//
// Deviation: RocketMQ rounds the time DOWN (and an exact multiple one tick further down),
// so it may deliver up to a tick early; rocketstore rounds up and never delivers early.
//
// Thread-safety: stateless after construction. Ownership: `clock` must outlive the hook.
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.h"
#include "broker/hooks/put_pipeline.h"

namespace rocketstore::broker {

struct TimerHookOptions {
  bool enabled = true;                           // timerWheelEnable
  int64_t precision_ms = 100;                    // timerPrecisionMs (10 .. 60000)
  int64_t max_delay_sec = int64_t{366} * 86400;  // timerMaxDelaySec
};

class TimerHook final : public PutHook {
 public:
  TimerHook(Clock& clock, TimerHookOptions options) : clock_(clock), options_(options) {}
  std::string_view name() const override { return "timer"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override;

  // The delivery time a timer message is filed under: `deliver_ms` rounded up to a
  // multiple of the precision.
  static int64_t RoundUp(int64_t deliver_ms, int64_t precision_ms);

 private:
  Clock& clock_;
  const TimerHookOptions options_;
};

}  // namespace rocketstore::broker
