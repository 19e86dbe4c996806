// Request-reply through a real broker and name server over loopback, with two raw clients
// replaying the Java 4.9.8 client's frames of tests/protocol/vectors/java-4.9.8/
// request-reply.json: the requester (a producer, client id 127.0.0.1@rr-requester) sends
// the request with CORRELATION_ID / REPLY_TO_CLIENT / TTL, the responder pulls it and
// answers with SEND_REPLY_MESSAGE_V2 (325) and SEND_REPLY_MESSAGE (324); the requester's
// connection receives PUSH_REPLY_MESSAGE_TO_CLIENT (326) with the reply's body and
// correlation id and answers it; every answer is compared with the Java broker's. Then
// the requester goes away and a reply answers what Java answers (SYSTEM_ERROR, stored).
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "broker/broker.h"
#include "java_vectors.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/headers/reply_headers.h"
#include "store/format/message_id.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::testing::CapturedFrame;
using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;
using Props = std::map<std::string, std::string>;

Props PropsOf(std::string_view text) {
  Props out;
  for (const auto& [k, v] : format::ParseProperties(text)) out.emplace(k, v);
  return out;
}

class ReplyIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    frames_ = LoadFrames("java-4.9.8/request-reply.json");
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    bo.cluster_name = "JavaCluster";
    bo.broker_name = "jbroker-a";
    bo.advertised_addr = "127.0.0.1:20911";  // the Java broker's: storeHost as captured
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    bo.store_reply_message = store_reply_;
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    const std::string addr = "127.0.0.1:" + std::to_string(broker_->port());
    ASSERT_TRUE(requester_.Connect(addr).ok());
    ASSERT_TRUE(responder_.Connect(addr).ok());
    // The requester is a producer of PGV_rr (its heartbeat), as DefaultMQProducer is.
    protocol::HeartbeatData hb;
    hb.client_id = "127.0.0.1@rr-requester";
    hb.producer_data_set = {{"PGV_rr"}, {"CLIENT_INNER_PRODUCER"}};
    RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
    beat.body.Assign(hb.Encode());
    ASSERT_EQ(Call(requester_, std::move(beat)).code, 0);
  }
  void TearDown() override {
    requester_.Close();
    responder_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
    ns_->Stop();
  }

  static RemotingCommand Call(net::RemotingClient& c, RemotingCommand req) {
    auto r = c.Invoke(std::move(req), 15000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  // The responder's reply, answered on another thread while the test plays the requester.
  std::future<RemotingCommand> ReplyAsync(const RemotingCommand& reply) {
    return std::async(std::launch::async, [this, reply] { return Call(responder_, reply); });
  }
  // The requester answers a push.
  void Answer(const RemotingCommand& push, int32_t code) {
    RemotingCommand resp = code == 0
                               ? protocol::MakeResponse(push, 0)
                               : protocol::MakeResponse(push, code, "process reply message fail");
    auto frame = protocol::EncodeFrame(resp);
    ASSERT_TRUE(frame.ok());
    ASSERT_TRUE(requester_.SendRaw(frame->Flatten()).ok());
  }
  // Our answer against the Java broker's: code, remark, the same field names, and the
  // values of all but msgId (a commit-log offset; ours are not Java's). `exact`: no field
  // beyond Java's (our plain send answers also carry transactionId; reply answers do not).
  static void ExpectAnswerLike(const RemotingCommand& ours, const CapturedFrame& java,
                               bool exact = true) {
    EXPECT_EQ(ours.code, java.command.code);
    EXPECT_EQ(ours.remark, java.command.remark);
    if (exact) {
      EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());
    }
    for (const auto& [k, v] : java.command.ext_fields) {
      if (k == "msgId") {
        EXPECT_TRUE(format::DecodeOffsetMsgId(ours.FindField(k).value_or("")).ok());
      } else {
        EXPECT_EQ(ours.FindField(k).value_or("<absent>"), v) << k;
      }
    }
  }
  // The push we sent against the Java broker's: every header field, with the replier's
  // born host (its port), storeTimestamp and PUSH_REPLY_TIME being this run's.
  void ExpectPushLike(const RemotingCommand& ours, const CapturedFrame& java) {
    EXPECT_EQ(ours.code, ToInt(RequestCode::kPushReplyMessageToClient));
    EXPECT_FALSE(ours.IsOneway());
    auto h = protocol::ReplyMessageRequestHeader::Decode(ours);
    ASSERT_TRUE(h.ok()) << h.status();
    EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());
    for (const auto& [k, v] : java.command.ext_fields) {
      if (k == "bornHost" || k == "storeTimestamp" || k == "properties") continue;
      EXPECT_EQ(ours.FindField(k).value_or("<absent>"), v) << k;
    }
    EXPECT_TRUE(h->born_host.starts_with("127.0.0.1:"));
    EXPECT_GT(h->store_timestamp, 1796158456510 - 10LL * 365 * 86400 * 1000);
    Props mine = PropsOf(h->properties.value_or(""));
    Props theirs = PropsOf(java.command.FindField("properties").value_or(""));
    ASSERT_TRUE(mine.contains("PUSH_REPLY_TIME"));
    EXPECT_TRUE(h->properties->starts_with("PUSH_REPLY_TIME\x01"));
    mine.erase("PUSH_REPLY_TIME");
    theirs.erase("PUSH_REPLY_TIME");
    EXPECT_EQ(mine, theirs);
    EXPECT_EQ(ours.body.owned_text(), java.body_text);
  }
  std::vector<std::string> Bodies(const std::string& topic, int32_t queue, size_t n) {
    std::vector<std::string> out;
    for (int i = 0; i < 200 && out.size() < n; ++i) {
      RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
      req.SetField("consumerGroup", "reader");
      req.SetField("topic", topic);
      req.SetIntField("queueId", queue);
      req.SetIntField("queueOffset", 0);
      req.SetIntField("maxMsgNums", 32);
      req.SetIntField("sysFlag", 4);
      req.SetIntField("commitOffset", 0);
      req.SetIntField("suspendTimeoutMillis", 0);
      req.SetField("subscription", "*");
      req.SetIntField("subVersion", 0);
      RemotingCommand resp = Call(responder_, std::move(req));
      out.clear();
      std::vector<uint8_t> body = resp.body.Flatten();
      std::span<const uint8_t> rest(body);
      while (resp.code == 0 && !rest.empty()) {
        auto d = format::DecodeRecord(rest, true);
        if (d.outcome != format::DecodeOutcome::kRecord) break;
        out.emplace_back(d.record.body);
        last_props_ = std::string(d.record.properties);
        rest = rest.subspan(static_cast<size_t>(d.record.total_size));
      }
      if (out.size() < n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(out.size(), n) << topic;
    return out;
  }

  bool store_reply_ = true;
  std::vector<CapturedFrame> frames_;
  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient requester_, responder_;
  std::string last_props_;
};

TEST_F(ReplyIntegrationTest, ReplyToARequesterThatHasGoneIsSystemErrorAndStored) {
  requester_.Close();
  const RemotingCommand reply = FindFrame(frames_, "SEND_REPLY_MESSAGE", false).command;
  RemotingCommand answer;
  for (int i = 0; i < 100; ++i) {  // until the broker has seen the connection close
    answer = Call(responder_, reply);
    if (answer.remark.value_or("").find("not found") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(answer.code, 1);  // SYSTEM_ERROR
  EXPECT_EQ(answer.remark,
            "push reply message fail, channel of <127.0.0.1@rr-requester> not found.");
  // Stored all the same (storeReplyMessageEnable): the store's fields are in the answer.
  EXPECT_TRUE(format::DecodeOffsetMsgId(answer.FindField("msgId").value_or("")).ok());
  EXPECT_EQ(answer.FindField("queueId"), "0");
  EXPECT_TRUE(answer.FindField("queueOffset").has_value());
  EXPECT_EQ(answer.FindField("MSG_REGION"), "DefaultRegion");
  EXPECT_EQ(answer.FindField("TRACE_ON"), "true");
  const auto offset = std::stoll(std::string(answer.FindField("queueOffset").value_or("0")));
  const auto bodies = Bodies("JavaCluster_REPLY_TOPIC", 0, static_cast<size_t>(offset) + 1);
  EXPECT_EQ(bodies.back(), "pong:ping");
}

TEST_F(ReplyIntegrationTest, RequestPulledRepliedAndPushedToTheRequesterAsWithJava) {
  // The reply topic's route, as the Java name server gave it (1 queue, perm 6).
  net::RemotingClient ns;
  ASSERT_TRUE(ns.Connect("127.0.0.1:" + std::to_string(ns_->port())).ok());
  const CapturedFrame& java_route = FindFrame(frames_, "GET_ROUTEINFO_BY_TOPIC", true);
  std::string route;
  for (int i = 0; i < 100 && route.empty(); ++i) {
    RemotingCommand q = FindFrame(frames_, "GET_ROUTEINFO_BY_TOPIC", false).command;
    RemotingCommand r = Call(ns, q);
    if (r.code == 0) {
      route = r.body.owned_text();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_NE(java_route.body_text.find("\"perm\":6,\"readQueueNums\":1"), std::string::npos);
  EXPECT_NE(route.find("\"perm\":6,\"readQueueNums\":1"), std::string::npos) << route;
  EXPECT_NE(route.find("\"topicSysFlag\":0,\"writeQueueNums\":1"), std::string::npos) << route;

  // The request, and the responder's pull of it: REPLY_TO_CLIENT, CORRELATION_ID, TTL and
  // the CLUSTER the responder's client builds the reply topic from, as the Java broker
  // stored them.
  const RemotingCommand sent =
      Call(requester_, FindFrame(frames_, "SEND_MESSAGE_V2", false).command);
  ExpectAnswerLike(sent, FindFrame(frames_, "SEND_MESSAGE_V2", true), /*exact=*/false);
  ASSERT_EQ(Bodies("JV_rr", 0, 1), std::vector<std::string>{"ping"});
  std::string java_props;
  {
    const auto body = FindFrame(frames_, "PULL_MESSAGE", true).command.body.Flatten();
    auto d = format::DecodeRecord(body, true);
    ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
    java_props = std::string(d.record.properties);
  }
  EXPECT_EQ(PropsOf(last_props_), PropsOf(java_props));

  // SEND_REPLY_MESSAGE_V2: answered only once the requester took the push.
  auto v2 = ReplyAsync(FindFrame(frames_, "SEND_REPLY_MESSAGE_V2", false).command);
  auto push = requester_.WaitServerRequest(5000);
  ASSERT_TRUE(push.ok()) << push.status();
  ExpectPushLike(*push, FindFrame(frames_, "PUSH_REPLY_MESSAGE_TO_CLIENT", false, 0));
  EXPECT_EQ(push->FindField("properties")
                .value_or("")
                .find("CORRELATION_ID\x01"
                      "0d9da193-2932-454c-b6b6-16ad7ab59980"),
            push->FindField("properties").value_or("").size() - 51);
  EXPECT_EQ(v2.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  Answer(*push, 0);
  ExpectAnswerLike(v2.get(), FindFrame(frames_, "SEND_REPLY_MESSAGE_V2", true));

  // SEND_MESSAGE (10) and SEND_REPLY_MESSAGE (324) without smart headers.
  ExpectAnswerLike(Call(requester_, FindFrame(frames_, "SEND_MESSAGE", false).command),
                   FindFrame(frames_, "SEND_MESSAGE", true), /*exact=*/false);
  auto v1 = ReplyAsync(FindFrame(frames_, "SEND_REPLY_MESSAGE", false).command);
  push = requester_.WaitServerRequest(5000);
  ASSERT_TRUE(push.ok()) << push.status();
  ExpectPushLike(*push, FindFrame(frames_, "PUSH_REPLY_MESSAGE_TO_CLIENT", false, 1));
  Answer(*push, 0);
  ExpectAnswerLike(v1.get(), FindFrame(frames_, "SEND_REPLY_MESSAGE", true));

  // A requester that fails the push (no future waits for the correlation id).
  auto failed = ReplyAsync(FindFrame(frames_, "SEND_REPLY_MESSAGE", false).command);
  push = requester_.WaitServerRequest(5000);
  ASSERT_TRUE(push.ok()) << push.status();
  Answer(*push, 1);
  const RemotingCommand f = failed.get();
  EXPECT_EQ(f.code, 1);
  EXPECT_EQ(f.remark, "push reply message to 127.0.0.1@rr-requesterfail.");
  EXPECT_EQ(f.FindField("queueOffset"), "2");  // stored all the same
  EXPECT_EQ(Bodies("JavaCluster_REPLY_TOPIC", 0, 3),
            (std::vector<std::string>{"pong:ping", "pong:ping", "pong:ping"}));
}

TEST_F(ReplyIntegrationTest, AdminCannotCreateTheReplyTopic) {
  RemotingCommand create = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
  create.SetField("topic", "JavaCluster_REPLY_TOPIC");
  create.SetField("defaultTopic", "TBW102");
  create.SetIntField("readQueueNums", 8);
  create.SetIntField("writeQueueNums", 8);
  create.SetIntField("perm", 6);
  create.SetField("topicFilterType", "SINGLE_TAG");
  create.SetField("order", "false");
  const RemotingCommand r = Call(responder_, std::move(create));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "The topic[JavaCluster_REPLY_TOPIC] is conflict with system topic.");
  EXPECT_EQ(broker_->topics().Find("JavaCluster_REPLY_TOPIC")->write_queue_nums, 1);
}

// storeReplyMessageEnable=false: pushed, answered SUCCESS with msgId "0", nothing stored.
class ReplyNotStoredIntegrationTest : public ReplyIntegrationTest {
 protected:
  void SetUp() override {
    store_reply_ = false;
    ReplyIntegrationTest::SetUp();
  }
};

TEST_F(ReplyNotStoredIntegrationTest, ReplyIsOnlyPushed) {
  auto answer = ReplyAsync(FindFrame(frames_, "SEND_REPLY_MESSAGE_V2", false).command);
  auto push = requester_.WaitServerRequest(5000);
  ASSERT_TRUE(push.ok()) << push.status();
  EXPECT_EQ(push->body.owned_text(), "pong:ping");
  Answer(*push, 0);
  const RemotingCommand a = answer.get();
  EXPECT_EQ(a.code, 0);
  EXPECT_EQ(a.FindField("msgId"), "0");
  EXPECT_EQ(a.FindField("queueId"), "0");
  EXPECT_EQ(a.FindField("queueOffset"), "0");
  EXPECT_EQ(broker_->store().GetMaxOffsetInQueue("JavaCluster_REPLY_TOPIC", 0).value(), 0);
}

}  // namespace
}  // namespace rocketstore
