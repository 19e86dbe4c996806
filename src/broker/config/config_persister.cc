#include "broker/config/config_persister.h"

#include <chrono>

#include "log/log.h"

namespace rocketstore::broker {

void ConfigPersister::Add(ConfigManager& manager, int64_t min_interval_ms) {
  std::lock_guard lock(step_mu_);
  Entry e;
  e.manager = &manager;
  e.min_interval_ms = min_interval_ms;
  entries_.push_back(std::move(e));
  if (min_interval_ms == 0) manager.SetChangeListener([this] { Wake(); });
}

Status ConfigPersister::PersistEntry(Entry& e, int64_t now_ms) {
  Status s = e.manager->Persist();
  std::lock_guard lock(stats_mu_);
  e.last = s;
  if (s.ok()) {
    e.last_ok_ms = now_ms;
    ++writes_;
  } else {
    e.failed_at = ++failures_;
  }
  // The most recent error among the managers whose latest write failed.
  last_error_ = Status::OK();
  uint64_t latest = 0;
  for (const Entry& other : entries_) {
    if (!other.last.ok() && other.failed_at > latest) {
      latest = other.failed_at;
      last_error_ = other.last;
    }
  }
  return s;
}

Status ConfigPersister::RunOnce(int64_t now_ms) {
  std::lock_guard lock(step_mu_);
  Status first;
  for (Entry& e : entries_) {
    if (!e.has_baseline) {
      e.has_baseline = true;
      e.last_ok_ms = now_ms;
    }
    if (!e.manager->dirty()) continue;
    if (e.min_interval_ms > 0 && now_ms - e.last_ok_ms < e.min_interval_ms) continue;
    Status s = PersistEntry(e, now_ms);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

Status ConfigPersister::PersistAll() {
  std::lock_guard lock(step_mu_);
  const int64_t now_ms = clock_.MonotonicNanos() / 1000000;
  Status first;
  for (Entry& e : entries_) {
    if (!e.manager->dirty()) continue;
    Status s = PersistEntry(e, now_ms);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

void ConfigPersister::Start() {
  std::lock_guard lock(runner_mu_);
  if (runner_) return;
  runner_ = std::make_unique<ServiceRunner>(
      "config-persist", std::chrono::milliseconds(options_.step_interval_ms), [this] {
        // The error is kept (last_error) and the write retried at the next step; the
        // operator sees each failure in the log.
        if (Status s = RunOnce(clock_.MonotonicNanos() / 1000000); !s.ok()) {
          RS_LOG_ERROR("broker: writing a config file failed, retrying error=\"{}\"", s.ToString());
        }
      });
  runner_->Start();
}

void ConfigPersister::Stop() {
  std::unique_ptr<ServiceRunner> runner;
  {
    std::lock_guard lock(runner_mu_);
    runner = std::move(runner_);
  }
  if (runner) runner->Stop();
}

void ConfigPersister::Wake() {
  {
    std::lock_guard lock(stats_mu_);
    ++wake_requests_;
  }
  std::lock_guard lock(runner_mu_);
  if (runner_) runner_->Wake();
}

Status ConfigPersister::last_error() const {
  std::lock_guard lock(stats_mu_);
  return last_error_;
}

uint64_t ConfigPersister::failures() const {
  std::lock_guard lock(stats_mu_);
  return failures_;
}

uint64_t ConfigPersister::writes() const {
  std::lock_guard lock(stats_mu_);
  return writes_;
}

uint64_t ConfigPersister::wake_requests() const {
  std::lock_guard lock(stats_mu_);
  return wake_requests_;
}

}  // namespace rocketstore::broker
