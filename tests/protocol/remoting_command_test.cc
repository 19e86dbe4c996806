#include "protocol/remoting_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "protocol/frame_codec.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"
#include "protocol/response_code.h"
#include "testing/status_matchers.h"

namespace rocketstore::protocol {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;

RemotingCommand WithFields(std::initializer_list<std::pair<const char*, const char*>> fields) {
  RemotingCommand cmd = MakeRequest(RequestCode::kPullMessage);
  for (const auto& [k, v] : fields) cmd.SetField(k, v);
  return cmd;
}

TEST(ExtFieldsTest, KeepsInsertionOrderAndReplacesInPlace) {
  ExtFields f;
  f.Set("b", "1");
  f.Set("a", "2");
  f.Set("c", "3");
  f.Set("a", "20");
  std::vector<std::string> order;
  for (const auto& [k, v] : f) order.push_back(std::string(k) + "=" + std::string(v));
  EXPECT_THAT(order, ::testing::ElementsAre("b=1", "a=20", "c=3"));
  EXPECT_TRUE(f.Erase("b"));
  EXPECT_FALSE(f.Erase("b"));
  EXPECT_EQ(f.size(), 2u);
  ASSERT_TRUE(f.Find("c").has_value());
  EXPECT_EQ(*f.Find("c"), "3");
  EXPECT_FALSE(f.Find("zz").has_value());
}

// Names whose first bytes agree in their low six bits ('a' = 0x61, '!' = 0x21, "" counts
// as 0x00 like '@' = 0x40) share the duplicate filter's bit and must still be told apart,
// through replacements, erasures and Clear.
TEST(ExtFieldsTest, NamesSharingAFilterBitStayDistinct) {
  ExtFields f;
  f.Set("a", "1");
  f.Set("!", "2");
  f.Set("ab", "3");
  f.Set("", "4");
  f.Set("@", "5");
  f.Set("!", "20");
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(*f.Find("a"), "1");
  EXPECT_EQ(*f.Find("!"), "20");
  EXPECT_EQ(*f.Find("ab"), "3");
  EXPECT_EQ(*f.Find(""), "4");
  EXPECT_EQ(*f.Find("@"), "5");
  EXPECT_FALSE(f.Find("!b").has_value());
  EXPECT_TRUE(f.Erase("a"));
  EXPECT_FALSE(f.Find("a").has_value());
  EXPECT_EQ(*f.Find("!"), "20");  // the bit stays while another name needs it
  f.Set("a", "6");
  EXPECT_EQ(f.size(), 5u);
  EXPECT_TRUE(f.Erase("!"));
  EXPECT_TRUE(f.Erase("ab"));
  EXPECT_TRUE(f.Erase("a"));
  EXPECT_FALSE(f.Find("a").has_value());
  f.Set("a", "7");
  f.Set("a", "8");
  EXPECT_EQ(f.size(), 3u);
  EXPECT_EQ(*f.Find("a"), "8");
  f.Clear();
  EXPECT_FALSE(f.Find("a").has_value());
  f.Set("a", "9");
  EXPECT_EQ(f.size(), 1u);
}

// Values are views into one arena: replacing a value with a shorter, longer, or its own
// (aliasing) bytes, copying and comparing maps.
TEST(ExtFieldsTest, ArenaReplacementsCopiesAndAliases) {
  ExtFields f;
  f.Set("topic", "TopicTest");
  f.Set("queueId", "3");
  f.Set("topic", "T");                      // shorter: in place
  f.Set("queueId", "1234567890123456789");  // longer: appended
  EXPECT_EQ(*f.Find("topic"), "T");
  EXPECT_EQ(*f.Find("queueId"), "1234567890123456789");
  f.Set("topic", *f.Find("topic"));    // its own bytes
  f.Set("topic", *f.Find("queueId"));  // another value's bytes, longer
  EXPECT_EQ(*f.Find("topic"), "1234567890123456789");
  f.Set("queueId", f.Find("topic")->substr(10));  // shorter, from the arena
  EXPECT_EQ(*f.Find("queueId"), "123456789");
  ExtFields copy = f;
  EXPECT_EQ(copy, f);
  copy.Set("queueId", "x");
  EXPECT_NE(copy, f);
  ExtFields rebuilt;  // same entries, different arena history
  rebuilt.Set("topic", "1234567890123456789");
  rebuilt.Set("queueId", "123456789");
  EXPECT_EQ(rebuilt, f);
  ExtFields reordered;
  reordered.Set("queueId", "123456789");
  reordered.Set("topic", "1234567890123456789");
  EXPECT_NE(reordered, f) << "order is part of the map";
}

TEST(ParseJavaLongTest, AcceptsJavaSyntaxOnly) {
  EXPECT_EQ(ParseJavaLong("0"), 0);
  EXPECT_EQ(ParseJavaLong("-1"), -1);
  EXPECT_EQ(ParseJavaLong("+7"), 7);
  EXPECT_EQ(ParseJavaLong("-0"), 0);
  EXPECT_EQ(ParseJavaLong("007"), 7);
  EXPECT_EQ(ParseJavaLong("1796006207901"), 1796006207901);
  EXPECT_EQ(ParseJavaLong("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseJavaLong("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  for (const char* bad :
       {"", "-", "+", " 1", "1 ", "1.0", "1e3", "0x10", "abc", "9223372036854775808",
        "-9223372036854775809", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseJavaLong(bad).has_value()) << bad;
  }
}

TEST(RemotingCommandTest, TypedAccessors) {
  const RemotingCommand cmd = WithFields({{"queueId", "3"},
                                          {"queueOffset", "1796006207901"},
                                          {"k", "TRUE"},
                                          {"u", "yes"},
                                          {"topic", "T"},
                                          {"big", "3000000000"},
                                          {"bad", "abc"}});
  ASSERT_OK_AND_ASSIGN(int64_t off, cmd.GetInt("queueOffset"));
  EXPECT_EQ(off, 1796006207901);
  ASSERT_OK_AND_ASSIGN(int32_t q, cmd.GetInt32("queueId"));
  EXPECT_EQ(q, 3);
  ASSERT_OK_AND_ASSIGN(bool k, cmd.GetBool("k"));
  EXPECT_TRUE(k);  // Java Boolean.parseBoolean: case-insensitive "true"
  ASSERT_OK_AND_ASSIGN(bool u, cmd.GetBool("u"));
  EXPECT_FALSE(u);  // anything else is false
  ASSERT_OK_AND_ASSIGN(std::string_view topic, cmd.GetString("topic"));
  EXPECT_EQ(topic, "T");
  ASSERT_OK_AND_ASSIGN(int64_t big, cmd.GetInt("big"));
  EXPECT_EQ(big, 3000000000);

  const Result<int32_t> too_big = cmd.GetInt32("big");
  EXPECT_THAT(too_big, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(too_big.status().message(), HasSubstr("<big>"));
  const Result<int64_t> bad = cmd.GetInt("bad");
  EXPECT_THAT(bad, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(bad.status().message(), "the custom field <bad> is not a valid long: \"abc\"");
  const Result<int64_t> missing = cmd.GetInt("maxMsgNums");
  EXPECT_EQ(missing.status().message(), "the custom field <maxMsgNums> is null");
  EXPECT_THAT(cmd.GetString("nope"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cmd.GetBool("nope"), StatusIs(StatusCode::kInvalidArgument));
}

TEST(RemotingCommandTest, OptionalAccessors) {
  const RemotingCommand cmd = WithFields({{"j", "2"}, {"bad", "x"}, {"m", "true"}});
  ASSERT_OK_AND_ASSIGN(int64_t j, cmd.GetIntOr("j", 0));
  EXPECT_EQ(j, 2);
  ASSERT_OK_AND_ASSIGN(int64_t l, cmd.GetIntOr("l", 16));
  EXPECT_EQ(l, 16);
  ASSERT_OK_AND_ASSIGN(int32_t l32, cmd.GetInt32Or("l", -1));
  EXPECT_EQ(l32, -1);
  EXPECT_THAT(cmd.GetIntOr("bad", 0), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cmd.GetInt32Or("bad", 0), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_TRUE(cmd.GetBoolOr("m", false));
  EXPECT_TRUE(cmd.GetBoolOr("absent", true));
  EXPECT_FALSE(cmd.GetBoolOr("j", true));
  EXPECT_EQ(cmd.FindField("j"), "2");
  EXPECT_EQ(cmd.FindField("zz"), std::nullopt);
}

TEST(RemotingCommandTest, RequireFieldsNamesTheFirstMissingOne) {
  const RemotingCommand cmd = WithFields({{"topic", "T"}, {"queueId", "0"}});
  EXPECT_OK(cmd.RequireFields({"topic", "queueId"}));
  const Status s = cmd.RequireFields({"topic", "consumerGroup", "queueOffset"});
  EXPECT_THAT(s, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(s.message(), "the custom field <consumerGroup> is null");
  // An empty value is present (Java's @CFNotNull only rejects null).
  EXPECT_OK(WithFields({{"topic", ""}}).RequireFields({"topic"}));
}

TEST(RemotingCommandTest, SetTypedFields) {
  RemotingCommand cmd;
  cmd.SetIntField("queueOffset", -1);
  cmd.SetIntField("big", std::numeric_limits<int64_t>::min());
  cmd.SetBoolField("ok", true);
  cmd.SetBoolField("no", false);
  EXPECT_EQ(cmd.FindField("queueOffset"), "-1");
  EXPECT_EQ(cmd.FindField("big"), "-9223372036854775808");
  EXPECT_EQ(cmd.FindField("ok"), "true");
  EXPECT_EQ(cmd.FindField("no"), "false");
}

TEST(RemotingCommandTest, FlagBits) {
  RemotingCommand cmd;
  EXPECT_FALSE(cmd.IsResponse());
  EXPECT_FALSE(cmd.IsOneway());
  cmd.MarkOneway();
  EXPECT_TRUE(cmd.IsOneway());
  EXPECT_FALSE(cmd.IsResponse());
  EXPECT_EQ(cmd.flag, 2);
  cmd.MarkResponse();
  EXPECT_TRUE(cmd.IsResponse());
  EXPECT_EQ(cmd.flag, 3);
}

TEST(RemotingCommandTest, MakeResponseEchoesOpaqueAndSetsResponseFlag) {
  RemotingCommand request = MakeRequest(RequestCode::kUpdateConsumerOffset);
  request.opaque = 138;
  request.flag = kFlagOneway;
  request.SetField("topic", "T");
  request.body.Assign("xyz");
  request.serialize_type = SerializeType::kRocketMq;

  const RemotingCommand r = MakeResponse(request, ResponseCode::kSuccess);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.opaque, 138);
  EXPECT_EQ(r.flag, kFlagResponse);  // never oneway
  EXPECT_TRUE(r.IsResponse());
  EXPECT_FALSE(r.remark.has_value());
  EXPECT_TRUE(r.ext_fields.empty());
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(r.serialize_type, SerializeType::kRocketMq);  // mirrors the request
  EXPECT_EQ(r.language, kLocalLanguage);
  EXPECT_EQ(r.version, kLocalVersion);

  const RemotingCommand e = MakeResponse(request, ResponseCode::kTopicNotExist, "no route");
  EXPECT_EQ(e.code, 17);
  EXPECT_EQ(e.remark, "no route");
}

TEST(RemotingCommandTest, ErrorResponses) {
  RemotingCommand request = MakeRequest(9999);
  request.opaque = 5;
  const RemotingCommand ns = MakeRequestCodeNotSupportedResponse(request);
  EXPECT_EQ(ns.code, ToInt(ResponseCode::kRequestCodeNotSupported));
  EXPECT_EQ(ns.remark, " request type 9999 not supported");
  EXPECT_EQ(ns.opaque, 5);

  const Status missing = request.RequireFields({"topic"});
  const RemotingCommand se = MakeSystemErrorResponse(request, missing);
  EXPECT_EQ(se.code, 1);
  EXPECT_EQ(se.remark, "the custom field <topic> is null");
  EXPECT_EQ(se.opaque, 5);
}

TEST(CommandBodyTest, OwnedThenExternalParts) {
  auto storage = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4, 5});
  CommandBody body;
  body.Assign("ab");
  body.AppendExternal(std::span<const uint8_t>(storage->data(), 3), storage);
  body.AppendExternal({}, nullptr);  // empty parts are dropped
  body.AppendExternal(std::span<const uint8_t>(storage->data() + 3, 2));
  EXPECT_EQ(body.size(), 7u);
  const auto parts = body.Parts();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].data(), body.owned().data());
  EXPECT_EQ(parts[1].data(), storage->data());  // a view, not a copy
  EXPECT_EQ(parts[2].data(), storage->data() + 3);
  EXPECT_EQ(body.Flatten(), (std::vector<uint8_t>{'a', 'b', 1, 2, 3, 4, 5}));

  // The owner keeps the storage alive through copies of the body.
  std::weak_ptr<std::vector<uint8_t>> weak = storage;
  CommandBody copy = body;
  storage.reset();
  body.Clear();
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(copy.Flatten(), (std::vector<uint8_t>{'a', 'b', 1, 2, 3, 4, 5}));
  copy.Clear();
  EXPECT_TRUE(weak.expired());
  EXPECT_TRUE(body.empty());
  EXPECT_TRUE(body.Parts().empty());
}

TEST(CodesTest, NamesAndLanguages) {
  EXPECT_EQ(RequestCodeName(105), "GET_ROUTEINFO_BY_TOPIC");
  EXPECT_EQ(RequestCodeName(310), "SEND_MESSAGE_V2");
  EXPECT_EQ(RequestCodeName(ToInt(RequestCode::kNotifyConsumerIdsChanged)),
            "NOTIFY_CONSUMER_IDS_CHANGED");
  EXPECT_EQ(RequestCodeName(13), "");
  EXPECT_EQ(ResponseCodeName(0), "SUCCESS");
  EXPECT_EQ(ResponseCodeName(19), "PULL_NOT_FOUND");
  EXPECT_EQ(ResponseCodeName(1500), "GO_AWAY");
  EXPECT_EQ(ResponseCodeName(-1000), "");

  EXPECT_EQ(LanguageName(LanguageCode::kJava), "JAVA");
  EXPECT_EQ(LanguageName(LanguageCode::kNodeJs), "NODE_JS");
  EXPECT_EQ(LanguageFromName("NODE_JS"), LanguageCode::kNodeJs);
  EXPECT_EQ(LanguageFromName("CPP"), LanguageCode::kCpp);
  EXPECT_EQ(LanguageFromName("java"), LanguageCode::kOther);  // case-sensitive, lenient
  EXPECT_EQ(LanguageFromName("KOTLIN"), LanguageCode::kOther);
  EXPECT_EQ(LanguageFromNumber(9), LanguageCode::kGo);
  EXPECT_EQ(LanguageFromNumber(14), LanguageCode::kOther);
  EXPECT_EQ(LanguageFromNumber(-1), LanguageCode::kOther);
  for (int i = 0; i <= 13; ++i) {
    const auto lang = static_cast<LanguageCode>(i);
    EXPECT_EQ(LanguageFromName(LanguageName(lang)), lang);
  }
}

TEST(RemotingCommandTest, DebugString) {
  RemotingCommand cmd = MakeRequest(RequestCode::kPullMessage);
  cmd.opaque = 7;
  cmd.SetField("topic", "T");
  EXPECT_EQ(cmd.DebugString(), "request PULL_MESSAGE(11) opaque=7 flag=0 ext=1 body=0");
  RemotingCommand r = MakeResponse(cmd, ResponseCode::kPullNotFound, "OFFSET_OVERFLOW_ONE");
  EXPECT_EQ(r.DebugString(),
            "response PULL_NOT_FOUND(19) opaque=7 flag=1 ext=0 body=0 "
            "remark=\"OFFSET_OVERFLOW_ONE\"");
  EXPECT_EQ(MakeRequest(4242).DebugString(), "request (4242) opaque=0 flag=0 ext=0 body=0");
}

}  // namespace
}  // namespace rocketstore::protocol

namespace rocketstore::protocol {
namespace {

// SendV2Fields: one-letter fields by position in one block; a copy owns its own block, a
// repeated name reads its last value, values past the room reserved move the block.
TEST(SendV2FieldsTest, CopiesFindsAndGrowsPastItsRoom) {
  RemotingCommand cmd;
  EXPECT_FALSE(cmd.send_v2.used());
  EXPECT_FALSE(cmd.send_v2.Set("b", "x"));  // before Reserve: not used, nothing set
  cmd.send_v2.Reserve(8);
  EXPECT_TRUE(cmd.send_v2.used());  // decoded by position, even with no field yet
  EXPECT_EQ(cmd.FindField("b"), std::nullopt);
  ASSERT_TRUE(cmd.send_v2.Set("b", "abc"));
  ASSERT_TRUE(cmd.send_v2.Set("b", "de"));
  ASSERT_TRUE(cmd.send_v2.Set("n", ""));
  EXPECT_EQ(cmd.send_v2.size(), 2u);
  EXPECT_EQ(cmd.FindField("b"), std::optional<std::string_view>("de"));
  EXPECT_EQ(cmd.FindField("n"), std::optional<std::string_view>(""));
  EXPECT_EQ(cmd.FindField("a"), std::nullopt);
  EXPECT_EQ(cmd.FindField("bb"), std::nullopt);
  EXPECT_TRUE(cmd.RequireFields({"b", "n"}).ok());
  EXPECT_EQ(cmd.RequireFields({"a"}).message(), "the custom field <a> is null");

  RemotingCommand copy = cmd;
  ASSERT_TRUE(copy.send_v2.Set("a", "z"));
  EXPECT_EQ(copy.FindField("a"), std::optional<std::string_view>("z"));
  EXPECT_EQ(copy.FindField("b"), std::optional<std::string_view>("de"));
  EXPECT_EQ(cmd.FindField("a"), std::nullopt);
  RemotingCommand moved = std::move(copy);
  EXPECT_EQ(moved.FindField("a"), std::optional<std::string_view>("z"));
  copy = moved;
  EXPECT_EQ(copy.FindField("b"), std::optional<std::string_view>("de"));
  EXPECT_NE(cmd.DebugString().find("ext=2"), std::string::npos) << cmd.DebugString();

  // 5 of 8 bytes used: 40 more move the block, and every value stays.
  ASSERT_TRUE(cmd.send_v2.Set("a", std::string(40, 'y')));
  EXPECT_EQ(cmd.FindField("a"), std::optional<std::string_view>(std::string(40, 'y')));
  EXPECT_EQ(cmd.FindField("b"), std::optional<std::string_view>("de"));
  EXPECT_EQ(cmd.FindField("n"), std::optional<std::string_view>(""));

  // Not a one-letter field name: refused, nothing set.
  EXPECT_FALSE(cmd.send_v2.Set("bname", "x"));
  EXPECT_FALSE(cmd.send_v2.Set("", "x"));
  EXPECT_FALSE(cmd.send_v2.Set("o", "x"));
  EXPECT_EQ(cmd.FindField("b"), std::optional<std::string_view>("de"));
  // SetField: a name of the schema goes by position, any other to ext_fields.
  cmd.SetField("zz", "later");
  cmd.SetField("b", "again");
  EXPECT_EQ(cmd.FindField("zz"), std::optional<std::string_view>("later"));
  EXPECT_EQ(cmd.FindField("b"), std::optional<std::string_view>("again"));
  EXPECT_FALSE(cmd.ext_fields.Contains("b"));
  // A value that is a view of the block itself, past the room: copied before the block
  // moves (ASan checks it).
  for (std::string_view name : {"c", "d", "e"}) {  // the block is full after the first
    const std::string_view a = *cmd.FindField("a");
    ASSERT_TRUE(cmd.send_v2.Set(name, a));
    EXPECT_EQ(cmd.FindField(name), std::optional<std::string_view>(std::string(40, 'y')));
  }
  // Decoded by position, names outside "a" .. "n" were dropped: EncodeFrame refuses it
  // rather than send the header without them.
  auto encoded = EncodeFrame(cmd);
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), StatusCode::kFailedPrecondition);
}

// SendMessageResponseHeader::EncodeTo writes its fields by position, and the JSON header
// of the answer is the text written before they were (fixed here, not derived).
TEST(SendReplyFieldsTest, EncodeToGivesTheFixedJsonHeader) {
  SendMessageResponseHeader h;
  h.msg_id = "7F000001000051AF0000000000000000";
  h.queue_id = 3;
  h.queue_offset = 42;
  h.transaction_id = "tx-1";
  h.msg_region = "DefaultRegion";
  h.trace_on = true;
  RemotingCommand request = MakeRequest(310);
  request.opaque = 7;
  RemotingCommand resp = MakeResponse(request, 0);
  resp.version = 479;  // fixed here, whatever kLocalVersion becomes
  h.EncodeTo(resp);
  EXPECT_TRUE(resp.send_reply.used());
  EXPECT_TRUE(resp.ext_fields.empty());
  auto frame = EncodeFrame(resp);
  ASSERT_TRUE(frame.ok());
  const std::vector<uint8_t> bytes = frame->Flatten();
  const std::string header(bytes.begin() + 8, bytes.end());
  EXPECT_EQ(header,
            R"({"code":0,"extFields":{"transactionId":"tx-1",)"
            R"("msgId":"7F000001000051AF0000000000000000","queueId":"3","queueOffset":"42",)"
            R"("MSG_REGION":"DefaultRegion","TRACE_ON":"true"},"flag":1,"language":"CPP",)"
            R"("opaque":7,"serializeTypeCurrentRPC":"JSON","version":479})");
}

// SendReplyFields: a send answer's fields by position. The frame is byte for byte the one
// the same fields in ext_fields give (JSON and binary header), a name held by position
// wins over ext_fields and is written once, and anything else goes after them.
TEST(SendReplyFieldsTest, EncodesAsTheSameFieldsInTheMapDo) {
  const std::pair<std::string_view, std::string_view> fields[] = {
      {"transactionId", "tx\"1\x01"},
      {"msgId", "7F000001000051AF0000000000000000"},
      {"queueId", "3"},
      {"queueOffset", "-9223372036854775808"},
      {"recallHandle", "r\xC3\xA9"},
      {"MSG_REGION", "DefaultRegion"},
      {"TRACE_ON", "true"}};
  for (const SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    for (unsigned mask = 0; mask < (1u << 7); ++mask) {
      RemotingCommand by_map = MakeResponse(MakeRequest(310), 0);
      by_map.serialize_type = type;
      RemotingCommand by_position = by_map;
      by_position.send_reply.Reserve(mask % 3 == 0 ? 0 : 16);  // and grown past it
      for (int i = 0; i < 7; ++i) {
        if ((mask & (1u << i)) == 0) continue;
        by_map.SetField(fields[i].first, fields[i].second);
        by_position.SetField(fields[i].first, fields[i].second);
      }
      by_map.SetField("other", "o");
      by_position.SetField("other", "o");
      EXPECT_EQ(by_position.ext_fields.size(), 1u);
      EXPECT_EQ(by_position.send_reply.size(), static_cast<size_t>(std::popcount(mask)));
      EXPECT_EQ(by_position.FieldCount(), by_map.FieldCount());
      auto a = EncodeFrame(by_map);
      auto b = EncodeFrame(by_position);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->Flatten(), b->Flatten()) << "mask " << mask;
    }
  }
  // The same name in ext_fields too (set there directly): the one by position is read
  // and written, once.
  RemotingCommand cmd = MakeResponse(MakeRequest(310), 0);
  cmd.ext_fields.Set("msgId", "from-the-map");
  cmd.send_reply.Reserve(8);
  ASSERT_TRUE(cmd.send_reply.Set("msgId", "by-position"));
  EXPECT_FALSE(cmd.send_reply.Set("msgid", "x"));
  EXPECT_EQ(cmd.FindField("msgId"), std::optional<std::string_view>("by-position"));
  EXPECT_EQ(cmd.FieldCount(), 1u);
  auto back = DecodeFrame(EncodeFrame(cmd)->Flatten(), Limits{});
  ASSERT_TRUE(back.ok() && back->complete);
  EXPECT_EQ(back->command.ext_fields.size(), 1u);
  EXPECT_EQ(back->command.FindField("msgId"), std::optional<std::string_view>("by-position"));
}

// Values set as plain (SetIntAt, SetAt kPlain) are written without the escape check; the
// frame is the one the same values in ext_fields give, also when another value of the
// header needs escapes (the encoder's second pass) and in the binary header.
TEST(SendReplyFieldsTest, PlainValuesEncodeAsCheckedOnesDo) {
  using F = SendReplyFields;
  for (const SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    for (const std::string_view tx : {"tx-1", "tx\"1\x01\n"}) {
      for (const int64_t offset : {int64_t{0}, int64_t{-9223372036854775807 - 1}, int64_t{42}}) {
        RemotingCommand by_map = MakeResponse(MakeRequest(310), 0);
        by_map.serialize_type = type;
        RemotingCommand by_position = by_map;
        by_position.send_reply.Reserve(4);  // grown past it
        by_map.SetField("transactionId", tx);
        by_map.SetField("msgId", "7F000001000051AF0000000000000000");
        by_map.SetIntField("queueId", 3);
        by_map.SetIntField("queueOffset", offset);
        by_map.SetField("TRACE_ON", "true");
        F& f = by_position.send_reply;
        ASSERT_TRUE(f.SetAt(F::IndexOf("transactionId"), tx, F::kCheck));
        ASSERT_TRUE(f.SetAt(F::IndexOf("msgId"), "7F000001000051AF0000000000000000", F::kPlain));
        ASSERT_TRUE(f.SetIntAt(F::IndexOf("queueId"), 3));
        ASSERT_TRUE(f.SetIntAt(F::IndexOf("queueOffset"), offset));
        ASSERT_TRUE(f.SetAt(F::IndexOf("TRACE_ON"), "true", F::kPlain));
        std::vector<std::pair<std::string, bool>> seen;
        f.ForEachWithPlain([&](std::string_view name, std::string_view, bool plain) {
          seen.emplace_back(std::string(name), plain);
          return true;
        });
        EXPECT_EQ(seen, (std::vector<std::pair<std::string, bool>>{{"transactionId", false},
                                                                   {"msgId", true},
                                                                   {"queueId", true},
                                                                   {"queueOffset", true},
                                                                   {"TRACE_ON", true}}));
        auto a = EncodeFrame(by_map);
        auto b = EncodeFrame(by_position);
        ASSERT_TRUE(a.ok() && b.ok());
        ASSERT_EQ(a->Flatten(), b->Flatten()) << tx << " " << offset;
      }
    }
  }
  // Out of the schema, or before Reserve: nothing is set.
  RemotingCommand cmd = MakeResponse(MakeRequest(310), 0);
  EXPECT_FALSE(cmd.send_reply.SetIntAt(0, 1));
  cmd.send_reply.Reserve(8);
  EXPECT_FALSE(cmd.send_reply.SetIntAt(-1, 1));
  EXPECT_FALSE(cmd.send_reply.SetIntAt(F::kCount, 1));
  EXPECT_EQ(cmd.send_reply.size(), 0u);
}

}  // namespace
}  // namespace rocketstore::protocol
