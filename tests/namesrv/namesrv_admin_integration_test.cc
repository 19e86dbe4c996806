// The name server's admin protocol through a real in-process NameServer over loopback,
// replaying the Java 4.9.8 frames of tests/protocol/vectors/java-4.9.8/register-broker.json
// and admin-namesrv.json (the Java broker's registration, then mqadmin's requests) and
// comparing each answer with the Java name server's, field by field; then one test per
// admin code (request as Java's admin client encodes it, reply parsed as the Java body
// class reads it) with its error paths.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/crc32.h"
#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "java_vectors.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "test_util.h"

namespace rocketstore::namesrv {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::testing::CapturedFrame;
using protocol::testing::CommandWith;
using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;
using testing::CompressedPayload;
using testing::Deflate;
using testing::JavaTopicConfig;
using testing::ParseJson;

constexpr int32_t kQueryNotFound = 22, kSystemError = 1, kNoPermission = 16;

std::string BodyOf(const RemotingCommand& c) {
  auto b = c.body.Flatten();
  return std::string(b.begin(), b.end());
}

std::string Remark(const RemotingCommand& c) { return c.remark.value_or(""); }

std::vector<std::string> TopicListOf(const std::string& body) {
  auto d = ParseJson(body);
  std::vector<std::string> out;
  if (!d.IsObject() || !d.HasMember("topicList")) return {"<no topicList>"};
  for (const auto& t : d["topicList"].GetArray()) out.emplace_back(t.GetString());
  std::sort(out.begin(), out.end());
  return out;
}

class NamesrvAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_frames_ = LoadFrames("java-4.9.8/register-broker.json");
    admin_frames_ = LoadFrames("java-4.9.8/admin-namesrv.json");
    StartServer();
  }
  void TearDown() override { StopServer(); }
  void StartServer() {
    NameServerOptions o;
    o.server.port = 0;
    o.fs = &fs_;
    o.kv_config_path = "/home/namesrv/kvConfig.json";
    o.config_store_path = "/home/namesrv/namesrv.properties";
    ns_ = std::make_unique<NameServer>(o);
    ASSERT_TRUE(ns_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(ns_->port())).ok());
  }
  void StopServer() {
    client_.Close();
    if (ns_) ns_->Stop();
    ns_.reset();
  }
  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 10000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  RemotingCommand Call(RequestCode code, std::vector<std::pair<std::string, std::string>> f = {},
                       std::string body = "") {
    RemotingCommand req = CommandWith(ToInt(code), std::move(f));
    if (!body.empty()) req.body.Assign(body);
    return Call(std::move(req));
  }
  // The Java broker's captured REGISTER_BROKER frame, answered as Java answered it.
  void RegisterJavaBroker() {
    const CapturedFrame& req = FindFrame(register_frames_, "REGISTER_BROKER", false);
    const CapturedFrame& java = FindFrame(register_frames_, "REGISTER_BROKER", true);
    RemotingCommand ours = Call(req.command);
    EXPECT_EQ(ours.code, java.command.code) << Remark(ours);
    EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());  // {} for a master
    EXPECT_EQ(BodyOf(ours), java.body_text);
  }
  // A compressed registration (RegisterBrokerBody.encode(true)) of jbroker-a.
  RemotingCommand RegisterCompressed(const std::vector<JavaTopicConfig>& topics, int64_t counter,
                                     bool with_crc = true,
                                     std::vector<uint8_t>* override_body = nullptr) {
    std::vector<uint8_t> body =
        override_body ? *override_body
                      : Deflate(CompressedPayload(R"({"counter":)" + std::to_string(counter) +
                                                      R"(,"timestamp":1796158390441})",
                                                  topics));
    RemotingCommand req = CommandWith(
        ToInt(RequestCode::kRegisterBroker),
        {{"brokerId", "0"},
         {"clusterName", "JavaCluster"},
         {"brokerAddr", "127.0.0.1:20911"},
         {"haServerAddr", "127.0.0.1:20912"},
         {"compressed", "true"},
         {"brokerName", "jbroker-a"},
         {"bodyCrc32", with_crc ? std::to_string(RocketMqCrc32(body.data(), body.size())) : "0"}});
    req.body.Assign(std::move(body));
    return Call(std::move(req));
  }
  // Every topic of Java's GET_ALL_TOPIC_LIST_FROM_NAMESERVER answer, registered compressed.
  void RegisterJavasTopics() {
    const CapturedFrame& all = FindFrame(admin_frames_, "GET_ALL_TOPIC_LIST_FROM_NAMESERVER", true);
    std::vector<JavaTopicConfig> topics;
    for (const auto& t : TopicListOf(all.body_text)) {
      topics.push_back(t == "TBW102" ? JavaTopicConfig{t, 8, 8, 7} : JavaTopicConfig{t, 4, 4, 6});
    }
    EXPECT_EQ(RegisterCompressed(topics, 6).code, 0);
  }

  FaultInjectionFileSystem fs_;
  std::vector<CapturedFrame> register_frames_, admin_frames_;
  std::unique_ptr<NameServer> ns_;
  net::RemotingClient client_;
};

// ---- replay of the captured frames ----

TEST_F(NamesrvAdminTest, ReplaysJavaAdminFramesAgainstJavasAnswers) {
  RegisterJavaBroker();
  RegisterJavasTopics();
  for (const char* name :
       {"GET_BROKER_CLUSTER_INFO", "GET_ROUTEINFO_BY_TOPIC", "GET_ALL_TOPIC_LIST_FROM_NAMESERVER",
        "GET_TOPICS_BY_CLUSTER", "GET_NAMESRV_CONFIG"}) {
    SCOPED_TRACE(name);
    const CapturedFrame& req = FindFrame(admin_frames_, name, false);
    const CapturedFrame& java = FindFrame(admin_frames_, name, true);
    RemotingCommand ours = Call(req.command);
    EXPECT_EQ(ours.code, java.command.code) << Remark(ours);
    EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());
    const std::string body = BodyOf(ours);
    if (std::string_view(name) == "GET_NAMESRV_CONFIG") {
      // Properties text: every key we show is one of Java's, with Java's value where the
      // value is not a path or port of this run.
      auto theirs = ParsePropertiesText(java.body_text);
      auto mine = ParsePropertiesText(body);
      EXPECT_GE(mine.size(), 7u);
      for (const auto& [k, v] : mine) {
        ASSERT_TRUE(theirs.count(k)) << k;
        if (k != "kvConfigPath" && k != "configStorePath" && k != "listenPort") {
          EXPECT_EQ(v, theirs[k]) << k;
        }
      }
    } else if (java.body_text.find("topicList") != std::string::npos) {
      EXPECT_EQ(TopicListOf(body), TopicListOf(java.body_text));
      EXPECT_FALSE(ParseJson(body).HasMember("brokerAddr"));
    } else {
      auto mine = ParseJson(body), theirs = ParseJson(java.body_text);
      ASSERT_TRUE(mine.IsObject()) << body;
      EXPECT_TRUE(mine == theirs) << "ours: " << body << "\njava: " << java.body_text;
    }
  }
}

TEST_F(NamesrvAdminTest, RegisterBrokerCrcAndCompressedErrorsChangeNothing) {
  // Failure paths first: a CRC that does not match, a compressed body that is not zlib,
  // plain JSON sent with compressed=true; none registers anything.
  CapturedFrame req = FindFrame(register_frames_, "REGISTER_BROKER", false);
  RemotingCommand bad = req.command;
  bad.SetField("bodyCrc32", "12345");
  RemotingCommand r = Call(bad);
  EXPECT_EQ(r.code, kSystemError);
  EXPECT_EQ(Remark(r), "crc32 not match");
  std::vector<uint8_t> junk = {0x78, 0x9c, 1, 2, 3, 4, 5};
  r = RegisterCompressed({}, 1, true, &junk);
  EXPECT_EQ(r.code, kSystemError);
  EXPECT_NE(Remark(r).find("Failed to decode RegisterBrokerBody"), std::string::npos) << Remark(r);
  RemotingCommand plain_as_compressed = req.command;
  plain_as_compressed.SetField("compressed", "true");
  r = Call(plain_as_compressed);
  EXPECT_EQ(r.code, kSystemError);
  EXPECT_NE(Remark(r).find("zlib"), std::string::npos) << Remark(r);
  RemotingCommand missing = CommandWith(ToInt(RequestCode::kRegisterBroker),
                                        {{"brokerName", "x"}, {"brokerAddr", "h:1"}});
  r = Call(missing);
  EXPECT_EQ(r.code, kSystemError);
  EXPECT_NE(Remark(r).find("clusterName"), std::string::npos) << Remark(r);
  EXPECT_EQ(ns_->routes().broker_count(), 0u);
  EXPECT_EQ(TopicListOf(BodyOf(Call(RequestCode::kGetAllTopicListFromNameserver))),
            std::vector<std::string>{});
}

TEST_F(NamesrvAdminTest, CompressedRegistrationOfAJavaBroker) {
  RemotingCommand r = RegisterCompressed({{"TBW102", 8, 8, 7}, {"JV_x", 4, 2, 6}}, 5);
  EXPECT_EQ(r.code, 0) << Remark(r);
  EXPECT_TRUE(r.ext_fields.empty());
  RemotingCommand route = Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "JV_x"}});
  ASSERT_EQ(route.code, 0);
  auto d = ParseJson(BodyOf(route));
  ASSERT_TRUE(d.IsObject());
  EXPECT_EQ(d["queueDatas"][0]["readQueueNums"].GetInt(), 4);
  EXPECT_EQ(d["queueDatas"][0]["writeQueueNums"].GetInt(), 2);
  EXPECT_EQ(d["brokerDatas"][0]["brokerAddrs"]["0"].GetString(), std::string("127.0.0.1:20911"));
  // Without a CRC (bodyCrc32=0) the body is not checked, as in Java.
  EXPECT_EQ(RegisterCompressed({{"TBW102", 8, 8, 7}}, 7, false).code, 0);
}

// ---- per code ----

TEST_F(NamesrvAdminTest, KvConfigPutGetDeleteList) {
  // Failure paths: missing fields, absent key, absent namespace.
  EXPECT_EQ(Remark(Call(RequestCode::kPutKvConfig, {{"key", "k"}, {"value", "v"}})),
            "namespace or key is null");
  RemotingCommand r = Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}, {"key", "k"}});
  EXPECT_EQ(r.code, kQueryNotFound);
  EXPECT_EQ(Remark(r), "No config item, Namespace: NS Key: k");
  r = Call(RequestCode::kGetKvlistByNamespace, {{"namespace", "NS"}});
  EXPECT_EQ(r.code, kQueryNotFound);
  EXPECT_EQ(Remark(r), "No config item, Namespace: NS");
  EXPECT_EQ(Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}}).code, kSystemError);

  EXPECT_EQ(
      Call(RequestCode::kPutKvConfig, {{"namespace", "NS"}, {"key", "k"}, {"value", "v"}}).code, 0);
  r = Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}, {"key", "k"}});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.FindField("value").value_or("<absent>"), "v");  // GetKVConfigResponseHeader
  r = Call(RequestCode::kGetKvlistByNamespace, {{"namespace", "NS"}});
  ASSERT_EQ(r.code, 0);
  auto table = ParseJson(BodyOf(r));  // KVTable {"table":{k:v}}
  ASSERT_TRUE(table.IsObject() && table.HasMember("table"));
  EXPECT_EQ(table["table"]["k"].GetString(), std::string("v"));
  // Persisted in Java's shape; survives a restart.
  auto file = ReadWholeFile(fs_, "/home/namesrv/kvConfig.json");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, R"({"configTable":{"NS":{"k":"v"}}})");
  StopServer();
  StartServer();
  EXPECT_EQ(Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}, {"key", "k"}}).code, 0);
  EXPECT_EQ(Call(RequestCode::kDeleteKvConfig, {{"namespace", "NS"}, {"key", "k"}}).code, 0);
  EXPECT_EQ(Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}, {"key", "k"}}).code,
            kQueryNotFound);
}

TEST_F(NamesrvAdminTest, KvWriteFailureAnswersAnErrorAndKeepsTheOldValue) {
  ASSERT_EQ(
      Call(RequestCode::kPutKvConfig, {{"namespace", "NS"}, {"key", "k"}, {"value", "1"}}).code, 0);
  fs_.FailOpsOfKind(OpKind::kRename, EIO);
  RemotingCommand r =
      Call(RequestCode::kPutKvConfig, {{"namespace", "NS"}, {"key", "k"}, {"value", "2"}});
  EXPECT_EQ(r.code, kSystemError);
  EXPECT_NE(Remark(r).find("kvConfig.json"), std::string::npos) << Remark(r);
  fs_.ClearFailures();
  EXPECT_EQ(Call(RequestCode::kGetKvConfig, {{"namespace", "NS"}, {"key", "k"}})
                .FindField("value")
                .value_or(""),
            "1");
}

TEST_F(NamesrvAdminTest, OrderTopicConfAppearsInRoutesWhenOrderMessageEnabled) {
  RegisterJavaBroker();
  ASSERT_EQ(Call(RequestCode::kPutKvConfig,
                 {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "TBW102"}, {"value", "jbroker-a:8"}})
                .code,
            0);
  // Off by default (NamesrvConfig.orderMessageEnable=false): no orderTopicConf.
  auto route = ParseJson(BodyOf(Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}})));
  EXPECT_FALSE(route.HasMember("orderTopicConf"));
  RemotingCommand up = Call(RequestCode::kUpdateNamesrvConfig, {}, "orderMessageEnable=true");
  ASSERT_EQ(up.code, 0) << Remark(up);
  route = ParseJson(BodyOf(Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}})));
  ASSERT_TRUE(route.HasMember("orderTopicConf"));
  EXPECT_EQ(route["orderTopicConf"].GetString(), std::string("jbroker-a:8"));
  // A registration is answered with the ORDER_TOPIC_CONFIG namespace's KVTable.
  const CapturedFrame& req = FindFrame(register_frames_, "REGISTER_BROKER", false);
  auto body = ParseJson(BodyOf(Call(req.command)));
  ASSERT_TRUE(body.IsObject());
  EXPECT_EQ(body["table"]["TBW102"].GetString(), std::string("jbroker-a:8"));
}

TEST_F(NamesrvAdminTest, TopicListsByClusterAndSystem) {
  EXPECT_EQ(TopicListOf(BodyOf(Call(RequestCode::kGetTopicsByCluster, {{"cluster", "none"}}))),
            std::vector<std::string>{});
  EXPECT_EQ(Call(RequestCode::kGetTopicsByCluster).code, kSystemError);  // cluster missing
  RegisterJavaBroker();
  RemotingCommand sys = Call(RequestCode::kGetSystemTopicListFromNs);
  ASSERT_EQ(sys.code, 0);
  auto d = ParseJson(BodyOf(sys));
  EXPECT_EQ(TopicListOf(BodyOf(sys)), (std::vector<std::string>{"JavaCluster", "jbroker-a"}));
  ASSERT_TRUE(d.HasMember("brokerAddr"));
  EXPECT_EQ(d["brokerAddr"].GetString(), std::string("127.0.0.1:20911"));
  for (RequestCode c : {RequestCode::kGetUnitTopicList, RequestCode::kGetHasUnitSubTopicList,
                        RequestCode::kGetHasUnitSubUnunitTopicList}) {
    RemotingCommand r = Call(c);
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(TopicListOf(BodyOf(r)), std::vector<std::string>{});  // topicSysFlag 0 everywhere
  }
}

TEST_F(NamesrvAdminTest, DeleteTopicInNamesrv) {
  RegisterJavaBroker();
  EXPECT_EQ(Call(RequestCode::kDeleteTopicInNamesrv).code, kSystemError);  // topic missing
  EXPECT_EQ(Call(RequestCode::kDeleteTopicInNamesrv, {{"topic", "nope"}}).code, 0);
  EXPECT_EQ(
      Call(RequestCode::kDeleteTopicInNamesrv, {{"topic", "TBW102"}, {"clusterName", "Other"}})
          .code,
      0);
  EXPECT_EQ(Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}}).code, 0);
  EXPECT_EQ(Call(RequestCode::kDeleteTopicInNamesrv,
                 {{"topic", "TBW102"}, {"clusterName", "JavaCluster"}})
                .code,
            0);
  RemotingCommand r = Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}});
  EXPECT_EQ(r.code, 17);  // TOPIC_NOT_EXIST
  EXPECT_EQ(Remark(r), "No topic route info in name server for the topic: TBW102");
  auto all = TopicListOf(BodyOf(Call(RequestCode::kGetAllTopicListFromNameserver)));
  EXPECT_EQ(std::count(all.begin(), all.end(), "TBW102"), 0);
  EXPECT_EQ(all.size(), 12u);
}

TEST_F(NamesrvAdminTest, WipeAndAddWritePermOfBroker) {
  EXPECT_EQ(Call(RequestCode::kWipeWritePermOfBroker).code, kSystemError);  // brokerName missing
  RemotingCommand r = Call(RequestCode::kWipeWritePermOfBroker, {{"brokerName", "nope"}});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.FindField("wipeTopicCount").value_or(""), "0");
  RegisterJavaBroker();
  r = Call(RequestCode::kWipeWritePermOfBroker, {{"brokerName", "jbroker-a"}});
  EXPECT_EQ(r.FindField("wipeTopicCount").value_or(""), "13");
  auto route = ParseJson(BodyOf(Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}})));
  EXPECT_EQ(route["queueDatas"][0]["perm"].GetInt(), 5);  // 7 & ~PERM_WRITE
  r = Call(RequestCode::kAddWritePermOfBroker, {{"brokerName", "jbroker-a"}});
  EXPECT_EQ(r.FindField("addTopicCount").value_or(""), "13");
  route = ParseJson(BodyOf(Call(RequestCode::kGetRouteinfoByTopic, {{"topic", "TBW102"}})));
  EXPECT_EQ(route["queueDatas"][0]["perm"].GetInt(), 6);  // PERM_READ | PERM_WRITE
}

TEST_F(NamesrvAdminTest, NamesrvConfigGetAndAllowListedUpdate) {
  RemotingCommand r = Call(RequestCode::kUpdateNamesrvConfig, {}, "kvConfigPath=/tmp/evil");
  EXPECT_EQ(r.code, kNoPermission);
  EXPECT_NE(Remark(r).find("kvConfigPath"), std::string::npos) << Remark(r);
  r = Call(RequestCode::kUpdateNamesrvConfig, {}, "productEnvName=x\nlistenPort=1");
  EXPECT_EQ(r.code, kNoPermission);
  EXPECT_NE(Remark(r).find("listenPort"), std::string::npos) << Remark(r);
  r = Call(RequestCode::kUpdateNamesrvConfig, {}, "clusterTest=maybe");
  EXPECT_EQ(r.code, kSystemError);
  auto props = ParsePropertiesText(BodyOf(Call(RequestCode::kGetNamesrvConfig)));
  EXPECT_EQ(props["productEnvName"], "center");  // nothing of the refused updates applied
  EXPECT_EQ(props["kvConfigPath"], "/home/namesrv/kvConfig.json");
  EXPECT_EQ(props["listenPort"], std::to_string(ns_->port()));
  ASSERT_EQ(Call(RequestCode::kUpdateNamesrvConfig, {}, "productEnvName=prod").code, 0);
  StopServer();
  StartServer();
  props = ParsePropertiesText(BodyOf(Call(RequestCode::kGetNamesrvConfig)));
  EXPECT_EQ(props["productEnvName"], "prod");
}

TEST_F(NamesrvAdminTest, QueryDataVersion) {
  const std::vector<std::pair<std::string, std::string>> header = {
      {"brokerName", "jbroker-a"},
      {"brokerAddr", "127.0.0.1:20911"},
      {"clusterName", "JavaCluster"},
      {"brokerId", "0"}};
  const std::string v5 = R"({"counter":5,"timestamp":1796158390441})";
  EXPECT_EQ(Call(RequestCode::kQueryDataVersion, {{"brokerAddr", "h:1"}}, v5).code, kSystemError);
  EXPECT_EQ(Call(RequestCode::kQueryDataVersion, header, "{bad").code, kSystemError);
  // Unknown broker: changed, no body.
  RemotingCommand r = Call(RequestCode::kQueryDataVersion, header, v5);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.FindField("changed").value_or(""), "true");
  EXPECT_TRUE(r.body.empty());
  RegisterJavaBroker();  // its dataVersion: counter 5, timestamp 1796158390441
  r = Call(RequestCode::kQueryDataVersion, header, v5);
  EXPECT_EQ(r.FindField("changed").value_or(""), "false");
  auto dv = ParseJson(BodyOf(r));
  ASSERT_TRUE(dv.IsObject());
  EXPECT_EQ(dv["counter"].GetInt64(), 5);
  EXPECT_EQ(dv["timestamp"].GetInt64(), 1796158390441);
  r = Call(RequestCode::kQueryDataVersion, header, R"({"counter":6,"timestamp":1796158390441})");
  EXPECT_EQ(r.FindField("changed").value_or(""), "true");
  EXPECT_EQ(ParseJson(BodyOf(r))["counter"].GetInt64(), 5);  // the stored version
}

}  // namespace
}  // namespace rocketstore::namesrv
