// topics.json and subscriptionGroup.json as a Java broker writes them (4.9.8 members as
// fastjson writes them, plus 5.x members rocketstore does not model): loaded into typed
// fields, and every member of every entry survives a rewrite by rocketstore.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "base/clock.h"
#include "broker/metadata.h"
#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

// Entries as in GET_ALL_TOPIC_CONFIG of java-4.9.8/admin-broker.json, plus a 5.x topic
// (attributes, an unknown member) and an unknown top-level member.
constexpr char kJavaTopics[] = R"({
  "dataVersion":{"counter":27,"timestamp":1796158476980},
  "topicConfigTable":{
    "JV_adm":{"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"JV_adm","topicSysFlag":0,"writeQueueNums":4},
    "%RETRY%CGV_adm":{"order":false,"perm":6,"readQueueNums":1,"topicFilterType":"SINGLE_TAG","topicName":"%RETRY%CGV_adm","topicSysFlag":0,"writeQueueNums":1},
    "JavaCluster":{"order":false,"perm":7,"readQueueNums":16,"topicFilterType":"SINGLE_TAG","topicName":"JavaCluster","topicSysFlag":0,"writeQueueNums":16},
    "V5":{"attributes":{"+message.type":"FIFO"},"order":true,"perm":6,"readQueueNums":8,"topicFilterType":"MULTI_TAG","topicName":"V5","topicSysFlag":1,"writeQueueNums":8,"futureMember":{"a":[1,2.5,"x",null],"b":{0:true}}},
    "OddAttrs":{"attributes":{"n":1},"perm":6,"readQueueNums":2,"topicName":"OddAttrs","writeQueueNums":2}
  },
  "mappingDataVersion":{"counter":3,"timestamp":17}
})";

// Entries as in GET_ALL_SUBSCRIPTIONGROUP_CONFIG of java-4.9.8/admin-broker.json, plus a
// 5.x group (groupSysFlag, consumeTimeoutMinute, groupRetryPolicy, attributes ...).
constexpr char kJavaGroups[] = R"({
  "dataVersion":{"counter":18,"timestamp":1796159175085},
  "subscriptionGroupTable":{
    "SELF_TEST_C_GROUP":{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,"groupName":"SELF_TEST_C_GROUP","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1},
    "CGV_adm_created":{"brokerId":0,"consumeBroadcastEnable":false,"consumeEnable":true,"consumeFromMinEnable":true,"groupName":"CGV_adm_created","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":5,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1},
    "G5":{"attributes":{"k":"v"},"brokerId":1,"consumeBroadcastEnable":true,"consumeEnable":false,"consumeFromMinEnable":false,"consumeMessageOrderly":true,"consumeTimeoutMinute":15,"groupName":"G5","groupRetryPolicy":{"type":"CUSTOMIZED","customizedRetryPolicy":{"maxDelayMs":7200000,"minDelayMs":1000}},"groupSysFlag":2,"notifyConsumerIdsChangedEnable":false,"retryMaxTimes":3,"retryQueueNums":2,"subscriptionDataSet":null,"whichBrokerWhenConsumeSlowly":2}
  }
})";

TopicConfig Named(const std::string& name) {
  TopicConfig t;
  t.name = name;
  return t;
}

class JavaConfigFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_.CreateDirs("/c")); }

  static rapidjson::Document Parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.data(), text.size());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
  }

  // Every member of every entry of `table` in `before` is in `after` with an equal value.
  static void ExpectNoMemberLost(const rapidjson::Value& before, const rapidjson::Value& after,
                                 const char* table) {
    const rapidjson::Value& b = before[table];
    const rapidjson::Value& a = after[table];
    for (const auto& entry : b.GetObject()) {
      ASSERT_TRUE(a.HasMember(entry.name)) << entry.name.GetString();
      const rapidjson::Value& written = a[entry.name];
      for (const auto& m : entry.value.GetObject()) {
        SCOPED_TRACE(std::string(entry.name.GetString()) + "." + m.name.GetString());
        ASSERT_TRUE(written.HasMember(m.name));
        EXPECT_TRUE(written[m.name] == m.value);
      }
    }
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
};

TEST_F(JavaConfigFilesTest, TopicsKeepEveryField) {
  ASSERT_OK(WriteFileAtomically(fs_, "/c/topics.json", kJavaTopics));
  TopicConfigManager m(fs_, clock_, "/c/topics.json");
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.data_version().counter, 27);
  ASSERT_EQ(m.List().size(), 5u);
  TopicConfig v5 = *m.Find("V5");
  EXPECT_EQ(v5.read_queue_nums, 8);
  EXPECT_EQ(v5.filter_type, "MULTI_TAG");
  EXPECT_EQ(v5.sys_flag, 1);
  EXPECT_TRUE(v5.order);
  EXPECT_EQ(v5.attributes, (std::map<std::string, std::string>{{"+message.type", "FIFO"}}));
  ASSERT_EQ(v5.unknown_fields.count("futureMember"), 1u);
  EXPECT_EQ(m.Find("JavaCluster")->perm, 7);
  EXPECT_EQ(m.Find("OddAttrs")->unknown_fields.count("attributes"), 1u);  // not a string map

  // A rewrite (after an unrelated change and one through Find + Upsert) loses nothing.
  m.Upsert(Named("Added"));
  v5.write_queue_nums = 8;
  v5.perm = 4;
  m.Upsert(v5);
  ASSERT_OK(m.Persist());
  ASSERT_OK_AND_ASSIGN(std::string written, fs_.ReadWholeFile("/c/topics.json"));
  rapidjson::Document java =
      Parse(std::string(kJavaTopics)
                .replace(std::string(kJavaTopics).find("{0:true}"), 8, R"({"0":true})"));
  rapidjson::Document after = Parse(written);
  java["topicConfigTable"]["V5"]["perm"] = 4;  // the one change made
  ExpectNoMemberLost(java, after, "topicConfigTable");
  EXPECT_TRUE(after["mappingDataVersion"] == java["mappingDataVersion"]);
  EXPECT_EQ(after["dataVersion"]["counter"].GetInt64(), 29);
  EXPECT_EQ(after["dataVersion"]["timestamp"].GetInt64(), clock_.NowMillis());

  // And it loads back equal.
  TopicConfigManager again(fs_, clock_, "/c/topics.json");
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.List(), m.List());
}

TEST_F(JavaConfigFilesTest, SubscriptionGroupsKeepEveryField) {
  ASSERT_OK(WriteFileAtomically(fs_, "/c/subscriptionGroup.json", kJavaGroups));
  SubscriptionGroupManager m(fs_, clock_, "/c/subscriptionGroup.json");
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.data_version().counter, 18);
  EXPECT_FALSE(m.Find("CGV_adm_created")->consume_broadcast_enable);
  EXPECT_EQ(m.Find("CGV_adm_created")->retry_max_times, 5);
  SubscriptionGroupConfig g5 = *m.Find("G5");
  EXPECT_EQ(g5.broker_id, 1);
  EXPECT_EQ(g5.which_broker_when_consume_slowly, 2);
  EXPECT_EQ(g5.retry_queue_nums, 2);
  EXPECT_EQ(g5.retry_max_times, 3);
  EXPECT_FALSE(g5.consume_enable);
  EXPECT_FALSE(g5.consume_from_min_enable);
  EXPECT_FALSE(g5.notify_consumer_ids_changed_enable);
  for (const char* unknown : {"attributes", "consumeMessageOrderly", "consumeTimeoutMinute",
                              "groupRetryPolicy", "groupSysFlag", "subscriptionDataSet"}) {
    EXPECT_EQ(g5.unknown_fields.count(unknown), 1u) << unknown;
  }
  EXPECT_EQ(g5.unknown_fields.count("groupName"), 0u);

  m.FindOrCreate("NewGroup");
  g5.retry_max_times = 4;
  m.Upsert(g5);
  ASSERT_OK(m.Persist());
  ASSERT_OK_AND_ASSIGN(std::string written, fs_.ReadWholeFile("/c/subscriptionGroup.json"));
  rapidjson::Document java = Parse(kJavaGroups);
  rapidjson::Document after = Parse(written);
  java["subscriptionGroupTable"]["G5"]["retryMaxTimes"] = 4;
  ExpectNoMemberLost(java, after, "subscriptionGroupTable");
  EXPECT_STREQ(after["subscriptionGroupTable"]["NewGroup"]["groupName"].GetString(), "NewGroup");
  EXPECT_EQ(after["subscriptionGroupTable"]["NewGroup"]["whichBrokerWhenConsumeSlowly"].GetInt(),
            1);

  SubscriptionGroupManager again(fs_, clock_, "/c/subscriptionGroup.json");
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.List(), m.List());
}

// A Java broker's subscriptionGroup.json holds the default groups it had (here one, changed
// by an operator): the broker adds the missing ones and leaves the file's alone.
TEST_F(JavaConfigFilesTest, JavaGroupsFileKeepsItsDefaultGroupsAndGetsTheMissingOnes) {
  std::string text = kJavaGroups;
  const std::string self_test = R"("groupName":"SELF_TEST_C_GROUP",)";
  text.replace(text.find(R"("consumeEnable":true)"), 20, R"("consumeEnable":false)");
  ASSERT_NE(text.find(self_test), std::string::npos);
  ASSERT_OK(WriteFileAtomically(fs_, "/c/subscriptionGroup.json", text));
  SubscriptionGroupManager m(fs_, clock_, "/c/subscriptionGroup.json");
  ASSERT_OK(m.Load());
  ASSERT_FALSE(m.Find("SELF_TEST_C_GROUP")->consume_enable);
  EXPECT_FALSE(m.dirty());

  EXPECT_EQ(m.AddMissing(DefaultSubscriptionGroups()), 6);
  EXPECT_FALSE(m.Find("SELF_TEST_C_GROUP")->consume_enable) << "the file's entry wins";
  EXPECT_EQ(m.data_version().counter, 19);
  EXPECT_TRUE(m.dirty());
  for (const SubscriptionGroupConfig& d : DefaultSubscriptionGroups()) {
    if (d.name != "SELF_TEST_C_GROUP") {
      EXPECT_EQ(m.Find(d.name), d);
    }
  }
  ASSERT_OK(m.Persist());
  EXPECT_EQ(m.AddMissing(DefaultSubscriptionGroups()), 0);
  EXPECT_EQ(m.data_version().counter, 19);
  EXPECT_FALSE(m.dirty());

  SubscriptionGroupManager again(fs_, clock_, "/c/subscriptionGroup.json");
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.List(), m.List());
  EXPECT_EQ(again.List().size(), 3u + 6u);
}

TEST_F(JavaConfigFilesTest, WrittenFilesUseFastjsonsSortedMemberOrder) {
  TopicConfigManager m(fs_, clock_, "/c/topics.json");
  m.Upsert(Named("T"));
  EXPECT_EQ(
      m.ToJson(),
      R"({"dataVersion":{"counter":1,"stateVersion":0,"timestamp":1700000000000},)"
      R"("topicConfigTable":{"T":{"attributes":{},"order":false,"perm":6,"readQueueNums":4,)"
      R"("topicFilterType":"SINGLE_TAG","topicName":"T","topicSysFlag":0,"writeQueueNums":4}}})");
}

}  // namespace
}  // namespace rocketstore::broker
