// JSON client bodies (protocol/bodies/client_bodies.h) against the bodies the 4.9.8 Java
// client and ali-ons sent: decoded values, re-encoding byte for byte what Java sent, and
// the errors for malformed bodies (each naming the member's path).
#include "protocol/bodies/client_bodies.h"

#include <gtest/gtest.h>

#include <string>

#include "java_vectors.h"

namespace rocketstore::protocol {
namespace {

using testing::CapturedFrame;
using testing::FindFrame;
using testing::LoadFrames;

std::string Text(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

template <typename B>
B MustDecode(std::string_view json) {
  Result<B> b = B::Decode(json);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : B{};
}

template <typename B>
std::string ErrorOf(std::string_view json) {
  Result<B> b = B::Decode(json);
  EXPECT_FALSE(b.ok()) << json;
  if (b.ok()) return "";
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
  return b.status().message();
}

TEST(HeartbeatDataTest, JavaClientsFiveKinds) {
  const auto frames = LoadFrames("java-4.9.8/heartbeat.json");
  // Order in the capture: orderly, producer, SQL92, broadcasting, lite pull.
  const auto orderly =
      MustDecode<HeartbeatData>(FindFrame(frames, "HEART_BEAT", false, 0).body_text);
  EXPECT_EQ(orderly.client_id, "127.0.0.1@hb-orderly");
  ASSERT_EQ(orderly.producer_data_set.size(), 1u);
  EXPECT_EQ(orderly.producer_data_set[0].group_name, "CLIENT_INNER_PRODUCER");
  ASSERT_EQ(orderly.consumer_data_set.size(), 1u);
  const ConsumerData& c = orderly.consumer_data_set[0];
  EXPECT_EQ(c.group_name, "CGV_hb_orderly");
  EXPECT_EQ(c.consume_type, "CONSUME_PASSIVELY");
  EXPECT_EQ(c.message_model, "CLUSTERING");
  EXPECT_EQ(c.consume_from_where, "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_FALSE(c.unit_mode);
  ASSERT_EQ(c.subscription_data_set.size(), 2u);
  const SubscriptionData& s = c.subscription_data_set[0];
  EXPECT_FALSE(s.class_filter_mode);
  EXPECT_EQ(s.topic, "JV_hb");
  EXPECT_EQ(s.sub_string, "TagA || TagB");
  EXPECT_EQ(s.tags_set, (std::vector<std::string>{"TagA", "TagB"}));
  EXPECT_EQ(s.code_set, (std::vector<int32_t>{2598919, 2598920}));
  EXPECT_EQ(s.sub_version, 1796158417183);
  EXPECT_EQ(s.expression_type, "TAG");
  EXPECT_EQ(c.subscription_data_set[1].topic, "%RETRY%CGV_hb_orderly");
  EXPECT_TRUE(c.subscription_data_set[1].tags_set.empty());

  const auto producer =
      MustDecode<HeartbeatData>(FindFrame(frames, "HEART_BEAT", false, 1).body_text);
  EXPECT_EQ(producer.client_id, "127.0.0.1@hb-producer");
  EXPECT_TRUE(producer.consumer_data_set.empty());
  ASSERT_EQ(producer.producer_data_set.size(), 2u);
  EXPECT_EQ(producer.producer_data_set[1].group_name, "PGV_hb");

  const auto sql = MustDecode<HeartbeatData>(FindFrame(frames, "HEART_BEAT", false, 2).body_text);
  const SubscriptionData& q = sql.consumer_data_set.at(0).subscription_data_set.at(1);
  EXPECT_EQ(q.expression_type, "SQL92");
  EXPECT_EQ(q.sub_string, "a > 5 AND color = 'red'");

  const auto bcast = MustDecode<HeartbeatData>(FindFrame(frames, "HEART_BEAT", false, 3).body_text);
  EXPECT_EQ(bcast.consumer_data_set.at(0).message_model, "BROADCASTING");
  EXPECT_EQ(bcast.consumer_data_set.at(0).consume_from_where, "CONSUME_FROM_LAST_OFFSET");

  const auto lite = MustDecode<HeartbeatData>(FindFrame(frames, "HEART_BEAT", false, 4).body_text);
  EXPECT_EQ(lite.client_id, "127.0.0.1@hb-litepull@STREAM");
  EXPECT_EQ(lite.consumer_data_set.at(0).consume_type, "CONSUME_ACTIVELY");
  EXPECT_EQ(lite.consumer_data_set.at(0).subscription_data_set.at(0).code_set,
            (std::vector<int32_t>{2598919}));
}

TEST(HeartbeatDataTest, EncodeIsByteForByteWhatJavaSent) {
  int seen = 0;
  for (const char* file : {"java-4.9.8/heartbeat.json", "java-4.9.8/send-back.json",
                           "java-4.9.8/order-lock.json", "java-4.9.8/transaction.json"}) {
    for (const CapturedFrame& f : LoadFrames(file)) {
      if (f.request != "HEART_BEAT" || f.is_response) continue;
      SCOPED_TRACE(f.body_text);
      ++seen;
      const auto h = MustDecode<HeartbeatData>(f.body_text);
      EXPECT_EQ(Text(h.Encode()), f.body_text);
      EXPECT_EQ(f.command.body.owned_text(), f.body_text);
    }
  }
  EXPECT_EQ(seen, 8);
}

TEST(HeartbeatDataTest, AliOnsHeartbeatHasNoExpressionType) {
  const auto frames = LoadFrames("ali-ons-request-frames.json");
  const CapturedFrame& f = FindFrame(frames, "HEART_BEAT", false);
  const auto h = MustDecode<HeartbeatData>(f.command.body.owned_text());
  EXPECT_EQ(h.client_id, "192.0.2.2@interop-consumer-14912");
  EXPECT_TRUE(h.producer_data_set.empty());
  const SubscriptionData& s = h.consumer_data_set.at(0).subscription_data_set.at(0);
  EXPECT_EQ(s.expression_type, "TAG");  // absent: Java's default
  EXPECT_EQ(s.sub_string, "TagA || TagB");
  EXPECT_EQ(s.sub_version, 1796006207968);
  EXPECT_EQ(MustDecode<HeartbeatData>(Text(h.Encode())), h);
}

TEST(HeartbeatDataTest, MalformedBodiesNameWhatIsWrong) {
  EXPECT_EQ(ErrorOf<HeartbeatData>(""),
            "HeartbeatData: not valid JSON at byte 0: The document is empty.");
  EXPECT_EQ(ErrorOf<HeartbeatData>("[]"), "HeartbeatData: the body is not a JSON object");
  EXPECT_EQ(ErrorOf<HeartbeatData>("{}"), "HeartbeatData: clientID is missing");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":null})"), "HeartbeatData: clientID is missing");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":7})"), "HeartbeatData: clientID is not a string");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":"c","producerDataSet":{}})"),
            "HeartbeatData: producerDataSet is not an array");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":"c","producerDataSet":[1]})"),
            "HeartbeatData: producerDataSet[0] is not an object");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":"c","consumerDataSet":[{"unitMode":"no"}]})"),
            "HeartbeatData: consumerDataSet[0].unitMode is not a boolean");
  EXPECT_EQ(
      ErrorOf<HeartbeatData>(
          R"({"clientID":"c","consumerDataSet":[{},{"subscriptionDataSet":[{"codeSet":[1,1.5]}]}]})"),
      "HeartbeatData: consumerDataSet[1].subscriptionDataSet[0].codeSet[1] is not an int");
  EXPECT_EQ(
      ErrorOf<HeartbeatData>(
          R"({"clientID":"c","consumerDataSet":[{"subscriptionDataSet":[{"codeSet":[2147483648]}]}]})"),
      "HeartbeatData: consumerDataSet[0].subscriptionDataSet[0].codeSet[0] is not an int");
  EXPECT_EQ(
      ErrorOf<HeartbeatData>(
          R"({"clientID":"c","consumerDataSet":[{"subscriptionDataSet":[{"subVersion":"1"}]}]})"),
      "HeartbeatData: consumerDataSet[0].subscriptionDataSet[0].subVersion is not a long");
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":"c"} x)"),
            "HeartbeatData: not valid JSON at byte 17: The document root must not be followed by "
            "other values.");
  EXPECT_EQ(ErrorOf<HeartbeatData>(std::string("{\"clientID\":\"c\"}\0{", 18)),
            "HeartbeatData: not valid JSON at byte 16: NUL byte in the text");
  EXPECT_NE(ErrorOf<HeartbeatData>("{\"clientID\":\"\xff\"}").find("not valid JSON at byte"),
            std::string::npos);
  // A UTF-8 lead byte at the very end: RapidJSON reads its continuation bytes past the
  // terminator (the fuzzer found this; ASan reports it if the padding goes).
  for (const char* lead : {"\xc3", "\xe2", "\xf0"}) {
    EXPECT_NE(ErrorOf<HeartbeatData>(std::string("{\"clien") + lead).find("not valid JSON"),
              std::string::npos);
  }
  EXPECT_EQ(ErrorOf<HeartbeatData>(R"({"clientID":"c","x":)" + std::string(40, '[') +
                                   std::string(40, ']') + "}"),
            "HeartbeatData: nested deeper than 32");
  // Unknown members and nulls are ignored, as fastjson does.
  const auto h = MustDecode<HeartbeatData>(
      R"({"clientID":"c","heartbeatFingerprint":5,"consumerDataSet":null,"producerDataSet":[{"groupName":null}]})");
  EXPECT_EQ(h.client_id, "c");
  EXPECT_TRUE(h.consumer_data_set.empty());
  ASSERT_EQ(h.producer_data_set.size(), 1u);
  EXPECT_EQ(h.producer_data_set[0].group_name, "");
}

TEST(HeartbeatDataTest, EveryTruncationOfARealBodyFails) {
  const auto frames = LoadFrames("java-4.9.8/heartbeat.json");
  const std::string body = FindFrame(frames, "HEART_BEAT", false, 0).body_text;
  ASSERT_FALSE(body.empty());
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(HeartbeatData::Decode(std::string_view(body).substr(0, n)).ok()) << n;
  }
  EXPECT_TRUE(HeartbeatData::Decode(body).ok());
}

TEST(LockBatchBodiesTest, JavaOrderlyConsumerBodies) {
  const auto frames = LoadFrames("java-4.9.8/order-lock.json");
  int requests = 0, responses = 0, unlocks = 0;
  for (const CapturedFrame& f : frames) {
    SCOPED_TRACE(f.body_text);
    if (f.request == "LOCK_BATCH_MQ" && !f.is_response) {
      const auto b = MustDecode<LockBatchRequestBody>(f.body_text);
      EXPECT_EQ(b.consumer_group, "CGV_order");
      EXPECT_EQ(b.client_id, "127.0.0.1@order-consumer");
      EXPECT_FALSE(b.mq_set.empty());
      EXPECT_EQ(Text(b.Encode()), f.body_text);
      ++requests;
    } else if (f.request == "LOCK_BATCH_MQ") {
      const auto b = MustDecode<LockBatchResponseBody>(f.body_text);
      EXPECT_FALSE(b.lock_ok_mq_set.empty());
      EXPECT_EQ(Text(b.Encode()), f.body_text);
      ++responses;
    } else if (f.request == "UNLOCK_BATCH_MQ" && !f.is_response) {
      const auto b = MustDecode<UnlockBatchRequestBody>(f.body_text);
      EXPECT_EQ(b.consumer_group, "CGV_order");
      EXPECT_EQ(Text(b.Encode()), f.body_text);
      ++unlocks;
    }
  }
  EXPECT_EQ(requests, 7);
  EXPECT_EQ(responses, 7);
  EXPECT_EQ(unlocks, 3);

  // lockAll: five queues, the response in the broker's order.
  const auto all =
      MustDecode<LockBatchRequestBody>(FindFrame(frames, "LOCK_BATCH_MQ", false, 6).body_text);
  ASSERT_EQ(all.mq_set.size(), 5u);
  EXPECT_EQ(all.mq_set[0], (MessageQueue{"%RETRY%CGV_order", "jbroker-a", 0}));
  EXPECT_EQ(all.mq_set[4], (MessageQueue{"JV_order", "jbroker-a", 1}));
  const auto locked =
      MustDecode<LockBatchResponseBody>(FindFrame(frames, "LOCK_BATCH_MQ", true, 6).body_text);
  ASSERT_EQ(locked.lock_ok_mq_set.size(), 5u);
  EXPECT_EQ(locked.lock_ok_mq_set[0], (MessageQueue{"JV_order", "jbroker-a", 0}));
}

TEST(LockBatchBodiesTest, MalformedQueues) {
  EXPECT_EQ(ErrorOf<LockBatchRequestBody>(R"({"mqSet":[{"queueId":"1"}]})"),
            "LockBatchRequestBody: mqSet[0].queueId is not an int");
  EXPECT_EQ(ErrorOf<UnlockBatchRequestBody>(R"({"mqSet":[{"topic":"t"},"q"]})"),
            "UnlockBatchRequestBody: mqSet[1] is not an object");
  EXPECT_EQ(ErrorOf<LockBatchResponseBody>(R"({"lockOKMQSet":[{"brokerName":false}]})"),
            "LockBatchResponseBody: lockOKMQSet[0].brokerName is not a string");
  EXPECT_EQ(ErrorOf<LockBatchResponseBody>("{"),
            "LockBatchResponseBody: not valid JSON at byte 1: Missing a name for object member.");
  EXPECT_TRUE(MustDecode<LockBatchResponseBody>("{}").lock_ok_mq_set.empty());
  EXPECT_EQ(Text(LockBatchResponseBody{}.Encode()), R"({"lockOKMQSet":[]})");
}

TEST(ConsumerListBodyTest, EncodeDecodeAndErrors) {
  ConsumerListBody b;
  b.consumer_id_list = {"127.0.0.1@a", "10.0.0.2@b\"q"};
  EXPECT_EQ(Text(b.Encode()), R"({"consumerIdList":["127.0.0.1@a","10.0.0.2@b\"q"]})");
  EXPECT_EQ(MustDecode<ConsumerListBody>(Text(b.Encode())), b);
  EXPECT_EQ(Text(ConsumerListBody{}.Encode()), R"({"consumerIdList":[]})");
  EXPECT_EQ(ErrorOf<ConsumerListBody>(R"({"consumerIdList":["a",1]})"),
            "ConsumerListBody: consumerIdList[1] is not a string");
  EXPECT_EQ(ErrorOf<ConsumerListBody>(R"({"consumerIdList":"a"})"),
            "ConsumerListBody: consumerIdList is not an array");
}

}  // namespace
}  // namespace rocketstore::protocol
