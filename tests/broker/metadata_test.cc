#include "broker/metadata.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/temp_dir.h"

namespace rocketstore::broker {
namespace {

TEST(MetadataTest, TopicNames) {
  EXPECT_TRUE(IsValidTopicName("TopicA-1_x|%"));
  EXPECT_FALSE(IsValidTopicName(""));
  EXPECT_FALSE(IsValidTopicName("bad topic"));
  EXPECT_FALSE(IsValidTopicName(std::string(128, 'a')));
  EXPECT_TRUE(IsValidTopicName("%RETRY%" + std::string(200, 'a')));
}

TEST(MetadataTest, OffsetsRoundTripAndUnquotedKeys) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/consumerOffset.json";
  {
    std::ofstream out(path);
    out << R"({"offsetTable":{"T@G":{0:5,1:7},"T2@G":{"3":9}}})";
  }
  ConsumerOffsetManager m(path);
  ASSERT_TRUE(m.Load().ok());
  EXPECT_EQ(m.Query("G", "T", 0), 5);
  EXPECT_EQ(m.Query("G", "T", 1), 7);
  EXPECT_EQ(m.Query("G", "T2", 3), 9);
  EXPECT_EQ(m.Query("G", "T", 2), -1);
  m.Commit("G", "T", 2, 11);
  m.Commit("G", "T", 0, -1);  // ignored
  ASSERT_TRUE(m.Persist().ok());
  ConsumerOffsetManager again(path);
  ASSERT_TRUE(again.Load().ok());
  EXPECT_EQ(again.Query("G", "T", 2), 11);
  EXPECT_EQ(again.Query("G", "T", 0), 5);
  // The previous version is kept as .bak.
  std::ifstream bak(path + ".bak");
  EXPECT_TRUE(bak.good());
}

TEST(MetadataTest, TopicsPersistAndAutoCreate) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/topics.json";
  TopicConfigManager m(path);
  TopicConfig tbw;
  tbw.name = "TBW102";
  tbw.read_queue_nums = tbw.write_queue_nums = 8;
  tbw.perm = 7;
  EXPECT_TRUE(m.Upsert(tbw));
  EXPECT_FALSE(m.Upsert(tbw));
  const int64_t v = m.data_version().counter;
  auto created = m.CreateFromTemplate("NewTopic", "TBW102", 4);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->write_queue_nums, 4);
  EXPECT_EQ(created->perm, 6);
  EXPECT_GT(m.data_version().counter, v);
  EXPECT_FALSE(m.CreateFromTemplate("X", "NewTopic", 4).has_value());  // no INHERIT
  TopicConfigManager again(path);
  ASSERT_TRUE(again.Load().ok());
  ASSERT_TRUE(again.Find("NewTopic").has_value());
  EXPECT_EQ(again.Find("NewTopic")->read_queue_nums, 4);
}

}  // namespace
}  // namespace rocketstore::broker
