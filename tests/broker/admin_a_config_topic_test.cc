// Broker admin codes, part A — configuration and topics: 25, 26, 28, 21, 202, 215, 305.
// Requests are the Java admin client's (replayed from admin-broker.json where it has
// them, else built as DefaultMQAdminExt builds them); replies are decoded the way the Java
// classes read them and compared with the Java broker's replies field by field.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <thread>

#include "admin_a_fixture.h"
#include "io/atomic_file.h"
#include "io/posix_file_system.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"
#include "protocol/headers/send_headers.h"
#include "store/layout/layout.h"

namespace rocketstore::admin_a_test {
namespace {

using protocol::ResponseCode;

// key=value lines -> map.
std::map<std::string, std::string> Properties(const std::string& text) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    EXPECT_NE(eq, std::string::npos) << line;
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

bool IsNumber(const std::string& s) { return protocol::ParseJavaLong(s).has_value(); }

// ---- 26 GET_BROKER_CONFIG --------------------------------------------------------------

TEST_F(AdminATest, GetBrokerConfigMatchesJavaShape) {
  RemotingCommand ours = Replay("GET_BROKER_CONFIG");
  const CapturedFrame& java = JavaReply("GET_BROKER_CONFIG");
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  // The version header: DataVersion JSON with Java's members.
  auto v = protocol::GetBrokerConfigResponseHeader::Decode(ours);
  ASSERT_TRUE(v.ok()) << v.status().message();
  auto jv = protocol::GetBrokerConfigResponseHeader::Decode(java.command);
  ASSERT_TRUE(jv.ok());
  rapidjson::Document ov = Json(v->version), jvd = Json(jv->version);
  EXPECT_EQ(Keys(ov), Keys(jvd));
  EXPECT_EQ(ov["counter"].GetInt64(), 0);
  EXPECT_TRUE(ov["timestamp"].IsInt64());
  // The body: properties; every key Java also has carries the same kind of value.
  const auto mine = Properties(BodyText(ours));
  const auto theirs = Properties(java.body_text);
  // rocketstore's own keys, and RocketMQ 5's retention keys (4.9.8: system properties).
  const std::set<std::string> own = {"commitLogResidentWindow",   "rebalanceLockMaxLiveTime",
                                     "syncFlushZeroFill",         "timerMaxDelaySec",
                                     "timerPrecisionMs",          "timerWheelEnable",
                                     "deleteFileBatchMax",        "diskSpaceCleanForciblyRatio",
                                     "diskSpaceWarningLevelRatio"};
  for (const auto& [k, val] : mine) {
    if (own.contains(k)) continue;
    auto it = theirs.find(k);
    ASSERT_NE(it, theirs.end()) << "Java's broker has no key " << k;
    if (it->second == "true" || it->second == "false") {
      EXPECT_TRUE(val == "true" || val == "false") << k << "=" << val;
    } else if (IsNumber(it->second)) {
      EXPECT_TRUE(IsNumber(val)) << k << "=" << val;
    }
  }
  EXPECT_EQ(mine.at("brokerClusterName"), "JavaCluster");
  EXPECT_EQ(mine.at("brokerName"), "jbroker-a");
  EXPECT_EQ(mine.at("autoCreateTopicEnable"), "true");
  EXPECT_GE(mine.size(), 35u);
}

// ---- 25 UPDATE_BROKER_CONFIG -----------------------------------------------------------

RemotingCommand UpdateRequest(const std::string& props) {
  RemotingCommand r = protocol::MakeRequest(RequestCode::kUpdateBrokerConfig);
  r.body.Assign(props);
  return r;
}

TEST_F(AdminATest, UpdateBrokerConfigRefusesKeysOutsideTheAllowList) {
  for (const std::string body :
       {"storePathRootDir=/tmp/elsewhere", "brokerConfigPath=/etc/passwd",
        "autoCreateTopicEnable=false\nrocketmqHome=/x", "filterServerNums=4", "listenPort=1"}) {
    RemotingCommand r = Call(UpdateRequest(body));
    EXPECT_EQ(r.code, ToInt(ResponseCode::kNoPermission)) << body;
    EXPECT_NE(Remark(r).find("cannot be changed at run time"), std::string::npos) << Remark(r);
    const std::string key =
        body.substr(body.rfind('\n') == std::string::npos ? 0 : body.rfind('\n') + 1);
    EXPECT_NE(Remark(r).find("'" + key.substr(0, key.find('=')) + "'"), std::string::npos)
        << Remark(r);
  }
  // Nothing was applied, not even the allowed key of the mixed body.
  EXPECT_TRUE(broker_->broker_config()->Current().auto_create_topic);
  EXPECT_NE(Properties(BodyText(Call(Request(RequestCode::kGetBrokerConfig))))
                .at("autoCreateTopicEnable"),
            "false");
}

TEST_F(AdminATest, UpdateBrokerConfigRefusesBadValuesAndBadText) {
  RemotingCommand r = Call(UpdateRequest("shortPollingTimeMills=soon"));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kInvalidParameter));
  EXPECT_NE(Remark(r).find("shortPollingTimeMills"), std::string::npos) << Remark(r);
  r = Call(UpdateRequest("longPollingEnable=yes\nautoCreateTopicEnable=false"));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kInvalidParameter));
  EXPECT_TRUE(broker_->broker_config()->Current().auto_create_topic);
  r = Call(UpdateRequest("no equals sign here"));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  // No body: nothing to do, SUCCESS (as Java).
  r = Call(protocol::MakeRequest(RequestCode::kUpdateBrokerConfig));
  EXPECT_EQ(r.code, 0);
  auto v =
      protocol::GetBrokerConfigResponseHeader::Decode(Call(Request(RequestCode::kGetBrokerConfig)));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Json(v->version)["counter"].GetInt64(), 0);
}

// The broker was started from a broker.conf of the operator's.
class AdminAConfFileTest : public AdminATest {
 protected:
  void Configure(broker::BrokerOptions& bo) override {
    ASSERT_TRUE(WriteFileAtomically(PosixFileSystem::Default(), bo.config_file_path,
                                    "# mine\nbrokerName=jbroker-a\nautoCreateTopicEnable=true\n")
                    .ok());
  }
};

TEST_F(AdminAConfFileTest, UpdateBrokerConfigAppliesLivePersistsAndBumpsTheVersion) {
  RemotingCommand r = Call(UpdateRequest("autoCreateTopicEnable=false\nshortPollingTimeMills=250"));
  ASSERT_EQ(r.code, 0) << Remark(r);
  RemotingCommand got = Call(Request(RequestCode::kGetBrokerConfig));
  const auto props = Properties(BodyText(got));
  EXPECT_EQ(props.at("autoCreateTopicEnable"), "false");
  EXPECT_EQ(props.at("shortPollingTimeMills"), "250");
  auto v = protocol::GetBrokerConfigResponseHeader::Decode(got);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Json(v->version)["counter"].GetInt64(), 1);
  // Live: a send to an unknown topic is no longer auto-created.
  protocol::SendMessageRequestHeader h;
  h.producer_group = "PG";
  h.topic = "NEW_TOPIC_AFTER_UPDATE";
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.born_timestamp = 1;
  RemotingCommand send = protocol::MakeRequest(RequestCode::kSendMessageV2);
  h.EncodeTo(send, true);
  send.body.Assign(std::string("x"));
  EXPECT_EQ(Call(std::move(send)).code, ToInt(ResponseCode::kTopicNotExist));
  // Persisted: after the stop (the persister's last write) the file has the new values.
  client_.Close();
  ASSERT_TRUE(broker_->Stop().ok());
  auto text = ReadWholeFile(PosixFileSystem::Default(), dir_.path() + "/broker.conf");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("autoCreateTopicEnable=false\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("shortPollingTimeMills=250\n"), std::string::npos) << *text;
  EXPECT_EQ(text->find("autoCreateTopicEnable=true"), std::string::npos) << *text;
  EXPECT_EQ(text->rfind("# mine\nbrokerName=jbroker-a\nautoCreateTopicEnable=false\n", 0), 0u)
      << *text;
  ASSERT_TRUE(broker_->Start().ok());  // for TearDown
}

// ---- 28 GET_BROKER_RUNTIME_INFO -------------------------------------------------------

TEST_F(AdminATest, GetBrokerRuntimeInfoHasJavasKeysAndShapes) {
  CreateTopic("RT", 1);
  Put("RT", 0, 3);
  broker_->delay_offsets().Commit(2, 0);
  RemotingCommand ours = Replay("GET_BROKER_RUNTIME_INFO");
  const CapturedFrame& java = JavaReply("GET_BROKER_RUNTIME_INFO");
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  auto mine = protocol::KVTable::Decode(BodyText(ours));
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  auto theirs = protocol::KVTable::Decode(java.body_text);
  ASSERT_TRUE(theirs.ok());
  // The key set: Java's, with the instance's own commit-log path and delay levels.
  auto normalise = [](const std::map<std::string, std::string>& t) {
    std::set<std::string> keys;
    for (const auto& [k, v] : t) {
      if (k.starts_with("scheduleMessageOffset_")) continue;
      keys.insert(k.starts_with("commitLogDiskRatio_") ? "commitLogDiskRatio_<path>" : k);
    }
    return keys;
  };
  EXPECT_EQ(normalise(mine->table), normalise(theirs->table));
  const auto& t = mine->table;
  EXPECT_EQ(t.at("scheduleMessageOffset_2"), "0,0");
  EXPECT_TRUE(t.contains("commitLogDiskRatio_" + dir_.path() + "/store/commitlog"));
  // Values: where Java's is an integer ours is one; the rates are three doubles.
  for (const auto& [k, v] : theirs->table) {
    if (!t.contains(k)) continue;
    if (IsNumber(v)) {
      EXPECT_TRUE(IsNumber(t.at(k))) << k << "=" << t.at(k);
    }
  }
  for (const char* k : {"putTps", "getTransferedTps", "getFoundTps", "getMissTps", "getTotalTps"}) {
    std::istringstream in(t.at(k));
    double a, b, c;
    EXPECT_TRUE(in >> a >> b >> c) << k << "=" << t.at(k);
  }
  EXPECT_EQ(t.at("brokerVersionDesc"), "V4_9_8");
  EXPECT_EQ(t.at("brokerVersion"), "409");
  EXPECT_GT(std::stoll(t.at("commitLogMaxOffset")), 0);
  EXPECT_EQ(t.at("commitLogMinOffset"), "0");
  EXPECT_GT(std::stoll(t.at("earliestMessageTimeStamp")), 0);
  EXPECT_EQ(t.at("remainTransientStoreBufferNumbs"), "2147483647");
  EXPECT_EQ(t.at("runtime").rfind("[ 0 days, 0 hours, ", 0), 0u) << t.at("runtime");
  EXPECT_NE(t.at("commitLogDirCapacity").find("Total : "), std::string::npos);
}

// ---- 21 GET_ALL_TOPIC_CONFIG -----------------------------------------------------------

TEST_F(AdminATest, GetAllTopicConfigMatchesJava) {
  CreateTopic("JV_adm", 4);
  RemotingCommand ours = Replay("GET_ALL_TOPIC_CONFIG");
  const CapturedFrame& java = JavaReply("GET_ALL_TOPIC_CONFIG");
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  rapidjson::Document o = Json(BodyText(ours)), j = Json(java.body_text);
  EXPECT_EQ(Keys(o), Keys(j));
  EXPECT_EQ(Without5xMembers(Keys(o["dataVersion"])), Keys(j["dataVersion"]));
  const rapidjson::Value& ot = o["topicConfigTable"]["JV_adm"];
  const rapidjson::Value& jt = j["topicConfigTable"]["JV_adm"];
  EXPECT_EQ(Without5xMembers(Keys(ot)), Keys(jt));
  for (const auto& m : jt.GetObject()) {
    EXPECT_TRUE(ot[m.name.GetString()] == m.value) << m.name.GetString();
  }
}

// ---- 202 GET_TOPIC_STATS_INFO ----------------------------------------------------------

TEST_F(AdminATest, GetTopicStatsInfoMatchesJava) {
  CreateTopic("JV_adm", 4);
  Put("JV_adm", 1, 2);
  RemotingCommand ours = Replay("GET_TOPIC_STATS_INFO");
  const CapturedFrame& java = JavaReply("GET_TOPIC_STATS_INFO");
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  const std::string text = BodyText(ours);
  EXPECT_EQ(text.rfind("{\"offsetTable\":{{\"brokerName\":\"jbroker-a\"", 0), 0u) << text;
  auto mine = protocol::TopicStatsTable::Decode(text);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  auto theirs = protocol::TopicStatsTable::Decode(java.body_text);
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  ASSERT_EQ(mine->offset_table.size(), theirs->offset_table.size());
  std::map<int32_t, protocol::TopicOffset> by_queue;
  for (const auto& [mq, off] : mine->offset_table) {
    EXPECT_EQ(mq.topic, "JV_adm");
    EXPECT_EQ(mq.broker_name, "jbroker-a");
    by_queue[mq.queue_id] = off;
  }
  for (const auto& [mq, off] : theirs->offset_table) {
    ASSERT_TRUE(by_queue.contains(mq.queue_id));
    const protocol::TopicOffset& m = by_queue[mq.queue_id];
    EXPECT_EQ(m.min_offset, off.min_offset) << mq.queue_id;
    EXPECT_EQ(m.max_offset, off.max_offset) << mq.queue_id;
    EXPECT_EQ(m.last_update_timestamp > 0, off.last_update_timestamp > 0) << mq.queue_id;
  }
}

TEST_F(AdminATest, GetTopicStatsInfoErrors) {
  RemotingCommand r = Call(Request(RequestCode::kGetTopicStatsInfo, {{"topic", "NoSuchTopic"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kTopicNotExist));
  EXPECT_EQ(r.remark, "topic[NoSuchTopic] not exist");
  r = Call(Request(RequestCode::kGetTopicStatsInfo));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("topic"), std::string::npos) << Remark(r);
}

// ---- 215 DELETE_TOPIC_IN_BROKER --------------------------------------------------------

TEST_F(AdminATest, DeleteTopicRemovesConfigQueuesAndOffsets) {
  CreateTopic("Doomed", 2);
  Put("Doomed", 0, 3);
  broker_->offsets().Commit("G1", "Doomed", 0, 2);
  broker_->offsets().Commit("G1", "Kept", 0, 7);
  const std::string cq_dir = layout::ConsumeQueueTopicDir(dir_.path() + "/store", "Doomed");
  ASSERT_TRUE(PosixFileSystem::Default().Stat(cq_dir).ok());
  RemotingCommand r = Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", "Doomed"}}));
  ASSERT_EQ(r.code, 0) << Remark(r);
  EXPECT_FALSE(r.remark.has_value());
  EXPECT_FALSE(broker_->topics().Find("Doomed"));
  EXPECT_FALSE(PosixFileSystem::Default().Stat(cq_dir).ok()) << cq_dir << " still exists";
  EXPECT_EQ(broker_->store().GetMaxOffsetInQueue("Doomed", 0).value(), 0);
  EXPECT_EQ(broker_->offsets().Query("G1", "Doomed", 0), -1);
  EXPECT_EQ(broker_->offsets().Query("G1", "Kept", 0), 7);
  // The topic can be used again, starting from queue offset 0.
  CreateTopic("Doomed", 2);
  Put("Doomed", 0, 1);
  EXPECT_EQ(broker_->store().GetMaxOffsetInQueue("Doomed", 0).value(), 1);
  // Deleting an unknown topic is SUCCESS, as in Java.
  EXPECT_EQ(Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", "Never"}})).code, 0);
}

TEST_F(AdminATest, DeleteTopicRefusesSystemAndInvalidTopics) {
  for (const char* t : {"TBW102", "SCHEDULE_TOPIC_XXXX", "JavaCluster", "jbroker-a",
                        "JavaCluster_REPLY_TOPIC", "rmq_sys_wheel_timer"}) {
    RemotingCommand r = Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", t}}));
    EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError)) << t;
    EXPECT_EQ(r.remark, "The topic[" + std::string(t) + "] is conflict with system topic.");
  }
  RemotingCommand r = Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", "a/b"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("illegal characters"), std::string::npos) << Remark(r);
  r = Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", "  "}}));
  EXPECT_EQ(r.remark, "The specified topic is blank.");
  r = Call(Request(RequestCode::kDeleteTopicInBroker, {{"topic", std::string(128, 'a')}}));
  EXPECT_EQ(r.remark, "The specified topic is longer than topic max length.");
  r = Call(Request(RequestCode::kDeleteTopicInBroker));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_TRUE(broker_->topics().Find("TBW102"));
}

// ---- 305 GET_SYSTEM_TOPIC_LIST_FROM_BROKER ---------------------------------------------

TEST_F(AdminATest, GetSystemTopicList) {
  RemotingCommand r = Call(Request(RequestCode::kGetSystemTopicListFromBroker));
  ASSERT_EQ(r.code, 0);
  rapidjson::Document d = Json(BodyText(r));
  EXPECT_EQ(Keys(d), std::vector<std::string>{"topicList"});  // brokerAddr null: left out
  auto list = protocol::TopicList::Decode(BodyText(r));
  ASSERT_TRUE(list.ok());
  const std::set<std::string> got(list->topic_list.begin(), list->topic_list.end());
  for (const char* t :
       {"TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "JavaCluster", "jbroker-a",
        "JavaCluster_REPLY_TOPIC"}) {
    EXPECT_TRUE(got.contains(t)) << t;
  }
  EXPECT_EQ(got.size(), 12u);
}

}  // namespace
}  // namespace rocketstore::admin_a_test
