// File: base/coding.h
//
// Fixed-width integer coding. Every RocketMQ-defined file and the wire protocol are
// BIG-ENDIAN (Java ByteBuffer default), so these are the only encoders the store uses.
// The functions work on unaligned memory and compile to a load/store plus bswap.
//
// Also: uppercase hex (RocketMQ's UtilAll.bytes2string alphabet "0123456789ABCDEF").
//
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocketstore {

namespace coding_internal {
template <typename T>
inline T ToBig(T v) {
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof(T) == 2)
      return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
    if constexpr (sizeof(T) == 8)
      return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
  return v;
}
}  // namespace coding_internal

inline void EncodeFixed16BE(void* dst, uint16_t v) {
  v = coding_internal::ToBig(v);
  std::memcpy(dst, &v, 2);
}
inline void EncodeFixed32BE(void* dst, uint32_t v) {
  v = coding_internal::ToBig(v);
  std::memcpy(dst, &v, 4);
}
inline void EncodeFixed64BE(void* dst, uint64_t v) {
  v = coding_internal::ToBig(v);
  std::memcpy(dst, &v, 8);
}
inline uint16_t DecodeFixed16BE(const void* src) {
  uint16_t v;
  std::memcpy(&v, src, 2);
  return coding_internal::ToBig(v);
}
inline uint32_t DecodeFixed32BE(const void* src) {
  uint32_t v;
  std::memcpy(&v, src, 4);
  return coding_internal::ToBig(v);
}
inline uint64_t DecodeFixed64BE(const void* src) {
  uint64_t v;
  std::memcpy(&v, src, 8);
  return coding_internal::ToBig(v);
}
// Java's signed views of the same bytes.
inline int16_t DecodeInt16BE(const void* src) { return static_cast<int16_t>(DecodeFixed16BE(src)); }
inline int32_t DecodeInt32BE(const void* src) { return static_cast<int32_t>(DecodeFixed32BE(src)); }
inline int64_t DecodeInt64BE(const void* src) { return static_cast<int64_t>(DecodeFixed64BE(src)); }

// "0123456789ABCDEF" hex of `bytes`, 2 characters per byte.
std::string HexUpper(const void* bytes, size_t n);
// HexUpper into `out` (room for 2 * n characters, not terminated): a byte's two digits
// at a time from a table (a send's answer writes a message id this way on every send).
void HexUpperTo(const void* bytes, size_t n, char* out);
// Inverse of HexUpper, accepting either case. nullopt on odd length or a non-hex char.
std::optional<std::vector<uint8_t>> HexDecode(std::string_view hex);

}  // namespace rocketstore
