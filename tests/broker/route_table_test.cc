#include "namesrv/route_table.h"

#include <gtest/gtest.h>

#include "namesrv/register_body.h"

namespace rocketstore::namesrv {
namespace {

BrokerRegistration Reg(int64_t version) {
  BrokerRegistration r;
  r.cluster_name = "C";
  r.broker_name = "b";
  r.broker_addr = "127.0.0.1:10911";
  r.connection_id = 7;
  r.data_version.counter = version;
  QueueData q;
  q.broker_name = "b";
  q.read_queue_nums = q.write_queue_nums = 4;
  r.topics["T"] = q;
  return r;
}

TEST(RouteTableTest, RouteJsonAndExpiry) {
  RouteTable t;
  EXPECT_FALSE(t.RouteJson("T").has_value());
  t.Register(Reg(1), 1000);
  auto json = t.RouteJson("T");
  ASSERT_TRUE(json.has_value());
  EXPECT_NE(json->find(R"("brokerAddrs":{"0":"127.0.0.1:10911"})"), std::string::npos);
  EXPECT_NE(json->find(R"("queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":4)"),
            std::string::npos);
  EXPECT_EQ(t.ScanInactive(1000 + 120000), 0);
  EXPECT_EQ(t.ScanInactive(1000 + 120001), 1);
  EXPECT_FALSE(t.RouteJson("T").has_value());
}

TEST(RouteTableTest, ConnectionCloseAndUnregister) {
  RouteTable t;
  t.Register(Reg(1), 0);
  EXPECT_EQ(t.OnConnectionClosed(8), 0);
  EXPECT_EQ(t.OnConnectionClosed(7), 1);
  EXPECT_EQ(t.broker_count(), 0u);
  t.Register(Reg(1), 0);
  t.Unregister("C", "b", "127.0.0.1:10911", 0);
  EXPECT_FALSE(t.RouteJson("T").has_value());
  EXPECT_EQ(t.ClusterInfoJson(), R"({"brokerAddrTable":{},"clusterAddrTable":{}})");
}

TEST(RouteTableTest, RegisterBodyWithUnquotedKeys) {
  BrokerRegistration r;
  r.broker_name = "b";
  std::string body =
      R"({"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":5},)"
      R"("topicConfigTable":{"T":{"topicName":"T","readQueueNums":2,"writeQueueNums":3,"perm":6}}},)"
      R"("x":{0:"a:1"}})";
  ASSERT_TRUE(ParseRegisterBody(body, r).ok());
  ASSERT_EQ(r.topics.count("T"), 1u);
  EXPECT_EQ(r.topics["T"].write_queue_nums, 3);
}

}  // namespace
}  // namespace rocketstore::namesrv
