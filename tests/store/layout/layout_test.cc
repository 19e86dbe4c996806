#include "store/layout/layout.h"

#include <gtest/gtest.h>

namespace rocketstore::layout {
namespace {

// The names are RocketMQ's: a 4.9.8 broker must find its files where we put them.
TEST(LayoutTest, EveryPathOfAStoreDirectory) {
  const std::string r = "/data/store";
  EXPECT_EQ(CommitLogDir(r), "/data/store/commitlog");
  EXPECT_EQ(ConsumeQueueRootDir(r), "/data/store/consumequeue");
  EXPECT_EQ(ConsumeQueueTopicDir(r, "TopicTest"), "/data/store/consumequeue/TopicTest");
  EXPECT_EQ(ConsumeQueueDir(r, "TopicTest", 7), "/data/store/consumequeue/TopicTest/7");
  EXPECT_EQ(IndexDir(r), "/data/store/index");
  EXPECT_EQ(CheckpointPath(r), "/data/store/checkpoint");
  EXPECT_EQ(CheckpointTempPath(r), "/data/store/checkpoint.tmp");
  EXPECT_EQ(AbortPath(r), "/data/store/abort");
  EXPECT_EQ(LockPath(r), "/data/store/lock");
  EXPECT_EQ(ConfigDir(r), "/data/store/config");
  EXPECT_EQ(ConfigPath(r, ConfigFile::kTopics), "/data/store/config/topics.json");
  EXPECT_EQ(ConfigPath(r, ConfigFile::kConsumerOffset), "/data/store/config/consumerOffset.json");
  EXPECT_EQ(ConfigPath(r, ConfigFile::kSubscriptionGroup),
            "/data/store/config/subscriptionGroup.json");
  EXPECT_EQ(ConfigPath(r, ConfigFile::kDelayOffset), "/data/store/config/delayOffset.json");
  EXPECT_EQ(ConfigBackupPath(r, ConfigFile::kTopics), "/data/store/config/topics.json.bak");
  EXPECT_EQ(ConfigTempPath(r, ConfigFile::kDelayOffset), "/data/store/config/delayOffset.json.tmp");
}

TEST(LayoutTest, RootWithTrailingSlashOrRelative) {
  EXPECT_EQ(CommitLogDir("/s/"), "/s/commitlog");
  EXPECT_EQ(AbortPath("store"), "store/abort");
  EXPECT_EQ(ConsumeQueueDir("", "T", 0), "consumequeue/T/0");
}

}  // namespace
}  // namespace rocketstore::layout
