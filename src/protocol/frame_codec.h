// File: protocol/frame_codec.h
//
// THE SPECIFICATION of a remoting frame as this codebase reads and writes it
// (remoting-protocol.md §A.1-§A.3; docs/protocol.md has worked examples). Pure functions
// over caller-owned bytes: no sockets, no exceptions, no allocation driven by an
// unchecked length.
//
// Frame (every integer BIG-ENDIAN, signed like Java):
//
//   Offset  Size  Field
//   0       4     length               bytes after this field = 4 + H + B
//   4       4     typeAndHeaderLength  high byte: SerializeType (0 JSON, 1 ROCKETMQ);
//                                      low 24 bits: header length H
//   8       H     header               JSON text or binary header (below)
//   8+H     B     body                 opaque bytes, B = length - 4 - H (may be 0)
//
// JSON header (type 0): one UTF-8 object; known keys "code", "language", "version",
// "opaque", "flag", "remark", "extFields"; every other key ("serializeTypeCurrentRPC", ...)
// is ignored, whatever its value. The parse is strict RFC 8259 (RapidJSON, UTF-8
// validated, nothing but whitespace after the object, no unpaired surrogate escapes)
// with these liberties, all Java's:
//   * code/version/opaque/flag: a JSON integer or a string holding a base-10 int32;
//     null or absent means 0.
//   * language: a name ("JAVA") or a number; unknown ones become OTHER; null/absent JAVA.
//   * remark: a string; a number or boolean is kept as its text; null means absent.
//   * extFields: an object or null. Each value may be a string, a number (kept as the
//     exact digits sent: 1796006207901 stays "1796006207901") or a boolean ("true" /
//     "false"); a null value drops the key; an object or array value is an error. A
//     repeated key keeps the last value.
//
// Binary header (type 1, RocketMQSerializable):
//   code short | language byte | version short | opaque int | flag int |
//   remarkLength int, remark (0 = absent) | extFieldsLength int (0 = no map), then until
//   extFieldsLength bytes are used: keyLength short, key, valueLength int, value.
//   Every length must be >= 0 and fit the space left; an entry must not straddle the end
//   of the map. An empty key or value decodes as Java's null: the entry is dropped.
//   Bytes after the map, inside the header, are ignored (as Java does).
//
// Decoding errors are fatal for the connection (Java closes it without an answer, §A.1):
// kResourceExhausted when a Limits bound is exceeded, kInvalidArgument for a malformed
// frame. No opaque is trusted from a frame that failed to decode.
//
// Encoding policy: a command is written in its own serialize_type. MakeResponse copies the
// request's, so replies are strict JSON unless the request was binary (Java clients read
// either; ali-ons only ever sends JSON). JSON output: keys in fastjson's alphabetical
// order, extFields always present (possibly {}; Java's heartbeat-v2 client reads it
// without a null check), every ext value a JSON string, remark omitted when absent,
// control characters escaped, invalid UTF-8 replaced by U+FFFD so the text always parses.
// Binary output omits remark when empty and drops entries with an empty key or value
// (they would decode as null anyway).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

inline constexpr size_t kLengthFieldSize = 4;
inline constexpr size_t kFrameHeaderPrefixSize = 8;     // length + typeAndHeaderLength
inline constexpr uint32_t kMaxHeaderLength = 0xFFFFFF;  // 24 bits
inline constexpr uint32_t kDefaultMaxFrameLength = 16 * 1024 * 1024;  // Java frameMaxLength
// Smallest binary header: code, language, version, opaque, flag, remarkLength,
// extFieldsLength.
inline constexpr size_t kMinBinaryHeaderLength = 2 + 1 + 2 + 4 + 4 + 4 + 4;

// Bounds applied before anything is allocated. Defaults accept every frame a RocketMQ
// client sends (properties > 32767 bytes must still decode, so the broker can answer
// MESSAGE_ILLEGAL instead of closing the connection).
struct Limits {
  // Largest value of the length field (bytes after it). Clamped to INT32_MAX.
  uint32_t max_frame_length = kDefaultMaxFrameLength;
  uint32_t max_ext_fields = 1024;
  uint32_t max_key_length = 4096;        // bytes of one extFields name
  uint32_t max_value_length = 1 << 20;   // bytes of one extFields value
  uint32_t max_remark_length = 1 << 20;  // bytes of the remark
  uint32_t max_json_depth = 32;          // JSON nesting (values of ignored keys); <= 128
  // Not a bound: requests with SEND_MESSAGE_V2's one-letter field names whose JSON header
  // has fastjson's exact shape get their fields in RemotingCommand::send_v2 instead of
  // ext_fields (protocol/fields_by_position.h). Off by default; the broker's server turns
  // it on. EncodeFrame refuses such a command (names outside "a" .. "n" were dropped).
  bool send_fields_by_position = false;
  // Not a bound: a send request's body (SEND_MESSAGE, SEND_MESSAGE_V2, SEND_BATCH_MESSAGE)
  // is borrowed from `buffer` (CommandBody::Borrow), not copied: the caller keeps `buffer`
  // unchanged while the command is in use, and whoever handles those codes must not keep
  // the body past that. Off by default; the broker's server, whose send handler has stored
  // (copied) the message before it returns, turns it on.
  bool borrow_send_bodies = false;
};

struct FrameDecodeResult {
  // True when `command` holds a whole decoded frame of `consumed` bytes. False: more
  // bytes are needed, and nothing was consumed.
  bool complete = false;
  size_t consumed = 0;
  // Total bytes of the first frame (4 + length) once the length field has arrived and
  // passed its checks; 0 before that. Lets a reader size its buffer.
  size_t frame_size = 0;
  RemotingCommand command;
};

// Decodes the first frame of `buffer`, which may hold a partial frame, exactly one, or
// several (only the first is decoded). Errors are reported as soon as the bytes that
// prove them have arrived: the length field on its own is checked against
// limits.max_frame_length (and >= 4) before any allocation, the second word (serialize
// type, header length <= length - 4) as soon as it is there. A complete command owns
// copies of its header strings and body, and `buffer` can be reused afterwards — except
// that with Limits::borrow_send_bodies a send request's body is a view of `buffer`, which
// must then outlive the command.
Result<FrameDecodeResult> DecodeFrame(std::span<const uint8_t> buffer,
                                      const Limits& limits = Limits());
// DecodeFrame into `*result`, which must be as constructed: the same outcome, without
// moving the decoded command through a Result (the connection's read loop decodes every
// request this way). On an error `*result` holds whatever was decoded and is not to be
// used.
[[nodiscard]] Status DecodeFrameInto(std::span<const uint8_t> buffer, const Limits& limits,
                                     FrameDecodeResult* result);

// A frame ready for writev: `head` (length, typeAndHeaderLength, header) then the body
// pieces. `body_parts` are views of the command's body (owned bytes and external parts):
// the command must outlive this frame and must not change meanwhile.
struct EncodedFrame {
  std::vector<uint8_t> head;
  std::vector<std::span<const uint8_t>> body_parts;

  size_t size() const;
  // head, then body_parts.
  std::vector<std::span<const uint8_t>> GatherList() const;
  // One contiguous copy of the frame (tests, small messages).
  std::vector<uint8_t> Flatten() const;
};

// Encodes `command` in its serialize_type. Errors: the frame would exceed
// limits.max_frame_length or the header 24 bits (kResourceExhausted); a binary header
// cannot represent a code or version outside int16 or a name longer than 32767 bytes
// (kInvalidArgument). Only limits.max_frame_length is consulted.
Result<EncodedFrame> EncodeFrame(const RemotingCommand& command, const Limits& limits = Limits());
// The same into `frame`, whose buffers' capacity is reused (a writer encoding reply after
// reply into recycled frames allocates nothing). On error `frame` holds nothing useful.
Status EncodeFrameInto(const RemotingCommand& command, EncodedFrame* frame,
                       const Limits& limits = Limits());

}  // namespace rocketstore::protocol
