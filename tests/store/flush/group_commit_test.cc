#include "store/flush/group_commit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

// A segment queue with one appender at a time (the commit log's append lock) and a group
// commit over it. `before_flush` runs at the start of every flush (the committer hook),
// with the flush number (1, 2, ...).
class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(fs_.CreateDirs("/s"));
    MappedFileQueue::Options o;
    o.file_size = 1 << 20;
    o.file.reserve_chunk_bytes = 4096;
    o.prefault_window_bytes = 4096;
    queue_ = std::make_unique<MappedFileQueue>(fs_, "/s", o);
    ASSERT_OK(queue_->Load());
  }

  void Start(GroupCommit::Options o) {
    gc_ = std::make_unique<GroupCommit>(*queue_, health_, o);
    gc_->SetCommitter(
        [this] {
          const int n = ++flushes_started_;
          if (before_flush_) before_flush_(n);
          return Status::OK();
        },
        [] { return false; });
  }

  // Appends 100 bytes; returns the end offset to wait for.
  PhysicalOffset Append() {
    std::lock_guard<std::mutex> l(append_mu_);
    auto f = queue_->GetWritableFile(PhysicalOffset(0));
    EXPECT_OK(f.status());
    const int64_t pos = (*f)->wrote_position();
    EXPECT_OK((*f)->Reserve(pos + 100));
    std::memset((*f)->data() + pos, 'x', 100);
    (*f)->Advance(pos + 100, 1);
    return PhysicalOffset((*f)->start_offset().value() + pos + 100);
  }

  // Blocks until `n` WaitDurable calls have begun.
  void AwaitWaits(int64_t n) {
    while (gc_->wait_count() < n) std::this_thread::yield();
  }

  FaultInjectionFileSystem fs_;
  StoreHealth health_;
  std::unique_ptr<MappedFileQueue> queue_;
  std::unique_ptr<GroupCommit> gc_;
  std::mutex append_mu_;
  std::atomic<int> flushes_started_{0};
  std::function<void(int)> before_flush_;
};

GroupCommit::Options Gathering(int64_t nanos) {
  GroupCommit::Options o;
  o.min_gather_nanos = o.max_gather_nanos = nanos;
  return o;
}

constexpr int64_t kLong = int64_t{30} * 1'000'000'000;  // never reached when producers return

// The first flush releases four producers at once; each puts again at once. The next
// flush waits for all four and carries all four messages: two flushes for eight puts.
// (Without gathering, the first producer back leads a flush of its own message only.)
TEST_F(GroupCommitTest, NextFlushWaitsForEveryProducerTheLastOneReleased) {
  constexpr int kProducers = 4;
  Start(Gathering(kLong));
  std::atomic<int64_t> waits_begun_at_second_flush{-1};
  before_flush_ = [&](int n) {
    if (n == 1) AwaitWaits(kProducers);  // all four wait on the first flush
    if (n == 2) waits_begun_at_second_flush = gc_->wait_count();
  };
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < 2; ++i) EXPECT_OK(gc_->WaitDurable(Append()));
    });
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(gc_->flush_count(), 2);
  EXPECT_EQ(waits_begun_at_second_flush.load(), 2 * kProducers);
  EXPECT_EQ(gc_->gather_timeouts(), 0);
  EXPECT_EQ(gc_->durable_offset().value(), 2 * kProducers * 100);
}

// One of two released producers never comes back: the other's flush waits only the
// bounded time, once; its next put, the only one the last flush released, waits for none.
TEST_F(GroupCommitTest, ProducerThatDoesNotComeBackCostsOneBoundedWait) {
  Start(Gathering(20'000'000));  // 20 ms
  before_flush_ = [&](int n) {
    if (n == 1) AwaitWaits(2);
  };
  std::thread leaver([&] { EXPECT_OK(gc_->WaitDurable(Append())); });
  EXPECT_OK(gc_->WaitDurable(Append()));
  leaver.join();
  EXPECT_EQ(gc_->flush_count(), 1);
  EXPECT_OK(gc_->WaitDurable(Append()));  // gathers for the leaver, in vain
  EXPECT_EQ(gc_->gather_timeouts(), 1);
  EXPECT_EQ(gc_->flush_count(), 2);
  for (int i = 0; i < 5; ++i) EXPECT_OK(gc_->WaitDurable(Append()));
  EXPECT_EQ(gc_->gather_timeouts(), 1);
  EXPECT_EQ(gc_->flush_count(), 7);
}

// A single producer is the only one each flush releases: it never waits for anyone
// (with a 30 s bound, a single wait would hang the test).
TEST_F(GroupCommitTest, SingleProducerNeverGathers) {
  Start(Gathering(kLong));
  for (int i = 0; i < 50; ++i) ASSERT_OK(gc_->WaitDurable(Append()));
  EXPECT_EQ(gc_->flush_count(), 50);
  EXPECT_EQ(gc_->gather_timeouts(), 0);
}

// A gathering waiter whose deadline passes answers FLUSH_DISK_TIMEOUT (its message is
// stored) and hands the lead to a producer waiting behind it, who gets its flush at once
// rather than at its own deadline. (Real time: the group commit's deadlines are on the
// steady clock; 500 ms of margin either way, for loaded sanitizer runs.)
TEST_F(GroupCommitTest, GathererTimingOutHandsTheLeadOn) {
  GroupCommit::Options o = Gathering(kLong);
  o.timeout_ms = 1000;
  Start(o);
  before_flush_ = [&](int n) {
    if (n == 1) AwaitWaits(3);
  };
  std::thread a([&] { EXPECT_OK(gc_->WaitDurable(Append())); });
  std::thread b([&] { EXPECT_OK(gc_->WaitDurable(Append())); });
  EXPECT_OK(gc_->WaitDurable(Append()));
  a.join();
  b.join();
  // Three released; two come back. The first gathers for the third until its deadline.
  Status late;
  std::thread gatherer([&] { late = gc_->WaitDurable(Append()); });
  AwaitWaits(4);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_OK(gc_->WaitDurable(Append()));  // waits behind the gatherer, then leads
  const auto waited = std::chrono::steady_clock::now() - t0;
  gatherer.join();
  EXPECT_EQ(late.code(), StatusCode::kDeadlineExceeded) << late;
  EXPECT_LT(waited, std::chrono::milliseconds(950));  // not its own deadline
  EXPECT_EQ(gc_->flush_count(), 2);
  EXPECT_EQ(gc_->durable_offset().value(), 5 * 100);
}

// Blocking producers racing the background flusher (RunOnce, which flushes whatever is
// dirty) with the default gathering bounds: every put is acknowledged, none waits out its
// deadline — a gatherer that another flush overtakes must let the waiters behind it lead.
TEST_F(GroupCommitTest, BlockingProducersAndTheBackgroundFlusherNeverStall) {
  GroupCommit::Options o;
  o.timeout_ms = 2000;
  Start(o);
  constexpr int kProducers = 4, kPuts = 300;
  std::atomic<bool> stop{false};
  std::thread flusher([&] {
    while (!stop.load()) ASSERT_OK(gc_->RunOnce());
  });
  std::vector<std::thread> producers;
  std::atomic<int> ok{0};
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < kPuts; ++i) {
        if (gc_->WaitDurable(Append()).ok()) ++ok;
        if (i == kPuts / 2) stop = true;  // the rest without the background flusher
      }
    });
  }
  for (auto& t : producers) t.join();
  flusher.join();
  EXPECT_EQ(ok.load(), kProducers * kPuts);
  EXPECT_EQ(gc_->durable_offset().value(), int64_t{kProducers} * kPuts * 100);
}

}  // namespace
}  // namespace rocketstore

namespace rocketstore {
namespace {

// StoreMetrics: each group-commit flush records its latency, the bytes it made durable
// and the producers it released (a blocking waiter and two callbacks here); a failed
// flush records nothing (the FI file system fails the msync/fdatasync).
TEST_F(GroupCommitTest, FlushesRecordLatencyBytesAndReleasedProducers) {
  StoreMetrics metrics;
  Start(GroupCommit::Options{});
  gc_->SetMetrics(&metrics);
  const PhysicalOffset a = Append();
  std::atomic<int> done{0};
  gc_->WhenDurable(a, INT64_MAX, [&](Status s) { done += s.ok(); });
  const PhysicalOffset b = Append();
  gc_->WhenDurable(b, INT64_MAX, [&](Status s) { done += s.ok(); });
  const PhysicalOffset c = Append();
  ASSERT_OK(gc_->WaitDurable(c));  // one flush covers all three
  EXPECT_EQ(done.load(), 2);
  const auto batch = metrics.group_commit_batch.Snapshot();
  EXPECT_EQ(batch.count, 1u);
  EXPECT_EQ(batch.sum, 3);
  EXPECT_EQ(batch.counts[2], 1u);  // 3 falls in the (2, 4] bucket
  const auto bytes = metrics.flush_bytes.Snapshot();
  EXPECT_EQ(bytes.count, 1u);
  EXPECT_EQ(bytes.sum, 300);
  EXPECT_EQ(metrics.flush_micros.Snapshot().count, 1u);
}

// A callback registered after its data was already published runs at once on the
// registering thread; it may register the producer's next put (the broker chaining
// puts from callbacks). That must not self-deadlock on GroupCommit's lock.
TEST_F(GroupCommitTest, CallbackRunAtOnceMayRegisterAgain) {
  Start(GroupCommit::Options{});
  const PhysicalOffset a = Append();
  ASSERT_OK(gc_->RunOnce());  // publishes durable >= a
  ASSERT_GE(gc_->durable_offset().value(), a.value());
  std::atomic<int> done{0};
  std::atomic<bool> registered{false};
  std::thread t([&] {
    gc_->WhenDurable(a, INT64_MAX, [&](Status s) {
      done += s.ok();
      const PhysicalOffset b = Append();
      gc_->WhenDurable(b, INT64_MAX, [&](Status s2) { done += s2.ok(); });
      registered = true;
    });
  });
  for (int i = 0; i < 500 && !registered.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!registered.load()) {
    t.detach();           // blocked forever on GroupCommit's lock
    (void)gc_.release();  // never destroy a mutex a thread holds
    (void)queue_.release();
    FAIL() << "WhenDurable deadlocked running a callback that registers again";
  }
  t.join();
  EXPECT_EQ(done.load(), 1);
  ASSERT_OK(gc_->RunOnce());
  EXPECT_EQ(done.load(), 2);
}

}  // namespace
}  // namespace rocketstore
