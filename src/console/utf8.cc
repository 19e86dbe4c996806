#include "console/utf8.h"

#include <cstdint>

namespace rocketstore::console {

namespace {

// The length of the well-formed sequence at s[i] (1..4), or 0 when there is none.
size_t SequenceAt(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 1;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 2;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 3;
    cp = c & 0x07;
  } else {
    return 0;  // a continuation byte first, an overlong lead (C0, C1) or past F4
  }
  if (i + n >= s.size()) return 0;  // truncated
  for (size_t k = 1; k <= n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n + 1;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ToValidUtf8(std::string_view s, size_t* replaced) {
  std::string out;
  out.reserve(s.size());
  size_t count = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceAt(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++count;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (replaced != nullptr) *replaced = count;
  return out;
}

}  // namespace rocketstore::console
