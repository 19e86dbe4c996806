#include "store/format/message_id.h"

#include <cstring>

#include "base/coding.h"

namespace rocketstore::format {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

void EncodeOffsetMsgIdTo(const HostAddress& store_host, int64_t physical_offset, char* out) {
  uint8_t bytes[28];
  EncodeHost(store_host, bytes);
  const size_t host_size = store_host.EncodedSize();
  EncodeFixed64BE(bytes + host_size, static_cast<uint64_t>(physical_offset));
  HexUpperTo(bytes, host_size + 8, out);
}

std::string EncodeOffsetMsgId(const HostAddress& store_host, int64_t physical_offset) {
  std::string out(OffsetMsgIdLength(store_host), '0');
  EncodeOffsetMsgIdTo(store_host, physical_offset, out.data());
  return out;
}

Result<OffsetMsgId> DecodeOffsetMsgId(std::string_view msg_id) {
  if (msg_id.size() != kOffsetMsgIdLengthV4 && msg_id.size() != kOffsetMsgIdLengthV6) {
    return InvalidArgument("offset msgId must be 32 (IPv4) or 56 (IPv6) hex characters, got " +
                           std::to_string(msg_id.size()));
  }
  uint8_t bytes[28];
  for (size_t i = 0; i < msg_id.size() / 2; ++i) {
    const int hi = HexDigit(msg_id[2 * i]);
    const int lo = HexDigit(msg_id[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      const size_t bad = hi < 0 ? 2 * i : 2 * i + 1;
      return InvalidArgument("offset msgId has a non-hex character at position " +
                             std::to_string(bad));
    }
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  OffsetMsgId id;
  id.host.v6 = msg_id.size() == kOffsetMsgIdLengthV6;
  const size_t addr = id.host.AddressSize();
  std::memcpy(id.host.ip.data(), bytes, addr);
  id.host.port = DecodeInt32BE(bytes + addr);
  id.physical_offset = DecodeInt64BE(bytes + addr + 4);
  if (id.physical_offset < 0) {
    return InvalidArgument("offset msgId encodes a negative physical offset " +
                           std::to_string(id.physical_offset));
  }
  return id;
}

}  // namespace rocketstore::format
