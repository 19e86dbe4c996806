// File: base/service_runner.h
//
// A background service in rocketstore is a step function plus this generic driver.
// The service class exposes `RunOnce(now)` (does one round of work, no sleeping) and is
// tested by calling it directly with a FakeClock; in production a ServiceRunner calls it
// on its own thread every `interval`, or sooner when Wake() is called.
//
//   ServiceRunner runner("flush-commitlog", std::chrono::milliseconds(500),
//                        [&] { flusher.RunOnce(clock.MonotonicNanos()); });
//   runner.Start();
//   ...
//   runner.Stop();   // waits for the current step; runs no further step
//
// Thread-safety: Start/Stop from one owner thread; Wake() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/thread_name.h"

namespace rocketstore {

namespace internal {
// What both runners share: a named thread running Loop(), a stop flag and a wake-up
// condition. Derived classes call Stop() in their destructor, before their own members
// (the step functions Loop uses) go away.
class RunnerThread {
 public:
  RunnerThread(const RunnerThread&) = delete;
  RunnerThread& operator=(const RunnerThread&) = delete;

  const std::string& name() const { return name_; }

  void Start() {
    std::lock_guard<std::mutex> l(mu_);
    if (thread_.joinable()) return;
    stop_ = false;
    thread_ = std::thread([this] {
      SetCurrentThreadName(name_);
      Loop();
    });
  }

  // Stops after the step in progress, if any; runs no further step. Idempotent.
  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

 protected:
  explicit RunnerThread(std::string name) : name_(std::move(name)) {}
  ~RunnerThread() = default;
  virtual void Loop() = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;   // GUARDED_BY(mu_)
  bool woken_ = false;  // GUARDED_BY(mu_)

 private:
  const std::string name_;
  std::thread thread_;
};
}  // namespace internal

class ServiceRunner final : public internal::RunnerThread {
 public:
  ServiceRunner(std::string name, std::chrono::nanoseconds interval, std::function<void()> step)
      : RunnerThread(std::move(name)), interval_(interval), step_(std::move(step)) {}
  ~ServiceRunner() { Stop(); }

  // Runs the next step now instead of at the end of the interval.
  void Wake() {
    {
      std::lock_guard<std::mutex> l(mu_);
      woken_ = true;
    }
    cv_.notify_one();  // after unlocking: the woken thread does not block on mu_ at once
  }

 private:
  void Loop() override {
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      cv_.wait_for(l, interval_, [this] { return stop_ || woken_; });
      if (stop_) break;
      woken_ = false;
      l.unlock();
      step_();
      l.lock();
    }
  }

  const std::chrono::nanoseconds interval_;
  const std::function<void()> step_;
};

// WakeableRunner: for event-driven services (the dispatcher). The step returns whether it
// made progress; while it does, the runner calls it again at once. When it did not, the
// runner sleeps until Wake() — called by whoever produced work, cheaply: Wake() only
// takes the lock when the runner is actually asleep — or until `idle_timeout` passes.
// `has_work` is checked after announcing sleep and before sleeping, so a Wake() that
// raced with the step cannot be lost.
//
// `nap` (optional): when the step made no progress the runner first naps this long
// *without* announcing sleep, checks `has_work`, and only then sleeps until Wake(). Under
// sustained load it therefore polls every `nap` and Wake() stays a fence and a load for
// the producers — signalling a condition variable per message cost the broker ~15 % of
// its io thread at 100 k sends/s. After a quiet spell the first Wake() still wakes it at
// once. (RocketMQ's reput service simply polls every 1 ms.)
class WakeableRunner final : public internal::RunnerThread {
 public:
  WakeableRunner(std::string name, std::chrono::nanoseconds idle_timeout,
                 std::function<bool()> step, std::function<bool()> has_work,
                 std::chrono::nanoseconds nap = std::chrono::nanoseconds(0))
      : RunnerThread(std::move(name)),
        idle_timeout_(idle_timeout),
        nap_(nap),
        step_(std::move(step)),
        has_work_(std::move(has_work)) {}
  ~WakeableRunner() { Stop(); }

  // Call after publishing new work. Costs a fence and a load when the runner is busy.
  void Wake() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!sleeping_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> l(mu_);
      woken_ = true;
    }
    cv_.notify_one();  // after unlocking: the woken thread does not block on mu_ at once
  }

 private:
  void Loop() override {
    while (true) {
      {
        std::lock_guard<std::mutex> l(mu_);
        if (stop_) return;
      }
      if (step_()) continue;
      if (nap_.count() > 0) {
        std::this_thread::sleep_for(nap_);
        if (has_work_()) continue;
      }
      std::unique_lock<std::mutex> l(mu_);
      sleeping_.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      if (!stop_ && !woken_ && !has_work_()) {
        cv_.wait_for(l, idle_timeout_, [this] { return stop_ || woken_; });
      }
      sleeping_.store(false, std::memory_order_relaxed);
      woken_ = false;
    }
  }

  const std::chrono::nanoseconds idle_timeout_;
  const std::chrono::nanoseconds nap_;
  const std::function<bool()> step_;
  const std::function<bool()> has_work_;
  std::atomic<bool> sleeping_{false};
};

}  // namespace rocketstore
