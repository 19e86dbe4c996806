#include "base/coding.h"

#include <array>
#include <cstring>

namespace rocketstore {

namespace {

// The two upper-case hex digits of every byte value, in output order.
constexpr std::array<char, 512> kHexPairs = [] {
  constexpr char kDigits[] = "0123456789ABCDEF";
  std::array<char, 512> pairs{};
  for (size_t b = 0; b < 256; ++b) {
    pairs[2 * b] = kDigits[b >> 4];
    pairs[2 * b + 1] = kDigits[b & 0xF];
  }
  return pairs;
}();

}  // namespace

void HexUpperTo(const void* bytes, size_t n, char* out) {
  const auto* p = static_cast<const uint8_t*>(bytes);
  for (size_t i = 0; i < n; ++i) std::memcpy(out + 2 * i, &kHexPairs[2 * size_t{p[i]}], 2);
}

std::string HexUpper(const void* bytes, size_t n) {
  std::string out(n * 2, '0');
  HexUpperTo(bytes, n, out.data());
  return out;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::vector<uint8_t>> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

}  // namespace rocketstore
