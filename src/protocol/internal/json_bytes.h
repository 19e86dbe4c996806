// File: protocol/internal/json_bytes.h
//
// The byte-level rules the JSON header's hand-written readers and writer share
// (fastjson_header.cc, internal/json_scanner.h, json_header.cc), so there is one
// definition of what a JSON string may carry as is and of the ASCII escapes they read.
//
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rocketstore::protocol::internal {

// The word-at-a-time scans that use JsonSpecialBytes find the first special byte with
// countr_zero / 8: the lowest-addressed byte is the least significant only on a
// little-endian machine.
static_assert(std::endian::native == std::endian::little,
              "the JSON header's word-at-a-time scans assume a little-endian machine");

// 0x80 in each byte of `word` that a JSON string cannot carry as is — '"', '\\', a control
// byte (< 0x20) or a non-ASCII byte (>= 0x80) — and 0 elsewhere. Exact: no carry crosses
// a byte, because every sum is of two bytes below 0x80.
inline uint64_t JsonSpecialBytes(uint64_t word) {
  constexpr uint64_t kLows = 0x7F7F7F7F7F7F7F7FULL;
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  auto zero_bytes = [](uint64_t v) { return ~(((v & kLows) + kLows) | v | kLows); };
  // (b & 0x7F) + 0x60 reaches 0x80 exactly when (b & 0x7F) >= 0x20.
  const uint64_t control = ~(((word & kLows) + kOnes * 0x60) | word | kLows);
  return zero_bytes(word ^ (kOnes * '"')) | zero_bytes(word ^ (kOnes * '\\')) | control |
         (word & ~kLows);
}

// Whether byte `b` is one JsonSpecialBytes marks.
inline bool IsJsonSpecialByte(uint8_t b) { return b < 0x20 || b >= 0x80 || b == '"' || b == '\\'; }

#if defined(__SSE2__)
inline constexpr bool kJsonScan16 = true;
// Bit k set for each byte k of the 16 at `p` that JsonSpecialBytes would mark: a signed
// compare below 0x20 takes the control bytes and the non-ASCII ones (negative) at once.
inline uint32_t JsonSpecialMask16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  const __m128i below = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  return static_cast<uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), below)));
}
#else
inline constexpr bool kJsonScan16 = false;
inline uint32_t JsonSpecialMask16(const char*) { return 0; }
#endif

// The first byte in [p, end) that JsonSpecialBytes marks, or `end`: sixteen bytes at a
// time (SSE2) while sixteen remain, then eight. (The readers' one scan for the end of a
// plain run.)
inline const char* SkipJsonPlain(const char* p, const char* end) {
  if constexpr (kJsonScan16) {
    while (end - p >= 16) {
      if (const uint32_t special = JsonSpecialMask16(p); special != 0) {
        return p + std::countr_zero(special);
      }
      p += 16;
    }
  }
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    if (const uint64_t special = JsonSpecialBytes(word); special != 0) {
      return p + std::countr_zero(special) / 8;  // little-endian
    }
    p += 8;
  }
  while (p != end && !IsJsonSpecialByte(static_cast<uint8_t>(*p))) ++p;
  return p;
}

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The escape at `q` (a backslash; `end` bounds the text) when it stands for an ASCII
// character: stores that character in `*out` and returns the bytes the escape took (2 or
// 6); 0 for any other escape (\u of a non-ASCII character, a surrogate, a bad escape),
// which these readers leave to RapidJSON.
inline int UnescapeAscii(const char* q, const char* end, char* out) {
  if (end - q < 2) return 0;
  switch (q[1]) {
    case '"':
    case '\\':
    case '/':
      *out = q[1];
      return 2;
    case 'b':
      *out = '\b';
      return 2;
    case 'f':
      *out = '\f';
      return 2;
    case 'n':
      *out = '\n';
      return 2;
    case 'r':
      *out = '\r';
      return 2;
    case 't':
      *out = '\t';
      return 2;
    case 'u': {
      // \u00XX below 0x80 only: others need UTF-8 encoding and surrogate rules.
      if (end - q < 6 || q[2] != '0' || q[3] != '0') return 0;
      const int hi = HexDigit(q[4]), lo = HexDigit(q[5]);
      if (hi < 0 || hi > 7 || lo < 0) return 0;
      *out = static_cast<char>(hi * 16 + lo);
      return 6;
    }
    default:
      return 0;
  }
}

}  // namespace rocketstore::protocol::internal
