#include "protocol/frame_codec.h"

#include <algorithm>
#include <limits>
#include <string>

#include "base/coding.h"
#include "protocol/internal/header_codec.h"

namespace rocketstore::protocol {

namespace {

constexpr uint32_t kInt32Max = static_cast<uint32_t>(std::numeric_limits<int32_t>::max());

uint32_t MaxFrameLength(const Limits& limits) {
  return std::min(limits.max_frame_length, kInt32Max);
}

// The requests whose bodies Limits::borrow_send_bodies leaves in the input.
bool IsSendCode(int32_t code) {
  return code == ToInt(RequestCode::kSendMessage) || code == ToInt(RequestCode::kSendMessageV2) ||
         code == ToInt(RequestCode::kSendBatchMessage);
}

}  // namespace

Result<FrameDecodeResult> DecodeFrame(std::span<const uint8_t> buffer, const Limits& limits) {
  FrameDecodeResult result;
  RS_RETURN_IF_ERROR(DecodeFrameInto(buffer, limits, &result));
  return result;
}

Status DecodeFrameInto(std::span<const uint8_t> buffer, const Limits& limits,
                       FrameDecodeResult* out) {
  FrameDecodeResult& result = *out;
  if (buffer.size() < kLengthFieldSize) return Status::OK();

  const uint32_t length = DecodeFixed32BE(buffer.data());
  if (length > MaxFrameLength(limits)) {
    return ResourceExhausted("frame length " + std::to_string(length) + " (int " +
                             std::to_string(static_cast<int32_t>(length)) +
                             ") exceeds the limit of " + std::to_string(MaxFrameLength(limits)) +
                             " bytes");
  }
  if (length < 4) {
    return InvalidArgument("frame length " + std::to_string(length) +
                           " cannot hold the 4-byte header length field");
  }
  result.frame_size = kLengthFieldSize + length;

  if (buffer.size() < kFrameHeaderPrefixSize) return Status::OK();
  const uint32_t word = DecodeFixed32BE(buffer.data() + kLengthFieldSize);
  const uint32_t type = word >> 24;
  const uint32_t header_length = word & kMaxHeaderLength;
  if (type != static_cast<uint32_t>(SerializeType::kJson) &&
      type != static_cast<uint32_t>(SerializeType::kRocketMq)) {
    return InvalidArgument("unknown serialize type " + std::to_string(type));
  }
  if (header_length > length - 4) {
    return InvalidArgument("bad header length " + std::to_string(header_length) +
                           ": the frame has only " + std::to_string(length - 4) +
                           " bytes after the length words");
  }
  if (buffer.size() < result.frame_size) return Status::OK();

  const std::span<const uint8_t> header = buffer.subspan(kFrameHeaderPrefixSize, header_length);
  RemotingCommand& command = result.command;
  if (type == static_cast<uint32_t>(SerializeType::kJson)) {
    RS_RETURN_IF_ERROR(internal::DecodeJsonHeader(header, limits, &command));
    command.serialize_type = SerializeType::kJson;
  } else {
    RS_RETURN_IF_ERROR(internal::DecodeBinaryHeader(header, limits, &command));
    command.serialize_type = SerializeType::kRocketMq;
  }
  const std::span<const uint8_t> body =
      buffer.subspan(kFrameHeaderPrefixSize + header_length,
                     result.frame_size - kFrameHeaderPrefixSize - header_length);
  if (limits.borrow_send_bodies && !command.IsResponse() && IsSendCode(command.code)) {
    command.body.Borrow(body);
  } else {
    command.body.Assign(std::vector<uint8_t>(body.begin(), body.end()));
  }

  result.complete = true;
  result.consumed = result.frame_size;
  return Status::OK();
}

size_t EncodedFrame::size() const {
  size_t n = head.size();
  for (const auto& part : body_parts) n += part.size();
  return n;
}

std::vector<std::span<const uint8_t>> EncodedFrame::GatherList() const {
  std::vector<std::span<const uint8_t>> list;
  list.reserve(body_parts.size() + 1);
  list.emplace_back(head);
  list.insert(list.end(), body_parts.begin(), body_parts.end());
  return list;
}

std::vector<uint8_t> EncodedFrame::Flatten() const {
  std::vector<uint8_t> out;
  out.reserve(size());
  out.insert(out.end(), head.begin(), head.end());
  for (const auto& part : body_parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

Status EncodeFrameInto(const RemotingCommand& command, EncodedFrame* frame, const Limits& limits) {
  std::vector<uint8_t>& head = frame->head;
  head.clear();
  frame->body_parts.clear();
  if (command.send_v2.used()) {
    // Decoded by position, it lost any name outside "a" .. "n": refuse rather than send
    // a header without them (nothing re-encodes a decoded send request).
    return FailedPrecondition(
        "cannot encode a command whose send fields were decoded by position (SendV2Fields)");
  }
  head.reserve(512);  // most headers fit: one allocation (none for a reused frame)
  head.resize(kFrameHeaderPrefixSize);
  if (command.serialize_type == SerializeType::kJson) {
    internal::EncodeJsonHeader(command, &head);
  } else {
    RS_RETURN_IF_ERROR(internal::EncodeBinaryHeader(command, &head));
  }
  const size_t header_length = head.size() - kFrameHeaderPrefixSize;
  if (header_length > kMaxHeaderLength) {
    return ResourceExhausted("encoded header of " + std::to_string(header_length) +
                             " bytes does not fit 24 bits");
  }
  const size_t length = 4 + header_length + command.body.size();
  if (length > MaxFrameLength(limits)) {
    return ResourceExhausted("encoded frame length " + std::to_string(length) +
                             " exceeds the limit of " + std::to_string(MaxFrameLength(limits)) +
                             " bytes");
  }
  EncodeFixed32BE(head.data(), static_cast<uint32_t>(length));
  EncodeFixed32BE(
      head.data() + kLengthFieldSize,
      (static_cast<uint32_t>(command.serialize_type) << 24) | static_cast<uint32_t>(header_length));
  if (!command.body.owned().empty()) frame->body_parts.emplace_back(command.body.owned());
  if (!command.body.borrowed().empty()) frame->body_parts.push_back(command.body.borrowed());
  for (const auto& part : command.body.external_parts()) {
    if (!part.empty()) frame->body_parts.push_back(part);
  }
  return Status::OK();
}

Result<EncodedFrame> EncodeFrame(const RemotingCommand& command, const Limits& limits) {
  EncodedFrame frame;
  RS_RETURN_IF_ERROR(EncodeFrameInto(command, &frame, limits));
  return frame;
}

}  // namespace rocketstore::protocol
