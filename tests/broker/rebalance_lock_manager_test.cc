// RebalanceLockManager with a FakeClock: who may take, renew, steal (only after expiry)
// and release a queue lock, per consumer group, with Java's strict "> max live" expiry.
#include "broker/service/rebalance_lock_manager.h"

#include <gtest/gtest.h>

#include <vector>

#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

QueueRef Q(int id, std::string topic = "T") { return {std::move(topic), "broker-a", id}; }

class RebalanceLockManagerTest : public ::testing::Test {
 protected:
  // The queues `client` holds after TryLockBatch(queues) at the fake clock's time.
  std::vector<QueueRef> Lock(const std::string& group, std::vector<QueueRef> queues,
                             const std::string& client) {
    auto r = locks_.TryLockBatch(group, queues, client);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : std::vector<QueueRef>{};
  }
  void Unlock(const std::string& group, std::vector<QueueRef> queues, const std::string& client) {
    EXPECT_TRUE(locks_.UnlockBatch(group, queues, client).ok());
  }
  std::string Holder(const std::string& group, const QueueRef& q) {
    return locks_.Holder(group, q, locks_.NowMs());
  }

  FakeClock clock_;
  RebalanceLockManager locks_{clock_};  // 60 s
};

TEST_F(RebalanceLockManagerTest, EmptyGroupOrClientIdIsRejected) {
  const std::vector<QueueRef> qs = {Q(0)};
  EXPECT_EQ(locks_.TryLockBatch("", qs, "c1").status().message(), "consumerGroup is empty");
  EXPECT_EQ(locks_.TryLockBatch("G", qs, "").status().message(), "clientId is empty");
  EXPECT_EQ(locks_.TryLockBatch("G", qs, "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(locks_.UnlockBatch("", qs, "c1").message(), "consumerGroup is empty");
  EXPECT_EQ(locks_.UnlockBatch("G", qs, "").message(), "clientId is empty");
  EXPECT_EQ(locks_.entry_count(), 0u);
}

TEST_F(RebalanceLockManagerTest, LockHeldByAnotherLiveClientIsRefused) {
  EXPECT_EQ(Lock("G", {Q(0), Q(1)}, "c1"), (std::vector<QueueRef>{Q(0), Q(1)}));
  // c2 gets only the queue nobody holds; c1's are left out of its answer.
  EXPECT_EQ(Lock("G", {Q(0), Q(2), Q(1)}, "c2"), (std::vector<QueueRef>{Q(2)}));
  clock_.AdvanceMillis(60000);  // exactly max live: not expired yet (Java's ">")
  EXPECT_TRUE(Lock("G", {Q(0)}, "c2").empty());
  EXPECT_EQ(Holder("G", Q(0)), "c1");
  EXPECT_EQ(Holder("G", Q(2)), "c2");
}

TEST_F(RebalanceLockManagerTest, ExpiredLockIsTakenByAnotherClient) {
  ASSERT_EQ(Lock("G", {Q(0)}, "c1").size(), 1u);
  clock_.AdvanceMillis(60001);
  EXPECT_EQ(Holder("G", Q(0)), "");
  EXPECT_EQ(Lock("G", {Q(0)}, "c2"), (std::vector<QueueRef>{Q(0)}));
  EXPECT_EQ(Holder("G", Q(0)), "c2");
  // The old holder cannot take it back, nor release it.
  EXPECT_TRUE(Lock("G", {Q(0)}, "c1").empty());
  Unlock("G", {Q(0)}, "c1");
  EXPECT_EQ(Holder("G", Q(0)), "c2");
}

TEST_F(RebalanceLockManagerTest, RenewalKeepsTheLockAlive) {
  ASSERT_EQ(Lock("G", {Q(0)}, "c1").size(), 1u);
  for (int i = 0; i < 5; ++i) {  // 5 × 20 s, renewed each time: never expires
    clock_.AdvanceMillis(20000);
    EXPECT_EQ(Lock("G", {Q(0)}, "c1"), (std::vector<QueueRef>{Q(0)}));
    EXPECT_TRUE(Lock("G", {Q(0)}, "c2").empty()) << i;
  }
  // 60 s after the last renewal it still holds; 1 ms later it has expired.
  clock_.AdvanceMillis(60000);
  EXPECT_EQ(Holder("G", Q(0)), "c1");
  clock_.AdvanceMillis(1);
  EXPECT_EQ(Holder("G", Q(0)), "");
}

TEST_F(RebalanceLockManagerTest, OwnExpiredLockIsRetaken) {
  ASSERT_EQ(Lock("G", {Q(0)}, "c1").size(), 1u);
  clock_.AdvanceMillis(90000);
  EXPECT_EQ(Lock("G", {Q(0)}, "c1"), (std::vector<QueueRef>{Q(0)}));
  clock_.AdvanceMillis(59000);
  EXPECT_TRUE(Lock("G", {Q(0)}, "c2").empty());  // renewed by the re-take
}

TEST_F(RebalanceLockManagerTest, UnlockReleasesOnlyTheCallersOwnLocks) {
  ASSERT_EQ(Lock("G", {Q(0), Q(1)}, "c1").size(), 2u);
  ASSERT_EQ(Lock("G", {Q(2)}, "c2").size(), 1u);
  Unlock("G", {Q(0), Q(2), Q(7)}, "c1");  // Q(2) is c2's, Q(7) nobody's
  EXPECT_EQ(Holder("G", Q(0)), "");
  EXPECT_EQ(Holder("G", Q(1)), "c1");
  EXPECT_EQ(Holder("G", Q(2)), "c2");
  Unlock("Other", {Q(1)}, "c1");  // another group: nothing
  EXPECT_EQ(Holder("G", Q(1)), "c1");
  // Released: another client takes it at once, without waiting for expiry.
  EXPECT_EQ(Lock("G", {Q(0)}, "c2"), (std::vector<QueueRef>{Q(0)}));
  // An expired lock of the caller's own is released too.
  clock_.AdvanceMillis(70000);
  Unlock("G", {Q(1)}, "c1");
  EXPECT_EQ(locks_.RunOnce(locks_.NowMs()), 2u);  // c2's two, expired
  EXPECT_EQ(locks_.entry_count(), 0u);
}

TEST_F(RebalanceLockManagerTest, GroupsAreIndependent) {
  ASSERT_EQ(Lock("G1", {Q(0)}, "c1").size(), 1u);
  EXPECT_EQ(Lock("G2", {Q(0)}, "c2"), (std::vector<QueueRef>{Q(0)}));
  EXPECT_EQ(Holder("G1", Q(0)), "c1");
  EXPECT_EQ(Holder("G2", Q(0)), "c2");
  Unlock("G2", {Q(0)}, "c2");
  EXPECT_EQ(Holder("G1", Q(0)), "c1");
}

TEST_F(RebalanceLockManagerTest, QueuesDifferByTopicAndBrokerName) {
  const QueueRef other_broker{"T", "broker-b", 0};
  ASSERT_EQ(Lock("G", {Q(0)}, "c1").size(), 1u);
  EXPECT_EQ(Lock("G", {Q(0, "U"), other_broker}, "c2"),
            (std::vector<QueueRef>{Q(0, "U"), other_broker}));
}

TEST_F(RebalanceLockManagerTest, AnswerKeepsRequestOrderWithoutDuplicates) {
  EXPECT_EQ(Lock("G", {Q(3), Q(1), Q(3), Q(2), Q(1)}, "c1"),
            (std::vector<QueueRef>{Q(3), Q(1), Q(2)}));
  EXPECT_EQ(locks_.entry_count(), 3u);
  EXPECT_TRUE(Lock("G", {}, "c1").empty());
}

TEST_F(RebalanceLockManagerTest, RunOnceDropsOnlyExpiredEntries) {
  ASSERT_EQ(Lock("G1", {Q(0), Q(1)}, "c1").size(), 2u);
  clock_.AdvanceMillis(30000);
  ASSERT_EQ(Lock("G2", {Q(0)}, "c2").size(), 1u);
  EXPECT_EQ(locks_.RunOnce(locks_.NowMs()), 0u);
  clock_.AdvanceMillis(30001);  // G1's expired, G2's 30 s old
  EXPECT_EQ(locks_.RunOnce(locks_.NowMs()), 2u);
  EXPECT_EQ(locks_.entry_count(), 1u);
  EXPECT_EQ(Holder("G2", Q(0)), "c2");
}

TEST(RebalanceLockManagerOptionsTest, MaxLiveTimeIsConfigurable) {
  FakeClock clock;
  RebalanceLockManager locks(clock, 500);
  const std::vector<QueueRef> qs = {Q(0)};
  ASSERT_EQ(locks.TryLockBatch("G", qs, "c1")->size(), 1u);
  clock.AdvanceMillis(500);
  EXPECT_TRUE(locks.TryLockBatch("G", qs, "c2")->empty());
  clock.AdvanceMillis(1);
  EXPECT_EQ(locks.TryLockBatch("G", qs, "c2")->size(), 1u);
  // The explicit-time overload uses the given time, not the clock.
  EXPECT_TRUE(locks.TryLockBatch("G", qs, "c1", locks.NowMs() + 500)->empty());
  EXPECT_EQ(locks.TryLockBatch("G", qs, "c1", locks.NowMs() + 501)->size(), 1u);
}

}  // namespace
}  // namespace rocketstore::broker
