// Binary header codec (serialize type 1, RocketMQSerializable). The layout is specified in
// protocol/frame_codec.h.
#include <cstddef>
#include <limits>
#include <string>

#include "base/coding.h"
#include "protocol/internal/header_codec.h"

namespace rocketstore::protocol::internal {

namespace {

std::string N(size_t n) { return std::to_string(n); }

// Reads the length field of a variable-size item at `pos` and checks it against the
// configured limit and the bytes left before `end`.
Status CheckLength(int64_t length, uint32_t limit, size_t pos, size_t end, std::string_view what) {
  if (length < 0)
    return InvalidArgument("binary header: negative " + std::string(what) + " length " +
                           std::to_string(length));
  if (static_cast<uint64_t>(length) > limit) {
    return ResourceExhausted("binary header: " + std::string(what) + " of " +
                             std::to_string(length) + " bytes exceeds the limit of " +
                             std::to_string(limit));
  }
  if (static_cast<uint64_t>(length) > end - pos) {
    return InvalidArgument("binary header: " + std::string(what) + " length " +
                           std::to_string(length) + " runs past the end (" + N(end - pos) +
                           " bytes left)");
  }
  return Status::OK();
}

void Put16(std::vector<uint8_t>* out, uint16_t v) {
  const size_t at = out->size();
  out->resize(at + 2);
  EncodeFixed16BE(out->data() + at, v);
}
void Put32(std::vector<uint8_t>* out, uint32_t v) {
  const size_t at = out->size();
  out->resize(at + 4);
  EncodeFixed32BE(out->data() + at, v);
}
void PutBytes(std::vector<uint8_t>* out, std::string_view s) {
  out->insert(out->end(), s.begin(), s.end());
}

bool FitsInt16(int32_t v) {
  return v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max();
}

}  // namespace

Status DecodeBinaryHeader(std::span<const uint8_t> header, const Limits& limits,
                          RemotingCommand* command) {
  const uint8_t* p = header.data();
  const size_t size = header.size();
  if (size < kMinBinaryHeaderLength) {
    return InvalidArgument("binary header of " + N(size) + " bytes is shorter than the " +
                           N(kMinBinaryHeaderLength) + "-byte minimum");
  }
  command->code = DecodeInt16BE(p);
  command->language = LanguageFromNumber(p[2]);
  command->version = DecodeInt16BE(p + 3);
  command->opaque = DecodeInt32BE(p + 5);
  command->flag = DecodeInt32BE(p + 9);
  size_t pos = 13;

  const int32_t remark_length = DecodeInt32BE(p + pos);
  pos += 4;
  RS_RETURN_IF_ERROR(CheckLength(remark_length, limits.max_remark_length, pos, size, "remark"));
  if (remark_length > 0) {
    command->remark.emplace(reinterpret_cast<const char*>(p + pos),
                            static_cast<size_t>(remark_length));
  } else {
    command->remark.reset();
  }
  pos += static_cast<size_t>(remark_length);

  if (size - pos < 4) {
    return InvalidArgument("binary header: the remark leaves no room for extFieldsLength");
  }
  const int32_t map_length = DecodeInt32BE(p + pos);
  pos += 4;
  RS_RETURN_IF_ERROR(
      CheckLength(map_length, std::numeric_limits<uint32_t>::max(), pos, size, "extFields map"));
  const size_t end = pos + static_cast<size_t>(map_length);
  command->ext_fields.Clear();
  while (pos < end) {
    if (end - pos < 2) return InvalidArgument("binary header: extFields entry cut short");
    const int16_t key_length = DecodeInt16BE(p + pos);
    pos += 2;
    RS_RETURN_IF_ERROR(CheckLength(key_length, limits.max_key_length, pos, end, "extFields name"));
    const std::string_view key(reinterpret_cast<const char*>(p + pos),
                               static_cast<size_t>(key_length));
    pos += static_cast<size_t>(key_length);
    if (end - pos < 4) return InvalidArgument("binary header: extFields entry cut short");
    const int32_t value_length = DecodeInt32BE(p + pos);
    pos += 4;
    RS_RETURN_IF_ERROR(
        CheckLength(value_length, limits.max_value_length, pos, end, "extFields value"));
    const std::string_view value(reinterpret_cast<const char*>(p + pos),
                                 static_cast<size_t>(value_length));
    pos += static_cast<size_t>(value_length);
    if (key.empty() || value.empty()) continue;  // Java reads a 0-length string as null
    command->ext_fields.Set(key, value);
    if (command->ext_fields.size() > limits.max_ext_fields) {
      return ResourceExhausted("more than " + std::to_string(limits.max_ext_fields) + " extFields");
    }
  }
  // Bytes after the map are ignored, as Java does.
  return Status::OK();
}

Status EncodeBinaryHeader(const RemotingCommand& command, std::vector<uint8_t>* out) {
  if (!FitsInt16(command.code)) {
    return InvalidArgument("code " + std::to_string(command.code) +
                           " does not fit the binary header's short");
  }
  if (!FitsInt16(command.version)) {
    return InvalidArgument("version " + std::to_string(command.version) +
                           " does not fit the binary header's short");
  }
  const std::string_view remark = command.remark ? std::string_view(*command.remark) : "";
  size_t map_length = 0;
  size_t long_name = 0;
  command.ForEachField([&](std::string_view name, std::string_view value) {
    if (name.empty() || value.empty()) return true;
    if (name.size() > static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
      long_name = name.size();
      return false;
    }
    map_length += 2 + name.size() + 4 + value.size();
    return true;
  });
  if (long_name > 0) {
    return InvalidArgument("extFields name of " + N(long_name) +
                           " bytes does not fit the binary header's short length");
  }
  constexpr size_t kIntMax = std::numeric_limits<int32_t>::max();
  if (remark.size() > kIntMax || map_length > kIntMax) {
    return ResourceExhausted("binary header larger than 2 GiB");
  }
  out->reserve(out->size() + kMinBinaryHeaderLength + remark.size() + map_length);
  Put16(out, static_cast<uint16_t>(command.code));
  out->push_back(static_cast<uint8_t>(command.language));
  Put16(out, static_cast<uint16_t>(command.version));
  Put32(out, static_cast<uint32_t>(command.opaque));
  Put32(out, static_cast<uint32_t>(command.flag));
  Put32(out, static_cast<uint32_t>(remark.size()));
  PutBytes(out, remark);
  Put32(out, static_cast<uint32_t>(map_length));
  command.ForEachField([&](std::string_view name, std::string_view value) {
    if (name.empty() || value.empty()) return true;
    Put16(out, static_cast<uint16_t>(name.size()));
    PutBytes(out, name);
    Put32(out, static_cast<uint32_t>(value.size()));
    PutBytes(out, value);
    return true;
  });
  return Status::OK();
}

}  // namespace rocketstore::protocol::internal
