// The typed headers (protocol/headers/) against real frames: requests the RocketMQ 4.9.8
// Java client (tests/protocol/vectors/java-4.9.8/) and ali-ons 3.12.0 sent decode to the
// captured values and re-encode to the same fields; our response headers carry exactly
// the fields and values of the Java broker's / name server's responses.
#include <gtest/gtest.h>

#include "header_test_util.h"
#include "java_vectors.h"
#include "protocol/frame_codec.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/namesrv_headers.h"
#include "protocol/headers/query_headers.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"

namespace rocketstore::protocol {
namespace {

using testing::FindFrame;
using testing::LoadFrames;
using testing::MustDecode;

auto EncodeV1 = [](const SendMessageRequestHeader& h, RemotingCommand& c) { h.EncodeTo(c, false); };
auto EncodeV2 = [](const SendMessageRequestHeader& h, RemotingCommand& c) { h.EncodeTo(c, true); };

// Frames whose response or request encoding we compare field by field.
template <typename H>
void ExpectEncodesLike(const H& ours, const RemotingCommand& java) {
  RemotingCommand cmd = MakeResponse(java, 0);
  ours.EncodeTo(cmd);
  EXPECT_EQ(cmd.FieldCount(), java.FieldCount());
  for (const auto& [name, value] : java.ext_fields) {
    EXPECT_EQ(cmd.FindField(name), value) << "field " << name;
  }
}

TEST(HeadersJavaVectorsTest, SendMessageV2RequestAndResponse) {
  const auto frames = LoadFrames("java-4.9.8/send-back.json");
  const RemotingCommand& req = FindFrame(frames, "SEND_MESSAGE_V2", false).command;
  ASSERT_EQ(req.code, ToInt(RequestCode::kSendMessageV2));
  const auto h = MustDecode<SendMessageRequestHeader>(req);
  EXPECT_EQ(h.producer_group, "PGV_sendback");
  EXPECT_EQ(h.topic, "JV_sendback");
  EXPECT_EQ(h.default_topic, "TBW102");
  EXPECT_EQ(h.default_topic_queue_nums, 4);
  EXPECT_EQ(h.queue_id, 3);
  EXPECT_EQ(h.sys_flag, 0);
  EXPECT_EQ(h.born_timestamp, 1796158334786);
  EXPECT_EQ(h.flag, 0);
  ASSERT_TRUE(h.properties.has_value());
  EXPECT_EQ(h.properties->substr(0, 9), "KEYS\x01k0\x02U");
  EXPECT_EQ(h.reconsume_times, 0);
  EXPECT_FALSE(h.unit_mode);
  EXPECT_FALSE(h.max_reconsume_times.has_value());
  EXPECT_FALSE(h.batch);
  EXPECT_EQ(h.broker_name, "jbroker-a");
  testing::ExpectSameFields(h, req, EncodeV2);
  testing::ExpectRoundTrip(h, req.code, EncodeV2);
  // The broker decodes the Java client's bytes with the fields by position (SendV2Fields):
  // the frame takes that path, and the header reads the same.
  Limits by_position;
  by_position.send_fields_by_position = true;
  auto again = DecodeFrame(FindFrame(frames, "SEND_MESSAGE_V2", false).bytes, by_position);
  ASSERT_TRUE(again.ok() && again->complete);
  EXPECT_TRUE(again->command.send_v2.used());
  EXPECT_TRUE(again->command.ext_fields.empty());
  testing::ExpectSameFields(MustDecode<SendMessageRequestHeader>(again->command), req, EncodeV2);

  const RemotingCommand& resp = FindFrame(frames, "SEND_MESSAGE_V2", true).command;
  const auto r = MustDecode<SendMessageResponseHeader>(resp);
  EXPECT_EQ(r.msg_id, "7F000001000051AF0000000000000000");
  EXPECT_EQ(r.queue_id, 3);
  EXPECT_EQ(r.queue_offset, 0);
  EXPECT_FALSE(r.transaction_id.has_value());
  SendMessageResponseHeader ours;
  ours.msg_id = "7F000001000051AF0000000000000000";
  ours.queue_id = 3;
  ours.queue_offset = 0;
  ours.msg_region = "DefaultRegion";
  ours.trace_on = true;
  EXPECT_TRUE(ours == r);
  ExpectEncodesLike(ours, resp);
  testing::ExpectRoundTrip(ours);
}

TEST(HeadersJavaVectorsTest, TransactionalHalfSendHasTheSysFlag) {
  const auto frames = LoadFrames("java-4.9.8/transaction.json");
  const auto h =
      MustDecode<SendMessageRequestHeader>(FindFrame(frames, "SEND_MESSAGE_V2", false).command);
  EXPECT_EQ(h.producer_group, "TPGV_tx");
  EXPECT_EQ(h.sys_flag, 4);  // TRANSACTION_PREPARED_TYPE
  EXPECT_NE(h.properties->find("TRAN_MSG\x01true"), std::string::npos);
}

TEST(HeadersJavaVectorsTest, SendMessageV1AndReplyCodesUseTheirNames) {
  const auto frames = LoadFrames("java-4.9.8/request-reply.json");
  const RemotingCommand& v1 = FindFrame(frames, "SEND_MESSAGE", false).command;
  ASSERT_EQ(v1.code, ToInt(RequestCode::kSendMessage));
  const auto h = MustDecode<SendMessageRequestHeader>(v1);
  EXPECT_EQ(h.producer_group, "PGV_rr");
  EXPECT_EQ(h.topic, "JV_rr");
  EXPECT_EQ(h.queue_id, 1);
  EXPECT_EQ(h.born_timestamp, 1796159142352);
  EXPECT_EQ(h.reconsume_times, 0);
  EXPECT_EQ(h.broker_name, "jbroker-a");
  EXPECT_NE(h.properties->find("CORRELATION_ID\x01"), std::string::npos);
  testing::ExpectSameFields(h, v1, EncodeV1);
  testing::ExpectRoundTrip(h, v1.code, EncodeV1);

  const RemotingCommand& reply_v1 = FindFrame(frames, "SEND_REPLY_MESSAGE", false).command;
  EXPECT_EQ(reply_v1.code, ToInt(RequestCode::kSendReplyMessage));
  EXPECT_EQ(RequestCodeName(reply_v1.code), "SEND_REPLY_MESSAGE");
  EXPECT_FALSE(SendMessageRequestHeader::UsesShortNames(reply_v1.code));
  EXPECT_EQ(MustDecode<SendMessageRequestHeader>(reply_v1).topic, "JavaCluster_REPLY_TOPIC");

  const RemotingCommand& reply_v2 = FindFrame(frames, "SEND_REPLY_MESSAGE_V2", false).command;
  EXPECT_EQ(reply_v2.code, ToInt(RequestCode::kSendReplyMessageV2));
  EXPECT_EQ(RequestCodeName(reply_v2.code), "SEND_REPLY_MESSAGE_V2");
  EXPECT_TRUE(SendMessageRequestHeader::UsesShortNames(reply_v2.code));
  const auto r2 = MustDecode<SendMessageRequestHeader>(reply_v2);
  EXPECT_EQ(r2.producer_group, "PGV_rr_replier");
  EXPECT_EQ(r2.topic, "JavaCluster_REPLY_TOPIC");
  testing::ExpectSameFields(r2, reply_v2, EncodeV2);

  // The same header read with the other naming is missing its first field.
  RemotingCommand wrong = v1;
  wrong.code = ToInt(RequestCode::kSendBatchMessage);
  EXPECT_EQ(SendMessageRequestHeader::Decode(wrong).status().message(),
            "the custom field <a> is null");
}

TEST(HeadersJavaVectorsTest, PullRequestAndResponse) {
  const auto frames = LoadFrames("java-4.9.8/send-back.json");
  const RemotingCommand& req = FindFrame(frames, "PULL_MESSAGE", false).command;
  const auto h = MustDecode<PullMessageRequestHeader>(req);
  EXPECT_EQ(h.consumer_group, "CGV_sendback");
  EXPECT_EQ(h.topic, "JV_sendback");
  EXPECT_EQ(h.queue_id, 0);
  EXPECT_EQ(h.queue_offset, 0);
  EXPECT_EQ(h.max_msg_nums, 8);
  EXPECT_EQ(h.sys_flag, 2);
  EXPECT_EQ(h.commit_offset, 0);
  EXPECT_EQ(h.suspend_timeout_millis, 15000);
  EXPECT_FALSE(h.subscription.has_value());
  EXPECT_EQ(h.sub_version, 1796158335051);
  EXPECT_EQ(h.expression_type, "TAG");
  EXPECT_EQ(h.broker_name, "jbroker-a");
  testing::ExpectSameFields(h, req);
  testing::ExpectRoundTrip(h);

  const RemotingCommand& resp = FindFrame(frames, "PULL_MESSAGE", true).command;
  EXPECT_EQ(resp.remark, "FOUND");
  const auto r = MustDecode<PullMessageResponseHeader>(resp);
  PullMessageResponseHeader ours;
  ours.suggest_which_broker_id = 0;
  ours.next_begin_offset = 1;
  ours.min_offset = 0;
  ours.max_offset = 1;
  EXPECT_TRUE(r == ours);
  ExpectEncodesLike(ours, resp);
  ours.topic_sys_flag = 0;
  ours.group_sys_flag = 0;
  testing::ExpectRoundTrip(ours);

  // A lite-pull consumer's pull of the DLQ: subscription present, ReqT ignored.
  const auto dlq = LoadFrames("java-4.9.8/dlq.json");
  const RemotingCommand& lite = FindFrame(dlq, "PULL_MESSAGE", false, 2).command;
  const auto l = MustDecode<PullMessageRequestHeader>(lite);
  EXPECT_EQ(l.topic, "%DLQ%CGV_dlq");
  EXPECT_EQ(l.subscription, "*");
  EXPECT_EQ(l.sys_flag, 4);
  EXPECT_EQ(l.suspend_timeout_millis, 20000);
  EXPECT_EQ(l.sub_version, 0);
  testing::ExpectSameFields(l, lite);
}

TEST(HeadersJavaVectorsTest, SendBackAndUpdateOffset) {
  const auto frames = LoadFrames("java-4.9.8/send-back.json");
  const RemotingCommand& back = FindFrame(frames, "CONSUMER_SEND_MSG_BACK", false).command;
  const auto b = MustDecode<ConsumerSendMsgBackRequestHeader>(back);
  EXPECT_EQ(b.offset, 220);
  EXPECT_EQ(b.group, "CGV_sendback");
  EXPECT_EQ(b.delay_level, 1);
  EXPECT_EQ(b.origin_msg_id, "FD000000000000000000000000000002116730946E09047A77FE0001");
  EXPECT_EQ(b.origin_topic, "JV_sendback");
  EXPECT_FALSE(b.unit_mode);
  EXPECT_EQ(b.max_reconsume_times, 16);
  EXPECT_EQ(b.broker_name, "jbroker-a");
  testing::ExpectSameFields(b, back);
  testing::ExpectRoundTrip(b);

  const RemotingCommand& upd = FindFrame(frames, "UPDATE_CONSUMER_OFFSET", false).command;
  EXPECT_TRUE(upd.IsOneway());
  const auto u = MustDecode<UpdateConsumerOffsetRequestHeader>(upd);
  EXPECT_EQ(u.consumer_group, "CGV_sendback");
  EXPECT_EQ(u.topic, "JV_sendback");
  EXPECT_EQ(u.queue_id, 0);
  EXPECT_EQ(u.commit_offset, 1);
  EXPECT_EQ(u.broker_name, "jbroker-a");
  testing::ExpectSameFields(u, upd);
  testing::ExpectRoundTrip(u);
}

TEST(HeadersJavaVectorsTest, EndTransactionAndCheckTransactionState) {
  const auto frames = LoadFrames("java-4.9.8/transaction.json");
  const int32_t expected_types[] = {kTransactionCommitType,   kTransactionRollbackType,
                                    kTransactionNotType,      kTransactionNotType,
                                    kTransactionRollbackType, kTransactionCommitType};
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const RemotingCommand& end = FindFrame(frames, "END_TRANSACTION", false, i).command;
    const auto e = MustDecode<EndTransactionRequestHeader>(end);
    EXPECT_EQ(e.producer_group, "TPGV_tx");
    EXPECT_EQ(e.commit_or_rollback, expected_types[i]);
    EXPECT_EQ(e.from_transaction_check, i >= 4);
    EXPECT_EQ(e.transaction_id.has_value(), i >= 4);
    testing::ExpectSameFields(e, end);
    testing::ExpectRoundTrip(e);
  }
  const auto first = MustDecode<EndTransactionRequestHeader>(
      FindFrame(frames, "END_TRANSACTION", false, 0).command);
  EXPECT_EQ(first.commit_log_offset, 7428);
  EXPECT_EQ(first.tran_state_table_offset, 0);
  EXPECT_EQ(first.msg_id, "FD000000000000000000000000000002166230946E09047C14260001");
  EXPECT_EQ(first.broker_name, "jbroker-a");

  const RemotingCommand& check = FindFrame(frames, "CHECK_TRANSACTION_STATE", false).command;
  EXPECT_TRUE(check.IsOneway());
  const auto c = MustDecode<CheckTransactionStateRequestHeader>(check);
  EXPECT_EQ(c.commit_log_offset, 9229);
  EXPECT_EQ(c.tran_state_table_offset, 4);
  EXPECT_EQ(c.msg_id, "FD000000000000000000000000000002166230946E09047C144E0003");
  EXPECT_EQ(c.transaction_id, c.msg_id);
  EXPECT_EQ(c.offset_msg_id, "7F000001000051AF000000000000240D");
  EXPECT_FALSE(c.broker_name.has_value());
  testing::ExpectSameFields(c, check);
  testing::ExpectRoundTrip(c);
}

TEST(HeadersJavaVectorsTest, UnregisterClientAndViewMessage) {
  const auto frames = LoadFrames("java-4.9.8/heartbeat.json");
  const RemotingCommand& consumer = FindFrame(frames, "UNREGISTER_CLIENT", false, 0).command;
  const auto c = MustDecode<UnregisterClientRequestHeader>(consumer);
  EXPECT_EQ(c.client_id, "127.0.0.1@hb-litepull@STREAM");
  EXPECT_EQ(c.consumer_group, "CGV_hb_lite");
  EXPECT_FALSE(c.producer_group.has_value());
  testing::ExpectSameFields(c, consumer);
  const RemotingCommand& producer = FindFrame(frames, "UNREGISTER_CLIENT", false, 4).command;
  const auto p = MustDecode<UnregisterClientRequestHeader>(producer);
  EXPECT_EQ(p.client_id, "127.0.0.1@hb-producer");
  EXPECT_EQ(p.producer_group, "PGV_hb");
  EXPECT_FALSE(p.consumer_group.has_value());
  testing::ExpectRoundTrip(p);

  const auto delay = LoadFrames("java-4.9.8/delay.json");
  const RemotingCommand& view = FindFrame(delay, "VIEW_MESSAGE_BY_ID", false).command;
  EXPECT_EQ(MustDecode<ViewMessageRequestHeader>(view).offset, 2108);
  testing::ExpectSameFields(MustDecode<ViewMessageRequestHeader>(view), view);
}

TEST(HeadersJavaVectorsTest, NameServerRequests) {
  const auto frames = LoadFrames("java-4.9.8/register-broker.json");
  const RemotingCommand& reg = FindFrame(frames, "REGISTER_BROKER", false).command;
  const auto h = MustDecode<RegisterBrokerRequestHeader>(reg);
  EXPECT_EQ(h.broker_name, "jbroker-a");
  EXPECT_EQ(h.broker_addr, "127.0.0.1:20911");
  EXPECT_EQ(h.cluster_name, "JavaCluster");
  EXPECT_EQ(h.ha_server_addr, "127.0.0.1:20912");
  EXPECT_EQ(h.broker_id, 0);
  EXPECT_FALSE(h.compressed);
  EXPECT_EQ(h.body_crc32, 1617412814);
  EXPECT_FALSE(h.heartbeat_timeout_millis.has_value());
  testing::ExpectSameFields(h, reg);
  testing::ExpectRoundTrip(h);

  const RemotingCommand& resp = FindFrame(frames, "REGISTER_BROKER", true).command;
  const auto r = MustDecode<RegisterBrokerResponseHeader>(resp);
  EXPECT_TRUE(r == RegisterBrokerResponseHeader{});
  ExpectEncodesLike(RegisterBrokerResponseHeader{}, resp);
  testing::ExpectRoundTrip(RegisterBrokerResponseHeader{"127.0.0.1:20912", "127.0.0.1:20911"});

  const auto admin = LoadFrames("java-4.9.8/admin-namesrv.json");
  const RemotingCommand& route = FindFrame(admin, "GET_ROUTEINFO_BY_TOPIC", false).command;
  const auto g = MustDecode<GetRouteInfoRequestHeader>(route);
  EXPECT_EQ(g.topic, "TBW102");
  EXPECT_FALSE(g.accept_standard_json_only.has_value());
  testing::ExpectSameFields(g, route);
}

// ---- ali-ons 3.12.0: numbers and booleans arrive as JSON literals, not strings.

TEST(HeadersAliOnsVectorsTest, EveryHeaderTheClientSends) {
  const auto frames = LoadFrames("ali-ons-request-frames.json");
  const auto send =
      MustDecode<SendMessageRequestHeader>(FindFrame(frames, "SEND_MESSAGE_V2", false).command);
  EXPECT_EQ(send.producer_group, "InteropProducer_rmx2nq32vec58");
  EXPECT_EQ(send.topic, "InteropTopic");
  EXPECT_EQ(send.default_topic_queue_nums, 4);
  EXPECT_EQ(send.born_timestamp, 1796006207901);
  EXPECT_EQ(send.reconsume_times, 0);
  EXPECT_FALSE(send.batch);  // "m" absent: the default
  EXPECT_FALSE(send.broker_name.has_value());
  testing::ExpectRoundTrip(send, ToInt(RequestCode::kSendMessageV2), EncodeV2);

  const RemotingCommand& pull_cmd = FindFrame(frames, "PULL_MESSAGE", false).command;
  const auto pull = MustDecode<PullMessageRequestHeader>(pull_cmd);
  EXPECT_EQ(pull.consumer_group, "InteropConsumer_rmx2nq32vec58");
  EXPECT_EQ(pull.max_msg_nums, 32);
  EXPECT_EQ(pull.sys_flag, 6);
  EXPECT_EQ(pull.subscription, "TagA || TagB");
  EXPECT_EQ(pull.sub_version, 1796006207968);
  EXPECT_FALSE(pull.expression_type.has_value());
  testing::ExpectSameFields(pull, pull_cmd);

  const RemotingCommand& query_cmd = FindFrame(frames, "QUERY_CONSUMER_OFFSET", false).command;
  const auto query = MustDecode<QueryConsumerOffsetRequestHeader>(query_cmd);
  EXPECT_EQ(query.topic, "InteropTopic");
  EXPECT_EQ(query.queue_id, 0);
  EXPECT_FALSE(query.set_zero_if_not_found.has_value());
  testing::ExpectSameFields(query, query_cmd);

  const auto update = MustDecode<UpdateConsumerOffsetRequestHeader>(
      FindFrame(frames, "UPDATE_CONSUMER_OFFSET", false).command);
  EXPECT_EQ(update.commit_offset, 25);

  const auto unregister = MustDecode<UnregisterClientRequestHeader>(
      FindFrame(frames, "UNREGISTER_CLIENT", false).command);
  EXPECT_EQ(unregister.client_id, "192.0.2.2@interop-consumer-14912");
  EXPECT_EQ(unregister.consumer_group, "InteropConsumer_rmx2nq32vec58");

  const auto list = MustDecode<GetConsumerListByGroupRequestHeader>(
      FindFrame(frames, "GET_CONSUMER_LIST_BY_GROUP", false).command);
  EXPECT_EQ(list.consumer_group, "InteropConsumer_rmx2nq32vec58");

  const auto route = MustDecode<GetRouteInfoRequestHeader>(
      FindFrame(frames, "GET_ROUTEINFO_BY_TOPIC", false).command);
  EXPECT_EQ(route.topic, "InteropTopic");

  const RemotingCommand& create_cmd = FindFrame(frames, "UPDATE_AND_CREATE_TOPIC", false).command;
  const auto create = MustDecode<CreateTopicRequestHeader>(create_cmd);
  EXPECT_EQ(create.topic, "InteropTopic");
  EXPECT_EQ(create.default_topic, "TBW102");
  EXPECT_EQ(create.read_queue_nums, 4);
  EXPECT_EQ(create.write_queue_nums, 4);
  EXPECT_EQ(create.perm, 6);
  EXPECT_EQ(create.topic_filter_type, "SINGLE_TAG");
  EXPECT_EQ(create.topic_sys_flag, 0);
  EXPECT_FALSE(create.order);
  testing::ExpectSameFields(create, create_cmd);
  testing::ExpectRoundTrip(create);
}

}  // namespace
}  // namespace rocketstore::protocol
