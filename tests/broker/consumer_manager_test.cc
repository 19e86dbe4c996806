// ConsumerManager and ProducerManager: the group's one subscription table (highest
// subVersion wins), membership events, channel close and expiry on a fake clock.
#include "broker/service/consumer_manager.h"

#include <gtest/gtest.h>

#include <memory>

#include "broker/service/producer_manager.h"
#include "fake_channel.h"

namespace rocketstore::broker {
namespace {

using testing::FakeChannel;

SubscriptionData Sub(const std::string& topic, const std::string& expr, int64_t version) {
  SubscriptionData s;
  s.topic = topic;
  s.sub_string = expr;
  s.sub_version = version;
  return s;
}

ConsumerData Data(const std::string& group, std::vector<SubscriptionData> subs) {
  ConsumerData d;
  d.group = group;
  d.subscriptions = std::move(subs);
  return d;
}

ClientChannelInfo Member(const std::shared_ptr<FakeChannel>& ch, const std::string& id) {
  ClientChannelInfo c;
  c.channel = ch;
  c.client_id = id;
  return c;
}

struct Events {
  std::vector<std::pair<std::string, size_t>> changes;  // group, members left
};

class ConsumerManagerTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  Events events_;
  ConsumerManager mgr_{clock_, [this](const std::string& g, const std::vector<ChannelPtr>& m) {
                         events_.changes.emplace_back(g, m.size());
                       }};
  std::shared_ptr<FakeChannel> a_ = std::make_shared<FakeChannel>(1);
  std::shared_ptr<FakeChannel> b_ = std::make_shared<FakeChannel>(2);
};

// Each client stamps its own subVersion. The group keeps the highest one seen, so a pull
// from either member (carrying its own, lower or equal version) is served. The old broker
// compared with whichever member it found last and starved the other forever.
TEST_F(ConsumerManagerTest, GroupKeepsHighestSubVersionAcrossMembers) {
  mgr_.Register(Data("G", {Sub("T", "*", 200)}), Member(a_, "A"), true);
  mgr_.Register(Data("G", {Sub("T", "*", 100)}), Member(b_, "B"), true);
  auto s = mgr_.FindSubscription("G", "T");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->sub_version, 200);
  // A later heartbeat of the older member does not lower it.
  mgr_.Register(Data("G", {Sub("T", "*", 100)}), Member(b_, "B"), true);
  EXPECT_EQ(mgr_.FindSubscription("G", "T")->sub_version, 200);
  // A newer version (a client that re-subscribed) replaces the expression.
  mgr_.Register(Data("G", {Sub("T", "TagA", 300)}), Member(b_, "B"), true);
  EXPECT_EQ(mgr_.FindSubscription("G", "T")->sub_version, 300);
  EXPECT_EQ(mgr_.FindSubscription("G", "T")->sub_string, "TagA");
  EXPECT_EQ(mgr_.ClientIds("G").size(), 2u);
}

TEST_F(ConsumerManagerTest, TopicsNoLongerListedAreRemoved) {
  mgr_.Register(Data("G", {Sub("T1", "*", 1), Sub("T2", "*", 1)}), Member(a_, "A"), true);
  EXPECT_TRUE(mgr_.FindSubscription("G", "T2").has_value());
  const bool changed = mgr_.Register(Data("G", {Sub("T1", "*", 1)}), Member(a_, "A"), true);
  EXPECT_TRUE(changed);
  EXPECT_FALSE(mgr_.FindSubscription("G", "T2").has_value());
  EXPECT_EQ(mgr_.GroupsConsuming("T1"), std::set<std::string>{"G"});
  EXPECT_TRUE(mgr_.GroupsConsuming("T2").empty());
}

TEST_F(ConsumerManagerTest, MembershipChangesNotifyTheRemainingMembers) {
  mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(a_, "A"), true);
  mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(b_, "B"), true);
  ASSERT_EQ(events_.changes.size(), 2u);
  EXPECT_EQ(events_.changes[1].second, 2u);
  // A repeated heartbeat changes nothing and notifies nobody.
  EXPECT_FALSE(mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(a_, "A"), true));
  EXPECT_EQ(events_.changes.size(), 2u);
  // notifyConsumerIdsChangedEnable=false: registered, not notified.
  auto c = std::make_shared<FakeChannel>(3);
  EXPECT_TRUE(mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(c, "C"), false));
  EXPECT_EQ(events_.changes.size(), 2u);
  mgr_.OnChannelClosed(a_->id());
  ASSERT_EQ(events_.changes.size(), 3u);
  EXPECT_EQ(events_.changes.back(), std::make_pair(std::string("G"), size_t{2}));
  EXPECT_TRUE(mgr_.Unregister("G", "B", b_->id(), true));
  EXPECT_FALSE(mgr_.Unregister("G", "B", b_->id(), true));  // already gone
  EXPECT_EQ(mgr_.ClientIds("G"), std::vector<std::string>{"C"});
  mgr_.OnChannelClosed(c->id());
  EXPECT_FALSE(mgr_.Find("G").has_value());  // an empty group is dropped
}

TEST_F(ConsumerManagerTest, SilentChannelsExpireAndAreClosed) {
  mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(a_, "A"), true);
  clock_.AdvanceMillis(60000);
  mgr_.Register(Data("G", {Sub("T", "*", 1)}), Member(b_, "B"), true);
  clock_.AdvanceMillis(60001);
  EXPECT_EQ(mgr_.RunOnce(clock_.NowMillis()), 1);  // A: 120.001 s of silence
  EXPECT_FALSE(a_->alive());
  EXPECT_TRUE(b_->alive());
  EXPECT_EQ(mgr_.ClientIds("G"), std::vector<std::string>{"B"});
  EXPECT_EQ(mgr_.RunOnce(clock_.NowMillis()), 0);
}

TEST(ProducerManagerTest, RegisterExpireAndPickALiveChannel) {
  FakeClock clock;
  ProducerManager mgr(clock);
  auto a = std::make_shared<FakeChannel>(1);
  auto b = std::make_shared<FakeChannel>(2);
  mgr.Register("PG", Member(a, "A"));
  mgr.Register("PG", Member(b, "B"));
  EXPECT_EQ(mgr.Members("PG").size(), 2u);
  a->Close();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(mgr.AnyLiveChannel("PG"), b);
  EXPECT_EQ(mgr.AnyLiveChannel("nobody"), nullptr);
  clock.AdvanceMillis(120001);
  EXPECT_EQ(mgr.RunOnce(clock.NowMillis()), 2);
  EXPECT_TRUE(mgr.Groups().empty());
  mgr.Register("PG", Member(a, "A"));
  EXPECT_TRUE(mgr.Unregister("PG", "A", 0));
  EXPECT_TRUE(mgr.Members("PG").empty());
}

}  // namespace
}  // namespace rocketstore::broker
