#include "timer/recall_handle.h"

#include <vector>

namespace rocketstore::timer {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (rest == 2) v |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<std::string> Base64UrlDecode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return InvalidArgument("not Base64");
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = Value(c);
    if (v < 0) return InvalidArgument("not Base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

std::string EncodeRecallHandle(const RecallHandle& h) {
  return Base64UrlEncode("v1 " + h.topic + " " + h.broker_name + " " + h.timestamp + " " +
                         h.message_id);
}

Result<RecallHandle> DecodeRecallHandle(std::string_view handle) {
  const Status invalid = InvalidArgument("recall handle is invalid");
  if (handle.empty()) return invalid;
  Result<std::string> raw = Base64UrlDecode(handle);
  if (!raw.ok()) return invalid;
  std::vector<std::string> items;
  std::string_view rest = *raw;
  while (true) {  // Java's split(" "): trailing empty strings dropped
    const size_t sp = rest.find(' ');
    items.emplace_back(rest.substr(0, sp));
    if (sp == std::string_view::npos) break;
    rest = rest.substr(sp + 1);
  }
  while (!items.empty() && items.back().empty()) items.pop_back();
  if (items.empty() || items[0] != "v1" || items.size() < 5) return invalid;
  return RecallHandle{items[1], items[2], items[3], items[4]};
}

}  // namespace rocketstore::timer
