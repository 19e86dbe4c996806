// AssessBrokerHealth: each of RocketMQ's refusal conditions read from a broker's own
// GET_BROKER_RUNTIME_INFO (28) and GET_BROKER_CONFIG (26) answers and the name server's
// route, failure paths first.
#include "client/broker_health.h"

#include <gtest/gtest.h>

#include "base/status.h"
#include "client/route.h"

namespace rocketstore::client {
namespace {

StringMap Runtime() {  // a healthy 28 table (the keys the judgement reads)
  return {{"commitLogDiskRatio", "0.42"},
          {"pageCacheLockTimeMills", "0"},
          {"sendThreadPoolQueueHeadWaitTimeMills", "0"}};
}
StringMap Config() {  // a 4.9.8 master's 26 (no diskSpaceWarningLevelRatio key)
  return {{"brokerPermission", "6"}, {"brokerRole", "ASYNC_MASTER"}, {"brokerTopicEnable", "true"}};
}

TEST(BrokerHealthTest, NoAnswerIsUnreachableWithTheCause) {
  BrokerHealth h = AssessBrokerHealth(0, Result<StringMap>(Unavailable("connect refused")),
                                      Result<StringMap>(Unavailable("connect refused")), -1);
  EXPECT_EQ(h.state, "unreachable");
  EXPECT_FALSE(h.writable);
  EXPECT_NE(h.reason.find("connect refused"), std::string::npos) << h.reason;
}

TEST(BrokerHealthTest, ASlaveTakesNoWrites) {
  StringMap c = Config();
  c["brokerRole"] = "SLAVE";
  EXPECT_EQ(AssessBrokerHealth(1, Runtime(), c, -1).state, "slave");
  // The id alone says so when 26 could not be read.
  BrokerHealth h = AssessBrokerHealth(2, Runtime(), Result<StringMap>(Unavailable("x")), -1);
  EXPECT_EQ(h.state, "slave");
  EXPECT_FALSE(h.writable);
}

TEST(BrokerHealthTest, DiskAboveTheWarningLevelIsFull) {
  StringMap rt = Runtime();
  rt["commitLogDiskRatio"] = "0.91";  // above 4.9.8's default 0.90
  BrokerHealth h = AssessBrokerHealth(0, rt, Config(), -1);
  EXPECT_EQ(h.state, "disk full");
  EXPECT_FALSE(h.writable);
  EXPECT_NE(h.reason.find("91% used > diskSpaceWarningLevelRatio 90%"), std::string::npos)
      << h.reason;
  // A broker that says its level (rocketstore, RocketMQ 5: a percentage) is held to it.
  StringMap c = Config();
  c["diskSpaceWarningLevelRatio"] = "95";
  EXPECT_EQ(AssessBrokerHealth(0, rt, c, -1).state, "ok");
  rt["commitLogDiskRatio"] = "0.96";
  EXPECT_EQ(AssessBrokerHealth(0, rt, c, -1).state, "disk full");
  // -1: the broker could not read its disk; no verdict from it.
  rt["commitLogDiskRatio"] = "-1.0";
  EXPECT_EQ(AssessBrokerHealth(0, rt, Config(), -1).state, "ok");
}

TEST(BrokerHealthTest, BrokerPermissionWithoutWriteIsReadOnly) {
  StringMap c = Config();
  c["brokerPermission"] = "4";
  BrokerHealth h = AssessBrokerHealth(0, Runtime(), c, -1);
  EXPECT_EQ(h.state, "read only");
  EXPECT_FALSE(h.writable);
  EXPECT_NE(h.reason.find("brokerPermission 4"), std::string::npos) << h.reason;
  c["brokerPermission"] = "2";  // write only still takes writes
  EXPECT_EQ(AssessBrokerHealth(0, Runtime(), c, -1).state, "ok");
}

TEST(BrokerHealthTest, WipedOnTheNameServer) {
  BrokerHealth h = AssessBrokerHealth(0, Runtime(), Config(), 5);  // 7 without write
  EXPECT_EQ(h.state, "wiped");
  EXPECT_FALSE(h.writable);
  EXPECT_NE(h.reason.find("perm 5"), std::string::npos) << h.reason;
  EXPECT_EQ(AssessBrokerHealth(0, Runtime(), Config(), 7).state, "ok");
}

TEST(BrokerHealthTest, ALongLockOrAWaitingSendQueueIsBusy) {
  StringMap rt = Runtime();
  rt["pageCacheLockTimeMills"] = "1500";  // > osPageCacheBusyTimeOutMills 1000
  EXPECT_EQ(AssessBrokerHealth(0, rt, Config(), -1).state, "busy");
  StringMap c = Config();
  c["osPageCacheBusyTimeOutMills"] = "2000";
  EXPECT_EQ(AssessBrokerHealth(0, rt, c, -1).state, "ok");
  rt = Runtime();
  rt["sendThreadPoolQueueHeadWaitTimeMills"] = "200";  // >= waitTimeMillsInSendQueue 200
  BrokerHealth h = AssessBrokerHealth(0, rt, Config(), -1);
  EXPECT_EQ(h.state, "busy");
  EXPECT_NE(h.reason.find("SYSTEM_BUSY"), std::string::npos) << h.reason;
}

TEST(BrokerHealthTest, HealthyAndWhatWasNotKnown) {
  BrokerHealth h = AssessBrokerHealth(0, Runtime(), Config(), 7);
  EXPECT_EQ(h.state, "ok");
  EXPECT_TRUE(h.writable);
  EXPECT_EQ(h.reason, "");
  h = AssessBrokerHealth(0, Runtime(), Result<StringMap>(Unavailable("timed out")), -1);
  EXPECT_EQ(h.state, "ok");
  EXPECT_NE(h.reason.find("GET_BROKER_CONFIG (26) failed: timed out"), std::string::npos)
      << h.reason;
}

TEST(BrokerHealthTest, OwnTopicRouteCountsForAMasterWithItsTopicEnabledOnly) {
  EXPECT_FALSE(OwnTopicRouteApplies(0, {}));  // 26 not known
  EXPECT_FALSE(OwnTopicRouteApplies(0, {{"brokerTopicEnable", "false"}}));
  EXPECT_FALSE(OwnTopicRouteApplies(1, Config()));  // a slave: its topic is the master's
  EXPECT_TRUE(OwnTopicRouteApplies(0, Config()));
}

TEST(BrokerHealthTest, OwnTopicRoutePermIsTheBrokersOwnQueues) {
  TopicRoute route;
  EXPECT_EQ(OwnTopicRoutePerm(route, "broker-a"), -1);  // not listed
  route.queue_datas.push_back(QueueData{"broker-b", 1, 1, 6, 0});
  EXPECT_EQ(OwnTopicRoutePerm(route, "broker-a"), -1);
  route.queue_datas.push_back(QueueData{"broker-a", 1, 1, 4, 0});
  EXPECT_EQ(OwnTopicRoutePerm(route, "broker-a"), 4);
  EXPECT_EQ(AssessBrokerHealth(0, Runtime(), Config(), OwnTopicRoutePerm(route, "broker-a")).state,
            "wiped");
}

}  // namespace
}  // namespace rocketstore::client
