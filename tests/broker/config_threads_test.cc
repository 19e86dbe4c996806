// The config managers and ConfigPersister under concurrency (labelled `threads`: the
// ThreadSanitizer build runs these): several threads mutate while the persister steps
// and its runner runs; after a final PersistAll every change is on disk.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "broker/metadata.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

TEST(ConfigThreadsTest, ConcurrentMutationsWhilePersistingLoseNothing) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK(fs.CreateDirs("/s/config"));
  TopicConfigManager topics(fs, clock, "/s/config/topics.json");
  SubscriptionGroupManager groups(fs, clock, "/s/config/subscriptionGroup.json");
  ConsumerOffsetManager offsets(fs, clock, "/s/config/consumerOffset.json");
  ConfigPersister persister(clock, ConfigPersister::Options{.step_interval_ms = 1});
  persister.Add(topics, 0);
  persister.Add(groups, 0);
  persister.Add(offsets, 1);
  persister.Start();

  constexpr int kThreads = 4;
  constexpr int kPerThread = 200;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        TopicConfig c;
        c.name = "T" + std::to_string(t) + "_" + std::to_string(i);
        topics.Upsert(c);
        groups.FindOrCreate("G" + std::to_string(t) + "_" + std::to_string(i % 50));
        offsets.Commit("G", "T", t, i);
        if (i % 10 == 0) topics.Delete("T" + std::to_string(t) + "_" + std::to_string(i));
        clock.AdvanceMillis(1);
      }
      done.fetch_add(1);
    });
  }
  // An explicit stepping thread too: at least one step races the writers.
  std::thread stepper([&] {
    do {
      persister.RunOnce(clock.MonotonicNanos() / 1000000).IgnoreError();
    } while (done.load() < kThreads);
  });
  for (auto& w : writers) w.join();
  stepper.join();
  persister.Stop();
  ASSERT_OK(persister.PersistAll());
  EXPECT_OK(persister.last_error());
  EXPECT_GE(persister.writes(), 1u);
  EXPECT_FALSE(topics.dirty());

  TopicConfigManager t2(fs, clock, "/s/config/topics.json");
  SubscriptionGroupManager g2(fs, clock, "/s/config/subscriptionGroup.json");
  ConsumerOffsetManager o2(fs, clock, "/s/config/consumerOffset.json");
  ASSERT_OK(t2.Load());
  ASSERT_OK(g2.Load());
  ASSERT_OK(o2.Load());
  EXPECT_EQ(t2.List().size(), static_cast<size_t>(kThreads * (kPerThread - kPerThread / 10)));
  EXPECT_EQ(t2.List(), topics.List());
  EXPECT_EQ(g2.List().size(), static_cast<size_t>(kThreads * 50));
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(o2.Query("G", "T", t), kPerThread - 1);
  EXPECT_EQ(t2.data_version(), topics.data_version());
}

}  // namespace
}  // namespace rocketstore::broker
