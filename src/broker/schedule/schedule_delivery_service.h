// File: broker/schedule/schedule_delivery_service.h
//
// ScheduleDeliveryService: delivers delay-level messages when they fall due (RocketMQ
// 4.9.8's ScheduleMessageService, one DeliverDelayedMessageTimerTask per level). Level n's
// messages wait in SCHEDULE_TOPIC_XXXX queue n - 1 (DelayLevelHook put them there), each
// consume-queue unit's tags code being its deliver time (DelayLevelTable::TagsCode).
//
// RunOnce(now_ms), per level, from the level's next offset: reads the queue's units in
// order; a unit whose deliver time (corrected as Java's correctDeliverTimestamp: one
// further than the level's delay from now counts as now — a clock set back) is past
// now_ms is re-put to its REAL_TOPIC / REAL_QID through Reputter::Put(kScheduled) with its
// properties string unchanged (it keeps DELAY, REAL_TOPIC, REAL_QID, as Java's re-put
// does); the first unit not due yet ends the level's step. The level's offset advances
// only past a stored re-put. A failed re-put (store not writable, busy) stops the level
// and is tried again at a later step: nothing is skipped or lost. Skipped with a log line
// (as Java skips them): a record that is gone (retention) or unreadable, one without a
// usable REAL_TOPIC / REAL_QID, one whose real topic is the transaction half topic, and a
// re-put the pipeline refuses for good (kMessageIllegal, kInvalidArgument, kNoPermission).
//
// Progress: the in-memory offsets advance at once; DelayOffsetManager (delayOffset.json)
// gets a level's offset only when the re-puts below it are durable in the commit log
// (MessageStore::FlushedPhysicalOffset), so a persisted offset never runs ahead of what a
// power loss keeps. After a crash, the messages between the persisted offset and the
// delivered one are delivered again (duplicates, never losses). At construction each
// level starts from the manager's offset, clamped to the queue's [min, max] (Java's
// correctDelayOffset).
//
// Start()/Stop(): a ServiceRunner ("broker-schedule") steps every tick_ms (default 50:
// a message is delivered at most ~tick_ms after its due time) with the clock's wall time,
// at once again while a step hit its budget. OnArrival wakes it for a level whose delay is
// shorter than the tick. After the store was closed cleanly, CommitAllPending() commits the
// offsets still waiting for durability (the close flushed the commit log).
//
// Ownership: the table, store, reputter, manager and clock must outlive the service.
// Thread-safety: RunOnce and CommitAllPending from one thread at a time (the runner's, or
// a test's); Levels(), OnArrival and the counters from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "base/clock.h"
#include "base/service_runner.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/schedule/delay_level_table.h"
#include "broker/service/reput.h"
#include "store/message_store.h"

namespace rocketstore::broker {

class ScheduleDeliveryService {
 public:
  struct Options {
    int64_t tick_ms = 50;
    // Messages delivered per level per step at most (a step stays short under a backlog).
    int max_per_level_step = 1024;
    // A failed re-put is tried again after this long (Java's DELAY_FOR_A_WHILE).
    int64_t retry_after_ms = 100;
  };
  static constexpr int64_t kNothingPending = std::numeric_limits<int64_t>::max();

  // One level as the inspect view and admin requests see it.
  struct LevelView {
    int level = 0;
    int64_t delay_ms = 0;
    int64_t next_offset = 0;                // next unit to deliver (in memory)
    int64_t committed_offset = 0;           // what delayOffset.json gets (durable re-puts)
    int64_t max_offset = 0;                 // the queue's end
    int64_t next_due_ms = kNothingPending;  // of the unit at next_offset, when known
  };

  ScheduleDeliveryService(const DelayLevelTable& levels, MessageStore& store,
                          const Reputter& reputter, DelayOffsetManager& offsets, Clock& clock)
      : ScheduleDeliveryService(levels, store, reputter, offsets, clock, Options{}) {}
  ScheduleDeliveryService(const DelayLevelTable& levels, MessageStore& store,
                          const Reputter& reputter, DelayOffsetManager& offsets, Clock& clock,
                          Options options);
  ~ScheduleDeliveryService() { Stop(); }
  ScheduleDeliveryService(const ScheduleDeliveryService&) = delete;
  ScheduleDeliveryService& operator=(const ScheduleDeliveryService&) = delete;

  // One step at wall time now_ms (see the file comment). Returns the earliest time a
  // pending message falls due: <= now_ms when there is more to do now, kNothingPending
  // when every level is caught up.
  int64_t RunOnce(int64_t now_ms);
  // Commits every level's delivered offset (REQUIRES: every re-put is durable, e.g. the
  // store was closed cleanly).
  void CommitAllPending();

  void Start();
  void Stop();
  // The store's arrival listener, for SCHEDULE_TOPIC_XXXX (any thread, cheap).
  void OnArrival(int32_t queue_id);

  std::vector<LevelView> Levels() const;
  uint64_t delivered() const { return delivered_.load(std::memory_order_relaxed); }
  uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }
  uint64_t failed_reputs() const { return failed_.load(std::memory_order_relaxed); }

 private:
  struct Level {
    int level = 0;
    int64_t delay_ms = 0;
    int64_t next = 0;       // next queue offset to look at
    int64_t committed = 0;  // last offset given to the manager
    int64_t next_due = kNothingPending;
    // (commit-log end of a re-put, level offset after it), oldest first.
    std::deque<std::pair<int64_t, int64_t>> awaiting_durability;
  };
  enum class UnitOutcome { kDelivered, kSkipped, kNotDue, kRetryLater };

  int64_t StepLevel(Level& l, int64_t now_ms);  // REQUIRES: mu_ held
  UnitOutcome DeliverUnit(Level& l, const format::ConsumeQueueUnit& unit, int64_t now_ms,
                          int64_t* reput_end);
  void Advance(Level& l, int64_t reput_end);      // REQUIRES: mu_ held
  void CommitDurable(Level& l, int64_t durable);  // REQUIRES: mu_ held

  const DelayLevelTable& table_;
  MessageStore& store_;
  const Reputter& reputter_;
  DelayOffsetManager& offsets_;
  Clock& clock_;
  const Options options_;
  mutable std::mutex mu_;
  std::vector<Level> levels_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> delivered_{0}, skipped_{0}, failed_{0};
  std::unique_ptr<ServiceRunner> runner_;
};

}  // namespace rocketstore::broker
