// PullHoldService: held pulls resume on arrival past their offset or at their deadline,
// always through the executor (never on the notifying thread), and dead channels are
// dropped without resuming.
#include "broker/service/pull_hold_service.h"

#include <gtest/gtest.h>

#include <deque>

#include "fake_channel.h"

namespace rocketstore::broker {
namespace {

using testing::FakeChannel;

class PullHoldServiceTest : public ::testing::Test {
 protected:
  // Queues tasks; the test runs them, so "resumed on the executor" is observable.
  std::deque<std::function<void()>> tasks_;
  PullHoldService holds_{[this](std::function<void()> fn) { tasks_.push_back(std::move(fn)); }};
  std::vector<std::string> resumed_;

  PullHoldService::Held Held(const std::string& name, int64_t offset, int64_t deadline,
                             ChannelPtr channel = std::make_shared<FakeChannel>(1)) {
    PullHoldService::Held h;
    h.channel = std::move(channel);
    h.offset = offset;
    h.deadline_ms = deadline;
    h.resume = [this, name](bool timed_out) {
      resumed_.push_back(name + (timed_out ? ":timeout" : ":arrival"));
    };
    return h;
  }
  void RunTasks() {
    while (!tasks_.empty()) {
      auto t = std::move(tasks_.front());
      tasks_.pop_front();
      t();
    }
  }
};

TEST_F(PullHoldServiceTest, ArrivalResumesOnlyPullsBelowTheNewMaxOffset) {
  holds_.Hold("T", 0, Held("a", 5, 1000));
  holds_.Hold("T", 0, Held("b", 7, 1000));
  holds_.Hold("T", 1, Held("c", 5, 1000));
  EXPECT_EQ(holds_.held_count(), 3u);
  holds_.OnArrival("T", 0, 6);  // max offset 6: offset 5 has a message now, 7 not yet
  EXPECT_TRUE(resumed_.empty()) << "must not resume on the dispatcher's thread";
  RunTasks();
  EXPECT_EQ(resumed_, std::vector<std::string>{"a:arrival"});
  EXPECT_EQ(holds_.held_count(), 2u);
  holds_.OnArrival("T", 0, 7);  // not past 7
  RunTasks();
  EXPECT_EQ(resumed_.size(), 1u);
  holds_.OnArrival("X", 0, 100);  // nothing held there
  holds_.OnArrival("T", 0, 8);
  RunTasks();
  EXPECT_EQ(resumed_.back(), "b:arrival");
  EXPECT_EQ(holds_.held_count(), 1u);
}

TEST_F(PullHoldServiceTest, DeadlinesExpireInRunOnce) {
  holds_.Hold("T", 0, Held("early", 0, 100));
  holds_.Hold("T", 0, Held("late", 0, 200));
  EXPECT_EQ(holds_.RunOnce(99), 0);
  EXPECT_EQ(holds_.RunOnce(100), 1);
  RunTasks();
  EXPECT_EQ(resumed_, std::vector<std::string>{"early:timeout"});
  EXPECT_EQ(holds_.RunOnce(1000), 1);
  RunTasks();
  EXPECT_EQ(resumed_.back(), "late:timeout");
  EXPECT_EQ(holds_.held_count(), 0u);
}

TEST_F(PullHoldServiceTest, DeadChannelsAreDroppedWithoutResuming) {
  auto dead = std::make_shared<FakeChannel>(9);
  holds_.Hold("T", 0, Held("gone", 0, 100, dead));
  holds_.Hold("T", 0, Held("alive", 0, 100));
  dead->Close();
  holds_.OnArrival("T", 0, 1);
  RunTasks();
  EXPECT_EQ(resumed_, std::vector<std::string>{"alive:arrival"});
  holds_.Hold("T", 0, Held("gone2", 0, 100, dead));
  EXPECT_EQ(holds_.RunOnce(50), 0);
  EXPECT_EQ(holds_.held_count(), 0u);
}

TEST_F(PullHoldServiceTest, ClearDropsEverything) {
  holds_.Hold("T", 0, Held("a", 0, 100));
  holds_.Clear();
  holds_.OnArrival("T", 0, 10);
  EXPECT_EQ(holds_.RunOnce(1000), 0);
  RunTasks();
  EXPECT_TRUE(resumed_.empty());
}

}  // namespace
}  // namespace rocketstore::broker
