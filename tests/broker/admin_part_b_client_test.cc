// Broker admin codes, part B, that call a group's clients, through a real in-process
// broker with a raw consumer connection playing the Java client: the captured frames of
// java-4.9.8/reset-offset.json (222 -> 220, 223 -> 221) and consumer-running-info.json
// (307's four hops) are replayed and every hop is compared with the Java broker's.
#include "admin_part_b_fixture.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "store/format/message_record.h"

namespace rocketstore::broker::testing {
namespace {

using protocol::testing::CapturedFrame;
using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;

constexpr int64_t kResetTime = 1796159180452;  // the captured 222's timestamp

class AdminClientCallsTest : public AdminPartBTest {
 protected:
  // JV_reset's queues as the capture's: q0 2, q1 1, q2 2, q3 3 messages stored before
  // kResetTime and one each just after; the consumer had consumed everything.
  void PrepareReset() {
    CreateTopic("JV_reset", 4);
    clock_.SetMillis(kResetTime - 1000);
    const int before[4] = {2, 1, 2, 3};
    for (int q = 0; q < 4; ++q) {
      for (int i = 0; i < before[q]; ++i) Send("JV_reset", q, "old");
    }
    clock_.SetMillis(kResetTime + 30);
    for (int q = 0; q < 4; ++q) Send("JV_reset", q, "reset " + std::to_string(q));
    for (int q = 0; q < 4; ++q) Commit("CGV_reset", "JV_reset", q, before[q] + 1);
  }
  void ExpectFieldsLike(const RemotingCommand& ours, const CapturedFrame& java) {
    EXPECT_EQ(ours.code, java.command.code);
    EXPECT_EQ(ours.remark, java.command.remark);
    EXPECT_EQ(ours.ext_fields.size(), java.command.ext_fields.size());
    for (const auto& [k, v] : java.command.ext_fields) {
      EXPECT_EQ(ours.FindField(k).value_or("<absent>"), v) << k;
    }
  }
};

TEST_F(AdminClientCallsTest, ResetOffsetErrorsAsJava) {
  protocol::ResetOffsetRequestHeader h{"nope", "CGV_reset", kResetTime, true};
  RemotingCommand req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  h.EncodeTo(req);
  RemotingCommand r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "[reset-offset] reset offset failed, no topic in this broker. topic=nope");

  CreateTopic("JV_reset", 2);
  Commit("CGV_reset", "JV_reset", 0, 0);  // queue 1 has no offset of the group
  req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  protocol::ResetOffsetRequestHeader{"JV_reset", "CGV_reset", kResetTime, true}.EncodeTo(req);
  r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "THe consumer group <CGV_reset> not exist");

  // isForce missing: the decoder's error.
  req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  req.SetField("topic", "JV_reset");
  req.SetField("group", "CGV_reset");
  req.SetIntField("timestamp", kResetTime);
  r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.remark.value_or("").find("isForce"), std::string::npos);

  // A client older than V3_0_7_SNAPSHOT cannot take a reset.
  Commit("CGV_reset", "JV_reset", 1, 0);
  ConsumerHeartbeat(consumer_, "127.0.0.1@old", "CGV_reset", {{"JV_reset", 1}},
                    "CONSUME_FROM_LAST_OFFSET", 20);
  req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  protocol::ResetOffsetRequestHeader{"JV_reset", "CGV_reset", -1, true}.EncodeTo(req);
  r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark,
            "the client does not support this feature. version=V3_0_3_SNAPSHOT"
            "");
}

TEST_F(AdminClientCallsTest, ResetOffsetPushesToLiveClientsAsJava) {
  const auto frames = LoadFrames("java-4.9.8/reset-offset.json");
  PrepareReset();
  ConsumerHeartbeat(consumer_, "127.0.0.1@reset-consumer", "CGV_reset",
                    {{"JV_reset", 1796159201689}});
  RemotingCommand ours =
      Call(admin_, FindFrame(frames, "INVOKE_BROKER_TO_RESET_OFFSET", false).command);
  const auto& java = FindFrame(frames, "INVOKE_BROKER_TO_RESET_OFFSET", true);
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  EXPECT_EQ(Canonical(ours.body.owned_text()), Canonical(java.body_text));

  // The consumer's connection got 220 (oneway, isForce=false as 4.9.8 writes it).
  RemotingCommand push = ToConsumer();
  const auto& java_push = FindFrame(frames, "RESET_CONSUMER_CLIENT_OFFSET", false);
  EXPECT_EQ(push.code, 220);
  EXPECT_TRUE(push.IsOneway());
  EXPECT_EQ(push.FindField("isForce"), "false");
  ExpectFieldsLike(push, java_push);
  EXPECT_EQ(Canonical(push.body.owned_text()), Canonical(java_push.body_text));
  // The body reads back the way ResetOffsetBody.decode reads it (bare keys).
  auto body = protocol::ResetOffsetBody::Decode(push.body.owned_text());
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->offset_table.at({"JV_reset", "jbroker-a", 3}), 3);
  // Live group: the broker leaves committing to the clients, as Java.
  EXPECT_EQ(Committed("CGV_reset", "JV_reset", 3), 4);
}

TEST_F(AdminClientCallsTest, ResetOffsetNotForcedKeepsSmallerOffsetsAndOfflineGroupIsCommitted) {
  PrepareReset();
  // Committed 0 on queue 0 (smaller than the time's offset 2): kept without isForce.
  Commit("CGV_reset", "JV_reset", 0, 0);
  RemotingCommand req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  protocol::ResetOffsetRequestHeader{"JV_reset", "CGV_reset", kResetTime, false}.EncodeTo(req);
  RemotingCommand r = Call(admin_, req);
  ASSERT_EQ(r.code, 0) << r.remark.value_or("");
  auto body = protocol::ResetOffsetBody::Decode(r.body.owned_text());
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->offset_table.at({"JV_reset", "jbroker-a", 0}), 0);
  EXPECT_EQ(body->offset_table.at({"JV_reset", "jbroker-a", 3}), 3);
  // No live client: committed by the broker (5.x's server-side reset).
  EXPECT_EQ(Committed("CGV_reset", "JV_reset", 0), 0);
  EXPECT_EQ(Committed("CGV_reset", "JV_reset", 3), 3);
  // timestamp -1: the queues' ends.
  req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  protocol::ResetOffsetRequestHeader{"JV_reset", "CGV_reset", -1, true}.EncodeTo(req);
  r = Call(admin_, req);
  ASSERT_EQ(r.code, 0);
  for (int q = 0; q < 4; ++q) {
    EXPECT_EQ(Committed("CGV_reset", "JV_reset", q), MaxOffset("JV_reset", q)) << q;
  }
}

TEST_F(AdminClientCallsTest, ConsumerStatusAsksEveryClientAsJava) {
  const auto frames = LoadFrames("java-4.9.8/reset-offset.json");
  const RemotingCommand request =
      FindFrame(frames, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", false).command;
  RemotingCommand r = Call(admin_, request);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "No Any Consumer online in the consumer group: [CGV_reset]");

  ConsumerHeartbeat(consumer_, "127.0.0.1@reset-consumer", "CGV_reset",
                    {{"JV_reset", 1796159201689}});
  auto pending = CallAsync(request);
  RemotingCommand ask = ToConsumer();
  const auto& java_ask = FindFrame(frames, "GET_CONSUMER_STATUS_FROM_CLIENT", false);
  EXPECT_EQ(ask.code, 221);
  EXPECT_FALSE(ask.IsOneway());
  ExpectFieldsLike(ask, java_ask);
  const auto& java_answer = FindFrame(frames, "GET_CONSUMER_STATUS_FROM_CLIENT", true);
  Answer(ask, 0, java_answer.command.remark, java_answer.body_text);
  RemotingCommand ours = pending.get();
  const auto& java = FindFrame(frames, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", true);
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  EXPECT_EQ(Canonical(ours.body.owned_text()), Canonical(java.body_text));
  auto decoded = protocol::GetConsumerStatusBody::Decode(ours.body.owned_text());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->consumer_table.at("127.0.0.1@reset-consumer").size(), 4u);

  // A client that answers an error is left out (as Java), the answer is still SUCCESS.
  pending = CallAsync(request);
  ask = ToConsumer();
  Answer(ask, 1, std::string("boom"), "");
  ours = pending.get();
  EXPECT_EQ(ours.code, 0);
  EXPECT_EQ(Canonical(ours.body.owned_text()), "{\"consumerTable\":{},\"messageQueueTable\":{}}");
}

TEST_F(AdminClientCallsTest, ConsumerRunningInfoFourHopsAsJava) {
  const auto frames = LoadFrames("java-4.9.8/consumer-running-info.json");
  const RemotingCommand hop1 = FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", false, 0).command;
  RemotingCommand r = Call(admin_, hop1);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "The Consumer <CGV_run> <127.0.0.1@run-consumer> not online");

  ConsumerHeartbeat(consumer_, "127.0.0.1@run-consumer", "CGV_run",
                    {{"JV_run", 1796158468671}, {"%RETRY%CGV_run", 1796158468702}});
  auto pending = CallAsync(hop1);
  RemotingCommand hop2 = ToConsumer();
  const auto& java_hop2 = FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", false, 1);
  EXPECT_EQ(hop2.code, 307);
  EXPECT_FALSE(hop2.IsOneway());
  ExpectFieldsLike(hop2, java_hop2);
  const auto& java_hop3 = FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", true, 1);
  Answer(hop2, 0, java_hop3.command.remark, java_hop3.body_text);
  RemotingCommand hop4 = pending.get();
  const auto& java_hop4 = FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", true, 0);
  EXPECT_EQ(hop4.code, java_hop4.command.code);
  EXPECT_EQ(hop4.remark, java_hop4.command.remark);
  // (Invoke matched hop 4 to hop 1 by opaque; hop 2 carried the broker's own counter.)
  EXPECT_EQ(std::string(hop4.body.owned_text()), java_hop4.body_text);
}

TEST_F(AdminClientCallsTest, ConsumerRunningInfoTimeoutIsConsumeMsgTimeout) {
  const auto frames = LoadFrames("java-4.9.8/consumer-running-info.json");
  ConsumerHeartbeat(consumer_, "127.0.0.1@run-consumer", "CGV_run", {{"JV_run", 1}});
  auto pending = CallAsync(FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", false, 0).command);
  (void)ToConsumer();  // never answered
  clock_.AdvanceMillis(ClientCalls::kDefaultTimeoutMs + 1);
  RemotingCommand r = pending.get();
  EXPECT_EQ(r.code, 207);  // CONSUME_MSG_TIMEOUT, as AdminBrokerProcessor.callConsumer
  EXPECT_EQ(r.remark.value_or("").rfind("consumer <CGV_run> <127.0.0.1@run-consumer> Timeout: ", 0),
            0u)
      << r.remark.value_or("");
}

TEST_F(AdminClientCallsTest, ConsumerRunningInfoOnAClosedConnectionIsSystemError) {
  const auto frames = LoadFrames("java-4.9.8/consumer-running-info.json");
  ConsumerHeartbeat(consumer_, "127.0.0.1@run-consumer", "CGV_run", {{"JV_run", 1}});
  auto pending = CallAsync(FindFrame(frames, "GET_CONSUMER_RUNNING_INFO", false, 0).command);
  (void)ToConsumer();
  consumer_.Close();  // the client goes away before answering
  RemotingCommand r = pending.get();
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark.value_or("").rfind(
                "invoke consumer <CGV_run> <127.0.0.1@run-consumer> Exception: ", 0),
            0u)
      << r.remark.value_or("");
}

TEST_F(AdminClientCallsTest, ResetOffsetFromACppToolPushesTheListBody) {
  PrepareReset();
  ConsumerHeartbeat(consumer_, "127.0.0.1@reset-consumer", "CGV_reset", {{"JV_reset", 1}});
  RemotingCommand req = protocol::MakeRequest(RequestCode::kInvokeBrokerToResetOffset);
  req.language = protocol::LanguageCode::kCpp;
  protocol::ResetOffsetRequestHeader{"JV_reset", "CGV_reset", kResetTime, true}.EncodeTo(req);
  RemotingCommand r = Call(admin_, std::move(req));
  ASSERT_EQ(r.code, 0) << r.remark.value_or("");
  RemotingCommand push = ToConsumer();
  EXPECT_EQ(push.code, 220);
  EXPECT_EQ(Canonical(push.body.owned_text()),
            "{\"offsetTable\":[{\"brokerName\":\"jbroker-a\",\"offset\":2,\"queueId\":0,"
            "\"topic\":\"JV_reset\"},{\"brokerName\":\"jbroker-a\",\"offset\":1,\"queueId\":1,"
            "\"topic\":\"JV_reset\"},{\"brokerName\":\"jbroker-a\",\"offset\":2,\"queueId\":2,"
            "\"topic\":\"JV_reset\"},{\"brokerName\":\"jbroker-a\",\"offset\":3,\"queueId\":3,"
            "\"topic\":\"JV_reset\"}]}");
  // The admin's answer is the map form whatever the caller's language (as Java).
  auto body = protocol::ResetOffsetBody::Decode(r.body.owned_text());
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(body->offset_table.size(), 4u);
}

TEST_F(AdminClientCallsTest, ConsumeMessageDirectlyForwardsTheStoredMessage) {
  CreateTopic("JV_direct", 1);
  const std::string msg_id = Send("JV_direct", 0, "direct body");
  ConsumerHeartbeat(consumer_, "127.0.0.1@direct", "CGV_direct", {{"JV_direct", 1}});
  protocol::ConsumeMessageDirectlyResultRequestHeader h;
  h.consumer_group = "CGV_direct";
  h.client_id = "127.0.0.1@direct";
  h.msg_id = "00";
  RemotingCommand req = protocol::MakeRequest(RequestCode::kConsumeMessageDirectly);
  h.EncodeTo(req);
  RemotingCommand r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.remark.value_or("").find("msgId <00>"), std::string::npos);

  req = protocol::MakeRequest(RequestCode::kConsumeMessageDirectly);
  h.msg_id = msg_id;
  h.EncodeTo(req);
  auto pending = CallAsync(req);
  RemotingCommand fwd = ToConsumer();
  EXPECT_EQ(fwd.code, 309);
  EXPECT_EQ(fwd.FindField("brokerName"), "jbroker-a");
  EXPECT_EQ(fwd.FindField("msgId"), msg_id);
  const auto bytes = fwd.body.Flatten();
  auto d = format::DecodeRecord(bytes, true);
  ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
  EXPECT_EQ(d.record.body, "direct body");
  Answer(fwd, 0, std::nullopt, "{\"consumeResult\":\"CR_SUCCESS\",\"order\":false}");
  r = pending.get();
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(std::string(r.body.owned_text()), "{\"consumeResult\":\"CR_SUCCESS\",\"order\":false}");

  // The client is not a member of the group.
  h.client_id = "127.0.0.1@other";
  req = protocol::MakeRequest(RequestCode::kConsumeMessageDirectly);
  h.EncodeTo(req);
  r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "The Consumer <CGV_direct> <127.0.0.1@other> not online");
}

}  // namespace
}  // namespace rocketstore::broker::testing
