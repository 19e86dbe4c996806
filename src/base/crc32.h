// File: base/crc32.h
//
// CRC-32 exactly as RocketMQ computes it (UtilAll.crc32): the IEEE 802.3 / zlib CRC
// (reflected polynomial 0xEDB88320, init and xorout 0xFFFFFFFF) of the bytes, then
// ANDed with 0x7FFFFFFF, so the stored value is never negative. crc32 of no bytes = 0.
//
// The implementation is ISA-L's crc32_gzip_refl (PCLMUL/VPCLMUL folding, ~10x zlib's
// table code on the message-append hot path); tests cross-check it against zlib.
//
// Example: RocketMqCrc32("hello") == 907060870 (0x3610A686).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rocketstore {

// Plain zlib-compatible CRC-32; `crc` continues a previous call (0 to start).
uint32_t Crc32(const void* data, size_t n, uint32_t crc = 0);

// RocketMQ's masked CRC: Crc32(data) & 0x7FFFFFFF.
inline uint32_t RocketMqCrc32(const void* data, size_t n) { return Crc32(data, n) & 0x7FFFFFFFu; }
inline uint32_t RocketMqCrc32(std::string_view s) { return RocketMqCrc32(s.data(), s.size()); }

}  // namespace rocketstore
