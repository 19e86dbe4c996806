#include "protocol/frame_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/coding.h"
#include "protocol/internal/header_codec.h"
#include "testing/status_matchers.h"

namespace rocketstore::protocol {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;

using Bytes = std::vector<uint8_t>;

void Append32(Bytes* out, uint32_t v) {
  uint8_t b[4];
  EncodeFixed32BE(b, v);
  out->insert(out->end(), b, b + 4);
}
void Append16(Bytes* out, uint16_t v) {
  uint8_t b[2];
  EncodeFixed16BE(b, v);
  out->insert(out->end(), b, b + 2);
}
void AppendText(Bytes* out, std::string_view s) { out->insert(out->end(), s.begin(), s.end()); }

// A frame with the given raw header and body; `type` goes into the high byte.
Bytes Frame(std::string_view header, std::string_view body = "", uint8_t type = 0) {
  Bytes out;
  Append32(&out, static_cast<uint32_t>(4 + header.size() + body.size()));
  Append32(&out, (uint32_t{type} << 24) | static_cast<uint32_t>(header.size()));
  AppendText(&out, header);
  AppendText(&out, body);
  return out;
}
Bytes Frame(const Bytes& header, std::string_view body = "", uint8_t type = 1) {
  return Frame(std::string_view(reinterpret_cast<const char*>(header.data()), header.size()), body,
               type);
}

Result<FrameDecodeResult> Decode(const Bytes& bytes, const Limits& limits = Limits()) {
  return DecodeFrame(bytes, limits);
}

// Decodes a frame that must be complete and span all of `bytes`.
RemotingCommand MustDecode(const Bytes& bytes, const Limits& limits = Limits()) {
  Result<FrameDecodeResult> r = DecodeFrame(bytes, limits);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->consumed, bytes.size());
  return std::move(r->command);
}

Bytes MustEncode(const RemotingCommand& cmd) {
  Result<EncodedFrame> f = EncodeFrame(cmd);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return f.ok() ? f->Flatten() : Bytes{};
}

std::string HeaderText(const Bytes& frame) {
  const uint32_t header_length = DecodeFixed32BE(frame.data() + 4) & 0xFFFFFF;
  return std::string(reinterpret_cast<const char*>(frame.data() + 8), header_length);
}

RemotingCommand SampleCommand(SerializeType type) {
  RemotingCommand cmd = MakeRequest(RequestCode::kSendMessageV2);
  cmd.language = LanguageCode::kNodeJs;
  cmd.version = 121;
  cmd.opaque = -7;
  cmd.flag = kFlagOneway;
  cmd.remark = "r\xC3\xA9mark \"quoted\" \\ \n";
  cmd.serialize_type = type;
  cmd.SetField("b", "InteropTopic");
  cmd.SetField("a", "group");
  cmd.SetField("g", "1796006207901");
  cmd.SetField("i", std::string("TAGS\x01TagA\x02KEYS\x01k0 idx0\x02", 23));
  cmd.SetField("nul", std::string("x\0y", 3));
  cmd.body.Assign(std::string("body\0\xFF bytes", 12));
  return cmd;
}

void ExpectSameCommand(const RemotingCommand& a, const RemotingCommand& b) {
  EXPECT_EQ(a.code, b.code);
  EXPECT_EQ(a.language, b.language);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.opaque, b.opaque);
  EXPECT_EQ(a.flag, b.flag);
  EXPECT_EQ(a.remark, b.remark);
  EXPECT_EQ(a.ext_fields, b.ext_fields);
  EXPECT_EQ(a.serialize_type, b.serialize_type);
  EXPECT_EQ(a.body.Flatten(), b.body.Flatten());
}

// ---- Round trips ----------------------------------------------------------------------------

TEST(FrameCodecTest, JsonRoundTrip) {
  const RemotingCommand cmd = SampleCommand(SerializeType::kJson);
  const Bytes frame = MustEncode(cmd);
  EXPECT_EQ(frame[4], 0) << "serialize type byte";
  ExpectSameCommand(MustDecode(frame), cmd);
}

TEST(FrameCodecTest, BinaryRoundTrip) {
  const RemotingCommand cmd = SampleCommand(SerializeType::kRocketMq);
  const Bytes frame = MustEncode(cmd);
  EXPECT_EQ(frame[4], 1) << "serialize type byte";
  ExpectSameCommand(MustDecode(frame), cmd);
}

TEST(FrameCodecTest, RoundTripOfAnEmptyCommand) {
  for (SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    RemotingCommand cmd;
    cmd.serialize_type = type;
    ExpectSameCommand(MustDecode(MustEncode(cmd)), cmd);
  }
}

TEST(FrameCodecTest, JsonHeaderIsFastjsonShapedStrictJson) {
  RemotingCommand request = MakeRequest(RequestCode::kSendMessageV2);
  request.opaque = 6;
  RemotingCommand r = MakeResponse(request, ResponseCode::kSuccess);
  r.SetField("msgId", "7F00000100002A9F0000000000000000");
  r.SetIntField("queueId", 0);
  r.SetIntField("queueOffset", 0);
  const Bytes frame = MustEncode(r);
  EXPECT_EQ(HeaderText(frame),
            "{\"code\":0,\"extFields\":{\"msgId\":\"7F00000100002A9F0000000000000000\","
            "\"queueId\":\"0\",\"queueOffset\":\"0\"},\"flag\":1,\"language\":\"CPP\","
            "\"opaque\":6,\"serializeTypeCurrentRPC\":\"JSON\",\"version\":479}");
  EXPECT_EQ(DecodeFixed32BE(frame.data()), frame.size() - 4);

  // extFields is always written, remark only when present.
  RemotingCommand bare = MakeResponse(request, ResponseCode::kSystemError, "boom");
  EXPECT_EQ(HeaderText(MustEncode(bare)),
            "{\"code\":1,\"extFields\":{},\"flag\":1,\"language\":\"CPP\",\"opaque\":6,"
            "\"remark\":\"boom\",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":479}");
}

TEST(FrameCodecTest, JsonStringEscaping) {
  Bytes out;
  internal::AppendJsonString(std::string("a\"b\\c\x01\x02\x1F\b\f\n\r\t\x7F/\0", 16), &out);
  EXPECT_EQ(std::string(out.begin(), out.end()),
            "\"a\\\"b\\\\c\\u0001\\u0002\\u001f\\b\\f\\n\\r\\t\x7F/\\u0000\"");

  out.clear();  // valid multi-byte UTF-8 is copied as is
  internal::AppendJsonString("h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80", &out);
  EXPECT_EQ(std::string(out.begin(), out.end()), "\"h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80\"");

  out.clear();  // every byte that starts no valid sequence becomes U+FFFD
  internal::AppendJsonString("\xFF|\xC0\x80|\xED\xA0\x80|\xE2\x9C|\xF4\x90\x80\x80", &out);
  EXPECT_EQ(std::string(out.begin(), out.end()),
            "\"\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd|"
            "\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

TEST(FrameCodecTest, JsonStringEscapingAtItsWorstAndAtEveryOffset) {
  // The encoder writes into room sized for 6 bytes per input byte: strings made only of
  // bytes that take 6 (\u00XX, \ufffd) fill it exactly, at every length around the
  // 8-byte steps of its plain-run copy.
  for (const char worst : {'\x01', '\x1F', '\xFF'}) {
    for (size_t n = 0; n <= 41; ++n) {
      Bytes out = {'x'};
      internal::AppendJsonString(std::string(n, worst), &out);
      ASSERT_EQ(out.size(), 1 + 2 + 6 * n) << int(worst) << " x" << n;
    }
  }
  // Plain runs of every length around the 8-byte steps (the last step overlaps the one
  // before it) round trip.
  for (size_t len = 0; len <= 41; ++len) {
    std::string text;
    for (size_t i = 0; i < len; ++i) text.push_back(static_cast<char>('A' + i % 26));
    RemotingCommand cmd;
    cmd.SetField("k", text);
    cmd.remark = text;
    const RemotingCommand back = MustDecode(MustEncode(cmd));
    ASSERT_EQ(back.FindField("k"), text) << len;
    ASSERT_EQ(back.remark, text) << len;
  }
  // One special byte at every offset of a plain run, in every class, round trips.
  const std::string specials[] = {"\"", "\\", "\x01", "\n", "\xC3\xA9", "\xE2\x9C\x93"};
  for (const std::string& special : specials) {
    for (size_t len = 0; len <= 20; ++len) {
      for (size_t at = 0; at <= len; ++at) {
        std::string text;
        for (size_t i = 0; i < len; ++i) text.push_back(static_cast<char>('a' + i % 26));
        text.insert(at, special);
        RemotingCommand cmd;
        cmd.SetField("k", text);
        cmd.SetField(text, "v");
        cmd.remark = text;
        const RemotingCommand back = MustDecode(MustEncode(cmd));
        ASSERT_EQ(back.FindField("k"), text) << len << "@" << at;
        ASSERT_EQ(back.FindField(text), "v") << len << "@" << at;
        ASSERT_EQ(back.remark, text) << len << "@" << at;
      }
    }
  }
}

TEST(FrameCodecTest, InvalidUtf8FromABinaryHeaderStillEncodesAsValidJson) {
  RemotingCommand cmd;
  cmd.SetField("k", "bad\xFF");
  cmd.remark = "\xC3";
  const RemotingCommand back = MustDecode(MustEncode(cmd));
  EXPECT_EQ(back.FindField("k"), "bad\xEF\xBF\xBD");
  EXPECT_EQ(back.remark, "\xEF\xBF\xBD");
}

TEST(FrameCodecTest, BinaryHeaderLayout) {
  RemotingCommand cmd;
  cmd.code = 34;
  cmd.language = LanguageCode::kJava;
  cmd.version = 479;
  cmd.opaque = 0x01020304;
  cmd.flag = 2;
  cmd.remark = "hi";
  cmd.serialize_type = SerializeType::kRocketMq;
  cmd.SetField("ab", "xyz");
  cmd.SetField("empty", "");  // cannot be told from null in the binary format: omitted
  const Bytes frame = MustEncode(cmd);
  Bytes expected;
  const uint32_t header_length = 21 + 2 + (2 + 2 + 4 + 3);  // fixed + remark + one entry
  Append32(&expected, 4 + header_length);
  Append32(&expected, (1u << 24) | header_length);
  Append16(&expected, 34);
  expected.push_back(0);
  Append16(&expected, 479);
  Append32(&expected, 0x01020304);
  Append32(&expected, 2);
  Append32(&expected, 2);
  AppendText(&expected, "hi");
  Append32(&expected, 2 + 2 + 4 + 3);
  Append16(&expected, 2);
  AppendText(&expected, "ab");
  Append32(&expected, 3);
  AppendText(&expected, "xyz");
  EXPECT_EQ(frame, expected);
}

TEST(FrameCodecTest, BinaryNullsAndTrailingBytes) {
  Bytes h;
  Append16(&h, 11);
  h.push_back(13);  // NODE_JS
  Append16(&h, 121);
  Append32(&h, 9);
  Append32(&h, 0);
  Append32(&h, 0);  // remark length 0 = null
  Bytes map;
  Append16(&map, 0);  // null key: dropped
  Append32(&map, 1);
  AppendText(&map, "v");
  Append16(&map, 1);  // null value: dropped
  AppendText(&map, "k");
  Append32(&map, 0);
  Append16(&map, 1);
  AppendText(&map, "t");
  Append32(&map, 1);
  AppendText(&map, "T");
  Append32(&h, static_cast<uint32_t>(map.size()));
  h.insert(h.end(), map.begin(), map.end());
  AppendText(&h, "trailing");  // ignored, as in Java
  const RemotingCommand cmd = MustDecode(Frame(h, "BODY"));
  EXPECT_EQ(cmd.code, 11);
  EXPECT_EQ(cmd.language, LanguageCode::kNodeJs);
  EXPECT_EQ(cmd.version, 121);
  EXPECT_EQ(cmd.opaque, 9);
  EXPECT_FALSE(cmd.remark.has_value());
  ASSERT_EQ(cmd.ext_fields.size(), 1u);
  EXPECT_EQ(cmd.FindField("t"), "T");
  EXPECT_EQ(cmd.body.owned_text(), "BODY");
  EXPECT_EQ(cmd.serialize_type, SerializeType::kRocketMq);
}

TEST(FrameCodecTest, ResponseAndOnewayFlagsSurvive) {
  for (SerializeType type : {SerializeType::kJson, SerializeType::kRocketMq}) {
    for (int32_t flag : {0, 1, 2, 3}) {
      RemotingCommand cmd;
      cmd.flag = flag;
      cmd.serialize_type = type;
      const RemotingCommand back = MustDecode(MustEncode(cmd));
      EXPECT_EQ(back.IsResponse(), (flag & 1) != 0);
      EXPECT_EQ(back.IsOneway(), (flag & 2) != 0);
    }
  }
  const RemotingCommand r = MustDecode(Frame("{\"code\":0,\"flag\":1,\"opaque\":42}"));
  EXPECT_TRUE(r.IsResponse());
  EXPECT_FALSE(r.IsOneway());
  EXPECT_EQ(r.opaque, 42);
}

// ---- Body as a gather list ------------------------------------------------------------------

// EncodeFrameInto reuses a frame: what it leaves is the frame EncodeFrame gives, whatever
// the frame held before (a longer header, more body parts, a binary header).
TEST(FrameCodecTest, EncodeIntoAReusedFrameGivesTheSameFrame) {
  RemotingCommand big = MakeRequest(1000);
  big.serialize_type = SerializeType::kRocketMq;
  for (int i = 0; i < 50; ++i) big.SetField("name" + std::to_string(i), std::string(40, 'v'));
  static const std::vector<uint8_t> kPart(100, 7);
  big.body.Assign("owned");
  big.body.AppendExternal(kPart);
  big.body.AppendExternal(kPart);
  RemotingCommand small = MakeResponse(big, 0);
  small.serialize_type = SerializeType::kJson;
  small.SetField("k", "v");
  EncodedFrame frame;
  ASSERT_TRUE(EncodeFrameInto(big, &frame).ok());
  EXPECT_EQ(frame.Flatten(), MustEncode(big));
  ASSERT_TRUE(EncodeFrameInto(small, &frame).ok());
  EXPECT_EQ(frame.Flatten(), MustEncode(small));
  EXPECT_TRUE(frame.body_parts.empty());
}

TEST(FrameCodecTest, ExternalBodyPartsAreNotCopied) {
  auto records = std::make_shared<Bytes>(Bytes(300, 0xAB));
  RemotingCommand request = MakeRequest(RequestCode::kPullMessage);
  RemotingCommand r = MakeResponse(request, ResponseCode::kSuccess, "FOUND");
  r.body.AppendExternal(std::span<const uint8_t>(records->data(), 100), records);
  r.body.AppendExternal(std::span<const uint8_t>(records->data() + 100, 200), records);
  ASSERT_OK_AND_ASSIGN(EncodedFrame frame, EncodeFrame(r));
  ASSERT_EQ(frame.body_parts.size(), 2u);
  EXPECT_EQ(frame.body_parts[0].data(), records->data());
  EXPECT_EQ(frame.body_parts[1].data(), records->data() + 100);
  const auto gather = frame.GatherList();
  ASSERT_EQ(gather.size(), 3u);
  EXPECT_EQ(gather[0].data(), frame.head.data());
  EXPECT_EQ(frame.size(), frame.head.size() + 300);
  EXPECT_EQ(DecodeFixed32BE(frame.head.data()), frame.size() - 4);
  const RemotingCommand back = MustDecode(frame.Flatten());
  EXPECT_EQ(back.body.owned(), *records);
  EXPECT_EQ(back.remark, "FOUND");
}

// Limits::borrow_send_bodies: the bodies of SEND_MESSAGE, SEND_MESSAGE_V2 and
// SEND_BATCH_MESSAGE requests are views of the input, nothing copied; any other code, and
// a response with a send code, owns a copy. Either way the body reads the same, and a
// borrowed one encodes back to the same frame.
TEST(FrameCodecTest, SendBodiesAreBorrowedOnlyWhenAskedAndOnlyForSends) {
  Limits borrow;
  borrow.borrow_send_bodies = true;
  for (RequestCode code : {RequestCode::kSendMessage, RequestCode::kSendMessageV2,
                           RequestCode::kSendBatchMessage, RequestCode::kPullMessage}) {
    for (bool response : {false, true}) {
      RemotingCommand cmd = SampleCommand(SerializeType::kJson);
      cmd.code = ToInt(code);
      if (response) cmd.MarkResponse();
      ASSERT_OK_AND_ASSIGN(EncodedFrame frame, EncodeFrame(cmd));
      const Bytes bytes = frame.Flatten();
      ASSERT_OK_AND_ASSIGN(FrameDecodeResult r, DecodeFrame(bytes, borrow));
      ASSERT_TRUE(r.complete);
      const bool borrowed = !response && code != RequestCode::kPullMessage;
      const CommandBody& body = r.command.body;
      EXPECT_EQ(body.borrowed().empty(), !borrowed) << ToInt(code) << " " << response;
      EXPECT_EQ(body.owned().empty(), borrowed);
      if (borrowed) {  // the body's bytes are the frame's last ones
        EXPECT_EQ(body.borrowed().data(), bytes.data() + bytes.size() - body.size());
      }
      EXPECT_EQ(body.Flatten(), cmd.body.Flatten());
      EXPECT_EQ(body.leading_text(), cmd.body.owned_text());
      EXPECT_EQ(body.Parts().size(), 1u);
      ASSERT_OK_AND_ASSIGN(FrameDecodeResult copied, DecodeFrame(bytes));
      EXPECT_FALSE(copied.command.body.owned().empty());
      EXPECT_TRUE(copied.command.body.borrowed().empty());
      ASSERT_OK_AND_ASSIGN(EncodedFrame again, EncodeFrame(r.command));
      EXPECT_EQ(again.Flatten(), bytes);
    }
  }
}

// ---- Streaming ------------------------------------------------------------------------------

TEST(FrameCodecTest, TruncatedFrameNeedsMoreData) {
  const Bytes frame = MustEncode(SampleCommand(SerializeType::kJson));
  for (size_t n = 0; n < frame.size(); ++n) {
    ASSERT_OK_AND_ASSIGN(FrameDecodeResult r,
                         DecodeFrame(std::span<const uint8_t>(frame.data(), n)));
    EXPECT_FALSE(r.complete) << n;
    EXPECT_EQ(r.consumed, 0u);
    EXPECT_EQ(r.frame_size, n < 4 ? 0 : frame.size()) << n;
  }
}

TEST(FrameCodecTest, SeveralFramesInOneBuffer) {
  Bytes stream;
  for (int i = 0; i < 3; ++i) {
    RemotingCommand cmd = MakeRequest(RequestCode::kHeartBeat);
    cmd.opaque = i;
    cmd.serialize_type = i == 1 ? SerializeType::kRocketMq : SerializeType::kJson;
    cmd.body.Assign(std::string(static_cast<size_t>(i), 'x'));
    const Bytes f = MustEncode(cmd);
    stream.insert(stream.end(), f.begin(), f.end());
  }
  stream.pop_back();  // the last frame is one byte short
  std::span<const uint8_t> rest(stream);
  std::vector<int32_t> opaques;
  while (true) {
    ASSERT_OK_AND_ASSIGN(FrameDecodeResult r, DecodeFrame(rest));
    if (!r.complete) break;
    opaques.push_back(r.command.opaque);
    EXPECT_EQ(r.command.body.size(), static_cast<size_t>(r.command.opaque));
    rest = rest.subspan(r.consumed);
  }
  EXPECT_THAT(opaques, ::testing::ElementsAre(0, 1));
  EXPECT_FALSE(rest.empty());
}

// ---- Malformed frames: each is a fatal Status ---------------------------------------------

TEST(FrameCodecTest, OversizedLengthIsRejectedFromTheFirstFourBytes) {
  for (uint32_t length : {16u * 1024 * 1024 + 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu}) {
    Bytes b;
    Append32(&b, length);
    EXPECT_THAT(Decode(b), StatusIs(StatusCode::kResourceExhausted)) << length;
  }
  Bytes ok;
  Append32(&ok, 16u * 1024 * 1024);  // exactly the limit: wait for the rest
  ASSERT_OK_AND_ASSIGN(FrameDecodeResult r, Decode(ok));
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.frame_size, 16u * 1024 * 1024 + 4);

  Limits small;
  small.max_frame_length = 100;
  const Bytes frame = Frame("{}", std::string(95, 'b'));  // length 101
  EXPECT_THAT(Decode(frame, small), StatusIs(StatusCode::kResourceExhausted));
}

TEST(FrameCodecTest, LengthTooSmallForTheHeaderWord) {
  for (uint32_t length : {0u, 1u, 3u}) {
    Bytes b;
    Append32(&b, length);
    EXPECT_THAT(Decode(b), StatusIs(StatusCode::kInvalidArgument)) << length;
  }
}

TEST(FrameCodecTest, HeaderLengthPastTheFrame) {
  Bytes b;
  Append32(&b, 4 + 10);
  Append32(&b, 11);                               // JSON, header length 11 > 10
  const Result<FrameDecodeResult> r = Decode(b);  // detected before the rest arrives
  EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(r.status().message(), HasSubstr("bad header length 11"));
  Bytes max;
  Append32(&max, 4);
  Append32(&max, 0xFFFFFF);
  EXPECT_THAT(Decode(max), StatusIs(StatusCode::kInvalidArgument));
}

TEST(FrameCodecTest, UnknownSerializeType) {
  for (uint8_t type : {2, 0x7F, 0xFF}) {
    const Result<FrameDecodeResult> r = Decode(Frame("{}", "", type));
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(r.status().message(), HasSubstr("unknown serialize type"));
  }
}

TEST(FrameCodecTest, BadJson) {
  for (std::string_view header : std::initializer_list<std::string_view>{
           "", "   ", "{", "}", "[]", "123", "\"str\"", "null", "{\"code\":}", "{\"code\":1,}",
           "{'code':1}", "{\"code\":1}x", "{\"code\":1}{}", "{code:1}", "{\"a\":\"\x01\"}",
           "{\"a\":\"\\x\"}", "{\"a\":\"\xFF\"}", "{\"a\":\"\xC0\x80\"}", "{\"a\":\"\\ud800\"}",
           "{\"a\":\"\\udc00\"}", "{\"\\udfff\":1}", "{\"a\":\"\\ud800\\u0041\"}",
           // Raw (unescaped) surrogate bytes: rejected by UTF-8 validation, so the decoder's
           // surrogate check may skip headers without a backslash.
           "{\"a\":\"\xED\xA0\x80\"}", "{\"\xED\xBF\xBF\":\"v\"}",
           // A UTF-8 lead byte right before the end (RapidJSON 1.1.0 reads past it; long
           // enough that the parser's copy is on the heap, where ASan sees an overrun).
           "{\"a\":\"0123456789abcdef0123456789abcdef\xF0",
           "{\"a\":\"0123456789abcdef0123456789abcdef\xF4\x8F",
           "{\"a\":\"0123456789abcdef0123456789abcdef\xE2", "{\"a\":01}", "{\"a\":-}",
           "{\"a\":NaN}", "{\"a\":1} // c", std::string_view("{\"code\":1}\0junk", 15),
           std::string_view("{\"co\0de\":1}", 11)}) {
    const Result<FrameDecodeResult> r = Decode(Frame(header));
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << header;
  }
}

TEST(FrameCodecTest, WellFormedJsonOfTheWrongShape) {
  for (std::string_view header : std::initializer_list<std::string_view>{
           "{\"code\":\"abc\"}", "{\"code\":1.5}", "{\"code\":1e2}", "{\"code\":true}",
           "{\"code\":2147483648}", "{\"opaque\":-2147483649}", "{\"flag\":[]}", "{\"version\":{}}",
           "{\"language\":true}", "{\"language\":1.5}", "{\"language\":[]}", "{\"remark\":{}}",
           "{\"remark\":[1]}", "{\"extFields\":1}", "{\"extFields\":\"a=b\"}", "{\"extFields\":[]}",
           "{\"extFields\":{\"a\":{}}}", "{\"extFields\":{\"a\":[\"x\"]}}"}) {
    const Result<FrameDecodeResult> r = Decode(Frame(header));
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << header;
  }
}

TEST(FrameCodecTest, TooManyExtFields) {
  Limits limits;
  limits.max_ext_fields = 3;
  EXPECT_TRUE(Decode(Frame("{\"extFields\":{\"a\":1,\"b\":2,\"c\":3,\"a\":4}}"), limits).ok());
  const Result<FrameDecodeResult> r =
      Decode(Frame("{\"extFields\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4}}"), limits);
  EXPECT_THAT(r, StatusIs(StatusCode::kResourceExhausted));
  EXPECT_THAT(r.status().message(), HasSubstr("more than 3 extFields"));

  RemotingCommand cmd;
  cmd.serialize_type = SerializeType::kRocketMq;
  for (const char* k : {"a", "b", "c", "d"}) cmd.SetField(k, "v");
  EXPECT_THAT(Decode(MustEncode(cmd), limits), StatusIs(StatusCode::kResourceExhausted));

  // The default bound is 1024.
  std::string many = "{\"extFields\":{";
  for (int i = 0; i < 1025; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  many += "}}";
  EXPECT_THAT(Decode(Frame(many)), StatusIs(StatusCode::kResourceExhausted));
}

TEST(FrameCodecTest, FieldsAndRemarkTooLong) {
  Limits limits;
  limits.max_key_length = 4;
  limits.max_value_length = 5;
  limits.max_remark_length = 6;
  EXPECT_TRUE(
      Decode(Frame("{\"remark\":\"123456\",\"extFields\":{\"1234\":\"12345\"}}"), limits).ok());
  for (std::string_view header : std::initializer_list<std::string_view>{
           "{\"remark\":\"1234567\"}", "{\"extFields\":{\"12345\":1}}",
           "{\"extFields\":{\"k\":\"123456\"}}", "{\"extFields\":{\"k\":123456}}"}) {
    EXPECT_THAT(Decode(Frame(header), limits), StatusIs(StatusCode::kResourceExhausted)) << header;
  }
  for (auto mutate : {+[](RemotingCommand* c) { c->remark = "1234567"; },
                      +[](RemotingCommand* c) { c->SetField("12345", "v"); },
                      +[](RemotingCommand* c) { c->SetField("k", "123456"); }}) {
    RemotingCommand cmd;
    cmd.serialize_type = SerializeType::kRocketMq;
    mutate(&cmd);
    EXPECT_THAT(Decode(MustEncode(cmd), limits), StatusIs(StatusCode::kResourceExhausted));
  }
}

TEST(FrameCodecTest, DeepNestingInAnIgnoredKey) {
  Limits limits;
  limits.max_json_depth = 4;
  EXPECT_TRUE(Decode(Frame("{\"x\":[[{\"y\":1}]],\"code\":3}"), limits).ok());
  EXPECT_THAT(Decode(Frame("{\"x\":[[[{\"y\":1}]]]}"), limits),
              StatusIs(StatusCode::kResourceExhausted));
  // Far deeper than any stack could take recursively: bounded, no crash.
  const std::string deep = "{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_THAT(Decode(Frame(deep)), StatusIs(StatusCode::kResourceExhausted));
}

Bytes BinaryPrefix(int32_t remark_length) {
  Bytes h;
  Append16(&h, 10);
  h.push_back(0);
  Append16(&h, 0);
  Append32(&h, 1);
  Append32(&h, 0);
  Append32(&h, static_cast<uint32_t>(remark_length));
  return h;
}

TEST(FrameCodecTest, BinaryLengthsPastTheEnd) {
  std::vector<std::pair<std::string, Bytes>> cases;
  cases.emplace_back("too short", Bytes(20, 0));
  {
    Bytes h = BinaryPrefix(100);  // remark longer than the header
    Append32(&h, 0);
    cases.emplace_back("remark past end", h);
  }
  {
    Bytes h = BinaryPrefix(-1);
    Append32(&h, 0);
    cases.emplace_back("negative remark", h);
  }
  {
    Bytes h = BinaryPrefix(4);  // remark eats the extFieldsLength word
    AppendText(&h, "abcd");
    cases.emplace_back("no room for map length", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 50);  // map longer than the header
    cases.emplace_back("map past end", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 0x80000000u);
    cases.emplace_back("negative map", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 1);
    h.push_back(0);
    cases.emplace_back("entry cut short", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 2 + 1 + 4 + 1);
    Append16(&h, 10);  // key longer than the map
    AppendText(&h, "k");
    Append32(&h, 1);
    AppendText(&h, "v");
    cases.emplace_back("key past map", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 2 + 1 + 4 + 1);
    Append16(&h, 0xFFFF);  // negative key length
    AppendText(&h, "k");
    Append32(&h, 1);
    AppendText(&h, "v");
    cases.emplace_back("negative key", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 2 + 1 + 4 + 1);
    Append16(&h, 1);
    AppendText(&h, "k");
    Append32(&h, 2);  // value runs past the map even though the header has room
    AppendText(&h, "vv");
    cases.emplace_back("value past map", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 2 + 1 + 4 + 1);
    Append16(&h, 1);
    AppendText(&h, "k");
    Append32(&h, 0xFFFFFFFF);
    AppendText(&h, "v");
    cases.emplace_back("negative value", h);
  }
  {
    Bytes h = BinaryPrefix(0);
    Append32(&h, 2 + 1 + 3);
    Append16(&h, 1);
    AppendText(&h, "k");
    AppendText(&h, "abc");  // value length word cut by the end of the map
    cases.emplace_back("value length cut", h);
  }
  for (const auto& [name, header] : cases) {
    const Result<FrameDecodeResult> r = Decode(Frame(header, "body"));
    EXPECT_FALSE(r.ok()) << name;
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << name;
  }
}

// ---- JSON quirks (§A.2, §B.5) ---------------------------------------------------------------

TEST(FrameCodecTest, ScalarExtFieldValuesAreStringified) {
  const RemotingCommand cmd = MustDecode(
      Frame("{\"code\":310,\"extFields\":{\"d\":4,\"e\":-1,\"g\":1796006207901,\"k\":false,"
            "\"t\":true,\"big\":123456789012345678901234567890,\"f\":1.50,\"x\":1E3,"
            "\"s\":\"\\u0001\\u0002\",\"n\":null,\"u\":\"\\u00e9\\ud83d\\ude00\"}}"));
  EXPECT_EQ(cmd.FindField("d"), "4");
  EXPECT_EQ(cmd.FindField("e"), "-1");
  EXPECT_EQ(cmd.FindField("g"), "1796006207901");
  EXPECT_EQ(cmd.FindField("k"), "false");
  EXPECT_EQ(cmd.FindField("t"), "true");
  EXPECT_EQ(cmd.FindField("big"), "123456789012345678901234567890");  // exact digits
  EXPECT_EQ(cmd.FindField("f"), "1.50");
  EXPECT_EQ(cmd.FindField("x"), "1E3");
  EXPECT_EQ(cmd.FindField("s"), "\x01\x02");
  EXPECT_FALSE(cmd.FindField("n").has_value());  // null drops the key
  EXPECT_EQ(cmd.FindField("u"), "\xC3\xA9\xF0\x9F\x98\x80");
  ASSERT_OK_AND_ASSIGN(int64_t g, cmd.GetInt("g"));
  EXPECT_EQ(g, 1796006207901);
  ASSERT_OK_AND_ASSIGN(bool k, cmd.GetBool("k"));
  EXPECT_FALSE(k);
  EXPECT_THAT(cmd.GetInt("big"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(cmd.GetInt("f"), StatusIs(StatusCode::kInvalidArgument));
  // Re-encoded, every value is a JSON string.
  EXPECT_THAT(HeaderText(MustEncode(cmd)), HasSubstr("\"d\":\"4\",\"e\":\"-1\""));
}

TEST(FrameCodecTest, DuplicateKeysAndNullsFollowJava) {
  const RemotingCommand cmd = MustDecode(
      Frame("{\"code\":1,\"code\":2,\"remark\":\"x\",\"remark\":null,\"extFields\":{\"a\":\"1\","
            "\"b\":\"2\",\"a\":\"3\",\"b\":null}}"));
  EXPECT_EQ(cmd.code, 2);
  EXPECT_FALSE(cmd.remark.has_value());
  ASSERT_EQ(cmd.ext_fields.size(), 1u);
  EXPECT_EQ(cmd.FindField("a"), "3");

  const RemotingCommand twice =
      MustDecode(Frame("{\"extFields\":{\"a\":1},\"extFields\":{\"b\":2}}"));
  EXPECT_FALSE(twice.FindField("a").has_value());
  EXPECT_EQ(twice.FindField("b"), "2");
  EXPECT_TRUE(MustDecode(Frame("{\"extFields\":{\"a\":1},\"extFields\":null}")).ext_fields.empty());
}

TEST(FrameCodecTest, TopLevelFieldsDefaultsAndLeniency) {
  const RemotingCommand empty = MustDecode(Frame("{}"));
  EXPECT_EQ(empty.code, 0);
  EXPECT_EQ(empty.opaque, 0);
  EXPECT_EQ(empty.flag, 0);
  EXPECT_EQ(empty.version, 0);
  EXPECT_EQ(empty.language, LanguageCode::kJava);
  EXPECT_FALSE(empty.remark.has_value());
  EXPECT_TRUE(empty.ext_fields.empty());

  const RemotingCommand cmd = MustDecode(
      Frame(" {\"code\":\"105\",\"opaque\":-2147483648,\"flag\":null,\"version\":\"+121\","
            "\"language\":9,\"remark\":42,\"serializeTypeCurrentRPC\":\"JSON\","
            "\"unknown\":{\"deep\":[1,{\"x\":null}],\"k\":true},\"other\":[]}\r\n\t "));
  EXPECT_EQ(cmd.code, 105);
  EXPECT_EQ(cmd.opaque, -2147483648);
  EXPECT_EQ(cmd.flag, 0);
  EXPECT_EQ(cmd.version, 121);
  EXPECT_EQ(cmd.language, LanguageCode::kGo);
  EXPECT_EQ(cmd.remark, "42");
  EXPECT_TRUE(cmd.ext_fields.empty());

  EXPECT_EQ(MustDecode(Frame("{\"language\":\"RUST\"}")).language, LanguageCode::kRust);
  EXPECT_EQ(MustDecode(Frame("{\"language\":\"KOTLIN\"}")).language, LanguageCode::kOther);
  EXPECT_EQ(MustDecode(Frame("{\"language\":99}")).language, LanguageCode::kOther);
  EXPECT_EQ(MustDecode(Frame("{\"remark\":false}")).remark, "false");
  EXPECT_EQ(MustDecode(Frame("{\"remark\":\"\"}")).remark, "");
}

TEST(FrameCodecTest, CrossEncodingNormalisesWhatBinaryCannotHold) {
  RemotingCommand cmd =
      MustDecode(Frame("{\"code\":1,\"remark\":\"\",\"extFields\":{\"e\":\"\",\"k\":\"v\"}}"));
  cmd.serialize_type = SerializeType::kRocketMq;
  const RemotingCommand back = MustDecode(MustEncode(cmd));
  EXPECT_FALSE(back.remark.has_value());
  ASSERT_EQ(back.ext_fields.size(), 1u);
  EXPECT_EQ(back.FindField("k"), "v");
}

// ---- Encoding errors ------------------------------------------------------------------------

TEST(FrameCodecTest, EncodeErrors) {
  RemotingCommand cmd;
  cmd.serialize_type = SerializeType::kRocketMq;
  cmd.code = 40000;
  EXPECT_THAT(EncodeFrame(cmd), StatusIs(StatusCode::kInvalidArgument));
  cmd.code = 11;
  cmd.version = -40000;
  EXPECT_THAT(EncodeFrame(cmd), StatusIs(StatusCode::kInvalidArgument));
  cmd.version = 0;
  cmd.SetField(std::string(40000, 'k'), "v");
  EXPECT_THAT(EncodeFrame(cmd), StatusIs(StatusCode::kInvalidArgument));
  cmd.serialize_type = SerializeType::kJson;  // JSON has no such limits
  EXPECT_TRUE(EncodeFrame(cmd).ok());

  RemotingCommand big;
  big.body.Assign(std::string(1000, 'x'));
  Limits limits;
  limits.max_frame_length = 1000;
  EXPECT_THAT(EncodeFrame(big, limits), StatusIs(StatusCode::kResourceExhausted));
  limits.max_frame_length = 2000;
  EXPECT_TRUE(EncodeFrame(big, limits).ok());

  RemotingCommand huge_header;
  huge_header.serialize_type = SerializeType::kRocketMq;  // (cheaper to build than JSON)
  huge_header.remark = std::string(0x1000000, 'r');
  EXPECT_THAT(EncodeFrame(huge_header), StatusIs(StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace rocketstore::protocol
