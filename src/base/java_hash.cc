#include "base/java_hash.h"

#include <cstring>

namespace rocketstore {
namespace {

// Decodes one code point from `s` at `i`; advances `i`. Malformed input yields U+FFFD
// and consumes one byte, as Java's UTF-8 decoder does for a bad lead byte.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  const auto b0 = static_cast<uint8_t>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++i;
    return 0xFFFD;
  }
  if (i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return 0xFFFD;
  }
  i += len;
  return cp;
}

template <typename F>
void ForEachUtf16Unit(std::string_view s, F&& f) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {  // ASCII fast path
      f(c);
      ++i;
      continue;
    }
    uint32_t cp = NextCodePoint(s, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      f(0xD800 + (cp >> 10));
      f(0xDC00 + (cp & 0x3FF));
    } else {
      f(cp);
    }
  }
}

}  // namespace

int32_t JavaStringHash(std::string_view utf8) { return JavaStringHash(utf8, 0); }

int32_t JavaStringHash(std::string_view utf8, int32_t seed) {
  // ASCII (topics, keys, tags almost always are) eight bytes at a time: each byte is one
  // UTF-16 unit, and h*31^8 + sum(c[k] * 31^(7-k)) is the same wrapping arithmetic as
  // eight steps of h = 31*h + c, with independent products instead of a chain.
  constexpr uint32_t kP1 = 31, kP2 = kP1 * 31, kP3 = kP2 * 31, kP4 = kP3 * 31, kP5 = kP4 * 31,
                     kP6 = kP5 * 31, kP7 = kP6 * 31, kP8 = kP7 * 31;
  const auto* p = reinterpret_cast<const uint8_t*>(utf8.data());
  size_t i = 0;
  auto h = static_cast<uint32_t>(seed);
  for (; i + 8 <= utf8.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, sizeof(word));
    if ((word & 0x8080808080808080ULL) != 0) break;
    h = h * kP8 + p[i] * kP7 + p[i + 1] * kP6 + p[i + 2] * kP5 + p[i + 3] * kP4 + p[i + 4] * kP3 +
        p[i + 5] * kP2 + p[i + 6] * kP1 + p[i + 7];
  }
  ForEachUtf16Unit(utf8.substr(i), [&](uint32_t unit) { h = 31 * h + unit; });
  return static_cast<int32_t>(h);
}

size_t JavaStringLength(std::string_view utf8) {
  size_t n = 0;
  ForEachUtf16Unit(utf8, [&](uint32_t) { ++n; });
  return n;
}

}  // namespace rocketstore
