// The JSON header decoder's fast path (a scanner for the subset real clients send) against
// its RapidJSON path: on every input the fast path accepts, both must give the same status
// and the same fields; on the headers real clients send, the fast path must be the one
// that answers.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/headers/send_headers.h"
#include "protocol/internal/header_codec.h"

namespace rocketstore::protocol::internal {
namespace {

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

bool SameHeader(const RemotingCommand& a, const RemotingCommand& b) {
  return a.code == b.code && a.language == b.language && a.version == b.version &&
         a.opaque == b.opaque && a.flag == b.flag && a.remark == b.remark &&
         a.ext_fields == b.ext_fields;
}

Limits SmallLimits() {
  Limits l;
  l.max_ext_fields = 8;
  l.max_key_length = 16;
  l.max_value_length = 64;
  l.max_remark_length = 32;
  l.max_json_depth = 4;
  return l;
}

// Runs both paths on fresh commands. Returns whether the fast path answered; when it did,
// checks that its answer equals RapidJSON's.
bool CheckAgreement(std::string_view header, const Limits& limits) {
  RemotingCommand fast_cmd, slow_cmd;
  const std::optional<Status> fast = TryDecodeJsonHeaderFast(Bytes(header), limits, &fast_cmd);
  const Status slow = DecodeJsonHeaderWithRapidJson(Bytes(header), limits, &slow_cmd);
  // The combined decoder always gives RapidJSON's answer.
  RemotingCommand combined_cmd;
  const Status combined = DecodeJsonHeader(Bytes(header), limits, &combined_cmd);
  EXPECT_EQ(combined.code(), slow.code()) << header;
  EXPECT_EQ(combined.message(), slow.message()) << header;
  if (slow.ok()) {
    EXPECT_TRUE(SameHeader(combined_cmd, slow_cmd)) << header;
  }
  if (!fast.has_value()) return false;
  EXPECT_EQ(fast->code(), slow.code()) << header;
  EXPECT_EQ(fast->message(), slow.message()) << header;
  if (slow.ok()) {
    EXPECT_TRUE(SameHeader(fast_cmd, slow_cmd)) << header;
  }
  return true;
}

// `s` after 1 to `max_edits` random edits — a byte replaced, inserted or deleted, drawn
// from `alphabet` (JSON's own, so that many mutants stay close to the readers' shapes).
std::string Mutate(std::string s, std::string_view alphabet, int max_edits, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_edits));
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t pos = rng() % s.size();
    const char c = alphabet[rng() % alphabet.size()];
    switch (rng() % 3) {
      case 0:
        s[pos] = c;
        break;
      case 1:
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), c);
        break;
      default:
        s.erase(pos, 1);
    }
  }
  return s;
}

// A SEND_MESSAGE_V2 header as the Java client (fastjson) writes it.
const std::string kJavaSendV2 =
    R"({"code":310,"extFields":{"a":"please_rename_unique_group_name","b":"TopicTest",)"
    R"("c":"TBW102","d":"4","e":"3","f":"0","g":"1700000000123","h":"0",)"
    R"("i":"TAGS\u0001TagA\u0002KEYS\u0001k1\u0002WAIT\u0001true\u0002","j":"0","k":"false",)"
    R"("m":"false","n":"broker-a"},"flag":0,"language":"JAVA","opaque":42,)"
    R"("serializeTypeCurrentRPC":"JSON","version":399})";

TEST(JsonHeaderFastPathTest, AnswersForWhatClientsSend) {
  const Limits limits;
  // The Java client escapes the property separators (\u0001, \u0002).
  EXPECT_TRUE(CheckAgreement(kJavaSendV2, limits));
  RemotingCommand java;
  ASSERT_TRUE(TryDecodeJsonHeaderFast(Bytes(kJavaSendV2), limits, &java).value().ok());
  EXPECT_EQ(*java.FindField("i"), "TAGS\x01TagA\x02KEYS\x01k1\x02WAIT\x01true\x02");
  std::string raw = kJavaSendV2;
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"\\u0001", "\x01"}, {"\\u0002", "\x02"}}) {
    for (size_t p = raw.find(from); p != std::string::npos; p = raw.find(from, p)) {
      raw.replace(p, from.size(), to);
    }
  }
  EXPECT_FALSE(CheckAgreement(raw, limits)) << "control bytes are not JSON: RapidJSON's error";
  const std::string plain =
      R"({"code":310,"extFields":{"a":"g","b":"TopicTest","c":"TBW102","d":4,"e":-1,)"
      R"("f":0,"g":1700000000123,"h":0,"j":0,"k":false,"m":null},"flag":0,)"
      R"("language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":399})";
  EXPECT_TRUE(CheckAgreement(plain, limits));
  RemotingCommand cmd;
  ASSERT_TRUE(TryDecodeJsonHeaderFast(Bytes(plain), limits, &cmd).value().ok());
  EXPECT_EQ(cmd.code, 310);
  EXPECT_EQ(cmd.opaque, 42);
  EXPECT_EQ(cmd.version, 399);
  EXPECT_EQ(*cmd.FindField("b"), "TopicTest");
  EXPECT_EQ(*cmd.FindField("e"), "-1");
  EXPECT_EQ(*cmd.FindField("g"), "1700000000123");
  EXPECT_EQ(*cmd.FindField("k"), "false");
  EXPECT_FALSE(cmd.FindField("m").has_value());  // null: absent, as Java reads it

  // What our own encoder writes (responses, the C++ client's requests) is in the subset.
  RemotingCommand reply;
  reply.code = 0;
  reply.opaque = 7;
  reply.flag = 1;
  reply.remark = "ok";
  reply.ext_fields.Set("msgId", "7F00000100002A9F0000000000000000");
  reply.ext_fields.Set("queueOffset", "12");
  std::vector<uint8_t> encoded;
  EncodeJsonHeader(reply, &encoded);
  EXPECT_TRUE(CheckAgreement(
      std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()), limits));
}

TEST(JsonHeaderFastPathTest, AgreesWithRapidJsonOnEdgeCases) {
  const Limits limits = SmallLimits();
  int answered = 0;
  const char* cases[] = {
      // accepted subset, including whitespace everywhere JSON allows it
      R"({})",
      " \t\r\n{ \"code\" : 12 , \"extFields\" : { \"x\" : \"y\" } } \n",
      R"({"code":-0,"opaque":2147483647,"flag":-2147483648})",
      R"({"code":"12","version":"7","language":"CPP"})",
      R"({"language":3})",
      R"({"remark":null,"extFields":null})",
      R"({"extFields":{"a":"1","a":"2"}})",  // a repeated name: the last wins
      R"({"extFields":{"a":"1"},"extFields":{"b":"2"}})",
      R"({"extFields":{"a":true,"b":false,"c":null,"d":0}})",
      R"({"unknown":{"deep":[1,[2,{"x":null}],true]},"code":5})",
      R"({"unknown":[],"other":{}})",
      R"({"remark":"a\"b\\c\/d\b\f\n\r\t"})",
      R"({"extFields":{"i":"x\u0001y\u001Fz\u007f","k\u0041":"v"}})",
      R"({"remark":"nul\u0000inside"})",
      // refused by the handler (the same error either way)
      R"({"code":2147483648})",
      R"({"code":true})",
      R"({"code":{}})",
      R"({"code":[]})",
      R"({"extFields":{"a":{}}})",
      R"({"extFields":{"a":[]}})",
      R"({"extFields":"x"})",
      R"({"remark":"a remark that is longer than thirty-two bytes"})",
      R"({"extFields":{"a_key_longer_than_16":"v"}})",
      R"({"extFields":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9"}})",
      R"({"u":[[[[[[1]]]]]]})",
      R"([])",
      R"("text")",
      R"(12)",
      R"({"language":true})",
      // outside the subset: RapidJSON decides
      R"({"code":1.5})",
      R"({"code":1e3})",
      R"({"code":01})",
      R"({"code":-})",
      R"({"remark":"caf\u00e9"})",
      "{\"remark\":\"caf\xc3\xa9\"}",
      "{\"remark\":\"\xff\"}",
      R"({"remark":"\u0080"})",
      R"({"remark":"\u00e9"})",
      R"({"remark":"\ud800\udc00"})",
      R"({"remark":"\udc00"})",
      R"({"remark":"\u00g1"})",
      R"({"remark":"\u001"})",
      R"({"remark":"\x"})",
      R"({"remark":"ends with \)",
      R"({"code":12,})",
      R"({"code":12} x)",
      R"({"code":12)",
      R"({"code" 12})",
      R"({code:12})",
      R"({"code":tru})",
      R"({"code":nul})",
      "",
      "   ",
  };
  for (const char* c : cases) answered += CheckAgreement(c, limits) ? 1 : 0;
  std::string with_nul("{\"remark\":\"a\0b\"}", 16);
  CheckAgreement(with_nul, limits);
  std::string nul_after("{\"code\":1}\0", 11);
  CheckAgreement(nul_after, limits);
  EXPECT_GE(answered, 20) << "the fast path should answer for most of these";
}

// The first stage reads exactly what fastjson writes, and nothing else: it answers for the
// Java client's header and for what our own encoder writes (with escapes, a remark, a
// repeated name), each equal to RapidJSON's reading; on any other shape it gives up
// without touching the command.
TEST(JsonHeaderFastjsonStageTest, ReadsFastjsonsTextOnlyAndLeavesOthersUntouched) {
  const Limits limits;
  auto check_same = [&](const std::string& header) {
    RemotingCommand staged, slow;
    ASSERT_TRUE(TryDecodeFastjsonHeader(header, limits, &staged)) << header;
    ASSERT_TRUE(DecodeJsonHeaderWithRapidJson(Bytes(header), limits, &slow).ok()) << header;
    EXPECT_TRUE(SameHeader(staged, slow)) << header;
  };
  check_same(kJavaSendV2);
  RemotingCommand ours;
  ours.code = -7;
  ours.opaque = 2147483647;
  ours.flag = 3;
  ours.version = -2147483648;
  ours.language = LanguageCode::kCpp;
  ours.remark = "quote\" back\\slash \x01\x1f tab\t /";
  ours.SetField("i", std::string("TAGS\x01TagA\x02KEYS\x01k1\x02", 18));
  ours.SetField("", "empty name");
  ours.SetField("z", "");
  std::vector<uint8_t> encoded;
  EncodeJsonHeader(ours, &encoded);
  check_same(std::string(encoded.begin(), encoded.end()));
  check_same(R"({"code":0,"extFields":{"b":"1","a":"2","b":"3"},"flag":0,"language":"JAVA",)"
             R"("opaque":0,"serializeTypeCurrentRPC":"JSON","version":0})");

  const std::string refused[] = {
      R"({"code":310, "extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // whitespace
      R"({"extFields":{},"code":310,"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // another order
      R"({"code":310,"extFields":{"a":1},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // a number value
      R"({"code":310,"extFields":{"a":null},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // null
      R"({"code":"310","extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // a string code
      R"({"code":2147483648,"extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // past int32
      R"({"code":007,"extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // leading zeros
      "{\"code\":1,\"extFields\":{\"a\":\"\xc3\xa9\"},\"flag\":0,\"language\":\"JAVA\","
      "\"opaque\":1,\"serializeTypeCurrentRPC\":\"JSON\",\"version\":1}",  // non-ASCII
      R"({"code":1,"extFields":{"a":"\u00e9"},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // escape of non-ASCII
      R"({"code":1,"extFields":{},"flag":0,"language":"JAVA","opaque":1,"remark":null,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})",  // null remark
      R"({"code":1,"extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"ROCKETMQ","version":1})",
      R"({"code":1,"extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1} )",  // bytes after
      R"({"code":1,"extFields":{},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1)",  // cut short
  };
  for (const std::string& header : refused) {
    RemotingCommand cmd;
    cmd.code = 77;
    cmd.remark = "before";
    cmd.SetField("before", "1");
    const RemotingCommand before = cmd;
    EXPECT_FALSE(TryDecodeFastjsonHeader(header, limits, &cmd)) << header;
    EXPECT_TRUE(SameHeader(cmd, before)) << header;
  }
  // Over a limit: refused here, so that the other paths word the error.
  Limits tight = SmallLimits();
  tight.max_ext_fields = 2;
  RemotingCommand cmd;
  EXPECT_FALSE(TryDecodeFastjsonHeader(
      R"({"code":0,"extFields":{"a":"1","b":"2","c":"3"},"flag":0,"language":"JAVA",)"
      R"("opaque":0,"serializeTypeCurrentRPC":"JSON","version":0})",
      tight, &cmd));
  EXPECT_FALSE(TryDecodeFastjsonHeader(kJavaSendV2, SmallLimits(), &cmd));  // 13 fields > 8
}

// Mutants of the Java client's header: wherever the first stage answers, it answers as
// RapidJSON does; wherever it does not, the command is as it was.
TEST(JsonHeaderFastjsonStageTest, AgreesWithRapidJsonOnMutantsOfJavasHeader) {
  const std::string alphabet = "{}:,\"\\ 0123456789-.eEtrufalsnabu\x01\x80";
  std::mt19937 rng(20261206);
  // Limits the Java header just meets (13 fields, a 31-byte longest value, one-letter
  // names), so that mutants cross them and the limits are compared too.
  Limits tight;
  tight.max_ext_fields = 13;
  tight.max_value_length = 31;
  tight.max_key_length = 1;
  int answered = 0, total = 0;
  for (int i = 0; i < 20000; ++i) {
    const Limits limits = i % 2 == 0 ? Limits() : tight;
    const std::string s = Mutate(kJavaSendV2, alphabet, 2, rng);
    ++total;
    RemotingCommand staged;
    staged.remark = "before";
    staged.SetField("before", "1");
    const RemotingCommand before = staged;
    if (TryDecodeFastjsonHeader(s, limits, &staged)) {
      ++answered;
      RemotingCommand slow = before;
      const Status st = DecodeJsonHeaderWithRapidJson(Bytes(s), limits, &slow);
      ASSERT_TRUE(st.ok()) << s << ": " << st.message();
      ASSERT_TRUE(SameHeader(staged, slow)) << s;
    } else {
      ASSERT_TRUE(SameHeader(staged, before)) << s;
    }
  }
  EXPECT_GT(answered, total / 10);
  EXPECT_LT(answered, total * 9 / 10);
}

// What a reader of the header sees is the same whether the send fields were read by
// position or into the map: the scalars, and FindField for every one-letter name.
bool SameReading(const RemotingCommand& by_position, const RemotingCommand& map) {
  if (by_position.code != map.code || by_position.language != map.language ||
      by_position.version != map.version || by_position.opaque != map.opaque ||
      by_position.flag != map.flag || by_position.remark != map.remark) {
    return false;
  }
  if (!by_position.send_v2.used()) return by_position.ext_fields == map.ext_fields;
  for (char c = 'a'; c < 'a' + SendV2Fields::kCount; ++c) {
    if (by_position.FindField(std::string_view(&c, 1)) != map.FindField(std::string_view(&c, 1))) {
      return false;
    }
  }
  return by_position.ext_fields.empty();
}

Limits ByPosition(Limits l = Limits()) {
  l.send_fields_by_position = true;
  return l;
}

// Limits::send_fields_by_position: a send request's one-letter fields are held by
// position (SendV2Fields) and FindField reads what the map holds — the Java header, a
// repeated name (the last wins), the batch and reply codes, and SendMessageRequestHeader
// decodes the same header. Names outside "a" .. "n" are dropped; a response, another
// code and the map-only limits keep the map.
TEST(SendFieldsByPositionTest, ReadsWhatTheMapReads) {
  auto read_both = [](const std::string& header, RemotingCommand* by_position,
                      RemotingCommand* map) {
    ASSERT_TRUE(TryDecodeFastjsonHeader(header, ByPosition(), by_position)) << header;
    ASSERT_TRUE(DecodeJsonHeaderWithRapidJson(Bytes(header), Limits(), map).ok()) << header;
    EXPECT_TRUE(SameReading(*by_position, *map)) << header;
  };
  RemotingCommand typed, map;
  read_both(kJavaSendV2, &typed, &map);
  EXPECT_TRUE(typed.send_v2.used());
  EXPECT_TRUE(typed.ext_fields.empty());
  EXPECT_EQ(typed.send_v2.size(), 13u);
  auto from_typed = SendMessageRequestHeader::Decode(typed);
  auto from_map = SendMessageRequestHeader::Decode(map);
  ASSERT_TRUE(from_typed.ok() && from_map.ok());
  EXPECT_EQ(from_typed->producer_group, "please_rename_unique_group_name");
  EXPECT_EQ(from_typed->topic, from_map->topic);
  EXPECT_EQ(from_typed->queue_id, 3);
  EXPECT_EQ(from_typed->born_timestamp, 1700000000123);
  EXPECT_EQ(from_typed->properties, from_map->properties);
  EXPECT_EQ(from_typed->broker_name, std::optional<std::string>("broker-a"));
  EXPECT_EQ(from_typed->batch, from_map->batch);

  // Only names outside a .. n: decoded by position all the same, none of them kept.
  RemotingCommand only_other;
  ASSERT_TRUE(TryDecodeFastjsonHeader(
      R"({"code":310,"extFields":{"zz":"x"},"flag":0,"language":"JAVA","opaque":0,)"
      R"("serializeTypeCurrentRPC":"JSON","version":0})",
      ByPosition(), &only_other));
  EXPECT_TRUE(only_other.send_v2.used());
  EXPECT_EQ(only_other.FindField("zz"), std::nullopt);
  EXPECT_EQ(only_other.FindField("a"), std::nullopt);

  for (int code : {320, 325}) {
    const std::string header = R"({"code":)" + std::to_string(code) +
                               R"(,"extFields":{"b":"1","a":"2","zz":"x","o":"y","b":"3"},)"
                               R"("flag":0,"language":"JAVA","opaque":0,)"
                               R"("serializeTypeCurrentRPC":"JSON","version":0})";
    RemotingCommand t, m;
    read_both(header, &t, &m);
    EXPECT_EQ(t.FindField("b"), std::optional<std::string_view>("3"));
    EXPECT_EQ(t.FindField("zz"), std::nullopt);  // dropped: not a field of the header
    EXPECT_EQ(m.FindField("zz"), std::optional<std::string_view>("x"));
    EXPECT_EQ(t.FindField("o"), std::nullopt);
  }
  // A missing required field: the same error either way.
  const std::string no_topic =
      R"({"code":310,"extFields":{"a":"g","c":"TBW102","d":"4","e":"1","f":"0","g":"1",)"
      R"("h":"0"},"flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON",)"
      R"("version":1})";
  RemotingCommand t2, m2;
  read_both(no_topic, &t2, &m2);
  EXPECT_EQ(SendMessageRequestHeader::Decode(t2).status().message(),
            SendMessageRequestHeader::Decode(m2).status().message());
  EXPECT_FALSE(SendMessageRequestHeader::Decode(t2).ok());

  // Kept in the map: other codes, a response (given up), the option off.
  const std::string pull =
      R"({"code":11,"extFields":{"a":"1"},"flag":0,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})";
  RemotingCommand p;
  ASSERT_TRUE(TryDecodeFastjsonHeader(pull, ByPosition(), &p));
  EXPECT_FALSE(p.send_v2.used());
  EXPECT_EQ(p.FindField("a"), std::optional<std::string_view>("1"));
  const std::string response =
      R"({"code":310,"extFields":{"a":"1"},"flag":1,"language":"JAVA","opaque":1,)"
      R"("serializeTypeCurrentRPC":"JSON","version":1})";
  RemotingCommand r;
  EXPECT_FALSE(TryDecodeFastjsonHeader(response, ByPosition(), &r));
  RemotingCommand whole;
  ASSERT_TRUE(DecodeJsonHeader(Bytes(response), ByPosition(), &whole).ok());
  EXPECT_FALSE(whole.send_v2.used());
  EXPECT_EQ(whole.FindField("a"), std::optional<std::string_view>("1"));
  RemotingCommand off;
  ASSERT_TRUE(TryDecodeFastjsonHeader(kJavaSendV2, Limits(), &off));
  EXPECT_FALSE(off.send_v2.used());
  EXPECT_EQ(off.ext_fields.size(), 13u);
}

// Values with escapes are unescaped over their own bytes of the one copy of the text
// (SendV2Fields::AdoptText): escapes first, last, back to back, in several values side
// by side, and a repeated name whose later value is shorter — each reads as RapidJSON's.
TEST(SendFieldsByPositionTest, UnescapesEachValueOverItsOwnCopy) {
  const std::string header =
      R"({"code":310,"extFields":{"a":"\u0001g\u0002","b":"T","i":"K\u0001v\u0002\u0002)"
      R"(\"\\\/\n\t\u007F","c":"\u0041\u0042","i":"\u0001","j":"x\\"},)"
      R"("flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":1})";
  RemotingCommand typed, map;
  ASSERT_TRUE(TryDecodeFastjsonHeader(header, ByPosition(), &typed)) << header;
  ASSERT_TRUE(DecodeJsonHeaderWithRapidJson(Bytes(header), Limits(), &map).ok()) << header;
  EXPECT_TRUE(typed.send_v2.used());
  EXPECT_TRUE(SameReading(typed, map));
  EXPECT_EQ(typed.FindField("a"), std::optional<std::string_view>("\x01g\x02"));
  EXPECT_EQ(typed.FindField("b"), std::optional<std::string_view>("T"));
  EXPECT_EQ(typed.FindField("c"), std::optional<std::string_view>("AB"));
  EXPECT_EQ(typed.FindField("i"), std::optional<std::string_view>("\x01"));
  EXPECT_EQ(typed.FindField("j"), std::optional<std::string_view>("x\\"));
  // The first "i" alone: every escape of the list in one value.
  const std::string one =
      R"({"code":310,"extFields":{"i":"K\u0001v\u0002\u0002\"\\\/\n\t\u007F"},)"
      R"("flag":0,"language":"JAVA","opaque":1,"serializeTypeCurrentRPC":"JSON","version":1})";
  RemotingCommand t1;
  ASSERT_TRUE(TryDecodeFastjsonHeader(one, ByPosition(), &t1)) << one;
  EXPECT_EQ(t1.FindField("i"), std::optional<std::string_view>("K\x01v\x02\x02\"\\/\n\t\x7F"));
  // A long value of escapes only (past the 16-byte scans), then a plain one.
  std::string escapes, expected;
  for (int k = 0; k < 40; ++k) {
    escapes += "\\u0002";
    expected += '\x02';
  }
  const std::string many = R"({"code":310,"extFields":{"i":")" + escapes +
                           R"(","k":"false"},"flag":0,"language":"JAVA","opaque":1,)"
                           R"("serializeTypeCurrentRPC":"JSON","version":1})";
  RemotingCommand t2;
  ASSERT_TRUE(TryDecodeFastjsonHeader(many, ByPosition(), &t2)) << many;
  EXPECT_EQ(t2.FindField("i"), std::optional<std::string_view>(expected));
  EXPECT_EQ(t2.FindField("k"), std::optional<std::string_view>("false"));

  // max_value_length bounds the value, not its escaped text: 40 escapes (240 bytes) that
  // unescape to 40 bytes pass a limit of 40 and fail one of 39, as RapidJSON decides.
  for (uint32_t limit : {40u, 39u}) {
    Limits l = ByPosition();
    l.max_value_length = limit;
    RemotingCommand fast;
    const bool taken = TryDecodeFastjsonHeader(many, l, &fast);
    EXPECT_EQ(taken, limit == 40u) << limit;
    Limits map_limits = l;
    map_limits.send_fields_by_position = false;
    RemotingCommand map;
    EXPECT_EQ(DecodeJsonHeaderWithRapidJson(Bytes(many), map_limits, &map).ok(), limit == 40u);
    if (taken) {
      EXPECT_TRUE(SameReading(fast, map));
    }
  }
}

// Mutants of the Java client's header: wherever the first stage answers by position, the
// map (RapidJSON) reads the same, and SendMessageRequestHeader decodes the same from both.
TEST(SendFieldsByPositionTest, AgreesWithTheMapOnMutantsOfJavasHeader) {
  const std::string alphabet = "{}:,\"\\ 0123456789-.eEtrufalsnabu\x01\x80";
  std::mt19937 rng(1206);
  Limits tight = ByPosition();
  tight.max_ext_fields = 13;
  tight.max_value_length = 31;
  int answered = 0;
  for (int i = 0; i < 20000; ++i) {
    const Limits limits = i % 2 == 0 ? ByPosition() : tight;
    const std::string s = Mutate(kJavaSendV2, alphabet, 2, rng);
    RemotingCommand typed;
    if (!TryDecodeFastjsonHeader(s, limits, &typed)) continue;
    ++answered;
    Limits map_limits = limits;
    map_limits.send_fields_by_position = false;
    RemotingCommand map;
    ASSERT_TRUE(DecodeJsonHeaderWithRapidJson(Bytes(s), map_limits, &map).ok()) << s;
    ASSERT_TRUE(SameReading(typed, map)) << s;
    auto a = SendMessageRequestHeader::Decode(typed);
    auto b = SendMessageRequestHeader::Decode(map);
    ASSERT_EQ(a.ok(), b.ok()) << s;
    if (!a.ok()) {
      ASSERT_EQ(a.status().message(), b.status().message()) << s;
    } else {
      ASSERT_EQ(a->properties, b->properties) << s;
      ASSERT_EQ(a->queue_id, b->queue_id) << s;
      ASSERT_EQ(a->topic, b->topic) << s;
    }
  }
  EXPECT_GT(answered, 1000);
}

// Integers past double's range are refused by RapidJSON ("Number too big to be stored in
// double") even as text, so the scanner leaves long ones to it (found by the fuzzer: a
// 360-digit remark the scanner accepted and RapidJSON did not).
TEST(JsonHeaderFastPathTest, LeavesIntegersPastDoublesRangeToRapidJson) {
  for (size_t digits : {1, 17, 20, 300, 301, 307, 308, 309, 310, 360}) {
    for (const char* key : {"remark", "opaque", "other"}) {
      const std::string header = std::string(R"({"code":1,")") + key + R"(":)" +
                                 std::string(digits, '9') + R"(,"extFields":{}})";
      CheckAgreement(header, Limits());
    }
  }
  RemotingCommand cmd;
  const std::string huge = R"({"code":1,"remark":)" + std::string(360, '8') + "}";
  const Status s = DecodeJsonHeader(Bytes(huge), Limits(), &cmd);
  EXPECT_NE(s.message().find("Number too big"), std::string::npos) << s.ToString();
}

// The scanner skips plain bytes eight at a time: put each kind of special byte at every
// offset of a long string, so that it is found in every lane of a word and in the tail.
TEST(JsonHeaderFastPathTest, FindsSpecialBytesAtEveryOffset) {
  const Limits limits;
  const std::string specials[] = {"\\u0001", "\\\"",     "\\n",  "\\u0080", "\x01",
                                  "\x7f",    "\xc3\xa9", "\x1f", " ",       "~"};
  int answered = 0;
  for (const std::string& special : specials) {
    for (size_t at = 0; at <= 19; ++at) {
      for (size_t len : {at, at + 1, at + 8, at + 20}) {
        std::string value(len, 'x');
        value.insert(at, special);
        const std::string header =
            R"({"code":1,"extFields":{"k":")" + value + R"("},"remark":")" + value + R"("})";
        answered += CheckAgreement(header, limits) ? 1 : 0;
      }
    }
  }
  EXPECT_GE(answered, 5 * 20 * 4);  // the escapes of ASCII and the plain bytes
}

// Random mutations of real-looking headers: byte flips, insertions and deletions drawn
// from JSON's own alphabet, so that many mutants stay inside the fast path's subset.
TEST(JsonHeaderFastPathTest, AgreesWithRapidJsonOnMutants) {
  const std::string seeds[] = {
      R"({"code":310,"extFields":{"a":"g","b":"TopicTest","e":"-1","g":"1700000000123"},)"
      R"("flag":0,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":399})",
      R"({"code":0,"extFields":{"msgId":"7F0000012A9F","queueId":"3"},"flag":1,"opaque":9,)"
      R"("remark":"x","u":[1,{"v":null}]})",
  };
  const std::string alphabet = "{}[]:,\"\\ 0123456789-+.eEtrufalsn\tabc\x01\x80";
  std::mt19937 rng(20261130);
  const Limits limits = SmallLimits();
  int answered = 0, total = 0;
  for (int i = 0; i < 30000; ++i) {
    const std::string s = Mutate(seeds[static_cast<size_t>(i) % 2], alphabet, 3, rng);
    ++total;
    answered += CheckAgreement(s, limits) ? 1 : 0;
    if (::testing::Test::HasFailure()) break;
  }
  // Both outcomes must be well represented, or the comparison proves little.
  EXPECT_GT(answered, total / 10);
  EXPECT_LT(answered, total * 9 / 10);
}

}  // namespace
}  // namespace rocketstore::protocol::internal
