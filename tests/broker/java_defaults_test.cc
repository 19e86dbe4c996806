// What a fresh broker has before any client came, compared with the Java 4.9.8 broker of
// tests/protocol/vectors/java-4.9.8/admin-broker.json (same cluster and broker names):
// the subscription groups SubscriptionGroupManager.init creates (GET_ALL_SUBSCRIPTIONGROUP_
// CONFIG, 201) and the topics TopicConfigManager's constructor creates (GET_ALL_TOPIC_CONFIG,
// 21). The config files' entries win over the defaults, as Java's decode puts the file's
// table over what its constructor created.
#include <gtest/gtest.h>

#include <set>

#include "admin_a_fixture.h"
#include "io/atomic_file.h"
#include "io/posix_file_system.h"

namespace rocketstore::admin_a_test {
namespace {

class JavaDefaultsTest : public AdminATest {
 protected:
  void Configure(broker::BrokerOptions& bo) override {
    ConfigureMore(bo);
    options_ = bo;
  }
  virtual void ConfigureMore(broker::BrokerOptions&) {}

  // Stops the broker and starts a new one on the same store.
  void Restart() {
    client_.Close();
    ASSERT_TRUE(broker_->Stop().ok());
    broker_ = std::make_unique<broker::Broker>(options_);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
  }

  // The table `table` of the body of `code`'s answer.
  rapidjson::Document Table(RequestCode code) {
    RemotingCommand r = Call(Request(code));
    EXPECT_EQ(r.code, 0) << Remark(r);
    return Json(BodyText(r));
  }

  broker::BrokerOptions options_;
};

std::set<std::string> Names(const rapidjson::Value& table) {
  std::set<std::string> out;
  for (const auto& m : table.GetObject()) out.insert(m.name.GetString());
  return out;
}

// ---- subscription groups ----------------------------------------------------------------

TEST_F(JavaDefaultsTest, ChangedDefaultGroupKeepsItsSettingsAndADeletedOneComesBack) {
  auto tools = broker_->subscription_groups().Find("TOOLS_CONSUMER");
  ASSERT_TRUE(tools);
  tools->consume_enable = false;
  tools->retry_max_times = 3;
  broker_->subscription_groups().Upsert(*tools);
  ASSERT_TRUE(broker_->subscription_groups().Delete("CID_ONSAPI_PULL"));
  Restart();
  EXPECT_EQ(broker_->subscription_groups().Find("TOOLS_CONSUMER"), tools) << "the file's wins";
  auto pull = broker_->subscription_groups().Find("CID_ONSAPI_PULL");
  ASSERT_TRUE(pull) << "re-created at start, as Java's init does";
  EXPECT_TRUE(pull->consume_enable);
}

TEST_F(JavaDefaultsTest, FreshBrokerListsJavasDefaultGroupsWithJavasSettings) {
  const rapidjson::Document ours = Table(RequestCode::kGetAllSubscriptionGroupConfig);
  const rapidjson::Document java = Json(JavaReply("GET_ALL_SUBSCRIPTIONGROUP_CONFIG").body_text);
  const rapidjson::Value& jt = java["subscriptionGroupTable"];
  const rapidjson::Value& ot = ours["subscriptionGroupTable"];
  // The Java broker's groups that no client of the capture made (they are all CGV_*).
  std::set<std::string> java_defaults;
  for (const std::string& n : Names(jt)) {
    if (!n.starts_with("CGV_")) java_defaults.insert(n);
  }
  ASSERT_EQ(java_defaults.size(), 7u);
  EXPECT_EQ(Names(ot), java_defaults);
  for (const std::string& n : java_defaults) {
    SCOPED_TRACE(n);
    EXPECT_EQ(Keys(ot[n.c_str()]), Keys(jt[n.c_str()]));
    for (const auto& m : jt[n.c_str()].GetObject()) {
      EXPECT_TRUE(ot[n.c_str()][m.name.GetString()] == m.value) << m.name.GetString();
    }
  }
  // And they are written to subscriptionGroup.json (a fresh store had none).
  client_.Close();
  ASSERT_TRUE(broker_->Stop().ok());
  auto file = ReadWholeFile(PosixFileSystem::Default(),
                            options_.store.root_dir + "/config/subscriptionGroup.json");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(Names(Json(*file)["subscriptionGroupTable"]), java_defaults);
}

// ---- topics ------------------------------------------------------------------------------

TEST_F(JavaDefaultsTest, ChangedDefaultTopicKeepsItsSettingsAndADeletedOneComesBack) {
  auto schedule = broker_->topics().Find("SCHEDULE_TOPIC_XXXX");
  ASSERT_TRUE(schedule);
  schedule->perm = 4;
  schedule->read_queue_nums = schedule->write_queue_nums = 20;
  broker_->topics().Upsert(*schedule);
  ASSERT_TRUE(broker_->topics().Delete("BenchmarkTest"));
  Restart();
  EXPECT_EQ(broker_->topics().Find("SCHEDULE_TOPIC_XXXX"), schedule) << "the file's wins";
  auto bench = broker_->topics().Find("BenchmarkTest");
  ASSERT_TRUE(bench) << "re-created at start, as Java's constructor does";
  EXPECT_EQ(bench->read_queue_nums, 1024);
}

// The Java broker's topics that none of the capture's clients made.
bool IsJavaDefaultTopic(const std::string& n) {
  return !n.starts_with("JV_") && !n.starts_with("%RETRY%") && !n.starts_with("%DLQ%") &&
         n != "RMQ_SYS_TRANS_HALF_TOPIC";  // created by the capture's transactions
}

TEST_F(JavaDefaultsTest, FreshBrokerListsJavasDefaultTopicsWithJavasSettings) {
  const rapidjson::Document ours = Table(RequestCode::kGetAllTopicConfig);
  const rapidjson::Document java = Json(JavaReply("GET_ALL_TOPIC_CONFIG").body_text);
  const rapidjson::Value& jt = java["topicConfigTable"];
  const rapidjson::Value& ot = ours["topicConfigTable"];
  std::set<std::string> java_defaults;
  for (const std::string& n : Names(jt)) {
    if (IsJavaDefaultTopic(n)) java_defaults.insert(n);
  }
  EXPECT_EQ(java_defaults,
            (std::set<std::string>{"BenchmarkTest", "JavaCluster", "JavaCluster_REPLY_TOPIC",
                                   "OFFSET_MOVED_EVENT", "SCHEDULE_TOPIC_XXXX", "SELF_TEST_TOPIC",
                                   "TBW102", "jbroker-a"}));
  EXPECT_EQ(Names(ot), java_defaults);
  for (const std::string& n : java_defaults) {
    SCOPED_TRACE(n);
    EXPECT_EQ(Without5xMembers(Keys(ot[n.c_str()])), Keys(jt[n.c_str()]));
    for (const auto& m : jt[n.c_str()].GetObject()) {
      EXPECT_TRUE(ot[n.c_str()][m.name.GetString()] == m.value) << m.name.GetString();
    }
  }
}

class JavaDefaultTopicSwitchesTest : public JavaDefaultsTest {
 protected:
  void ConfigureMore(broker::BrokerOptions& bo) override {
    bo.auto_create_topic = false;
    bo.cluster_topic_enable = false;
    bo.broker_topic_enable = false;
    bo.trace_topic_enable = true;
    bo.msg_trace_topic_name = "MyTrace";
  }
};

TEST_F(JavaDefaultTopicSwitchesTest, SwitchesShapeTheDefaultTopicsAsInJava) {
  EXPECT_FALSE(broker_->topics().Find("TBW102")) << "only with autoCreateTopicEnable";
  EXPECT_EQ(broker_->topics().Find("JavaCluster")->perm, 1) << "INHERIT only";
  EXPECT_EQ(broker_->topics().Find("jbroker-a")->perm, 1);
  auto trace = broker_->topics().Find("MyTrace");
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->read_queue_nums, 1);
  EXPECT_EQ(trace->write_queue_nums, 1);
  EXPECT_EQ(trace->perm, 6);
  EXPECT_FALSE(broker_->topics().Find("RMQ_SYS_TRACE_TOPIC"));
  // And the trace topic is a system topic, as TopicValidator.addSystemTopic makes it.
  RemotingCommand r = Call(Request(RequestCode::kGetSystemTopicListFromBroker));
  ASSERT_EQ(r.code, 0) << Remark(r);
  EXPECT_NE(BodyText(r).find("\"MyTrace\""), std::string::npos) << BodyText(r);
}

}  // namespace
}  // namespace rocketstore::admin_a_test
