// The typed headers (protocol/headers/) on hand-built commands: for every header, each
// required field missing and each number malformed is an error naming the field (Java's
// texts); Java's value checks; optional fields and defaults; encode → decode round trips
// for the headers no capture holds.
#include <gtest/gtest.h>

#include "header_test_util.h"
#include "java_vectors.h"
#include "protocol/frame_codec.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/namesrv_headers.h"
#include "protocol/headers/query_headers.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"
#include "testing/xorshift.h"

namespace rocketstore::protocol {
namespace {

using testing::CommandWith;
using testing::ExpectFieldErrors;
using testing::ExpectRoundTrip;
using testing::MustDecode;

RemotingCommand SendV2() {
  return CommandWith(ToInt(RequestCode::kSendMessageV2), {{"a", "pg"},
                                                          {"b", "t"},
                                                          {"c", "TBW102"},
                                                          {"d", "4"},
                                                          {"e", "1"},
                                                          {"f", "0"},
                                                          {"g", "1700000000000"},
                                                          {"h", "0"},
                                                          {"i", "TAGS\x01x"},
                                                          {"j", "2"},
                                                          {"k", "true"},
                                                          {"l", "3"},
                                                          {"m", "TRUE"},
                                                          {"n", "b"}});
}

TEST(HeaderFieldsTest, SendRequestErrorsNameTheWireField) {
  ExpectFieldErrors<SendMessageRequestHeader>(SendV2(), {"a", "b", "c", "d", "e", "f", "g", "h"},
                                              {"d", "e", "f", "g", "h", "j", "l"});
  RemotingCommand v1 =
      CommandWith(ToInt(RequestCode::kSendMessage), {{"producerGroup", "pg"},
                                                     {"topic", "t"},
                                                     {"defaultTopic", "TBW102"},
                                                     {"defaultTopicQueueNums", "4"},
                                                     {"queueId", "1"},
                                                     {"sysFlag", "0"},
                                                     {"bornTimestamp", "1"},
                                                     {"flag", "0"},
                                                     {"reconsumeTimes", "0"},
                                                     {"maxReconsumeTimes", "16"}});
  ExpectFieldErrors<SendMessageRequestHeader>(
      v1,
      {"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag",
       "bornTimestamp", "flag"},
      {"defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp", "flag", "reconsumeTimes",
       "maxReconsumeTimes"});
}

// The broker's send path decodes SendV2's fields held by position (send_v2, as the frame
// decoder leaves them): the same values, and the same errors, as from the map.
RemotingCommand SendV2ByPosition(std::string_view without = "") {
  RemotingCommand by_position;
  by_position.code = SendV2().code;
  by_position.send_v2.Reserve(64);
  SendV2().ForEachField([&](std::string_view name, std::string_view value) {
    if (name != without) {
      EXPECT_TRUE(by_position.send_v2.Set(name, value));
    }
    return true;
  });
  return by_position;
}

TEST(HeaderFieldsTest, SendRequestByPositionReadsAndFailsAsTheMap) {
  const RemotingCommand by_position = SendV2ByPosition();
  ASSERT_TRUE(by_position.ext_fields.empty());
  EXPECT_TRUE(MustDecode<SendMessageRequestHeader>(by_position) ==
              MustDecode<SendMessageRequestHeader>(SendV2()));
  auto view = SendMessageRequestView::Decode(by_position);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->topic, "t");
  EXPECT_EQ(view->born_timestamp, 1700000000000);
  EXPECT_EQ(view->properties, "TAGS\x01x");
  EXPECT_EQ(view->broker_name, "b");
  for (std::string_view name : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    const auto h = SendMessageRequestHeader::Decode(SendV2ByPosition(name));
    ASSERT_FALSE(h.ok()) << name;
    EXPECT_EQ(h.status().message(), "the custom field <" + std::string(name) + "> is null");
  }
  for (std::string_view name : {"d", "e", "f", "g", "h", "j", "l"}) {
    for (std::string_view bad : {"", "1x", "+", " 1", "99999999999999999999"}) {
      RemotingCommand cmd = SendV2ByPosition();
      cmd.SetField(name, bad);
      ASSERT_TRUE(cmd.ext_fields.empty());
      RemotingCommand map = SendV2();
      map.SetField(name, bad);
      const auto h = SendMessageRequestView::Decode(cmd);
      ASSERT_FALSE(h.ok()) << name << "=" << bad;
      EXPECT_EQ(h.status().message(), SendMessageRequestHeader::Decode(map).status().message());
    }
  }
  // An int field past int32 is an error; a long one takes it.
  RemotingCommand wide = SendV2ByPosition();
  wide.SetField("e", "2147483648");
  EXPECT_EQ(SendMessageRequestView::Decode(wide).status().message(),
            "the custom field <e> is not a valid int: \"2147483648\"");
  wide = SendV2ByPosition();
  wide.SetField("g", "-9223372036854775808");
  EXPECT_EQ(SendMessageRequestView::Decode(wide)->born_timestamp, INT64_MIN);
}

TEST(HeaderFieldsTest, SendRequestFirstErrorInDeclarationOrder) {
  RemotingCommand cmd = SendV2();
  cmd.SetField("d", "x");                  // malformed
  ASSERT_TRUE(cmd.ext_fields.Erase("g"));  // missing, but declared later
  EXPECT_EQ(SendMessageRequestHeader::Decode(cmd).status().message(),
            "the custom field <d> is not a valid int: \"x\"");
}

TEST(HeaderFieldsTest, SendRequestOptionalsDefaultsAndRanges) {
  const auto all = MustDecode<SendMessageRequestHeader>(SendV2());
  EXPECT_EQ(all.reconsume_times, 2);
  EXPECT_TRUE(all.unit_mode);
  EXPECT_EQ(all.max_reconsume_times, 3);
  EXPECT_TRUE(all.batch);  // "TRUE": Boolean.parseBoolean ignores case
  EXPECT_EQ(all.broker_name, "b");
  ExpectRoundTrip(
      all, ToInt(RequestCode::kSendBatchMessage),
      [](const SendMessageRequestHeader& h, RemotingCommand& c) { h.EncodeTo(c, true); });

  RemotingCommand bare = SendV2();
  for (const char* n : {"i", "j", "k", "l", "m", "n"}) ASSERT_TRUE(bare.ext_fields.Erase(n));
  const auto min = MustDecode<SendMessageRequestHeader>(bare);
  EXPECT_FALSE(min.properties.has_value());
  EXPECT_FALSE(min.reconsume_times.has_value());
  EXPECT_FALSE(min.unit_mode);
  EXPECT_FALSE(min.max_reconsume_times.has_value());
  EXPECT_FALSE(min.batch);
  EXPECT_FALSE(min.broker_name.has_value());

  RemotingCommand odd = SendV2();
  odd.SetField("k", "yes");  // anything but "true" is false; never an error
  odd.SetField("e", "-1");   // negative queue id: the broker picks one
  odd.SetField("g", "+9223372036854775807");
  const auto o = MustDecode<SendMessageRequestHeader>(odd);
  EXPECT_FALSE(o.unit_mode);
  EXPECT_EQ(o.queue_id, -1);
  EXPECT_EQ(o.born_timestamp, INT64_MAX);
  odd.SetField("e", "2147483648");  // Integer.parseInt range
  EXPECT_EQ(SendMessageRequestHeader::Decode(odd).status().message(),
            "the custom field <e> is not a valid int: \"2147483648\"");
}

TEST(HeaderFieldsTest, SendResponse) {
  RemotingCommand cmd = CommandWith(0, {{"msgId", "AB"},
                                        {"queueId", "2"},
                                        {"queueOffset", "9"},
                                        {"transactionId", "T"},
                                        {"MSG_REGION", "R"},
                                        {"TRACE_ON", "false"}});
  ExpectFieldErrors<SendMessageResponseHeader>(cmd, {"msgId", "queueId", "queueOffset"},
                                               {"queueId", "queueOffset"});
  const auto h = MustDecode<SendMessageResponseHeader>(cmd);
  EXPECT_EQ(h.transaction_id, "T");
  EXPECT_EQ(h.trace_on, false);
  ExpectRoundTrip(h);
}

// EncodeSendAnswerFrame writes the bytes of the answer the generic path builds and
// encodes (MakeResponse, SendMessageResponseHeader::EncodeTo, EncodeFrame): random
// values, every optional field present or not, texts that need escapes (control bytes,
// quotes, backslashes, UTF-8 and invalid bytes), codes and numbers of every sign.
TEST(HeaderFieldsTest, SendAnswerFrameIsTheEncodedAnswersBytes) {
  rocketstore::testing::XorShift64 rng(31);
  const std::string alphabet =
      std::string("AZaz09-_\"\\/\x01\x02\x1F\x7F", 16) + "\xC3\xA9" + "\xFF" + "\xE2\x82\xAC";
  auto text = [&](size_t max) {
    std::string t;
    const size_t n = rng() % (max + 1);
    for (size_t i = 0; i < n; ++i) t.push_back(alphabet[rng() % alphabet.size()]);
    return t;
  };
  auto hex = [&] {
    std::string t;
    for (int i = 0; i < 32; ++i) t.push_back("0123456789ABCDEF"[rng() % 16]);
    return t;
  };
  RemotingCommand request = MakeRequest(RequestCode::kSendMessageV2);
  std::vector<uint8_t> head;
  int plain_written = 0;
  for (int i = 0; i < 3000; ++i) {
    const bool plain = i % 2 == 0;  // the usual case: hex ids, nothing to escape
    const std::string msg_id = plain ? hex() : text(40);
    const std::string transaction_id = plain ? hex() : text(40);
    const std::string recall = plain ? hex() + "_" + hex() : text(60);
    const std::string region = plain ? "DefaultRegion" : text(20);
    SendAnswerFrame a;
    a.code = static_cast<int32_t>(rng() % 4 == 0 ? static_cast<int32_t>(rng()) : rng() % 13);
    a.opaque = static_cast<int32_t>(rng());
    a.msg_id = msg_id;
    a.queue_id = static_cast<int32_t>(rng() % 3 == 0 ? rng() : rng() % 16);
    a.queue_offset = static_cast<int64_t>(rng() % 3 == 0 ? rng() : rng() % 100000);
    if (rng() % 4 != 0) a.transaction_id = transaction_id;
    if (rng() % 4 == 0) a.recall_handle = recall;
    if (rng() % 5 != 0) a.msg_region = region;
    if (rng() % 5 != 0) a.trace_on = rng() % 2 == 0;
    request.opaque = a.opaque;

    RemotingCommand answer = MakeResponse(request, a.code);
    answer.opaque = request.opaque;
    answer.MarkResponse();
    // Built field by field here, not through ResponseHeaderOf: the expected bytes owe
    // nothing to the code under test.
    SendMessageResponseHeader h;
    h.msg_id = msg_id;
    h.queue_id = a.queue_id;
    h.queue_offset = a.queue_offset;
    if (a.transaction_id) h.transaction_id = transaction_id;
    if (a.recall_handle) h.recall_handle = recall;
    if (a.msg_region) h.msg_region = region;
    h.trace_on = a.trace_on;
    EXPECT_EQ(ResponseHeaderOf(a), h);
    h.EncodeTo(answer);
    auto expected = EncodeFrame(answer);
    ASSERT_TRUE(expected.ok());
    head.assign(7, 0xEE);  // whatever was there goes
    ASSERT_TRUE(EncodeSendAnswerFrame(a, &head).ok());
    ASSERT_EQ(head, expected->Flatten()) << i;
    // The one pass itself: it must take every answer with nothing to escape (the broker's
    // own ids), and write the same bytes.
    if (plain) {
      head.assign(3, 0xEE);
      ASSERT_TRUE(internal::WriteSendAnswerFramePlain(a, &head)) << i;
      ASSERT_EQ(head, expected->Flatten()) << i;
      ++plain_written;
    }
  }
  EXPECT_EQ(plain_written, 1500);
  // A header past the frame's 24-bit length (a huge batch's msgId): refused, not written.
  const std::string huge(size_t{1} << 24, 'A');
  SendAnswerFrame big;
  big.msg_id = huge;
  EXPECT_FALSE(internal::WriteSendAnswerFramePlain(big, &head));
  EXPECT_FALSE(EncodeSendAnswerFrame(big, &head).ok());
}

// RocketMQ 5.3: RECALL_MESSAGE's headers and the send response's recallHandle.
TEST(HeaderFieldsTest, RecallMessageAndRecallHandle) {
  RemotingCommand req =
      CommandWith(ToInt(RequestCode::kRecallMessage),
                  {{"producerGroup", "pg"}, {"topic", "T"}, {"recallHandle", "h"}});
  ExpectFieldErrors<RecallMessageRequestHeader>(req, {"topic", "recallHandle"}, {});
  const auto r = MustDecode<RecallMessageRequestHeader>(req);
  EXPECT_EQ(r.producer_group, "pg");
  EXPECT_EQ(r.recall_handle, "h");
  ExpectRoundTrip(r);
  RemotingCommand resp = CommandWith(0, {{"msgId", "M"}});
  EXPECT_EQ(MustDecode<RecallMessageResponseHeader>(resp).msg_id, "M");
  RemotingCommand send = CommandWith(
      0, {{"msgId", "X"}, {"queueId", "0"}, {"queueOffset", "1"}, {"recallHandle", "djE"}});
  EXPECT_EQ(MustDecode<SendMessageResponseHeader>(send).recall_handle, "djE");
  ExpectRoundTrip(MustDecode<SendMessageResponseHeader>(send));
}

TEST(HeaderFieldsTest, SendBackEndTransactionCheckTransaction) {
  RemotingCommand back =
      CommandWith(ToInt(RequestCode::kConsumerSendMsgBack), {{"offset", "5"},
                                                             {"group", "g"},
                                                             {"delayLevel", "-1"},
                                                             {"maxReconsumeTimes", "2"},
                                                             {"unitMode", "true"}});
  ExpectFieldErrors<ConsumerSendMsgBackRequestHeader>(
      back, {"offset", "group", "delayLevel"}, {"offset", "delayLevel", "maxReconsumeTimes"});
  const auto b = MustDecode<ConsumerSendMsgBackRequestHeader>(back);
  EXPECT_EQ(b.delay_level, -1);
  EXPECT_TRUE(b.unit_mode);
  EXPECT_FALSE(b.origin_msg_id.has_value());
  ExpectRoundTrip(b);

  RemotingCommand end =
      CommandWith(ToInt(RequestCode::kEndTransaction), {{"producerGroup", "p"},
                                                        {"tranStateTableOffset", "1"},
                                                        {"commitLogOffset", "2"},
                                                        {"commitOrRollback", "8"},
                                                        {"msgId", "M"}});
  ExpectFieldErrors<EndTransactionRequestHeader>(
      end,
      {"producerGroup", "tranStateTableOffset", "commitLogOffset", "commitOrRollback", "msgId"},
      {"tranStateTableOffset", "commitLogOffset", "commitOrRollback"});
  EXPECT_FALSE(MustDecode<EndTransactionRequestHeader>(end).from_transaction_check);
  for (const char* bad : {"1", "4", "9", "-8"}) {
    end.SetField("commitOrRollback", bad);
    Result<EndTransactionRequestHeader> e = EndTransactionRequestHeader::Decode(end);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(e.status().message(), "commitOrRollback field wrong");
  }

  RemotingCommand check = CommandWith(ToInt(RequestCode::kCheckTransactionState),
                                      {{"tranStateTableOffset", "1"}, {"commitLogOffset", "2"}});
  ExpectFieldErrors<CheckTransactionStateRequestHeader>(
      check, {"tranStateTableOffset", "commitLogOffset"},
      {"tranStateTableOffset", "commitLogOffset"});
  ExpectRoundTrip(MustDecode<CheckTransactionStateRequestHeader>(check));
}

TEST(HeaderFieldsTest, PullAndOffsetHeaders) {
  RemotingCommand pull =
      CommandWith(ToInt(RequestCode::kPullMessage), {{"consumerGroup", "g"},
                                                     {"topic", "t"},
                                                     {"queueId", "0"},
                                                     {"queueOffset", "0"},
                                                     {"maxMsgNums", "32"},
                                                     {"sysFlag", "2"},
                                                     {"commitOffset", "0"},
                                                     {"suspendTimeoutMillis", "15000"},
                                                     {"subVersion", "0"},
                                                     {"expressionType", "SQL92"}});
  ExpectFieldErrors<PullMessageRequestHeader>(
      pull,
      {"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset",
       "suspendTimeoutMillis", "subVersion"},
      {"queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset", "suspendTimeoutMillis",
       "subVersion"});

  RemotingCommand pull_resp = CommandWith(0, {{"suggestWhichBrokerId", "0"},
                                              {"nextBeginOffset", "1"},
                                              {"minOffset", "0"},
                                              {"maxOffset", "1"},
                                              {"topicSysFlag", "0"},
                                              {"groupSysFlag", "0"}});
  ExpectFieldErrors<PullMessageResponseHeader>(
      pull_resp, {"suggestWhichBrokerId", "nextBeginOffset", "minOffset", "maxOffset"},
      {"suggestWhichBrokerId", "nextBeginOffset", "minOffset", "maxOffset", "topicSysFlag",
       "groupSysFlag"});

  RemotingCommand query = CommandWith(
      ToInt(RequestCode::kQueryConsumerOffset),
      {{"consumerGroup", "g"}, {"topic", "t"}, {"queueId", "1"}, {"setZeroIfNotFound", "false"}});
  ExpectFieldErrors<QueryConsumerOffsetRequestHeader>(query, {"consumerGroup", "topic", "queueId"},
                                                      {"queueId"});
  EXPECT_EQ(MustDecode<QueryConsumerOffsetRequestHeader>(query).set_zero_if_not_found, false);
  ExpectRoundTrip(MustDecode<QueryConsumerOffsetRequestHeader>(query));

  RemotingCommand offset = CommandWith(0, {{"offset", "-1"}});
  ExpectFieldErrors<QueryConsumerOffsetResponseHeader>(offset, {"offset"}, {"offset"});
  ExpectRoundTrip(QueryConsumerOffsetResponseHeader{-1});

  RemotingCommand update = CommandWith(
      ToInt(RequestCode::kUpdateConsumerOffset),
      {{"consumerGroup", "g"}, {"topic", "t"}, {"queueId", "1"}, {"commitOffset", "7"}});
  ExpectFieldErrors<UpdateConsumerOffsetRequestHeader>(
      update, {"consumerGroup", "topic", "queueId", "commitOffset"}, {"queueId", "commitOffset"});
}

TEST(HeaderFieldsTest, ClientManagementHeaders) {
  RemotingCommand unregister = CommandWith(ToInt(RequestCode::kUnregisterClient),
                                           {{"clientID", "c"}, {"consumerGroup", "g"}});
  ExpectFieldErrors<UnregisterClientRequestHeader>(unregister, {"clientID"}, {});
  RemotingCommand list =
      CommandWith(ToInt(RequestCode::kGetConsumerListByGroup), {{"consumerGroup", "g"}});
  ExpectFieldErrors<GetConsumerListByGroupRequestHeader>(list, {"consumerGroup"}, {});
  ExpectRoundTrip(MustDecode<GetConsumerListByGroupRequestHeader>(list));
  RemotingCommand notify =
      CommandWith(ToInt(RequestCode::kNotifyConsumerIdsChanged), {{"consumerGroup", "g"}});
  ExpectFieldErrors<NotifyConsumerIdsChangedRequestHeader>(notify, {"consumerGroup"}, {});
  const auto n = MustDecode<NotifyConsumerIdsChangedRequestHeader>(notify);
  EXPECT_EQ(n.consumer_group, "g");
  ExpectRoundTrip(n);
}

TEST(HeaderFieldsTest, QueryAndViewMessage) {
  RemotingCommand query =
      CommandWith(ToInt(RequestCode::kQueryMessage), {{"topic", "t"},
                                                      {"key", "k"},
                                                      {"maxNum", "32"},
                                                      {"beginTimestamp", "0"},
                                                      {"endTimestamp", "9223372036854775807"},
                                                      {"_UNIQUE_KEY_QUERY", "true"}});
  ExpectFieldErrors<QueryMessageRequestHeader>(
      query, {"topic", "key", "maxNum", "beginTimestamp", "endTimestamp"},
      {"maxNum", "beginTimestamp", "endTimestamp"});
  const auto q = MustDecode<QueryMessageRequestHeader>(query);
  EXPECT_TRUE(q.unique_key_query);
  EXPECT_EQ(q.end_timestamp, INT64_MAX);
  ExpectRoundTrip(q);
  ASSERT_TRUE(query.ext_fields.Erase("_UNIQUE_KEY_QUERY"));
  EXPECT_FALSE(MustDecode<QueryMessageRequestHeader>(query).unique_key_query);

  RemotingCommand resp =
      CommandWith(0, {{"indexLastUpdateTimestamp", "5"}, {"indexLastUpdatePhyoffset", "6"}});
  ExpectFieldErrors<QueryMessageResponseHeader>(
      resp, {"indexLastUpdateTimestamp", "indexLastUpdatePhyoffset"},
      {"indexLastUpdateTimestamp", "indexLastUpdatePhyoffset"});
  ExpectRoundTrip(MustDecode<QueryMessageResponseHeader>(resp));

  ExpectFieldErrors<ViewMessageRequestHeader>(
      CommandWith(ToInt(RequestCode::kViewMessageById), {{"offset", "2108"}}), {"offset"},
      {"offset"});
}

TEST(HeaderFieldsTest, QueueOffsetLookups) {
  const RemotingCommand tq =
      CommandWith(ToInt(RequestCode::kGetMaxOffset), {{"topic", "t"}, {"queueId", "3"}});
  ExpectFieldErrors<GetMaxOffsetRequestHeader>(tq, {"topic", "queueId"}, {"queueId"});
  ExpectFieldErrors<GetMinOffsetRequestHeader>(tq, {"topic", "queueId"}, {"queueId"});
  ExpectFieldErrors<GetEarliestMsgStoretimeRequestHeader>(tq, {"topic", "queueId"}, {"queueId"});
  EXPECT_EQ(MustDecode<GetMinOffsetRequestHeader>(tq).queue_id, 3);
  ExpectRoundTrip(MustDecode<GetMaxOffsetRequestHeader>(tq));
  ExpectRoundTrip(MustDecode<GetMinOffsetRequestHeader>(tq));
  ExpectRoundTrip(MustDecode<GetEarliestMsgStoretimeRequestHeader>(tq));

  const RemotingCommand offset = CommandWith(0, {{"offset", "12"}});
  ExpectFieldErrors<GetMaxOffsetResponseHeader>(offset, {"offset"}, {"offset"});
  ExpectFieldErrors<GetMinOffsetResponseHeader>(offset, {"offset"}, {"offset"});
  ExpectFieldErrors<SearchOffsetResponseHeader>(offset, {"offset"}, {"offset"});
  EXPECT_EQ(MustDecode<SearchOffsetResponseHeader>(offset).offset, 12);
  ExpectFieldErrors<GetEarliestMsgStoretimeResponseHeader>(CommandWith(0, {{"timestamp", "1"}}),
                                                           {"timestamp"}, {"timestamp"});
  ExpectRoundTrip(GetMaxOffsetResponseHeader{7});
  ExpectRoundTrip(GetEarliestMsgStoretimeResponseHeader{8});

  RemotingCommand search = CommandWith(ToInt(RequestCode::kSearchOffsetByTimestamp),
                                       {{"topic", "t"}, {"queueId", "0"}, {"timestamp", "99"}});
  ExpectFieldErrors<SearchOffsetRequestHeader>(search, {"topic", "queueId", "timestamp"},
                                               {"queueId", "timestamp"});
  EXPECT_FALSE(MustDecode<SearchOffsetRequestHeader>(search).boundary_type.has_value());
  for (const auto& [text, want] :
       std::vector<std::pair<const char*, BoundaryType>>{{"UPPER", BoundaryType::kUpper},
                                                         {"upper", BoundaryType::kUpper},
                                                         {"LOWER", BoundaryType::kLower},
                                                         {"other", BoundaryType::kLower}}) {
    search.SetField("boundaryType", text);
    EXPECT_EQ(MustDecode<SearchOffsetRequestHeader>(search).boundary_type, want) << text;
    ExpectRoundTrip(MustDecode<SearchOffsetRequestHeader>(search));
  }
  SearchOffsetRequestHeader upper;
  upper.boundary_type = BoundaryType::kUpper;
  RemotingCommand encoded;
  upper.EncodeTo(encoded);
  EXPECT_EQ(encoded.FindField("boundaryType"), "UPPER");  // Java's enum toString()
}

TEST(HeaderFieldsTest, CreateTopic) {
  RemotingCommand create =
      CommandWith(ToInt(RequestCode::kUpdateAndCreateTopic), {{"topic", "t"},
                                                              {"defaultTopic", "TBW102"},
                                                              {"readQueueNums", "8"},
                                                              {"writeQueueNums", "8"},
                                                              {"perm", "6"},
                                                              {"topicFilterType", "MULTI_TAG"},
                                                              {"topicSysFlag", "1"},
                                                              {"order", "true"}});
  ExpectFieldErrors<CreateTopicRequestHeader>(
      create,
      {"topic", "defaultTopic", "readQueueNums", "writeQueueNums", "perm", "topicFilterType",
       "order"},
      {"readQueueNums", "writeQueueNums", "perm", "topicSysFlag"});
  EXPECT_TRUE(MustDecode<CreateTopicRequestHeader>(create).order);
  ExpectRoundTrip(MustDecode<CreateTopicRequestHeader>(create));
  create.SetField("topicFilterType", "single_tag");  // valueOf is case-sensitive
  EXPECT_EQ(CreateTopicRequestHeader::Decode(create).status().message(),
            "topicFilterType = [single_tag] value invalid");
}

TEST(HeaderFieldsTest, NameServerHeaders) {
  RemotingCommand reg =
      CommandWith(ToInt(RequestCode::kRegisterBroker), {{"brokerName", "b"},
                                                        {"brokerAddr", "h:1"},
                                                        {"clusterName", "c"},
                                                        {"haServerAddr", "h:2"},
                                                        {"brokerId", "0"},
                                                        {"heartbeatTimeoutMillis", "120000"},
                                                        {"enableActingMaster", "false"},
                                                        {"compressed", "true"},
                                                        {"bodyCrc32", "-5"}});
  ExpectFieldErrors<RegisterBrokerRequestHeader>(
      reg, {"brokerName", "brokerAddr", "clusterName", "haServerAddr", "brokerId"},
      {"brokerId", "heartbeatTimeoutMillis", "bodyCrc32"});
  const auto r = MustDecode<RegisterBrokerRequestHeader>(reg);
  EXPECT_EQ(r.heartbeat_timeout_millis, 120000);
  EXPECT_EQ(r.enable_acting_master, false);
  EXPECT_TRUE(r.compressed);
  EXPECT_EQ(r.body_crc32, -5);
  ExpectRoundTrip(r);

  RemotingCommand unreg = CommandWith(
      ToInt(RequestCode::kUnregisterBroker),
      {{"brokerName", "b"}, {"brokerAddr", "h:1"}, {"clusterName", "c"}, {"brokerId", "1"}});
  ExpectFieldErrors<UnregisterBrokerRequestHeader>(
      unreg, {"brokerName", "brokerAddr", "clusterName", "brokerId"}, {"brokerId"});
  ExpectRoundTrip(MustDecode<UnregisterBrokerRequestHeader>(unreg));

  RemotingCommand route = CommandWith(ToInt(RequestCode::kGetRouteinfoByTopic),
                                      {{"topic", "t"}, {"acceptStandardJsonOnly", "true"}});
  ExpectFieldErrors<GetRouteInfoRequestHeader>(route, {"topic"}, {});
  EXPECT_EQ(MustDecode<GetRouteInfoRequestHeader>(route).accept_standard_json_only, true);
  ExpectRoundTrip(MustDecode<GetRouteInfoRequestHeader>(route));
}

}  // namespace
}  // namespace rocketstore::protocol
