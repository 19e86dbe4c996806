// RebalanceLockManager under concurrent callers (the handlers run on several io
// threads): clients race for the same queues, and a client that was granted a queue
// marks itself its only holder until it unlocks. Two holders at once, or a lock granted
// while another client holds it unexpired, fail the test. The clock does not move, so
// nothing expires: only unlocks hand a queue over.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <thread>
#include <vector>

#include "broker/service/rebalance_lock_manager.h"

namespace rocketstore::broker {
namespace {

TEST(RebalanceLockThreadsTest, AQueueHasOneHolderAtATime) {
  constexpr int kClients = 4, kQueues = 6, kRounds = 2000;
  FakeClock clock;
  RebalanceLockManager locks(clock);
  std::vector<QueueRef> queues;
  for (int q = 0; q < kQueues; ++q) queues.push_back({"T", "b", q});
  std::array<std::atomic<int>, kQueues> holder;
  for (auto& h : holder) h.store(-1);
  std::atomic<int> violations{0}, grants{0}, refusals{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      const std::string id = "client-" + std::to_string(c);
      for (int round = 0; round < kRounds; ++round) {
        // Each round asks for a different mix, to interleave batches.
        std::vector<QueueRef> want;
        for (int q = 0; q < kQueues; ++q) {
          if ((q + round + c) % 3 != 0) want.push_back(queues[q]);
        }
        auto got = locks.TryLockBatch("G", want, id);
        if (!got.ok()) {
          violations.fetch_add(1);
          continue;
        }
        if (got->size() < want.size()) refusals.fetch_add(1);
        for (const QueueRef& q : *got) {
          int expected = -1;
          if (!holder[q.queue_id].compare_exchange_strong(expected, c)) violations.fetch_add(1);
          grants.fetch_add(1);
        }
        // Hold the queues a moment so that the other clients' attempts overlap.
        for (int i = 0; i < 3; ++i) std::this_thread::yield();
        for (const QueueRef& q : *got) holder[q.queue_id].store(-1);
        if (!locks.UnlockBatch("G", *got, id).ok()) violations.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(grants.load(), kRounds);  // queues changed hands
  EXPECT_GT(refusals.load(), 0);      // and clients did meet a held lock
  EXPECT_EQ(locks.entry_count(), 0u);
}

// Renewals and takeovers racing with the sweep: RunOnce never drops a live lock.
TEST(RebalanceLockThreadsTest, SweepNeverDropsALiveLock) {
  FakeClock clock;
  RebalanceLockManager locks(clock, 1000);
  const std::vector<QueueRef> q = {{"T", "b", 0}};
  ASSERT_EQ(locks.TryLockBatch("G", q, "owner")->size(), 1u);
  std::atomic<bool> stop{false};
  std::atomic<int> stolen{0}, sweeps{0}, attempts{0};
  std::thread sweeper([&] {
    while (!stop.load()) {
      locks.RunOnce(locks.NowMs());
      sweeps.fetch_add(1);
    }
  });
  std::thread thief([&] {
    while (!stop.load()) {
      auto got = locks.TryLockBatch("G", q, "thief");
      if (got.ok() && !got->empty()) stolen.fetch_add(1);
      attempts.fetch_add(1);
    }
  });
  // Until both racers ran a good while (bounded: 2 s of simulated renewals at most).
  for (int i = 0; i < 2000000 && (sweeps.load() < 2000 || attempts.load() < 2000); ++i) {
    clock.AdvanceMillis(1);  // the owner renews every ms: never 1000 ms old
    auto got = locks.TryLockBatch("G", q, "owner");
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->size(), 1u) << i;
  }
  stop.store(true);
  sweeper.join();
  thief.join();
  EXPECT_EQ(stolen.load(), 0);
}

}  // namespace
}  // namespace rocketstore::broker
