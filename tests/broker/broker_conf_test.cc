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

// SQL92 filters are on unless broker.conf turns them off (RocketMQ's default is off).
TEST(BrokerConfTest, EnablePropertyFilterDefaultsToTrue) {
  BrokerOptions o;
  EXPECT_TRUE(o.enable_property_filter);
  ASSERT_TRUE(ApplyBrokerConf("enablePropertyFilter=false\n", o, nullptr).ok());
  EXPECT_FALSE(o.enable_property_filter);
  EXPECT_FALSE(ApplyBrokerConf("enablePropertyFilter=maybe\n", o, nullptr).ok());
}

// RocketMQ's consume-queue file size, in bytes (default 300,000 units = 6,000,000 bytes):
// a store whose files have another size loads once the size is configured.
TEST(BrokerConfTest, MappedFileSizeConsumeQueueSetsUnitsPerFile) {
  BrokerOptions o;
  EXPECT_EQ(o.store.consume_queue_units_per_file, 300000);
  ASSERT_TRUE(ApplyBrokerConf("mappedFileSizeConsumeQueue=600000\n", o, nullptr).ok());
  EXPECT_EQ(o.store.consume_queue_units_per_file, 30000);
  ASSERT_TRUE(ApplyBrokerConf("mappedFileSizeConsumeQueue=20\n", o, nullptr).ok());
  EXPECT_EQ(o.store.consume_queue_units_per_file, 1);
  // Not a multiple of the 20-byte unit: rounded up, as RocketMQ's
  // getMappedFileSizeConsumeQueue does (4096 -> 4100 bytes = 205 units).
  ASSERT_TRUE(ApplyBrokerConf("mappedFileSizeConsumeQueue=4096\n", o, nullptr).ok());
  EXPECT_EQ(o.store.consume_queue_units_per_file, 205);
  ASSERT_TRUE(ApplyBrokerConf("mappedFileSizeConsumeQueue=20\n", o, nullptr).ok());
  for (const char* bad :
       {"mappedFileSizeConsumeQueue=0\n", "mappedFileSizeConsumeQueue=-20\n",
        "mappedFileSizeConsumeQueue=x\n", "mappedFileSizeConsumeQueue=4294967300\n"}) {
    Status s = ApplyBrokerConf(bad, o, nullptr);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("mappedFileSizeConsumeQueue"), std::string::npos) << bad;
    EXPECT_NE(s.message().find("positive size in bytes"), std::string::npos) << bad;
  }
  EXPECT_EQ(o.store.consume_queue_units_per_file, 1);  // unchanged by the bad values
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

// Retention keys (RocketMQ's names; the disk ratios and deleteFileBatchMax are 5.x's):
// values are checked, not clamped silently, and GET_BROKER_CONFIG's text shows them.
TEST(BrokerConfTest, RetentionKeys) {
  BrokerOptions o;
  EXPECT_EQ(o.store.retention.file_reserved_time_ms, int64_t{72} * 3600 * 1000);
  ASSERT_TRUE(ApplyBrokerConf("fileReservedTime=48\ndeleteWhen=04;16\ndiskMaxUsedSpaceRatio=60\n"
                              "diskSpaceCleanForciblyRatio=80\ndiskSpaceWarningLevelRatio=88\n"
                              "deleteFileBatchMax=3\ncleanFileForciblyEnable=false\n",
                              o, nullptr)
                  .ok());
  EXPECT_EQ(o.store.retention.file_reserved_time_ms, int64_t{48} * 3600 * 1000);
  EXPECT_EQ(o.store.retention.delete_when, "04;16");
  EXPECT_EQ(o.store.retention.disk_max_used_space_ratio, 60);
  EXPECT_EQ(o.store.retention.disk_space_clean_forcibly_ratio, 80);
  EXPECT_EQ(o.store.retention.disk_space_warning_level_ratio, 88);
  EXPECT_EQ(o.store.retention.delete_files_batch_max, 3);
  EXPECT_FALSE(o.store.retention.clean_file_forcibly_enable);
  const std::string text = FormatBrokerConf(o);
  for (const char* line :
       {"fileReservedTime=48\n", "deleteWhen=04;16\n", "diskMaxUsedSpaceRatio=60\n",
        "diskSpaceCleanForciblyRatio=80\n", "diskSpaceWarningLevelRatio=88\n",
        "deleteFileBatchMax=3\n", "cleanFileForciblyEnable=false\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
  for (const char* bad :
       {"fileReservedTime=-1", "fileReservedTime=3d", "deleteWhen=24",
        "deleteWhen=", "deleteWhen=4;;5", "deleteWhen=004", "diskMaxUsedSpaceRatio=96",
        "diskMaxUsedSpaceRatio=9", "diskSpaceCleanForciblyRatio=86",
        "diskSpaceWarningLevelRatio=34", "deleteFileBatchMax=0", "cleanFileForciblyEnable=yes"}) {
    Status s = ApplyBrokerConf(std::string(bad) + "\n", o, nullptr);
    ASSERT_FALSE(s.ok()) << bad;
    const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(s.message().find(key), std::string::npos) << s.message();
  }
}

TEST(BrokerConfTest, RebalanceLockMaxLiveTimeUnderBothNames) {
  BrokerOptions o;
  EXPECT_EQ(o.rebalance_lock_max_live_ms, 60000);  // Java's default
  ASSERT_TRUE(ApplyBrokerConf("rebalanceLockMaxLiveTime=30000\n", o, nullptr).ok());
  EXPECT_EQ(o.rebalance_lock_max_live_ms, 30000);
  // Java's system property name, accepted as a key as well.
  ASSERT_TRUE(
      ApplyBrokerConf("rocketmq.broker.rebalance.lockMaxLiveTime = 45000\n", o, nullptr).ok());
  EXPECT_EQ(o.rebalance_lock_max_live_ms, 45000);
  Status s = ApplyBrokerConf("rebalanceLockMaxLiveTime=0\n", o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rebalanceLockMaxLiveTime=0"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyBrokerConf("rocketmq.broker.rebalance.lockMaxLiveTime=1m\n", o, nullptr).ok());
  EXPECT_EQ(o.rebalance_lock_max_live_ms, 45000);
}

TEST(BrokerConfTest, TimerKeys) {
  BrokerOptions o;
  EXPECT_TRUE(o.timer_wheel_enable);
  EXPECT_EQ(o.timer_precision_ms, 100);
  EXPECT_EQ(o.timer_max_delay_sec, 366 * 86400);
  ASSERT_TRUE(
      ApplyBrokerConf("timerWheelEnable=false\ntimerPrecisionMs=10\ntimerMaxDelaySec=86400\n", o,
                      nullptr)
          .ok());
  EXPECT_FALSE(o.timer_wheel_enable);
  EXPECT_EQ(o.timer_precision_ms, 10);
  EXPECT_EQ(o.timer_max_delay_sec, 86400);
  Status s = ApplyBrokerConf("timerPrecisionMs=5\n", o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("timerPrecisionMs"), std::string::npos);
  EXPECT_FALSE(ApplyBrokerConf("timerMaxDelaySec=0\n", o, nullptr).ok());
}

TEST(BrokerConfTest, DefaultTopicKeys) {
  BrokerOptions o;
  EXPECT_FALSE(ApplyBrokerConf("msgTraceTopicName=\n", o, nullptr).ok());
  EXPECT_FALSE(ApplyBrokerConf("traceTopicEnable=yes\n", o, nullptr).ok());
  // Java's defaults.
  EXPECT_TRUE(o.cluster_topic_enable);
  EXPECT_TRUE(o.broker_topic_enable);
  EXPECT_FALSE(o.trace_topic_enable);
  EXPECT_EQ(o.msg_trace_topic_name, "RMQ_SYS_TRACE_TOPIC");
  ASSERT_TRUE(ApplyBrokerConf("clusterTopicEnable=false\nbrokerTopicEnable=false\n"
                              "traceTopicEnable=true\nmsgTraceTopicName=MyTrace\n",
                              o, nullptr)
                  .ok());
  EXPECT_FALSE(o.cluster_topic_enable);
  EXPECT_FALSE(o.broker_topic_enable);
  EXPECT_TRUE(o.trace_topic_enable);
  EXPECT_EQ(o.msg_trace_topic_name, "MyTrace");
  BrokerOptions back;
  ASSERT_TRUE(ApplyBrokerConf(FormatBrokerConf(o), back, nullptr).ok());
  EXPECT_EQ(back.msg_trace_topic_name, "MyTrace");
  EXPECT_TRUE(back.trace_topic_enable);
  EXPECT_FALSE(back.cluster_topic_enable);
}

TEST(BrokerConfTest, StoreReplyMessageEnable) {
  BrokerOptions o;
  EXPECT_TRUE(o.store_reply_message);  // Java's default
  ASSERT_TRUE(ApplyBrokerConf("storeReplyMessageEnable=false\n", o, nullptr).ok());
  EXPECT_FALSE(o.store_reply_message);
  ASSERT_TRUE(ApplyBrokerConf("storeReplyMessageEnable=true\n", o, nullptr).ok());
  EXPECT_TRUE(o.store_reply_message);
}

TEST(BrokerConfTest, MetricsExporterKeys) {
  BrokerOptions o;
  EXPECT_EQ(o.metrics_port, 0);  // an embedded broker serves no /metrics unless told
  EXPECT_EQ(o.metrics_host, "127.0.0.1");
  ASSERT_TRUE(ApplyBrokerConf("metricsPromExporterPort=19557\nmetricsPromExporterHost=0.0.0.0\n", o,
                              nullptr)
                  .ok());
  EXPECT_EQ(o.metrics_port, 19557);
  EXPECT_EQ(o.metrics_host, "0.0.0.0");
  Status s = ApplyBrokerConf("metricsPromExporterPort=70000\n", o, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("metricsPromExporterPort"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyBrokerConf("metricsPromExporterPort=-1\n", o, nullptr).ok());
}

}  // namespace
}  // namespace rocketstore::broker
