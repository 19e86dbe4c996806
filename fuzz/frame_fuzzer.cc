// libFuzzer target for the remoting frame codec (protocol/frame_codec.h): DecodeFrame on
// arbitrary bytes with small limits. Besides memory safety (ASan/UBSan) and bounded work,
// it checks:
//   * the three outcomes are consistent: "need more" consumes nothing and reports the
//     frame size only once the length field is there and larger than the input; a
//     complete frame spans exactly 4 + length bytes, and every proper prefix of it is
//     "need more"; an error is kInvalidArgument or kResourceExhausted with a message;
//   * limits only restrict: what decodes under the small limits decodes identically
//     under the defaults;
//   * a send request's body borrowed from the input (Limits::borrow_send_bodies) reads as
//     the copied one and lies inside the frame;
//   * a decoded command re-encodes (in its own serialize type) and decodes to the same
//     fields, and that second encoding is byte-identical (canonical form);
//   * encoded in the other serialize type it decodes to the same fields, modulo what
//     that type cannot carry (binary: empty values/remark are null, code/version are
//     shorts; JSON: invalid UTF-8 becomes U+FFFD).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "base/coding.h"
#include "fuzz_check.h"  // this directory
#include "protocol/frame_codec.h"

namespace {

using namespace rocketstore;            // NOLINT(build/namespaces)
using namespace rocketstore::protocol;  // NOLINT(build/namespaces)

Limits SmallLimits() {
  Limits l;
  l.max_frame_length = 1 << 16;
  l.max_ext_fields = 16;
  l.max_key_length = 64;
  l.max_value_length = 512;
  l.max_remark_length = 512;
  l.max_json_depth = 8;
  return l;
}

bool SameHeader(const RemotingCommand& a, const RemotingCommand& b) {
  return a.code == b.code && a.language == b.language && a.version == b.version &&
         a.opaque == b.opaque && a.flag == b.flag && a.remark == b.remark &&
         a.ext_fields == b.ext_fields;
}

bool SameCommand(const RemotingCommand& a, const RemotingCommand& b) {
  return SameHeader(a, b) && a.serialize_type == b.serialize_type &&
         a.body.Flatten() == b.body.Flatten();
}

// Independent RFC 3629 check (no overlongs, surrogates or code points above U+10FFFF).
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<uint8_t>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      n = 1;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      n = 2;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      n = 3;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // sequence cut short
    for (size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t min = n == 1 ? 0x80 : n == 2 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

bool AllStringsValidUtf8(const RemotingCommand& c) {
  if (c.remark && !ValidUtf8(*c.remark)) return false;
  for (const auto& [k, v] : c.ext_fields) {
    if (!ValidUtf8(k) || !ValidUtf8(v)) return false;
  }
  return true;
}

// Decodes `bytes`, which must be exactly one valid frame.
RemotingCommand MustDecodeWhole(const std::vector<uint8_t>& bytes, const Limits& limits) {
  Result<FrameDecodeResult> r = DecodeFrame(bytes, limits);
  if (!r.ok()) std::fprintf(stderr, "re-decode: %s\n", r.status().ToString().c_str());
  FUZZ_CHECK(r.ok());
  FUZZ_CHECK(r->complete && r->consumed == bytes.size() && r->frame_size == bytes.size());
  return std::move(r->command);
}

void CheckReencode(const RemotingCommand& cmd, const Limits& small) {
  // Decoded fields satisfy the small limits; only the frame may grow (JSON escaping), and
  // in the JSON leg below the strings too (bytes that are not UTF-8).
  Limits relaxed = small;
  relaxed.max_frame_length = kDefaultMaxFrameLength;

  Result<EncodedFrame> first = EncodeFrame(cmd);
  FUZZ_CHECK(first.ok());
  const std::vector<uint8_t> bytes = first->Flatten();
  FUZZ_CHECK(bytes.size() == first->size());
  const RemotingCommand again = MustDecodeWhole(bytes, relaxed);
  FUZZ_CHECK(SameCommand(cmd, again));
  Result<EncodedFrame> second = EncodeFrame(again);
  FUZZ_CHECK(second.ok() && second->Flatten() == bytes);

  // The other serialize type.
  RemotingCommand other = cmd;
  if (cmd.serialize_type == SerializeType::kJson) {
    other.serialize_type = SerializeType::kRocketMq;
    Result<EncodedFrame> bin = EncodeFrame(other);
    const bool shorts_fit = cmd.code >= std::numeric_limits<int16_t>::min() &&
                            cmd.code <= std::numeric_limits<int16_t>::max() &&
                            cmd.version >= std::numeric_limits<int16_t>::min() &&
                            cmd.version <= std::numeric_limits<int16_t>::max();
    FUZZ_CHECK(bin.ok() == shorts_fit);
    if (!bin.ok()) return;
    const RemotingCommand back = MustDecodeWhole(bin->Flatten(), relaxed);
    RemotingCommand expected = other;
    if (expected.remark && expected.remark->empty()) expected.remark.reset();
    ExtFields kept;
    for (const auto& [k, v] : expected.ext_fields) {
      if (!k.empty() && !v.empty()) kept.Set(k, v);
    }
    expected.ext_fields = kept;
    FUZZ_CHECK(SameCommand(expected, back));
  } else {
    other.serialize_type = SerializeType::kJson;
    Result<EncodedFrame> json = EncodeFrame(other);
    FUZZ_CHECK(json.ok());  // always valid JSON, whatever bytes the strings hold
    // A byte that is not UTF-8 is written as U+FFFD, 3 bytes when read back: a name,
    // value or remark within the small limits may read back up to 3 times as long.
    Limits json_relaxed = relaxed;
    json_relaxed.max_key_length *= 3;
    json_relaxed.max_value_length *= 3;
    json_relaxed.max_remark_length *= 3;
    const RemotingCommand back = MustDecodeWhole(json->Flatten(), json_relaxed);
    FUZZ_CHECK(back.code == other.code && back.version == other.version &&
               back.opaque == other.opaque && back.flag == other.flag &&
               back.language == other.language);
    FUZZ_CHECK(back.ext_fields.size() <= other.ext_fields.size());
    FUZZ_CHECK(back.remark.has_value() == other.remark.has_value());
    FUZZ_CHECK(back.body.Flatten() == other.body.Flatten());
    if (AllStringsValidUtf8(other)) FUZZ_CHECK(SameCommand(other, back));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  const Limits small = SmallLimits();
  Result<FrameDecodeResult> r = DecodeFrame(input, small);
  if (!r.ok()) {
    FUZZ_CHECK(!r.status().message().empty());
    FUZZ_CHECK(r.status().code() == StatusCode::kInvalidArgument ||
               r.status().code() == StatusCode::kResourceExhausted);
    FUZZ_CHECK(size >= kLengthFieldSize);
    return 0;
  }
  if (!r->complete) {
    FUZZ_CHECK(r->consumed == 0);
    if (size < kLengthFieldSize) {
      FUZZ_CHECK(r->frame_size == 0);
    } else {
      FUZZ_CHECK(r->frame_size == kLengthFieldSize + DecodeFixed32BE(data));
      FUZZ_CHECK(r->frame_size > size);
    }
    return 0;
  }

  const size_t consumed = r->consumed;
  FUZZ_CHECK(consumed >= kFrameHeaderPrefixSize && consumed <= size);
  FUZZ_CHECK(consumed == kLengthFieldSize + DecodeFixed32BE(data));
  FUZZ_CHECK(r->frame_size == consumed);
  const RemotingCommand& cmd = r->command;
  FUZZ_CHECK(static_cast<uint8_t>(cmd.serialize_type) == data[4]);
  FUZZ_CHECK(cmd.ext_fields.size() <= small.max_ext_fields);
  FUZZ_CHECK(!cmd.remark || cmd.remark->size() <= small.max_remark_length);
  for (const auto& [k, v] : cmd.ext_fields) {
    FUZZ_CHECK(k.size() <= small.max_key_length && v.size() <= small.max_value_length);
  }
  FUZZ_CHECK(cmd.body.external_parts().empty());

  // Every proper prefix is "need more"; a sample keeps the cost linear.
  for (size_t n :
       {size_t{0}, size_t{3}, size_t{4}, size_t{7}, size_t{8}, consumed / 2, consumed - 1}) {
    if (n >= consumed) continue;
    Result<FrameDecodeResult> part = DecodeFrame(input.first(n), small);
    FUZZ_CHECK(part.ok() && !part->complete && part->consumed == 0);
  }

  // Limits only restrict.
  Result<FrameDecodeResult> wide = DecodeFrame(input);
  FUZZ_CHECK(wide.ok() && wide->complete && wide->consumed == consumed);
  FUZZ_CHECK(SameCommand(wide->command, cmd));

  // A borrowed body (Limits::borrow_send_bodies) reads as the copied one, lies inside the
  // frame, and only a send request's is borrowed.
  Limits borrow = small;
  borrow.borrow_send_bodies = true;
  Result<FrameDecodeResult> borrowed = DecodeFrame(input, borrow);
  FUZZ_CHECK(borrowed.ok() && borrowed->complete && borrowed->consumed == consumed);
  FUZZ_CHECK(SameCommand(borrowed->command, cmd));
  const std::span<const uint8_t> view = borrowed->command.body.borrowed();
  const bool send = !cmd.IsResponse() && (cmd.code == 10 || cmd.code == 310 || cmd.code == 320);
  FUZZ_CHECK(view.empty() ||
             (send && view.data() >= data && view.data() + view.size() <= data + consumed));
  FUZZ_CHECK(!send || borrowed->command.body.owned().empty());
  CheckReencode(borrowed->command, small);

  CheckReencode(cmd, small);
  return 0;
}
