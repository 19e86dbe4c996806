// File: broker/service/timer_service.h
//
// TimerService: delivers timer messages when they fall due, rolls far ones before their
// commit-log segment can be deleted, and recalls (cancels) pending ones. The index
// (timer/timer_index.h) is a store sink; this service is its consumer.
//
// RunOnce(now_ms), driven twice per precision tick by a ServiceRunner (tests call it with a
// FakeClock):
//   1. persists the progress snapshot of an earlier step once every re-put it covers is
//      durable (durable_offset() >= the snapshot's last re-put end), so a power loss never
//      loses a message the progress says was delivered;
//   2. index.Advance(now): split coarse buckets, load near windows;
//   3. index.PopDue(now): for each due entry in time order — a kCancel notes its key; a kAdd
//      whose key a cancel of the same tick names is dropped (recalled); any other kAdd is
//      read back and put to REAL_TOPIC / REAL_QID through Reputter::Put(kScheduled),
//      keeping its TIMER_* properties (REAL_TOPIC, REAL_QID and TIMER_ROLLED_FROM removed,
//      TIMER_ENQUEUE_MS / TIMER_DEQUEUE_MS set, as RocketMQ's convert). A put the store
//      refuses puts the rest back (retried next step) and returns the error;
//   4. takes the next progress snapshot (every progress_interval_ms);
//   5. every roll_check_interval_ms: re-appends (to the timer topic, TIMER_ROLL_TIMES + 1,
//      TIMER_ROLLED_FROM = old offset) the pending timers whose record lies below
//      roll_below(now) — the part of the commit log retention may delete soon.
// A message whose record is gone from the commit log (deleted under disk pressure before
// it could roll) is counted in stats().lost and skipped.
//
// Thread-safety: RunOnce from one thread; Recall from any thread (it only puts a record);
// stats from any thread.
// Ownership: index and reputter must outlive the service.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/clock.h"
#include "broker/service/reput.h"
#include "broker/stats/broker_stats.h"
#include "timer/timer_index.h"

namespace rocketstore::broker {

struct TimerServiceOptions {
  size_t max_per_step = 200'000;
  // How often delivery progress is snapshotted (and then persisted once durable): a crash
  // repeats at most the deliveries of about this long.
  int64_t progress_interval_ms = 1000;
  int64_t roll_check_interval_ms = 10 * 1000;
  size_t roll_batch = 5'000;  // per check: 500 rolls/s, enough for 10 M far timers
  int64_t max_delay_sec = int64_t{366} * 86400;  // timerMaxDelaySec (recall checks it)
  std::string broker_name = "broker-a";
  // Per-topic counting (rocketmq_timer_dequeue_total, rocketmq_timing_messages); null: off.
  // Must outlive the service.
  BrokerStats* stats = nullptr;
  // The commit-log end when the broker started: a timer whose record (or, for a rolled
  // copy, the record it was rolled from) lies at or past it was filed since the start
  // (counted by OnTimerEnqueue), so its delivery or recall settles it.
  int64_t started_at_offset = 0;
};

struct TimerServiceStats {
  int64_t delivered = 0;
  int64_t recalled = 0;
  int64_t rolled = 0;
  int64_t lost = 0;  // record no longer in the commit log
  int64_t progress_writes = 0;
};

struct RecallRequest {
  std::string topic;
  std::string recall_handle;
  std::string producer_group;
  format::HostAddress born_host;
};

struct RecallResult {
  Verdict verdict;
  std::string msg_id;  // the recalled message's id (UNIQ_KEY), on success
};

class TimerService {
 public:
  using DurableOffset = std::function<int64_t()>;
  using RollBelow = std::function<int64_t(int64_t now_ms)>;
  TimerService(Clock& clock, timer::TimerIndex& index, const Reputter& reputter,
               DurableOffset durable_offset, RollBelow roll_below, TimerServiceOptions options);
  // Recall answers TOPIC_NOT_EXIST for a topic this says does not exist (unset: all exist).
  void set_topic_exists(std::function<bool(std::string_view)> f) { topic_exists_ = std::move(f); }
  int64_t now_ms() const { return clock_.NowMillis(); }

  Status RunOnce(int64_t now_ms);

  // RECALL_MESSAGE (RocketMQ 5.3 RecallMessageProcessor): checks the handle (kIllegal-
  // Operation "recall handle is invalid", "recall failed, topic not match", "... timestamp
  // invalid") and puts a cancel record for it; the cancel is filed next to the timer and
  // drops it when both fall due. Recalling a delivered or unknown message succeeds too
  // (as in RocketMQ): nothing pending matches.
  RecallResult Recall(const RecallRequest& request, int64_t now_ms) const;

  TimerServiceStats stats() const;

 private:
  Status Deliver(const timer::TimerEntry& e, int64_t now_ms);
  // Whether the timer record at `offset` with `properties` was filed since the start.
  bool FiledSinceStart(int64_t offset, std::string_view properties) const;
  Status Roll(int64_t now_ms);

  Clock& clock_;
  std::function<bool(std::string_view)> topic_exists_;
  timer::TimerIndex& index_;
  const Reputter& reput_;
  const DurableOffset durable_offset_;
  const RollBelow roll_below_;
  const TimerServiceOptions options_;
  struct Pending {
    timer::TimerProgress progress;
    int64_t need_durable = 0;
  };
  std::optional<Pending> pending_;
  timer::TimerProgress persisted_;
  int64_t last_put_end_ = 0;
  int64_t last_roll_ms_ = 0;
  int64_t last_snapshot_ms_ = INT64_MIN / 2;
  std::atomic<int64_t> delivered_{0}, recalled_{0}, rolled_{0}, lost_{0}, progress_writes_{0};
};

// The roll boundary the broker uses: the start of the first commit-log segment (in
// `commit_log_dir`, by name) modified within `min_age_ms` of now — the records below it
// are in segments retention may delete within fileReservedTime - min_age_ms. The newest
// segment's start when all are older (the active segment is never deleted); 0 when the
// directory cannot be read (nothing rolls this round).
int64_t CommitLogRollBoundary(FileSystem& fs, const std::string& commit_log_dir, int64_t now_ms,
                              int64_t min_age_ms);

}  // namespace rocketstore::broker
