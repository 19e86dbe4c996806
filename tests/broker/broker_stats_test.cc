// BrokerStats (per-thread counters, cardinality cap) and StatsSampler (Java's
// StatsItem windows, the broker's per-second rates).
#include "broker/stats/broker_stats.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "broker/stats/stats_sampler.h"

// Allocations made by the calling thread (operator new replaced for this test binary), so
// a test can show a path allocates nothing. Not under clang's ThreadSanitizer: its static
// runtime defines operator new itself (a second definition does not link), so there the
// allocation checks are skipped (the ASan and release builds keep them).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RS_NO_NEW_REPLACEMENT 1
#endif
#endif
namespace {
thread_local uint64_t t_allocations = 0;
#ifdef RS_NO_NEW_REPLACEMENT
constexpr bool kCountsAllocations = false;
#else
constexpr bool kCountsAllocations = true;
#endif
}  // namespace

#ifndef RS_NO_NEW_REPLACEMENT

// Out of line, so that GCC does not see free() meet a `new` result (-Wmismatched-new-delete).
__attribute__((noinline)) void* operator new(std::size_t n) {
  ++t_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new[](std::size_t n) { return operator new(n); }
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace rocketstore::broker {
namespace {

TEST(BrokerStatsTest, NothingCountedIsAnEmptySnapshot) {
  BrokerStats stats;
  StatsSnapshot s = stats.Collect();
  EXPECT_TRUE(s.puts.empty());
  EXPECT_TRUE(s.gets.empty());
  EXPECT_TRUE(s.retries.empty());
  EXPECT_EQ(s.TotalPutMessages(), 0u);
}

TEST(BrokerStatsTest, PutsAreKeyedByTopicAndTypeWithASizeHistogram) {
  BrokerStats stats;
  stats.OnPut("T", MessageType::kNormal, 1, 100);
  stats.OnPut("T", MessageType::kNormal, 4, 4 * 2000);  // a batch of 2000-byte messages
  stats.OnPut("T", MessageType::kDelay, 1, 10 * 1024 * 1024);
  stats.OnPut("U", MessageType::kTransaction, 1, 1024);
  StatsSnapshot s = stats.Collect();
  ASSERT_EQ(s.puts.size(), 3u);
  const PutTotals& t = s.puts.at({"T", MessageType::kNormal});
  EXPECT_EQ(t.messages, 5u);
  EXPECT_EQ(t.bytes, 8100u);
  EXPECT_EQ(t.requests, 2u);
  EXPECT_EQ(t.size_buckets[0], 1u);                                            // <= 1 KiB
  EXPECT_EQ(t.size_buckets[1], 4u);                                            // <= 4 KiB
  EXPECT_EQ(s.puts.at({"T", MessageType::kDelay}).size_buckets.back(), 1u);    // > 4 MiB
  EXPECT_EQ(s.puts.at({"U", MessageType::kTransaction}).size_buckets[0], 1u);  // 1024 inclusive
  EXPECT_EQ(s.TotalPutMessages(), 7u);
  EXPECT_EQ(MessageTypeLabel(MessageType::kFifo), "fifo");
}

// The thread's last key is remembered (no hash for a repeat): alternating keys, the same
// topic with another type, a topic that is a prefix of the last, and the last again after
// them each count in their own cell.
TEST(BrokerStatsTest, TheLastKeyRememberedNeverCountsForAnother) {
  BrokerStats stats;
  const std::string topic = "Topic";  // counted through views of one buffer
  for (int i = 0; i < 3; ++i) {
    stats.OnPut(topic, MessageType::kNormal, 1, 10);
    stats.OnPut(std::string_view(topic).substr(0, 4), MessageType::kNormal, 2, 20);
    stats.OnPut(topic, MessageType::kDelay, 3, 30);
    stats.OnPut(topic, MessageType::kNormal, 4, 40);
  }
  StatsSnapshot s = stats.Collect();
  ASSERT_EQ(s.puts.size(), 3u);
  EXPECT_EQ(s.puts.at({"Topic", MessageType::kNormal}).messages, 15u);
  EXPECT_EQ(s.puts.at({"Topic", MessageType::kNormal}).requests, 6u);
  EXPECT_EQ(s.puts.at({"Topi", MessageType::kNormal}).messages, 6u);
  EXPECT_EQ(s.puts.at({"Topic", MessageType::kDelay}).messages, 9u);
}

TEST(BrokerStatsTest, GetsAndSendBacksAreKeyedByTopicAndGroup) {
  BrokerStats stats;
  stats.OnGet("T", "g1", 3, 300);
  stats.OnGet("T", "g1", 2, 200);
  stats.OnGet("T", "g2", 1, 10);
  stats.OnSendBack("T", "g1", false);
  stats.OnSendBack("T", "g1", true);
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.gets.at({"T", "g1"}).messages, 5u);
  EXPECT_EQ(s.gets.at({"T", "g1"}).bytes, 500u);
  EXPECT_EQ(s.gets.at({"T", "g1"}).requests, 2u);
  EXPECT_EQ(s.gets.at({"T", "g2"}).messages, 1u);
  EXPECT_EQ(s.TotalGetMessages(), 6u);
  EXPECT_EQ(s.retries.at({"T", "g1"}).send_backs, 2u);
  EXPECT_EQ(s.retries.at({"T", "g1"}).to_dlq, 1u);
}

TEST(BrokerStatsTest, TimersAndTransactionsAreKeyedByTopic) {
  BrokerStats stats;
  stats.OnTimerEnqueue("T");
  stats.OnTimerEnqueue("T");
  stats.OnTimerEnqueue("T");
  stats.OnTimerDequeue("T", /*settles=*/true);
  stats.OnTimerDequeue("T", /*settles=*/false);  // filed before the start
  stats.OnTimerRecalled("T");
  stats.OnTimerDequeue("U", /*settles=*/false);
  stats.OnTransactionEnd("X", true);
  stats.OnTransactionEnd("X", false);
  stats.OnTransactionEnd("X", true);
  StatsSnapshot s = stats.Collect();
  ASSERT_EQ(s.timers.size(), 2u);
  EXPECT_EQ(s.timers.at("T").enqueued, 3u);
  EXPECT_EQ(s.timers.at("T").dequeued, 2u);
  EXPECT_EQ(s.timers.at("T").settled, 2u);
  EXPECT_EQ(s.timers.at("T").Timing(), 1u);
  EXPECT_EQ(s.timers.at("U").Timing(), 0u);  // never below zero
  EXPECT_EQ(s.transactions.at("X").committed, 2u);
  EXPECT_EQ(s.transactions.at("X").rolled_back, 1u);
}

TEST(BrokerStatsTest, KeysPastTheCapAreFoldedIntoTheOverflowKeyAndCounted) {
  BrokerStats stats(2);
  stats.OnPut("a", MessageType::kNormal, 1, 1);
  stats.OnPut("b", MessageType::kNormal, 1, 1);
  stats.OnPut("c", MessageType::kNormal, 1, 1);
  stats.OnPut("d", MessageType::kNormal, 2, 2);
  stats.OnPut("c", MessageType::kNormal, 1, 1);  // cached: not counted as dropped again
  stats.OnPut("a", MessageType::kNormal, 1, 1);  // admitted keys keep counting
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.puts.size(), 3u);
  EXPECT_EQ(s.puts.at({"a", MessageType::kNormal}).messages, 2u);
  EXPECT_EQ(s.puts.at({std::string(BrokerStats::kOverflowKey), MessageType::kNormal}).messages, 4u);
  EXPECT_EQ(s.dropped_keys, 2u);
  EXPECT_EQ(stats.dropped_keys(), 2u);
  EXPECT_EQ(s.TotalPutMessages(), 7u);  // nothing lost, only folded
}

// Past the cap: a key counts once in dropped_keys (not once per message), and neither a
// remembered over-cap key nor a new one allocates anything once the thread's table of
// folded keys exists.
TEST(BrokerStatsTest, OverCapKeysCountOnceAndAllocateNothing) {
  BrokerStats stats(2);
  stats.OnPut("a", MessageType::kNormal, 1, 1);
  stats.OnPut("b", MessageType::kNormal, 1, 1);
  stats.OnPut("first-key-past-the-cap", MessageType::kNormal, 1, 1);  // allocates the table
  std::vector<std::string> topics;
  for (int i = 0; i < 1000; ++i) topics.push_back("a-rather-long-topic-name-" + std::to_string(i));
  const uint64_t before = t_allocations;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& t : topics) stats.OnPut(t, MessageType::kNormal, 2, 10);
  }
  stats.OnPut("a", MessageType::kNormal, 1, 1);  // an admitted key seen before
  if (kCountsAllocations) {
    EXPECT_EQ(t_allocations - before, 0u);
  }
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.dropped_keys, 1001u);  // keys, not the 3001 messages
  EXPECT_EQ(s.puts.size(), 3u);      // a, b, __overflow__
  EXPECT_EQ(s.puts.at({std::string(BrokerStats::kOverflowKey), MessageType::kNormal}).messages,
            1u + 3 * 1000 * 2);
  EXPECT_EQ(s.TotalPutMessages(), 4u + 6000u);
}

// A thread remembers at most 3072 folded keys per family; a further key is folded each
// time and counted each time (the documented upper bound), the remembered ones once.
TEST(BrokerStatsTest, PastTheRememberedKeysEachMessageOfANewKeyCountsAgain) {
  BrokerStats stats(1);
  stats.OnGet("admitted", "g", 1, 1);
  std::vector<std::string> topics;
  for (int i = 0; i < 4000; ++i) topics.push_back("t" + std::to_string(i));
  for (const std::string& t : topics) stats.OnGet(t, "g", 1, 1);
  EXPECT_EQ(stats.dropped_keys(), 4000u);
  for (int i = 0; i < 10; ++i) stats.OnGet(topics[i], "g", 1, 1);  // remembered
  EXPECT_EQ(stats.dropped_keys(), 4000u);
  stats.OnGet(topics[3999], "g", 1, 1);  // not remembered
  EXPECT_EQ(stats.dropped_keys(), 4001u);
  const uint64_t before = t_allocations;
  stats.OnGet(topics[3999], "g", 1, 1);
  if (kCountsAllocations) {
    EXPECT_EQ(t_allocations - before, 0u);  // the registry's mutex, no allocation
  }
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.gets.size(), 2u);
  EXPECT_EQ(s.TotalGetMessages(), 1u + 4000 + 10 + 2);
}

// A SYNC_FLUSH send resolves its key on the I/O thread and counts on the flusher: the
// key views BrokerStats' own copy, so the request's topic may be gone by then (ASan
// checks), and past the cap the count still goes to the overflow cell.
TEST(BrokerStatsTest, AResolvedPutKeyCountsOnAnotherThreadWithoutTheCallersString) {
  BrokerStats stats(1);
  BrokerStats::PutKey key, over;
  {
    std::string topic = "a-topic-name-longer-than-the-small-string-buffer";
    key = stats.ResolvePut(topic, MessageType::kFifo);
    std::string other = "another-topic-name-longer-than-the-small-string-buffer";
    over = stats.ResolvePut(other, MessageType::kNormal);
  }
  EXPECT_FALSE(key.overflow);
  EXPECT_TRUE(over.overflow);
  std::thread([&] {
    stats.OnPut(key, 3, 30);  // this thread's first count: its shard and cell are made
    const uint64_t before = t_allocations;
    stats.OnPut(over, 1, 10);  // the overflow cell: nothing to look up
    stats.OnPut(key, 1, 10);
    if (kCountsAllocations) {
      EXPECT_EQ(t_allocations - before, 0u);
    }
  }).join();
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(
      s.puts.at({"a-topic-name-longer-than-the-small-string-buffer", MessageType::kFifo}).messages,
      4u);
  EXPECT_EQ(s.puts.at({std::string(BrokerStats::kOverflowKey), MessageType::kNormal}).messages, 1u);
  EXPECT_EQ(s.dropped_keys, 1u);
}

TEST(BrokerStatsTest, TheCapCountsDistinctKeysAcrossThreads) {
  BrokerStats stats(2);
  std::thread([&] { stats.OnPut("a", MessageType::kNormal, 1, 1); }).join();
  std::thread([&] { stats.OnPut("a", MessageType::kNormal, 1, 1); }).join();
  std::thread([&] { stats.OnPut("b", MessageType::kNormal, 1, 1); }).join();
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.dropped_keys, 0u);
  EXPECT_EQ(s.puts.at({"a", MessageType::kNormal}).messages, 2u);
}

// Many writer threads and a reader collecting all along: the final sums are exact (and
// TSan, which runs the `threads` label, sees no race).
TEST(BrokerStatsThreadsTest, ConcurrentWritersAndReaderSumExactly) {
  BrokerStats stats;
  constexpr int kThreads = 4, kPerThread = 20000;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    uint64_t last = 0;
    while (!done.load()) {
      const uint64_t now = stats.Collect().TotalPutMessages();
      EXPECT_GE(now, last);  // totals never go back
      last = now;
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&stats, t] {
      const std::string topic = "T" + std::to_string(t % 2);
      for (int i = 0; i < kPerThread; ++i) {
        stats.OnPut(topic, MessageType::kNormal, 1, 100);
        stats.OnGet(topic, "g", 1, 100);
      }
    });
  }
  for (auto& w : writers) w.join();
  done = true;
  reader.join();
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.TotalPutMessages(), uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(s.TotalGetMessages(), uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(s.puts.at({"T0", MessageType::kNormal}).bytes, 2u * kPerThread * 100);
}

TEST(BrokerStatsTest, TwoInstancesOnOneThreadKeepTheirOwnCounts) {
  auto a = std::make_unique<BrokerStats>();
  BrokerStats b;
  a->OnPut("T", MessageType::kNormal, 1, 1);
  b.OnPut("T", MessageType::kNormal, 2, 2);
  a.reset();
  BrokerStats c;  // may reuse a's address: must not see a's shard
  c.OnPut("T", MessageType::kNormal, 3, 3);
  EXPECT_EQ(b.Collect().TotalPutMessages(), 2u);
  EXPECT_EQ(c.Collect().TotalPutMessages(), 3u);
}

TEST(StatsSamplerTest, UnknownItemsAreNotFound) {
  BrokerStats stats;
  StatsSampler sampler(stats, "C");
  sampler.RunOnce(1'000'000);
  EXPECT_FALSE(sampler.View("TOPIC_PUT_NUMS", "T"));
  stats.OnPut("T", MessageType::kNormal, 1, 1);
  EXPECT_FALSE(sampler.View("TOPIC_PUT_NUMS", "T"));  // not sampled yet
  EXPECT_FALSE(sampler.View("NO_SUCH_STATS", "T"));
}

// Java's StatsItem: samples every 10 s (minute list of 7), 10 min (hour, 7), 1 h (day,
// 25); the first sample is preceded by (now - period, 0, 0).
TEST(StatsSamplerTest, MinuteWindowFollowsJavasStatsItem) {
  BrokerStats stats;
  StatsSampler sampler(stats, "C");
  int64_t now = 1'000'000;
  stats.OnPut("T", MessageType::kNormal, 10, 1000);  // 1 request of 10 messages
  sampler.RunOnce(now);
  auto v = sampler.View("TOPIC_PUT_NUMS", "T");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->minute.sum, 10);
  EXPECT_DOUBLE_EQ(v->minute.tps, 1.0);     // 10 over the synthetic 10 s
  EXPECT_DOUBLE_EQ(v->minute.avgpt, 10.0);  // 10 messages per request
  EXPECT_EQ(v->hour.sum, 10);
  EXPECT_EQ(sampler.View("TOPIC_PUT_SIZE", "T")->minute.sum, 1000);
  EXPECT_EQ(sampler.View("BROKER_PUT_NUMS", "C")->minute.sum, 10);

  // Steps between the 10 s marks take no minute sample.
  for (int i = 1; i <= 9; ++i) {
    stats.OnPut("T", MessageType::kNormal, 1, 1);
    sampler.RunOnce(now + i * 1000);
  }
  EXPECT_EQ(sampler.View("TOPIC_PUT_NUMS", "T")->minute.sum, 10);
  // Eight more 10 s samples: the list keeps 7, so the window is the last 60 s.
  for (int i = 1; i <= 8; ++i) {
    stats.OnPut("T", MessageType::kNormal, 6, 6);
    sampler.RunOnce(now + i * 10'000);
  }
  v = sampler.View("TOPIC_PUT_NUMS", "T");
  EXPECT_EQ(v->minute.sum, 36);  // 6 samples * 6 messages after the first kept one
  EXPECT_DOUBLE_EQ(v->minute.tps, 36 * 1000.0 / 60'000);
  EXPECT_DOUBLE_EQ(v->minute.avgpt, 6.0);  // 6 requests in the window, 6 messages each
}

TEST(StatsSamplerTest, GroupItemsAreKeyedTopicAtGroup) {
  BrokerStats stats;
  StatsSampler sampler(stats, "C");
  stats.OnGet("T", "g", 4, 40);
  stats.OnSendBack("T", "g", false);
  sampler.RunOnce(50'000);
  EXPECT_EQ(sampler.View("GROUP_GET_NUMS", "T@g")->minute.sum, 4);
  EXPECT_EQ(sampler.View("GROUP_GET_SIZE", "T@g")->minute.sum, 40);
  EXPECT_EQ(sampler.View("SNDBCK_PUT_NUMS", "T@g")->minute.sum, 1);
  EXPECT_EQ(sampler.View("BROKER_GET_NUMS", "C")->minute.sum, 4);
}

// GROUP_GET_LATENCY (Java's incGroupGetLatency with enableDetailStat): per queue,
// queueId@topic@group; times = pulls that found messages, value = their serving ms, so
// avgpt is the mean serving time.
TEST(StatsSamplerTest, GroupGetLatencyIsPerQueueKeyedQueueIdAtTopicAtGroup) {
  BrokerStats stats;
  StatsSampler sampler(stats, "C");
  stats.OnGetLatency("T", "g", 3, 7);
  stats.OnGetLatency("T", "g", 3, 1);
  stats.OnGetLatency("T", "g", 0, 2);
  stats.OnGetLatency("T", "g", 0, -5);  // a clock step back counts as 0
  StatsSnapshot snap = stats.Collect();
  EXPECT_EQ(snap.get_latency.at({"T", "g", 3}).pulls, 2u);
  EXPECT_EQ(snap.get_latency.at({"T", "g", 3}).latency_ms, 8u);
  EXPECT_EQ(snap.get_latency.at({"T", "g", 0}).latency_ms, 2u);
  sampler.RunOnce(50'000);
  auto q3 = sampler.View("GROUP_GET_LATENCY", "3@T@g");
  ASSERT_TRUE(q3);
  EXPECT_EQ(q3->minute.sum, 8);
  EXPECT_DOUBLE_EQ(q3->minute.avgpt, 4.0);
  EXPECT_DOUBLE_EQ(sampler.View("GROUP_GET_LATENCY", "0@T@g")->minute.avgpt, 1.0);
  // Not the topic@group shape (that is Java's key only without enableDetailStat).
  EXPECT_FALSE(sampler.View("GROUP_GET_LATENCY", "T@g"));
  EXPECT_FALSE(sampler.View("GROUP_GET_LATENCY", "1@T@g"));
  // As Java 4.9.8's 315: items it never keeps in its table are "not exist".
  for (const char* name : {"GROUP_GET_FALL_SIZE", "GROUP_GET_FALL_TIME", "GROUP_GET_FROM_DISK_NUMS",
                           "BROKER_GET_FROM_DISK_NUMS"}) {
    EXPECT_FALSE(sampler.View(name, "3@T@g")) << name;
  }
}

TEST(BrokerStatsTest, LatencyKeysCountTowardsTheCapPerQueue) {
  BrokerStats stats(2);
  stats.OnGetLatency("T", "g", 0, 1);
  stats.OnGetLatency("T", "g", 1, 1);
  stats.OnGetLatency("T", "g", 2, 5);  // a third key: folded
  StatsSnapshot s = stats.Collect();
  EXPECT_EQ(s.get_latency.size(), 3u);  // two keys + overflow
  const std::string overflow(BrokerStats::kOverflowKey);
  EXPECT_EQ(s.get_latency.at({overflow, overflow, -1}).latency_ms, 5u);
  EXPECT_EQ(s.dropped_keys, 1u);
}

TEST(StatsSamplerTest, BrokerRatesOverTheLastSeconds) {
  BrokerStats stats;
  StatsSampler sampler(stats, "C");
  EXPECT_EQ(sampler.PutTps(10), 0);
  int64_t now = 0;
  for (int s = 0; s <= 700; ++s) {
    stats.OnPut("T", MessageType::kNormal, s < 650 ? 100 : 10, 1);  // 100/s, then 10/s
    stats.OnGet("T", "g", 5, 50);
    sampler.RunOnce(now + s * 1000);
  }
  EXPECT_DOUBLE_EQ(sampler.PutTps(10), 10.0);
  EXPECT_DOUBLE_EQ(sampler.PutTps(60), (9 * 100 + 51 * 10) / 60.0);
  EXPECT_DOUBLE_EQ(sampler.GetTps(600), 5.0);
  EXPECT_DOUBLE_EQ(sampler.GetTransferredBytesPerSecond(60), 50.0);
  EXPECT_EQ(sampler.PutMessagesTotal(), 650u * 100 + 51 * 10);
  EXPECT_EQ(sampler.GetMessagesTotal(), 701u * 5);
}

}  // namespace
}  // namespace rocketstore::broker
