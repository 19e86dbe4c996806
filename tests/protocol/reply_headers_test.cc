// PUSH_REPLY_MESSAGE_TO_CLIENT (326) against the Java 4.9.8 broker's frames of
// tests/protocol/vectors/java-4.9.8/request-reply.json: the header decodes to the captured
// values, re-encodes to exactly the captured fields, and a malformed one fails naming the
// field; the client's answer is a bare SUCCESS.
#include "protocol/headers/reply_headers.h"

#include <gtest/gtest.h>

#include "header_test_util.h"
#include "java_vectors.h"
#include "protocol/request_code.h"

namespace rocketstore::protocol {
namespace {

using testing::FindFrame;
using testing::LoadFrames;
using testing::MustDecode;

TEST(ReplyHeadersTest, MissingOrMalformedFieldsFailNamingTheField) {
  const auto frames = LoadFrames("java-4.9.8/request-reply.json");
  const RemotingCommand& push = FindFrame(frames, "PUSH_REPLY_MESSAGE_TO_CLIENT", false).command;
  testing::ExpectFieldErrors<ReplyMessageRequestHeader>(
      push,
      {"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag",
       "bornTimestamp", "flag", "bornHost", "storeHost", "storeTimestamp"},
      {"defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp", "flag", "reconsumeTimes",
       "storeTimestamp"});
  RemotingCommand no_optional = push;
  ASSERT_TRUE(no_optional.ext_fields.Erase("properties"));
  ASSERT_TRUE(no_optional.ext_fields.Erase("reconsumeTimes"));
  ASSERT_TRUE(no_optional.ext_fields.Erase("unitMode"));
  const auto h = MustDecode<ReplyMessageRequestHeader>(no_optional);
  EXPECT_FALSE(h.properties.has_value());
  EXPECT_FALSE(h.reconsume_times.has_value());
  EXPECT_FALSE(h.unit_mode);
}

TEST(ReplyHeadersTest, PushReplyMessageToClientAsTheJavaBrokerSentIt) {
  const auto frames = LoadFrames("java-4.9.8/request-reply.json");
  for (size_t i = 0; i < 2; ++i) {  // after SEND_REPLY_MESSAGE_V2, then SEND_REPLY_MESSAGE
    SCOPED_TRACE(i);
    const RemotingCommand& push =
        FindFrame(frames, "PUSH_REPLY_MESSAGE_TO_CLIENT", false, i).command;
    ASSERT_EQ(push.code, ToInt(RequestCode::kPushReplyMessageToClient));
    EXPECT_EQ(RequestCodeName(push.code), "PUSH_REPLY_MESSAGE_TO_CLIENT");
    EXPECT_FALSE(push.IsOneway());  // the broker waits for the requester's answer
    const auto h = MustDecode<ReplyMessageRequestHeader>(push);
    EXPECT_EQ(h.producer_group, "PGV_rr_replier");
    EXPECT_EQ(h.topic, "JavaCluster_REPLY_TOPIC");
    EXPECT_EQ(h.default_topic, "TBW102");
    EXPECT_EQ(h.default_topic_queue_nums, 4);
    EXPECT_EQ(h.queue_id, 0);
    EXPECT_EQ(h.sys_flag, 0);
    EXPECT_EQ(h.flag, 0);
    EXPECT_EQ(h.reconsume_times, 0);
    EXPECT_FALSE(h.unit_mode);
    EXPECT_EQ(h.store_host, "127.0.0.1:20911");
    EXPECT_EQ(h.born_host, i == 0 ? "127.0.0.1:45914" : "127.0.0.1:58540");
    EXPECT_EQ(h.born_timestamp, i == 0 ? 1796158456503 : 1796159142385);
    EXPECT_EQ(h.store_timestamp, i == 0 ? 1796158456510 : 1796159142388);
    ASSERT_TRUE(h.properties.has_value());
    // The broker puts PUSH_REPLY_TIME in front of the replier's properties.
    EXPECT_TRUE(h.properties->starts_with("PUSH_REPLY_TIME\x01"));
    EXPECT_NE(h.properties->find("\x02MSG_TYPE\x01reply\x02REPLY_TO_CLIENT\x01"
                                 "127.0.0.1@rr-requester\x02"),
              std::string::npos);
    EXPECT_EQ(push.body.owned_text(), "pong:ping");
    testing::ExpectSameFields(h, push);
    testing::ExpectRoundTrip(h, push.code);

    const RemotingCommand& answer =
        FindFrame(frames, "PUSH_REPLY_MESSAGE_TO_CLIENT", true, i).command;
    EXPECT_EQ(answer.code, 0);
    EXPECT_EQ(answer.opaque, push.opaque);  // the broker's own opaque counter
    EXPECT_EQ(answer.ext_fields.size(), 0u);
  }
}

}  // namespace
}  // namespace rocketstore::protocol
