#include "java_vectors.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/coding.h"
#include "protocol/frame_codec.h"
#include "protocol/internal/json_tree.h"

#ifndef ROCKETSTORE_PROTOCOL_VECTORS_DIR
#error "ROCKETSTORE_PROTOCOL_VECTORS_DIR must name tests/protocol/vectors (CMakeLists.txt)"
#endif

namespace rocketstore::protocol::testing {

using internal::JsonNode;
using internal::JsonTree;

std::vector<CapturedFrame> LoadFrames(std::string_view file) {
  const std::string path = std::string(ROCKETSTORE_PROTOCOL_VECTORS_DIR) + "/" + std::string(file);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in) << "vectors not found at " << path;
  // The vector files nest frames/N/bodyJson/... about 8 deep.
  Result<JsonTree> tree = JsonTree::Parse(text.str(), path, 64);
  EXPECT_TRUE(tree.ok()) << tree.status().ToString();
  std::vector<CapturedFrame> out;
  if (!tree.ok()) return out;
  const JsonNode* frames = tree->root().Find("frames");
  EXPECT_TRUE(frames != nullptr && frames->is_array()) << path;
  if (frames == nullptr) return out;
  for (const JsonNode& f : frames->children) {
    CapturedFrame& c = out.emplace_back();
    if (const JsonNode* r = f.Find("request")) c.request = r->text;
    if (const JsonNode* r = f.Find("isResponse")) c.is_response = r->boolean;
    if (const JsonNode* b = f.Find("bodyText")) c.body_text = b->text;
    const JsonNode* hex = f.Find("hex");
    EXPECT_NE(hex, nullptr) << c.request;
    if (hex == nullptr) continue;
    const auto bytes = HexDecode(hex->text);
    EXPECT_TRUE(bytes.has_value()) << c.request;
    if (!bytes) continue;
    Result<FrameDecodeResult> d = DecodeFrame(*bytes);
    EXPECT_TRUE(d.ok() && d->complete) << c.request << " " << d.status().ToString();
    if (d.ok()) c.command = std::move(d->command);
    c.bytes = *bytes;
  }
  return out;
}

const CapturedFrame& FindFrame(const std::vector<CapturedFrame>& frames, std::string_view request,
                               bool is_response, size_t nth) {
  for (const CapturedFrame& f : frames) {
    if (f.request == request && f.is_response == is_response && nth-- == 0) return f;
  }
  ADD_FAILURE() << "no frame " << request << (is_response ? " response" : " request");
  static const CapturedFrame kEmpty;
  return kEmpty;
}

RemotingCommand CommandWith(int32_t code, std::vector<std::pair<std::string, std::string>> fields) {
  RemotingCommand cmd = MakeRequest(code);
  for (const auto& [name, value] : fields) cmd.SetField(name, value);
  return cmd;
}

}  // namespace rocketstore::protocol::testing
