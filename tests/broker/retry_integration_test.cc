// Consumer retry and DLQ through a real broker over loopback, replaying the Java 4.9.8
// client's frames of tests/protocol/vectors/java-4.9.8/send-back.json and dlq.json: the
// sends and the CONSUMER_SEND_MSG_BACK (36) requests as captured, our answers compared with
// the Java broker's field by field, and the records then pulled from %RETRY%<group> and
// %DLQ%<group> compared with the records the Java broker served, properties in stored order
// (retry copies pass the delay levels, 18 x 1 s as in the capture, which add REAL_TOPIC /
// REAL_QID in HashMap order).
#include <gtest/gtest.h>

#include <thread>

#include "broker/broker.h"
#include "java_vectors.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
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

struct Record {
  std::string topic, body, properties;
  int32_t queue_id = 0, flag = 0, sys_flag = 0, reconsume_times = 0;
  int64_t born_timestamp = 0, physical_offset = 0;
  std::string Prop(std::string_view name) const {
    return std::string(format::FindProperty(properties, name).value_or(""));
  }
  // The properties in stored order.
  std::vector<std::pair<std::string, std::string>> Props() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : format::ParseProperties(properties)) out.emplace_back(k, v);
    return out;
  }
};

std::vector<Record> Records(const RemotingCommand& pull_response) {
  std::vector<Record> out;
  std::vector<uint8_t> body = pull_response.body.Flatten();
  std::span<const uint8_t> rest(body);
  while (!rest.empty()) {
    auto d = format::DecodeRecord(rest, true);
    EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
    if (d.outcome != format::DecodeOutcome::kRecord) break;
    const auto& r = d.record;
    out.push_back(Record{std::string(r.topic), std::string(r.body), std::string(r.properties),
                         r.queue_id, r.flag, r.sys_flag, r.reconsume_times, r.born_timestamp,
                         r.physical_offset});
    rest = rest.subspan(static_cast<size_t>(r.total_size));
  }
  return out;
}

const Record* WithKey(const std::vector<Record>& rs, std::string_view keys) {
  for (const Record& r : rs) {
    if (r.Prop("KEYS") == keys) return &r;
  }
  ADD_FAILURE() << "no record with KEYS " << keys;
  return nullptr;
}

// The retry / DLQ record we stored against the one the Java broker served.
void ExpectSameRecord(const Record& ours, const Record& java, const std::string& java_origin,
                      const std::string& our_origin) {
  EXPECT_EQ(ours.topic, java.topic);
  EXPECT_EQ(ours.queue_id, java.queue_id);
  EXPECT_EQ(ours.body, java.body);
  EXPECT_EQ(ours.flag, java.flag);
  EXPECT_EQ(ours.sys_flag, java.sys_flag);
  EXPECT_EQ(ours.born_timestamp, java.born_timestamp);
  EXPECT_EQ(ours.reconsume_times, java.reconsume_times);
  // Retry copies went through the delay levels (REAL_TOPIC / REAL_QID added, DELAY kept),
  // as on the Java broker.
  auto expected = java.Props();
  for (auto& [k, v] : expected) {
    if (k == "ORIGIN_MESSAGE_ID" && v == java_origin) v = our_origin;  // offsets differ
  }
  EXPECT_EQ(ours.Props(), expected);
}

class RetryIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    bo.cluster_name = "JavaCluster";
    bo.broker_name = "jbroker-a";
    // The Java broker's address: STOREHOST and offset msg ids come out as in the vectors.
    bo.advertised_addr = "127.0.0.1:20911";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    // The capture's broker setting: 18 levels of 1 s (retries come back after 1 s).
    bo.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
  }
  void TearDown() override {
    client_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
    ns_->Stop();
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  // Pulls queue `queue` of `topic` from offset 0 until `n` records are there (bounded:
  // retry copies arrive after their 1 s delay level).
  std::vector<Record> PullAll(const std::string& group, const std::string& topic, size_t n,
                              int32_t queue = 0) {
    for (int i = 0; i < 600; ++i) {
      RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
      req.SetField("consumerGroup", group);
      req.SetField("topic", topic);
      req.SetIntField("queueId", queue);
      req.SetIntField("queueOffset", 0);
      req.SetIntField("maxMsgNums", 32);
      req.SetIntField("sysFlag", 4);  // subscription in the request
      req.SetIntField("commitOffset", 0);
      req.SetIntField("suspendTimeoutMillis", 0);
      req.SetField("subscription", "*");
      req.SetIntField("subVersion", 0);
      RemotingCommand resp = Call(std::move(req));
      if (resp.code == 0) {
        auto rs = Records(resp);
        if (rs.size() >= n) return rs;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "fewer than " << n << " records in " << topic << "/" << queue;
    return {};
  }

  // Our answer to a replayed request against the Java broker's answer to it.
  // `exact`: no field beyond Java's (our send answers also carry transactionId).
  void ExpectSameAnswer(const RemotingCommand& ours, const CapturedFrame& java, bool exact = true) {
    EXPECT_EQ(ours.code, java.command.code);
    EXPECT_EQ(ours.remark, java.command.remark);
    if (exact) {
      EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());
    }
    for (const auto& [k, v] : java.command.ext_fields) {
      EXPECT_EQ(ours.FindField(k).value_or("<absent>"), v) << k;
    }
  }

  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
};

TEST_F(RetryIntegrationTest, SendBackFramesOfTheJavaClientAreAnsweredAndStoredAsJavaDid) {
  const auto frames = LoadFrames("java-4.9.8/send-back.json");
  // The captured send (k0, queue 3) and, built from it, the k1 send whose frame the
  // capture dropped (queue 0, as its pull shows): the same records as Java's, 220 bytes
  // each, so that the 36 requests' offsets (220 and 0) name the same messages here.
  const CapturedFrame& send0 = FindFrame(frames, "SEND_MESSAGE_V2", false);
  RemotingCommand r0 = Call(send0.command);
  ExpectSameAnswer(r0, FindFrame(frames, "SEND_MESSAGE_V2", true), /*exact=*/false);
  RemotingCommand send1 = send0.command;
  send1.SetField("e", "0");
  send1.SetField("g", "1796158334974");
  send1.SetField("i",
                 "KEYS\x01k1\x02UNIQ_KEY\x01"
                 "FD000000000000000000000000000002116730946E09047A77FE0001\x02WAIT\x01true\x02"
                 "TAGS\x01TagA");
  send1.body.Assign(std::string_view("sendback body 1"));
  RemotingCommand r1 = Call(send1);
  ASSERT_EQ(r1.code, 0);
  EXPECT_EQ(r1.FindField("msgId").value_or(""), "7F000001000051AF00000000000000DC");

  for (size_t i = 0; i < 2; ++i) {
    const CapturedFrame& back = FindFrame(frames, "CONSUMER_SEND_MSG_BACK", false, i);
    ASSERT_EQ(back.command.code, 36);
    SCOPED_TRACE("36 request " + std::to_string(i));
    ExpectSameAnswer(Call(back.command), FindFrame(frames, "CONSUMER_SEND_MSG_BACK", true, i));
  }
  const std::vector<Record> ours = PullAll("CGV_sendback", "%RETRY%CGV_sendback", 2);
  ASSERT_EQ(ours.size(), 2u);
  for (size_t i = 1; i <= 2; ++i) {  // the two pulls of %RETRY%CGV_sendback
    const auto java = Records(FindFrame(frames, "PULL_MESSAGE", true, i).command);
    ASSERT_EQ(java.size(), 1u);
    const Record* mine = WithKey(ours, java[0].Prop("KEYS"));
    ASSERT_NE(mine, nullptr);
    SCOPED_TRACE(java[0].Prop("KEYS"));
    ExpectSameRecord(*mine, java[0], "", "");
    EXPECT_EQ(mine->reconsume_times, 1);
  }
}

TEST_F(RetryIntegrationTest, DlqFramesOfTheJavaClientEndInTheDeadLetterQueue) {
  const auto frames = LoadFrames("java-4.9.8/dlq.json");
  RemotingCommand sent = Call(FindFrame(frames, "SEND_MESSAGE_V2", false).command);
  ASSERT_EQ(sent.code, 0);
  const std::string msg_id(sent.FindField("msgId").value_or(""));
  auto id = format::DecodeOffsetMsgId(msg_id);
  ASSERT_TRUE(id.ok()) << msg_id;

  // First send-back (maxReconsumeTimes=1, delayLevel 0): to %RETRY% with DELAY 3. The
  // captured offset is the Java store's; the message is at ours here.
  RemotingCommand back0 = FindFrame(frames, "CONSUMER_SEND_MSG_BACK", false, 0).command;
  back0.SetIntField("offset", id->physical_offset);
  ExpectSameAnswer(Call(back0), FindFrame(frames, "CONSUMER_SEND_MSG_BACK", true, 0));
  const auto retry = PullAll("CGV_dlq", "%RETRY%CGV_dlq", 1);
  ASSERT_EQ(retry.size(), 1u);
  const auto java_retry = Records(FindFrame(frames, "PULL_MESSAGE", true, 1).command);
  ASSERT_EQ(java_retry.size(), 1u);
  const std::string java_origin = "7F000001000051AF0000000000000A5B";
  ExpectSameRecord(retry[0], java_retry[0], java_origin, msg_id);

  // Second (reconsumeTimes 1 >= 1): to %DLQ%CGV_dlq queue 0, reconsumeTimes 2, DELAY 0.
  RemotingCommand back1 = FindFrame(frames, "CONSUMER_SEND_MSG_BACK", false, 1).command;
  back1.SetIntField("offset", retry[0].physical_offset);
  ExpectSameAnswer(Call(back1), FindFrame(frames, "CONSUMER_SEND_MSG_BACK", true, 1));
  const auto dlq = PullAll("CGV_dlq_reader", "%DLQ%CGV_dlq", 1);
  ASSERT_EQ(dlq.size(), 1u);
  const auto java_dlq = Records(FindFrame(frames, "PULL_MESSAGE", true, 2).command);
  ASSERT_EQ(java_dlq.size(), 1u);
  ExpectSameRecord(dlq[0], java_dlq[0], java_origin, msg_id);
  EXPECT_EQ(dlq[0].reconsume_times, 2);
  EXPECT_EQ(dlq[0].Prop("DELAY"), "0");

  // The DLQ topic's route at the name server is Java's: 1 queue, perm 6.
  net::RemotingClient ns;
  ASSERT_TRUE(ns.Connect("127.0.0.1:" + std::to_string(ns_->port())).ok());
  std::string route;
  for (int i = 0; i < 100 && route.empty(); ++i) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetRouteinfoByTopic);
    q.SetField("topic", "%DLQ%CGV_dlq");
    auto r = ns.Invoke(std::move(q));
    ASSERT_TRUE(r.ok());
    if (r->code == 0) {
      route = r->body.owned_text();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_NE(route.find("\"perm\":6,\"readQueueNums\":1"), std::string::npos) << route;
  EXPECT_NE(route.find("\"writeQueueNums\":1"), std::string::npos) << route;
}

TEST_F(RetryIntegrationTest, ClientFallbackSendToRetryPastTheMaxLandsInTheDlq) {
  const auto frames = LoadFrames("java-4.9.8/dlq.json");
  // The client's own send to %RETRY%<group> (its fallback): reconsumeTimes "j",
  // maxReconsumeTimes "l" in the header, as DefaultMQProducerImpl moves them there.
  RemotingCommand send = FindFrame(frames, "SEND_MESSAGE_V2", false).command;
  send.SetField("b", "%RETRY%CGV_dlq");
  send.SetField("e", "0");
  send.SetField("j", "1");
  send.SetField("l", "2");
  RemotingCommand below = Call(send);
  ASSERT_EQ(below.code, 0) << below.remark.value_or("");
  send.SetField("j", "2");
  RemotingCommand at_max = Call(send);
  ASSERT_EQ(at_max.code, 0) << at_max.remark.value_or("");
  EXPECT_EQ(at_max.FindField("queueId").value_or(""), "0");
  const auto retry = PullAll("CGV_dlq", "%RETRY%CGV_dlq", 1);
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(retry[0].reconsume_times, 1);
  const auto dlq = PullAll("CGV_dlq_reader", "%DLQ%CGV_dlq", 1);
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(dlq[0].reconsume_times, 2);
  EXPECT_EQ(dlq[0].Prop("DELAY"), "0");
  EXPECT_EQ(dlq[0].body, "to the DLQ");
}

}  // namespace
}  // namespace rocketstore
