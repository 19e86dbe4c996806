// File: store/format/message_id.h
//
// THE SPECIFICATION of the offset message id ("msgId" in the store, "offsetMsgId" in the
// client), byte-compatible with RocketMQ's MessageDecoder.createMessageId/decodeMessageId.
//
//   bytes  := store host address (4 bytes IPv4 / 16 bytes IPv6, network order)
//             + store port (int, big-endian) + commit-log physical offset (long, big-endian)
//   msgId  := HexUpper(bytes): 32 characters for IPv4, 56 for IPv6.
//
// Example: store 127.0.0.1:10911, offset 0          -> 7F00000100002A9F0000000000000000
//                                  offset 1073741824 -> 7F00000100002A9F0000000040000000
// The address family of a stored record is given by SYSFLAG bit 0x20 (STOREHOST V6). The
// broker answers a query by msgId by decoding the offset and reading the record there.
//
// The client-generated UNIQ_KEY (MessageClientIDSetter) is a different id; the store only
// indexes it (store/format/properties.h, kPropertyUniqKey).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "store/format/message_record.h"

namespace rocketstore::format {

inline constexpr size_t kOffsetMsgIdLengthV4 = 32;
inline constexpr size_t kOffsetMsgIdLengthV6 = 56;

struct OffsetMsgId {
  HostAddress host;
  int64_t physical_offset = 0;
};

// 32 (IPv4) or 56 (IPv6) characters.
inline size_t OffsetMsgIdLength(const HostAddress& store_host) {
  return store_host.v6 ? kOffsetMsgIdLengthV6 : kOffsetMsgIdLengthV4;
}

// Writes OffsetMsgIdLength(store_host) uppercase hex characters at `out` (no terminator).
void EncodeOffsetMsgIdTo(const HostAddress& store_host, int64_t physical_offset, char* out);
std::string EncodeOffsetMsgId(const HostAddress& store_host, int64_t physical_offset);

// Accepts either hex case. InvalidArgument if the length is not 32 or 56, a character is
// not hex, or the offset is negative.
Result<OffsetMsgId> DecodeOffsetMsgId(std::string_view msg_id);

}  // namespace rocketstore::format
