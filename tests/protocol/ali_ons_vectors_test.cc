// Decodes the request frames the npm client ali-ons@3.12.0 really sent
// (spec/vectors/ali-ons-request-frames.json, copied to tests/protocol/vectors/) and
// checks them against the decoded header the capture lists next to each frame.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/reader.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/coding.h"
#include "protocol/frame_codec.h"
#include "protocol/request_code.h"
#include "testing/status_matchers.h"

#ifndef ROCKETSTORE_ALI_ONS_VECTORS
#error "ROCKETSTORE_ALI_ONS_VECTORS must name the vectors file (tests/protocol/CMakeLists.txt)"
#endif

namespace rocketstore::protocol {
namespace {

// A JSON document flattened to its scalar leaves, in document order, keyed by path
// ("frames/2/header/extFields/g"). Numbers keep their source text. Built with RapidJSON's
// in-situ SAX reader, which (unlike its DOM, whose first stack push computes nullptr + n)
// is clean under UBSan.
struct Leaf {
  enum Kind { kNull, kBool, kNumber, kString, kObject, kArray } kind;
  std::string text;
};
using Leaves = std::vector<std::pair<std::string, Leaf>>;

class Flattener : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Flattener> {
 public:
  explicit Flattener(Leaves* out) : out_(out) {}
  bool Null() { return Add(Leaf::kNull, ""); }
  bool Bool(bool b) { return Add(Leaf::kBool, b ? "true" : "false"); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return Add(Leaf::kNumber, std::string(s, n));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    return Add(Leaf::kString, std::string(s, n));
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    stack_.back().key.assign(s, n);
    return true;
  }
  bool StartObject() { return Open(false); }
  bool StartArray() { return Open(true); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

 private:
  struct Level {
    bool array;
    int index;
    std::string key;
  };
  std::string Path() const {
    std::string path;
    for (const Level& l : stack_) {
      if (&l != &stack_.front()) path += "/";
      path += l.array ? std::to_string(l.index) : l.key;
    }
    return path;
  }
  bool Add(Leaf::Kind kind, std::string text) {
    out_->emplace_back(stack_.empty() ? "" : Path(), Leaf{kind, std::move(text)});
    Next();
    return true;
  }
  bool Open(bool array) {
    if (!stack_.empty()) out_->emplace_back(Path(), Leaf{array ? Leaf::kArray : Leaf::kObject, ""});
    stack_.push_back({array, 0, ""});
    return true;
  }
  bool Close() {
    stack_.pop_back();
    Next();
    return true;
  }
  void Next() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  Leaves* out_;
  std::vector<Level> stack_;
};

// Parses `text` (a copy is modified in situ). False if it is not valid JSON.
bool Flatten(std::string text, Leaves* leaves) {
  Flattener handler(leaves);
  rapidjson::Reader reader;
  rapidjson::InsituStringStream stream(text.data());
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseNumbersAsStringsFlag;
  return !reader.Parse<kFlags>(stream, handler).IsError() && stream.Tell() == text.size();
}

// The leaves of one captured frame, by path relative to the frame ("header/opaque").
struct Vector {
  std::string request;  // RequestCode name as captured
  std::vector<uint8_t> bytes;
  std::map<std::string, Leaf> fields;
  // extFields in document order: name, leaf.
  std::vector<std::pair<std::string, Leaf>> ext;

  const Leaf& Get(const std::string& path) const {
    static const Leaf kMissing{Leaf::kNull, "<missing>"};
    auto it = fields.find(path);
    EXPECT_NE(it, fields.end()) << path;
    return it == fields.end() ? kMissing : it->second;
  }
  int64_t Number(const std::string& path) const {
    const Leaf& leaf = Get(path);
    EXPECT_EQ(leaf.kind, Leaf::kNumber) << path;
    return ParseJavaLong(leaf.text).value_or(-1);
  }
};

class AliOnsVectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(ROCKETSTORE_ALI_ONS_VECTORS, std::ios::binary);
    ASSERT_TRUE(in) << "ali-ons request vectors not found at " << ROCKETSTORE_ALI_ONS_VECTORS;
    std::stringstream text;
    text << in.rdbuf();
    Leaves leaves;
    ASSERT_TRUE(Flatten(text.str(), &leaves)) << "vectors file is not JSON";
    const std::string prefix = "frames/";
    for (const auto& [path, leaf] : leaves) {
      if (path.rfind(prefix, 0) != 0) continue;
      const size_t slash = path.find('/', prefix.size());
      if (slash == std::string::npos) continue;
      const size_t index = std::stoul(path.substr(prefix.size(), slash - prefix.size()));
      if (vectors_.size() <= index) vectors_.resize(index + 1);
      Vector& v = vectors_[index];
      const std::string rel = path.substr(slash + 1);
      v.fields[rel] = leaf;
      const std::string ext_prefix = "header/extFields/";
      if (rel.rfind(ext_prefix, 0) == 0 && rel.find('/', ext_prefix.size()) == std::string::npos) {
        v.ext.emplace_back(rel.substr(ext_prefix.size()), leaf);
      }
    }
    ASSERT_GE(vectors_.size(), 9u);
    for (Vector& v : vectors_) {
      v.request = v.Get("request").text;
      const auto bytes = HexDecode(v.Get("hex").text);
      ASSERT_TRUE(bytes.has_value()) << v.request;
      v.bytes = *bytes;
    }
  }

  const Vector& Find(std::string_view request) const {
    for (const Vector& v : vectors_) {
      if (v.request == request) return v;
    }
    ADD_FAILURE() << "no vector for " << request;
    return vectors_.front();
  }

  static RemotingCommand MustDecode(const std::vector<uint8_t>& bytes) {
    Result<FrameDecodeResult> r = DecodeFrame(bytes);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_TRUE(r->complete);
    EXPECT_EQ(r->consumed, bytes.size());
    return std::move(r->command);
  }

  std::vector<Vector> vectors_;
};

TEST_F(AliOnsVectorsTest, EveryFrameDecodesToTheCapturedHeader) {
  for (const Vector& v : vectors_) {
    SCOPED_TRACE(v.request);
    ASSERT_EQ(DecodeFixed32BE(v.bytes.data()), v.Number("totalLengthField"));
    ASSERT_EQ(DecodeFixed32BE(v.bytes.data() + 4) & 0xFFFFFF, v.Number("headerLength"));
    const RemotingCommand cmd = MustDecode(v.bytes);

    EXPECT_EQ(cmd.serialize_type, SerializeType::kJson);
    EXPECT_EQ(static_cast<int>(cmd.serialize_type), v.Number("serializeType"));
    EXPECT_EQ(cmd.code, v.Number("header/code"));
    EXPECT_EQ(RequestCodeName(cmd.code), v.request);
    EXPECT_EQ(cmd.opaque, v.Number("header/opaque"));
    EXPECT_EQ(cmd.flag, v.Number("header/flag"));
    EXPECT_FALSE(cmd.IsResponse());
    EXPECT_FALSE(cmd.IsOneway());
    EXPECT_EQ(cmd.version, v.Number("header/version"));
    EXPECT_EQ(cmd.version, kVersionV3_4_9);
    EXPECT_EQ(cmd.language, LanguageFromName(v.Get("header/language").text));
    EXPECT_EQ(cmd.language, LanguageCode::kJava);
    EXPECT_FALSE(cmd.remark.has_value());

    // extFields: strings as-is, numbers as their exact digits, booleans as true/false,
    // in the order sent.
    EXPECT_EQ(v.Get("header/extFields").kind, Leaf::kObject);
    ASSERT_EQ(cmd.ext_fields.size(), v.ext.size());
    auto it = cmd.ext_fields.begin();
    for (const auto& [name, leaf] : v.ext) {
      ASSERT_TRUE(leaf.kind == Leaf::kString || leaf.kind == Leaf::kNumber ||
                  leaf.kind == Leaf::kBool)
          << name;
      EXPECT_EQ(cmd.FindField(name), leaf.text) << name;
      EXPECT_EQ((*it).first, name) << "insertion order is kept";
      ++it;
    }

    EXPECT_EQ(cmd.body.size(), static_cast<size_t>(v.Number("bodyLength")));
    if (v.fields.count("bodyText")) {
      EXPECT_EQ(cmd.body.owned_text(), v.Get("bodyText").text);
    }
  }
}

TEST_F(AliOnsVectorsTest, TypedFieldsOfSendAndPull) {
  const RemotingCommand send = MustDecode(Find("SEND_MESSAGE_V2").bytes);
  EXPECT_EQ(send.code, ToInt(RequestCode::kSendMessageV2));
  EXPECT_OK(send.RequireFields({"a", "b", "c", "d", "e", "f", "g", "h"}));
  ASSERT_OK_AND_ASSIGN(std::string_view topic, send.GetString("b"));
  EXPECT_EQ(topic, "InteropTopic");
  ASSERT_OK_AND_ASSIGN(int32_t queue_nums, send.GetInt32("d"));
  EXPECT_EQ(queue_nums, 4);
  ASSERT_OK_AND_ASSIGN(int32_t queue_id, send.GetInt32("e"));
  EXPECT_EQ(queue_id, 0);
  ASSERT_OK_AND_ASSIGN(int64_t born, send.GetInt("g"));
  EXPECT_EQ(born, 1796006207901);
  ASSERT_OK_AND_ASSIGN(bool unit_mode, send.GetBool("k"));
  EXPECT_FALSE(unit_mode);
  ASSERT_OK_AND_ASSIGN(int32_t max_reconsume, send.GetInt32Or("l", 16));
  EXPECT_EQ(max_reconsume, 16);
  EXPECT_FALSE(send.GetBoolOr("m", false));
  // \u0001 / \u0002 in the JSON become the raw separator bytes of the properties string.
  ASSERT_OK_AND_ASSIGN(std::string_view props, send.GetString("i"));
  EXPECT_EQ(props.substr(0, 10), "TAGS\x01TagA\x02");
  EXPECT_EQ(props.back(), '\x02');
  EXPECT_EQ(send.body.size(), 63u);
  EXPECT_EQ(send.body.owned().back(), 0xFE);  // binary-safe body, byte for byte

  const RemotingCommand pull = MustDecode(Find("PULL_MESSAGE").bytes);
  EXPECT_OK(pull.RequireFields({"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums",
                                "sysFlag", "commitOffset", "suspendTimeoutMillis", "subVersion"}));
  ASSERT_OK_AND_ASSIGN(int64_t sub_version, pull.GetInt("subVersion"));
  EXPECT_EQ(sub_version, 1796006207968);
  ASSERT_OK_AND_ASSIGN(int32_t sys_flag, pull.GetInt32("sysFlag"));
  EXPECT_EQ(sys_flag, 6);
  ASSERT_OK_AND_ASSIGN(int64_t suspend, pull.GetInt("suspendTimeoutMillis"));
  EXPECT_EQ(suspend, 15000);
  EXPECT_FALSE(pull.FindField("expressionType").has_value());

  const RemotingCommand heartbeat = MustDecode(Find("HEART_BEAT").bytes);
  EXPECT_TRUE(heartbeat.ext_fields.empty());  // "extFields":{}
  EXPECT_EQ(heartbeat.body.owned_text().substr(0, 12), "{\"clientID\":");

  const RemotingCommand offset = MustDecode(Find("UPDATE_CONSUMER_OFFSET").bytes);
  ASSERT_OK_AND_ASSIGN(int64_t commit, offset.GetInt("commitOffset"));
  EXPECT_EQ(commit, 25);
  EXPECT_FALSE(offset.IsOneway());  // ali-ons sends it with flag 0: it expects a reply
}

TEST_F(AliOnsVectorsTest, StreamedByteByByteAndBackToBack) {
  std::vector<uint8_t> stream;
  for (const Vector& v : vectors_) stream.insert(stream.end(), v.bytes.begin(), v.bytes.end());
  // Bytes arrive one at a time; decode whenever the buffer holds a whole frame.
  std::vector<uint8_t> buffer;
  std::vector<int32_t> opaques;
  for (uint8_t byte : stream) {
    buffer.push_back(byte);
    ASSERT_OK_AND_ASSIGN(FrameDecodeResult r, DecodeFrame(buffer));
    if (r.complete) {
      opaques.push_back(r.command.opaque);
      buffer.erase(buffer.begin(), buffer.begin() + static_cast<ptrdiff_t>(r.consumed));
    }
  }
  EXPECT_TRUE(buffer.empty());
  ASSERT_EQ(opaques.size(), vectors_.size());
  for (size_t i = 0; i < vectors_.size(); ++i) {
    EXPECT_EQ(opaques[i], vectors_[i].Number("header/opaque"));
  }
}

TEST_F(AliOnsVectorsTest, ReencodedFramesDecodeToTheSameCommand) {
  for (const Vector& v : vectors_) {
    SCOPED_TRACE(v.request);
    const RemotingCommand cmd = MustDecode(v.bytes);
    ASSERT_OK_AND_ASSIGN(EncodedFrame frame, EncodeFrame(cmd));
    const RemotingCommand back = MustDecode(frame.Flatten());
    EXPECT_EQ(back.code, cmd.code);
    EXPECT_EQ(back.opaque, cmd.opaque);
    EXPECT_EQ(back.flag, cmd.flag);
    EXPECT_EQ(back.version, cmd.version);
    EXPECT_EQ(back.language, cmd.language);
    EXPECT_EQ(back.ext_fields, cmd.ext_fields);
    EXPECT_EQ(back.body.owned(), cmd.body.owned());
  }
}

TEST_F(AliOnsVectorsTest, RepliesParseAsStrictJsonWithStringValues) {
  // ali-ons JSON.parse()s every reply header; values must be strings (§B.5).
  for (const Vector& v : vectors_) {
    SCOPED_TRACE(v.request);
    const RemotingCommand request = MustDecode(v.bytes);
    RemotingCommand reply = MakeResponse(request, ResponseCode::kSuccess);
    reply.SetIntField("queueOffset", 1796006207901);
    reply.SetBoolField("flagLike", false);
    reply.SetField("props", "TAGS\x01TagA\x02");
    ASSERT_OK_AND_ASSIGN(EncodedFrame frame, EncodeFrame(reply));
    const std::vector<uint8_t> bytes = frame.Flatten();
    const size_t header_length = DecodeFixed32BE(bytes.data() + 4) & 0xFFFFFF;
    Leaves leaves;
    ASSERT_TRUE(
        Flatten(std::string(bytes.begin() + 8, bytes.begin() + 8 + header_length), &leaves));
    std::map<std::string, Leaf> top;
    for (const auto& [path, leaf] : leaves) {
      top[path] = leaf;
      if (path.rfind("extFields/", 0) == 0) {
        EXPECT_EQ(leaf.kind, Leaf::kString) << path;
      }
    }
    EXPECT_EQ(top["opaque"].text, std::to_string(request.opaque));
    EXPECT_EQ(top["flag"].text, "1");
    EXPECT_EQ(top["code"].text, "0");
    EXPECT_EQ(top["extFields"].kind, Leaf::kObject);
    EXPECT_EQ(top["extFields/queueOffset"].text, "1796006207901");
    EXPECT_EQ(top["extFields/props"].text, "TAGS\x01TagA\x02");
  }
}

}  // namespace
}  // namespace rocketstore::protocol
