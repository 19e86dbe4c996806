// Unit tests of the name server's state: RegisterBrokerBody decoding (plain and Java's
// compressed layout, corrupt input), the admin views of RouteTable (4.9.8
// RouteInfoManager semantics), KvConfigStore persistence through the fault-injecting
// file system, and NamesrvRuntimeConfig's allow-list.
#include <gtest/gtest.h>

#include <cerrno>

#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "namesrv/kv_config.h"
#include "namesrv/namesrv_config.h"
#include "namesrv/register_body.h"
#include "namesrv/route_table.h"
#include "test_util.h"

namespace rocketstore::namesrv {
namespace {

using testing::CompressedPayload;
using testing::Deflate;
using testing::JavaTopicConfig;

Status DecodeCompressed(const std::vector<uint8_t>& body, BrokerRegistration& reg) {
  return DecodeCompressedRegisterBody(body, reg);
}

// ---- compressed RegisterBrokerBody: failure paths first ----

TEST(CompressedRegisterBodyTest, NotZlibIsAClearError) {
  BrokerRegistration reg;
  const std::string junk = R"({"filterServerList":[]})";  // plain JSON sent as compressed
  Status s = DecodeCompressed(std::vector<uint8_t>(junk.begin(), junk.end()), reg);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a valid zlib stream"), std::string::npos) << s.message();
}

TEST(CompressedRegisterBodyTest, TruncatedStreamIsAClearError) {
  auto body = Deflate(CompressedPayload(R"({"counter":1,"timestamp":2})", {{"T"}}));
  body.resize(body.size() / 2);
  BrokerRegistration reg;
  Status s = DecodeCompressed(body, reg);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
}

TEST(CompressedRegisterBodyTest, LengthPastTheEndIsAClearError) {
  std::string raw = CompressedPayload(R"({"counter":1,"timestamp":2})", {{"T"}});
  raw.resize(raw.size() - 1);  // the filter list's last byte is cut off
  BrokerRegistration reg;
  Status s = DecodeCompressed(Deflate(raw), reg);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("runs past its end"), std::string::npos) << s.message();
}

TEST(CompressedRegisterBodyTest, BadTopicLineIsAClearError) {
  JavaTopicConfig bad{"T"};
  bad.filter_type = "SINGLE_TAG extra";
  BrokerRegistration reg;
  Status s = DecodeCompressed(Deflate(CompressedPayload(R"({"counter":1})", {bad})), reg);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("topic config 0"), std::string::npos) << s.message();
}

TEST(CompressedRegisterBodyTest, BadDataVersionIsAClearError) {
  BrokerRegistration reg;
  Status s = DecodeCompressed(Deflate(CompressedPayload("not json", {})), reg);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("DataVersion"), std::string::npos) << s.message();
}

TEST(CompressedRegisterBodyTest, DecodesJavasLayout) {
  BrokerRegistration reg;
  reg.broker_name = "b";
  JavaTopicConfig a{"TBW102", 8, 8, 7};
  JavaTopicConfig c{"%RETRY%g", 1, 1, 6, "MULTI_TAG"};
  ASSERT_TRUE(DecodeCompressed(Deflate(CompressedPayload(R"({"counter":5,"timestamp":17})", {a, c},
                                                         R"(["10.0.0.1:9"])")),
                               reg)
                  .ok());
  EXPECT_EQ(reg.data_version, (DataVersion{5, 17}));
  ASSERT_EQ(reg.topics.size(), 2u);
  EXPECT_EQ(reg.topics["TBW102"].read_queue_nums, 8);
  EXPECT_EQ(reg.topics["TBW102"].write_queue_nums, 8);
  EXPECT_EQ(reg.topics["TBW102"].perm, 7);
  EXPECT_EQ(reg.topics["TBW102"].topic_sys_flag, 0);  // not in TopicConfig's text form
  EXPECT_EQ(reg.topics["%RETRY%g"].perm, 6);
  EXPECT_EQ(reg.topics["%RETRY%g"].broker_name, "b");
  EXPECT_EQ(reg.filter_servers, std::vector<std::string>{"10.0.0.1:9"});
}

TEST(PlainRegisterBodyTest, NotJsonIsAClearErrorAndDataVersionIsRead) {
  BrokerRegistration reg;
  EXPECT_EQ(ParseRegisterBody("{{", reg).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(ParseRegisterBody(R"({"topicConfigSerializeWrapper":{"dataVersion":)"
                                R"({"counter":3,"timestamp":9},"topicConfigTable":{}}})",
                                reg)
                  .ok());
  EXPECT_EQ(reg.data_version, (DataVersion{3, 9}));
}

// ---- RouteTable admin views ----

BrokerRegistration Broker(const std::string& cluster, const std::string& name,
                          const std::string& addr, std::vector<std::string> topics,
                          int64_t id = 0) {
  BrokerRegistration r;
  r.cluster_name = cluster;
  r.broker_name = name;
  r.broker_addr = addr;
  r.broker_id = id;
  r.ha_server_addr = addr + "-ha";
  r.data_version = {1, 1};
  for (const auto& t : topics) {
    QueueData q;
    q.broker_name = name;
    q.read_queue_nums = q.write_queue_nums = 4;
    q.perm = 6;
    q.topic_sys_flag = t == "U" ? 1 : (t == "US" ? 2 : 0);
    r.topics[t] = q;
  }
  return r;
}

TEST(RouteTableAdminTest, UnknownNamesChangeNothing) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T"}), 0);
  EXPECT_TRUE(t.TopicsByCluster("nope").topics.empty());
  EXPECT_EQ(t.WipeWritePerm("nope"), 0);
  EXPECT_EQ(t.AddWritePerm("nope"), 0);
  t.DeleteTopic("nope", "");
  t.DeleteTopic("T", "nope");
  EXPECT_EQ(t.AllTopics().topics, std::set<std::string>{"T"});
  EXPECT_FALSE(t.StoredDataVersion("h:9").has_value());
  EXPECT_TRUE(t.QueryDataVersion("h:9", {1, 1}, 5));  // unknown broker: changed
}

TEST(RouteTableAdminTest, TopicListsFollowJava) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T", "A", "U"}), 0);
  t.Register(Broker("C2", "b", "h:2", {"T", "B", "US"}), 0);
  EXPECT_EQ(t.AllTopics().topics, (std::set<std::string>{"A", "B", "T", "U", "US"}));
  EXPECT_FALSE(t.AllTopics().broker_addr.has_value());
  EXPECT_EQ(t.TopicsByCluster("C1").topics, (std::set<std::string>{"A", "T", "U"}));
  TopicList sys = t.SystemTopics();
  EXPECT_EQ(sys.topics, (std::set<std::string>{"C1", "C2", "a", "b"}));
  EXPECT_EQ(sys.broker_addr, "h:1");
  EXPECT_EQ(sys.ToJson(), R"({"brokerAddr":"h:1","topicList":["C1","C2","a","b"]})");
  EXPECT_EQ(t.TopicsBySysFlag([](int32_t f) { return (f & 1) != 0; }).topics,
            std::set<std::string>{"U"});
  EXPECT_EQ(t.AllTopics().ToJson(), R"({"topicList":["A","B","T","U","US"]})");
}

TEST(RouteTableAdminTest, DeleteTopicWholeOrPerCluster) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T", "X"}), 0);
  t.Register(Broker("C2", "b", "h:2", {"T"}), 0);
  t.DeleteTopic("T", "C1");
  auto route = t.RouteJson("T");
  ASSERT_TRUE(route.has_value());
  EXPECT_EQ(route->find("\"a\""), std::string::npos) << *route;
  t.DeleteTopic("T", "");
  EXPECT_FALSE(t.RouteJson("T").has_value());
  EXPECT_TRUE(t.RouteJson("X").has_value());
}

TEST(RouteTableAdminTest, WipeAndAddWritePerm) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T", "X"}), 0);
  t.Register(Broker("C1", "b", "h:2", {"T"}), 0);
  EXPECT_EQ(t.WipeWritePerm("a"), 2);
  EXPECT_NE(t.RouteJson("X")->find(R"("perm":4)"), std::string::npos) << *t.RouteJson("X");
  EXPECT_NE(t.RouteJson("T")->find(R"("brokerName":"b","perm":6)"), std::string::npos);
  EXPECT_EQ(t.AddWritePerm("a"), 2);
  EXPECT_NE(t.RouteJson("X")->find(R"("perm":6)"), std::string::npos);
}

TEST(RouteTableAdminTest, DataVersionAndSlaveResult) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T"}), 0);
  EXPECT_EQ(t.StoredDataVersion("h:1"), (DataVersion{1, 1}));
  EXPECT_TRUE(t.QueryDataVersion("h:1", {2, 1}, 10));
  EXPECT_FALSE(t.QueryDataVersion("h:1", {1, 1}, 200000));
  // Refreshed by the unchanged query at 200000: not expired 100 s later.
  EXPECT_EQ(t.ScanInactive(300000), 0);
  RegisterResult slave = t.Register(Broker("C1", "a", "h:3", {"T"}, 1), 300000);
  EXPECT_EQ(slave.master_addr, "h:1");
  EXPECT_EQ(slave.ha_server_addr, "h:1-ha");
  EXPECT_FALSE(t.Register(Broker("C1", "a", "h:1", {"T"}), 300000).master_addr.has_value());
}

TEST(RouteTableAdminTest, OrderTopicConfInRoute) {
  RouteTable t;
  t.Register(Broker("C1", "a", "h:1", {"T"}), 0);
  auto route = t.RouteJson("T", std::string("a:4"));
  ASSERT_TRUE(route.has_value());
  EXPECT_NE(route->find(R"("filterServerTable":{},"orderTopicConf":"a:4","queueDatas")"),
            std::string::npos)
      << *route;
  EXPECT_EQ(t.RouteJson("T")->find("orderTopicConf"), std::string::npos);
}

// ---- KvConfigStore ----

TEST(KvConfigStoreTest, FailedWriteChangesNothing) {
  FaultInjectionFileSystem fs;
  KvConfigStore kv(&fs, "/ns/kvConfig.json");
  ASSERT_TRUE(kv.Load().ok());
  ASSERT_TRUE(kv.Put("NS", "k", "v1").ok());
  fs.FailOpsOfKind(OpKind::kRename, EIO);
  Status s = kv.Put("NS", "k", "v2");
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find("/ns/kvConfig.json"), std::string::npos) << s.message();
  EXPECT_EQ(kv.Get("NS", "k"), "v1");
  EXPECT_FALSE(kv.Delete("NS", "k").ok());
  EXPECT_EQ(kv.Get("NS", "k"), "v1");
  fs.ClearFailures();
  KvConfigStore again(&fs, "/ns/kvConfig.json");
  ASSERT_TRUE(again.Load().ok());
  EXPECT_EQ(again.Get("NS", "k"), "v1");
}

TEST(KvConfigStoreTest, CorruptFileIsReported) {
  FaultInjectionFileSystem fs;
  ASSERT_TRUE(fs.CreateDirs("/ns").ok());
  ASSERT_TRUE(WriteFileAtomically(fs, "/ns/kvConfig.json", "{\"configTable\":[1]}").ok());
  KvConfigStore kv(&fs, "/ns/kvConfig.json");
  Status s = kv.Load();
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.message();
}

TEST(KvConfigStoreTest, JavasFileShapeRoundTrips) {
  FaultInjectionFileSystem fs;
  KvConfigStore kv(&fs, "/ns/kvConfig.json");
  ASSERT_TRUE(kv.Put("ORDER_TOPIC_CONFIG", "T", "a:4;b:4").ok());
  ASSERT_TRUE(kv.Put("NS", "k", "v").ok());
  auto file = ReadWholeFile(fs, "/ns/kvConfig.json");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, R"({"configTable":{"NS":{"k":"v"},"ORDER_TOPIC_CONFIG":{"T":"a:4;b:4"}}})");
  EXPECT_EQ(kv.NamespaceJson("NS"), R"({"table":{"k":"v"}})");
  EXPECT_FALSE(kv.NamespaceJson("none").has_value());
  ASSERT_TRUE(kv.Delete("NS", "k").ok());
  ASSERT_TRUE(kv.Delete("NS", "absent").ok());
  EXPECT_FALSE(kv.Get("NS", "k").has_value());
  EXPECT_EQ(kv.NamespaceJson("NS"), R"({"table":{}})");  // the namespace stays, as in Java
  // Java's own file (written by MixAll.string2File) loads.
  ASSERT_TRUE(WriteFileAtomically(fs, "/ns/java.json",
                                  R"({"configTable":{"ORDER_TOPIC_CONFIG":{"X":"b:8"}}})")
                  .ok());
  KvConfigStore java(&fs, "/ns/java.json");
  ASSERT_TRUE(java.Load().ok());
  EXPECT_EQ(java.Get("ORDER_TOPIC_CONFIG", "X"), "b:8");
}

// ---- NamesrvRuntimeConfig ----

TEST(NamesrvConfigTest, RefusesKeysOutsideTheAllowList) {
  FaultInjectionFileSystem fs;
  NamesrvRuntimeConfig c(&fs, "/ns/kvConfig.json", "/ns/namesrv.properties");
  for (const char* body : {"kvConfigPath=/tmp/x", "configStorePath=/etc/passwd", "rocketmqHome=/",
                           "configBlackList=", "serverWorkerThreads=1"}) {
    Status s = c.Update(std::string("orderMessageEnable=true\n") + body);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << body;
    const std::string key(body, std::string_view(body).find('='));
    EXPECT_NE(s.message().find("key " + key), std::string::npos) << s.message();
    EXPECT_FALSE(c.order_message_enable()) << "nothing applied: " << body;
  }
  EXPECT_EQ(c.Update("orderMessageEnable=yes").code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs.Exists("/ns/namesrv.properties"));
}

TEST(NamesrvConfigTest, UpdatePersistsAndShows) {
  FaultInjectionFileSystem fs;
  NamesrvRuntimeConfig c(&fs, "/ns/kvConfig.json", "/ns/namesrv.properties");
  c.set_listen_port(9876);
  ASSERT_TRUE(c.Update("# comment\norderMessageEnable = true\nproductEnvName=prod\n").ok());
  EXPECT_TRUE(c.order_message_enable());
  auto props = ParsePropertiesText(c.PropertiesText());
  EXPECT_EQ(props["orderMessageEnable"], "true");
  EXPECT_EQ(props["productEnvName"], "prod");
  EXPECT_EQ(props["clusterTest"], "false");
  EXPECT_EQ(props["listenPort"], "9876");
  EXPECT_EQ(props["kvConfigPath"], "/ns/kvConfig.json");
  EXPECT_EQ(props["configStorePath"], "/ns/namesrv.properties");
  EXPECT_EQ(props["configBlackList"], "configBlackList;configStorePath;kvConfigPath");
  NamesrvRuntimeConfig again(&fs, "/ns/kvConfig.json", "/ns/namesrv.properties");
  ASSERT_TRUE(again.Load().ok());
  EXPECT_TRUE(again.order_message_enable());
}

}  // namespace
}  // namespace rocketstore::namesrv
