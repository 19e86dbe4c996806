// The drivers of background services. Timing-based by nature: every wait below is bounded
// generously (seconds) and only checks that something happens well before a much longer
// timeout would have made it happen, never how fast.
#include "base/service_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace rocketstore {
namespace {

using namespace std::chrono_literals;

// Polls `cond` for up to 5 s.
template <typename F>
bool Eventually(F cond) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return cond();
}

TEST(ServiceRunnerTest, RunsEveryIntervalAndAtOnceWhenWoken) {
  std::atomic<int> steps{0};
  ServiceRunner r("t", 60s, [&] { steps++; });
  r.Start();
  // The first step comes after the interval (60 s) unless woken.
  r.Wake();
  EXPECT_TRUE(Eventually([&] { return steps.load() >= 1; }));
  r.Stop();
  const int after_stop = steps.load();
  r.Wake();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(steps.load(), after_stop);  // no step after Stop
}

// Work published by a producer: `available` units; the step consumes them all.
struct Work {
  std::atomic<int> available{0};
  std::atomic<int> done{0};
  bool Step() {
    const int n = available.exchange(0);
    done += n;
    return n > 0;
  }
  bool HasWork() const { return available.load() > 0; }
};

TEST(WakeableRunnerTest, SleepsUntilWokenThenDrainsEverything) {
  Work w;
  WakeableRunner r(
      "t", 60s, [&] { return w.Step(); }, [&] { return w.HasWork(); });
  r.Start();
  std::this_thread::sleep_for(10ms);  // let it fall asleep (60 s idle timeout)
  for (int i = 0; i < 3; ++i) {
    w.available += 5;
    r.Wake();
    EXPECT_TRUE(Eventually([&] { return w.done.load() == 5 * (i + 1); }));
  }
  r.Stop();
}

// Producers publishing every 300 us while the runner naps 2 ms between rounds: whether a
// Wake() finds it busy, napping (no signal sent) or asleep, no unit is left behind.
TEST(WakeableRunnerTest, NappingLosesNoWork) {
  Work w;
  WakeableRunner r(
      "t", 60s, [&] { return w.Step(); }, [&] { return w.HasWork(); },
      std::chrono::milliseconds(2));
  r.Start();
  for (int i = 0; i < 50; ++i) {
    w.available += 1;
    r.Wake();
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  EXPECT_TRUE(Eventually([&] { return w.done.load() == 50; }));
  // After a quiet spell it is asleep; a Wake() still gets it going at once.
  std::this_thread::sleep_for(20ms);
  w.available += 7;
  r.Wake();
  EXPECT_TRUE(Eventually([&] { return w.done.load() == 57; }));
  r.Stop();
}

TEST(WakeableRunnerTest, StopReturnsPromptlyFromALongSleep) {
  Work w;
  WakeableRunner r(
      "t", 3600s, [&] { return w.Step(); }, [&] { return w.HasWork(); },
      std::chrono::milliseconds(1));
  r.Start();
  std::this_thread::sleep_for(10ms);
  const auto t0 = std::chrono::steady_clock::now();
  r.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

}  // namespace
}  // namespace rocketstore
