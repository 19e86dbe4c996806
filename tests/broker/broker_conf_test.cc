#include "broker/broker_conf.h"

#include <gtest/gtest.h>

namespace rocketstore::broker {
namespace {

TEST(BrokerConfTest, AppliesKnownKeysAndReportsOthers) {
  BrokerOptions o;
  std::vector<std::string> ignored;
  const std::string conf =
      "# comment\n"
      "brokerClusterName = C1\n"
      "brokerName=b-1\r\n"
      "listenPort=10999\n"
      "namesrvAddr=127.0.0.1:9876;127.0.0.1:9877\n"
      "flushDiskType=SYNC_FLUSH\n"
      "syncFlushZeroFill=false\n"
      "commitLogResidentWindow=268435456\n"
      "accessMessageInMemoryMaxRatio=30\n"
      "maxMessageSize=1024\n"
      "autoCreateTopicEnable=false\n"
      "brokerRole=ASYNC_MASTER\n"
      "\n";
  ASSERT_TRUE(ApplyBrokerConf(conf, o, &ignored).ok());
  EXPECT_EQ(o.cluster_name, "C1");
  EXPECT_EQ(o.broker_name, "b-1");
  EXPECT_EQ(o.server.port, 10999);
  EXPECT_EQ(o.namesrv_addrs, (std::vector<std::string>{"127.0.0.1:9876", "127.0.0.1:9877"}));
  EXPECT_EQ(o.store.flush_disk_type, FlushDiskType::kSyncFlush);
  EXPECT_FALSE(o.store.sync_flush_zero_fill);
  EXPECT_EQ(o.store.commit_log_resident_window_bytes, int64_t{256} << 20);
  EXPECT_EQ(o.store.access_message_in_memory_max_ratio, 30);
  EXPECT_EQ(o.store.max_message_body_bytes, 1024u);
  EXPECT_FALSE(o.auto_create_topic);
  EXPECT_EQ(ignored, (std::vector<std::string>{"brokerRole"}));
}

TEST(BrokerConfTest, BadValuesNameTheKey) {
  BrokerOptions o;
  Status s = ApplyBrokerConf("listenPort=abc\n", o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("listenPort"), std::string::npos);
  EXPECT_FALSE(ApplyBrokerConf("flushDiskType=SOMETIMES\n", o, nullptr).ok());
  EXPECT_FALSE(ApplyBrokerConf("commitLogResidentWindow=-1\n", o, nullptr).ok());
  EXPECT_FALSE(ApplyBrokerConf("accessMessageInMemoryMaxRatio=101\n", o, nullptr).ok());
  EXPECT_FALSE(ApplyBrokerConf("justakey\n", o, nullptr).ok());
}

}  // namespace
}  // namespace rocketstore::broker
