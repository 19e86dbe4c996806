// File: broker/config/config_persister.h
//
// ConfigPersister: writes the broker's dirty config managers (topics, subscription
// groups, consumer offsets...) off the io threads, one write at a time.
//
//   RunOnce(now_ms)  one step: persists every registered manager that is dirty and due.
//                    A manager added with min_interval_ms == 0 is due at every step (a
//                    topic or group change is written at the next step, and the change
//                    Wake()s the runner so that step comes at once); one added with an
//                    interval (consumer offsets: 5000, RocketMQ's
//                    flushConsumerOffsetInterval) is due when that long has passed since
//                    its last successful write (since the first step, at first).
//                    A failed write is retried at the next step; its error is kept (see
//                    last_error()) and the manager stays dirty, so nothing is lost.
//   PersistAll()     persists every dirty manager now, due or not (a clean shutdown).
//   Start()/Stop()   a ServiceRunner ("config-persist") calling RunOnce every
//                    step_interval_ms (or sooner on Wake()), with the clock's monotonic
//                    time. Stop() waits for a step in progress; call PersistAll() after
//                    it for the final write.
//
// Wiring (the broker): Add(topics, 0), Add(groups, 0), Add(offsets, 5000); Start() after
// loading; on shutdown Stop() then PersistAll(); report last_error() (e.g. in the
// broker's runtime info / logs) when it is not OK.
//
// Ownership: the managers and the clock must outlive the persister.
// Thread-safety: Add() before Start() and before the managers are shared; RunOnce,
// PersistAll, Wake and the accessors from any thread (RunOnce/PersistAll serialised);
// Start/Stop from one owner thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/clock.h"
#include "base/service_runner.h"
#include "base/status.h"
#include "broker/config/config_manager.h"

namespace rocketstore::broker {

class ConfigPersister {
 public:
  struct Options {
    int64_t step_interval_ms = 1000;  // the runner's period when not woken
  };

  explicit ConfigPersister(Clock& clock) : ConfigPersister(clock, Options{}) {}
  ConfigPersister(Clock& clock, Options options) : clock_(clock), options_(options) {}
  ~ConfigPersister() { Stop(); }
  ConfigPersister(const ConfigPersister&) = delete;
  ConfigPersister& operator=(const ConfigPersister&) = delete;

  // Registers a manager (see the file comment). With min_interval_ms == 0 it sets the
  // manager's change listener to Wake().
  void Add(ConfigManager& manager, int64_t min_interval_ms);

  // One step (see the file comment). Returns the first error of this step (every due
  // manager is tried), OK when all due writes succeeded or nothing was due.
  Status RunOnce(int64_t now_ms);
  // Persists every dirty manager now. Returns the first error (all are tried).
  Status PersistAll();

  void Start();
  void Stop();
  // Asks for a step now (any thread; no-op while not started).
  void Wake();

  // The error of the latest failed write of a manager that has not written successfully
  // since; OK when every manager's latest write succeeded (or none was tried).
  Status last_error() const;
  // Failed writes so far.
  uint64_t failures() const;
  // Successful writes so far.
  uint64_t writes() const;
  // Wake() calls so far (started or not): how a test sees the change listener at work.
  uint64_t wake_requests() const;

 private:
  struct Entry {
    ConfigManager* manager = nullptr;
    int64_t min_interval_ms = 0;
    bool has_baseline = false;
    int64_t last_ok_ms = 0;  // of the last successful write (or the first step)
    Status last;             // of the latest write
    uint64_t failed_at = 0;  // failures() when `last` was recorded
  };
  // Persists one manager and records the outcome. REQUIRES: step_mu_ held.
  Status PersistEntry(Entry& e, int64_t now_ms);

  Clock& clock_;
  const Options options_;
  std::vector<Entry> entries_;  // fixed after Start(); GUARDED_BY(step_mu_) for writes
  std::mutex step_mu_;          // one RunOnce / PersistAll at a time

  mutable std::mutex stats_mu_;
  Status last_error_;           // GUARDED_BY(stats_mu_)
  uint64_t failures_ = 0;       // GUARDED_BY(stats_mu_)
  uint64_t writes_ = 0;         // GUARDED_BY(stats_mu_)
  uint64_t wake_requests_ = 0;  // GUARDED_BY(stats_mu_)

  std::mutex runner_mu_;
  std::unique_ptr<ServiceRunner> runner_;  // GUARDED_BY(runner_mu_)
};

}  // namespace rocketstore::broker
