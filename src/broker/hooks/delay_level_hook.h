// File: broker/hooks/delay_level_hook.h
//
// DelayLevelHook: RocketMQ's delay-level rewrite (4.9.8 CommitLog.asyncPutMessage, 5.x
// HookUtils.handleScheduleMessage). A message with DELAY = n > 0 whose transaction type is
// NOT_TYPE or COMMIT_TYPE is stored in SCHEDULE_TOPIC_XXXX queue n - 1 with REAL_TOPIC /
// REAL_QID (its topic and queue) added to its properties; ScheduleDeliveryService puts it
// back into that topic and queue when the level's delay has passed. DELAY = 0 (or absent):
// delivered now. Delay wins over timer properties: a rewritten message loses TIMER_DELIVER_MS,
// TIMER_DELAY_SEC and TIMER_DELAY_MS, as in RocketMQ 5.
//
// Origins (PutContext::origin):
//   kClient    a DELAY that is not a number, is negative, or names a level past the last
//              is refused (kMessageIllegal, naming DELAY and the levels) and nothing is
//              stored. RocketMQ caps silently; rocketstore tells the producer. Except for
//              sends to a %RETRY% topic (the consumer's fallback when send-back fails
//              computes DELAY = 3 + reconsumeTimes): capped at the last level, as Java does.
//              A batch with DELAY > 0 is refused (Java: MESSAGE_ILLEGAL).
//   kSendBack, kSystem   the broker's own re-puts: capped at the last level; a negative
//              DELAY means now.
//   kScheduled a delay or timer falling due: never touched (it keeps its DELAY).
//
// Thread-safety: immutable; BeforePut from any thread.
#pragma once

#include "broker/hooks/put_pipeline.h"
#include "broker/schedule/delay_level_table.h"

namespace rocketstore::broker {

class DelayLevelHook final : public PutHook {
 public:
  explicit DelayLevelHook(DelayLevelTable levels) : levels_(std::move(levels)) {}
  std::string_view name() const override { return "delay-level"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override;

 private:
  const DelayLevelTable levels_;
};

}  // namespace rocketstore::broker
