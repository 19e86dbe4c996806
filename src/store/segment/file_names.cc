#include "store/segment/file_names.h"

#include <cstdio>

namespace rocketstore {

std::string SegmentFileName(int64_t start_offset) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020lld", static_cast<long long>(start_offset));
  return buf;
}

std::optional<int64_t> ParseSegmentFileName(std::string_view name) {
  if (name.size() != kSegmentNameLength) return std::nullopt;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    if (v > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace rocketstore
