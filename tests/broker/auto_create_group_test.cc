// autoCreateSubscriptionGroup per code path, as 4.9.8 does it: the paths that call
// SubscriptionGroupManager.findSubscriptionGroupConfig (pull, heartbeat, unregister) create
// an unknown group only when the flag is on (or for a CID_RMQ_SYS_ group); the paths that
// never look a group up (UPDATE_CONSUMER_OFFSET, QUERY_CONSUMER_OFFSET, LOCK_BATCH_MQ)
// create none either way. The Java client's frames of order-lock.json are replayed.
#include <gtest/gtest.h>

#include "admin_a_fixture.h"

namespace rocketstore::admin_a_test {
namespace {

using protocol::ResponseCode;

constexpr char kGroup[] = "CGV_order";  // the group of order-lock.json

class AutoCreateGroupTest : public AdminATest, public ::testing::WithParamInterface<bool> {
 protected:
  void Configure(broker::BrokerOptions& bo) override {
    bo.auto_create_subscription_group = GetParam();
  }
  void SetUp() override {
    AdminATest::SetUp();
    client_frames_ = protocol::testing::LoadFrames("java-4.9.8/order-lock.json");
    CreateTopic("JV_order", 4);
  }
  bool auto_create() const { return GetParam(); }
  bool GroupExists(const std::string& g) {
    return broker_->subscription_groups().Find(g).has_value();
  }
  RemotingCommand ClientFrame(std::string_view request) {
    return protocol::testing::FindFrame(client_frames_, request, false).command;
  }
  // The captured pull as a pull consumer's (its own subscription "*", no suspend flag:
  // answered at once).
  RemotingCommand PullOf(const std::string& group) {
    RemotingCommand pull = ClientFrame("PULL_MESSAGE");
    pull.SetField("sysFlag", "4");
    pull.SetField("subscription", "*");
    pull.SetField("consumerGroup", group);
    return pull;
  }

  std::vector<CapturedFrame> client_frames_;
};

std::string GroupNotExistRemark(const std::string& g) {
  return "subscription group [" + g +
         "] does not exist, \nSee http://rocketmq.apache.org/docs/faq/ for further details.";
}

TEST_P(AutoCreateGroupTest, PullOfAnUnknownGroup) {
  RemotingCommand r = Call(PullOf(kGroup));
  if (!auto_create()) {
    EXPECT_EQ(r.code, ToInt(ResponseCode::kSubscriptionGroupNotExist));
    EXPECT_EQ(Remark(r), GroupNotExistRemark(kGroup));
    EXPECT_FALSE(GroupExists(kGroup));
  } else {
    EXPECT_EQ(r.code, ToInt(ResponseCode::kPullNotFound)) << Remark(r);
    EXPECT_TRUE(GroupExists(kGroup));
  }
}

TEST_P(AutoCreateGroupTest, PullOfASystemGroupCreatesItWhateverTheFlag) {
  RemotingCommand r = Call(PullOf("CID_RMQ_SYS_X"));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kPullNotFound)) << Remark(r);
  EXPECT_TRUE(GroupExists("CID_RMQ_SYS_X"));
}

TEST_P(AutoCreateGroupTest, HeartbeatOfAnUnknownGroupRegistersTheConsumer) {
  RemotingCommand r = Call(ClientFrame("HEART_BEAT"));
  EXPECT_EQ(r.code, 0) << Remark(r);  // SUCCESS either way
  EXPECT_EQ(broker_->consumers().ClientIds(kGroup),
            std::vector<std::string>{"127.0.0.1@order-consumer"});
  EXPECT_EQ(GroupExists(kGroup), auto_create());
  // The %RETRY% topic only comes with the group (Java creates it from the group's config).
  EXPECT_EQ(broker_->topics().Find("%RETRY%CGV_order").has_value(), auto_create());
}

TEST_P(AutoCreateGroupTest, UnregisterLooksTheGroupUpAsJavaDoes) {
  ASSERT_EQ(Call(ClientFrame("HEART_BEAT")).code, 0);
  ASSERT_TRUE(broker_->subscription_groups().Delete(kGroup) || !auto_create());
  RemotingCommand r =
      Call(Request(RequestCode::kUnregisterClient,
                   {{"clientID", "127.0.0.1@order-consumer"}, {"consumerGroup", kGroup}}));
  EXPECT_EQ(r.code, 0) << Remark(r);
  EXPECT_TRUE(broker_->consumers().ClientIds(kGroup).empty());
  EXPECT_EQ(GroupExists(kGroup), auto_create());  // findSubscriptionGroupConfig creates it
}

TEST_P(AutoCreateGroupTest, ConsumerOffsetsNeverCreateTheGroup) {
  RemotingCommand r = Call(Request(
      RequestCode::kUpdateConsumerOffset,
      {{"consumerGroup", kGroup}, {"topic", "JV_order"}, {"queueId", "1"}, {"commitOffset", "5"}}));
  EXPECT_EQ(r.code, 0) << Remark(r);
  EXPECT_EQ(broker_->offsets().Query(kGroup, "JV_order", 1), 5);
  r = Call(Request(RequestCode::kQueryConsumerOffset,
                   {{"consumerGroup", kGroup}, {"topic", "JV_order"}, {"queueId", "1"}}));
  EXPECT_EQ(r.code, 0) << Remark(r);
  EXPECT_EQ(r.FindField("offset").value_or(""), "5");
  r = Call(Request(RequestCode::kQueryConsumerOffset,
                   {{"consumerGroup", "Other"}, {"topic", "JV_order"}, {"queueId", "0"}}));
  EXPECT_EQ(r.code, 0) << Remark(r);  // an empty queue: 0
  EXPECT_FALSE(GroupExists(kGroup));
  EXPECT_FALSE(GroupExists("Other"));
}

TEST_P(AutoCreateGroupTest, LockBatchNeverCreatesTheGroup) {
  RemotingCommand r = Call(ClientFrame("LOCK_BATCH_MQ"));
  EXPECT_EQ(r.code, 0) << Remark(r);
  EXPECT_NE(BodyText(r).find("\"queueId\":2"), std::string::npos) << BodyText(r);
  EXPECT_FALSE(GroupExists(kGroup));
}

TEST_P(AutoCreateGroupTest, TheFlagChangesAtRunTime) {
  RemotingCommand update = protocol::MakeRequest(RequestCode::kUpdateBrokerConfig);
  update.body.Assign(std::string("autoCreateSubscriptionGroup=") +
                     (auto_create() ? "false" : "true"));
  ASSERT_EQ(Call(std::move(update)).code, 0);
  RemotingCommand r = Call(PullOf(kGroup));
  if (auto_create()) {
    EXPECT_EQ(r.code, ToInt(ResponseCode::kSubscriptionGroupNotExist)) << Remark(r);
  } else {
    EXPECT_EQ(r.code, ToInt(ResponseCode::kPullNotFound)) << Remark(r);
  }
  EXPECT_EQ(GroupExists(kGroup), !auto_create());
}

INSTANTIATE_TEST_SUITE_P(Flag, AutoCreateGroupTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? std::string("On") : std::string("Off");
                         });

}  // namespace
}  // namespace rocketstore::admin_a_test
