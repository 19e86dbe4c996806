// brokerPermission (broker/service/broker_permission.h) through a real broker and name
// server over loopback, as mqadmin drives it: UPDATE_BROKER_CONFIG (25) with
// brokerPermission re-registers at once with every topic's perm masked in the routes, the
// topics' own perms kept in GET_ALL_TOPIC_CONFIG; without write, order-topic sends and
// send-backs are refused and other sends stored; without read, pulls are refused — with
// RocketMQ 4.9.8's codes and remarks.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <thread>

#include "broker/broker.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "protocol/headers/send_headers.h"
#include "protocol/json_util.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::ToInt;

class BrokerPermissionTest : public ::testing::Test {
 protected:
  virtual void Configure(broker::BrokerOptions& bo) {}

  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    bo.broker_name = "broker-p";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 1 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 1000;
    bo.config_file_path = dir_.path() + "/broker.conf";
    Configure(bo);
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
    ASSERT_TRUE(ns_client_.Connect("127.0.0.1:" + std::to_string(ns_->port())).ok());
    CreateTopic("PLAIN_T", false);
    CreateTopic("ORDER_T", true);
  }
  void TearDown() override {
    client_.Close();
    ns_client_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
    ns_->Stop();
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  void CreateTopic(const std::string& topic, bool order) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
    req.SetField("topic", topic);
    req.SetField("defaultTopic", "TBW102");
    req.SetIntField("readQueueNums", 2);
    req.SetIntField("writeQueueNums", 2);
    req.SetIntField("perm", 6);
    req.SetField("topicFilterType", "SINGLE_TAG");
    req.SetField("order", order ? "true" : "false");
    ASSERT_EQ(Call(std::move(req)).code, 0);
  }

  RemotingCommand SetPermission(int perm) {
    RemotingCommand r = protocol::MakeRequest(RequestCode::kUpdateBrokerConfig);
    r.body.Assign("brokerPermission=" + std::to_string(perm) + "\n");
    return Call(std::move(r));
  }

  RemotingCommand Send(const std::string& topic) {
    protocol::SendMessageRequestHeader h;
    h.producer_group = "PG";
    h.topic = topic;
    h.default_topic = "TBW102";
    h.default_topic_queue_nums = 4;
    h.queue_id = 0;
    h.born_timestamp = 1;
    RemotingCommand send = protocol::MakeRequest(RequestCode::kSendMessageV2);
    h.EncodeTo(send, true);
    send.body.Assign(std::string("payload"));
    return Call(std::move(send));
  }

  RemotingCommand Pull(const std::string& topic) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
    req.SetField("consumerGroup", "CG");
    req.SetField("topic", topic);
    req.SetIntField("queueId", 0);
    req.SetIntField("queueOffset", 0);
    req.SetIntField("maxMsgNums", 32);
    req.SetIntField("sysFlag", 4);
    req.SetIntField("commitOffset", 0);
    req.SetIntField("suspendTimeoutMillis", 0);
    req.SetField("subscription", "*");
    req.SetIntField("subVersion", 0);
    return Call(std::move(req));
  }

  // The perm of the topic's queue data in the name server's route (-1: no route).
  int RoutePerm(const std::string& topic) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetRouteinfoByTopic);
    q.SetField("topic", topic);
    auto r = ns_client_.Invoke(std::move(q), 5000);
    if (!r.ok() || r->code != 0) return -1;
    rapidjson::Document d;
    d.Parse(protocol::QuoteBareIntegerKeys(r->body.owned_text()).c_str());
    if (d.HasParseError() || !d.HasMember("queueDatas") || d["queueDatas"].Empty()) return -1;
    return d["queueDatas"][0]["perm"].GetInt();
  }

  // The route's perm, without waiting: topic creation and UPDATE_BROKER_CONFIG answer
  // only after the registration round that carries the change.
  void ExpectRoutePerm(const std::string& topic, int perm) {
    EXPECT_EQ(RoutePerm(topic), perm) << topic;
  }

  // The topic's own perm as GET_ALL_TOPIC_CONFIG (21) answers it.
  int ConfiguredPerm(const std::string& topic) {
    RemotingCommand r = Call(protocol::MakeRequest(RequestCode::kGetAllTopicConfig));
    rapidjson::Document d;
    d.Parse(protocol::QuoteBareIntegerKeys(r.body.owned_text()).c_str());
    if (d.HasParseError()) return -1;
    return d["topicConfigTable"][topic.c_str()]["perm"].GetInt();
  }

  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
  net::RemotingClient ns_client_;
};

TEST_F(BrokerPermissionTest, ReadOnlyLeavesTheWriteRoutesAndRefusesOnlyOrderSends) {
  ExpectRoutePerm("PLAIN_T", 6);
  ExpectRoutePerm("ORDER_T", 6);
  RemotingCommand r = SetPermission(4);
  ASSERT_EQ(r.code, 0) << r.remark.value_or("");
  // The name server hears at once, not at the next 30 s registration.
  ExpectRoutePerm("PLAIN_T", 4);
  ExpectRoutePerm("ORDER_T", 4);
  EXPECT_EQ(ConfiguredPerm("PLAIN_T"), 6);  // the topic itself is unchanged
  // A producer with a stale route loses nothing on a plain topic ...
  EXPECT_EQ(Send("PLAIN_T").code, 0);
  // ... but an order topic is refused (Java's msgCheck), as is the send-back.
  RemotingCommand order = Send("ORDER_T");
  EXPECT_EQ(order.code, ToInt(ResponseCode::kNoPermission));
  EXPECT_EQ(order.remark.value_or(""), "the broker[127.0.0.1] sending message is forbidden");
  RemotingCommand back = protocol::MakeRequest(RequestCode::kConsumerSendMsgBack);
  back.SetIntField("offset", 0);
  back.SetField("group", "CG");
  back.SetIntField("delayLevel", 0);
  back.SetField("originMsgId", "0");
  back.SetField("originTopic", "PLAIN_T");
  back.SetField("unitMode", "false");
  back.SetIntField("maxReconsumeTimes", 16);
  RemotingCommand back_answer = Call(std::move(back));
  EXPECT_EQ(back_answer.code, ToInt(ResponseCode::kNoPermission));
  EXPECT_EQ(back_answer.remark.value_or(""), "the broker[127.0.0.1] sending message is forbidden");
  // Reads still work: the consumers drain the broker (found, or not yet dispatched).
  EXPECT_NE(Pull("PLAIN_T").code, ToInt(ResponseCode::kNoPermission));

  // Back to read-write: the routes carry the topics' own perms again.
  ASSERT_EQ(SetPermission(6).code, 0);
  ExpectRoutePerm("PLAIN_T", 6);
  ExpectRoutePerm("ORDER_T", 6);
  EXPECT_EQ(Send("ORDER_T").code, 0);
}

TEST_F(BrokerPermissionTest, WriteOnlyRefusesPulls) {
  ASSERT_EQ(Send("PLAIN_T").code, 0);
  ASSERT_EQ(SetPermission(2).code, 0);
  ExpectRoutePerm("PLAIN_T", 2);
  RemotingCommand pull = Pull("PLAIN_T");
  EXPECT_EQ(pull.code, ToInt(ResponseCode::kNoPermission));
  EXPECT_EQ(pull.remark.value_or(""), "the broker[127.0.0.1] pulling message is forbidden");
  EXPECT_EQ(Send("ORDER_T").code, 0);
  ASSERT_EQ(SetPermission(6).code, 0);
  EXPECT_NE(Pull("PLAIN_T").code, ToInt(ResponseCode::kNoPermission));
}

TEST_F(BrokerPermissionTest, BadValuesAreRefusedAndChangeNothing) {
  for (const char* bad : {"8", "-1", "rw"}) {
    RemotingCommand r = protocol::MakeRequest(RequestCode::kUpdateBrokerConfig);
    r.body.Assign(std::string("brokerPermission=") + bad + "\n");
    RemotingCommand answer = Call(std::move(r));
    EXPECT_EQ(answer.code, ToInt(ResponseCode::kInvalidParameter)) << bad;
    EXPECT_NE(answer.remark.value_or("").find("brokerPermission"), std::string::npos);
  }
  EXPECT_NE(Pull("PLAIN_T").code, ToInt(ResponseCode::kNoPermission));
  EXPECT_EQ(Send("ORDER_T").code, 0);
}

// broker.conf's brokerPermission=4 holds from the first registration.
class ReadOnlyAtStartTest : public BrokerPermissionTest {
 protected:
  void Configure(broker::BrokerOptions& bo) override { bo.broker_permission = 4; }
};

TEST_F(ReadOnlyAtStartTest, RegistersMaskedFromTheStart) {
  ExpectRoutePerm("PLAIN_T", 4);
  EXPECT_EQ(Send("ORDER_T").code, ToInt(ResponseCode::kNoPermission));
  EXPECT_EQ(ConfiguredPerm("ORDER_T"), 6);
}

}  // namespace
}  // namespace rocketstore
