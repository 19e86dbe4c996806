// Test helper: the captured frames of tests/protocol/vectors/ (java-4.9.8/*.json and
// ali-ons-request-frames.json, copies of shared/spec/vectors/), decoded into commands.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/remoting_command.h"

namespace rocketstore::protocol::testing {

struct CapturedFrame {
  std::string request;  // RequestCode name as captured ("SEND_MESSAGE_V2")
  bool is_response = false;
  std::string body_text;       // "bodyText" when the capture has it
  RemotingCommand command;     // the frame's "hex" decoded by DecodeFrame
  std::vector<uint8_t> bytes;  // the frame's "hex"
};

// All frames of `file` (a path relative to tests/protocol/vectors/). A file that is
// missing or does not parse, or a frame that does not decode, is a test failure.
std::vector<CapturedFrame> LoadFrames(std::string_view file);

// The `nth` (0-based) frame of `frames` for `request` in the given direction; a test
// failure and an empty frame if there is none.
const CapturedFrame& FindFrame(const std::vector<CapturedFrame>& frames, std::string_view request,
                               bool is_response, size_t nth = 0);

// A request command with `code` and the given ext fields.
RemotingCommand CommandWith(int32_t code, std::vector<std::pair<std::string, std::string>> fields);

}  // namespace rocketstore::protocol::testing
