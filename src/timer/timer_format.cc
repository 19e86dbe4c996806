#include "timer/timer_format.h"

#include <cstdio>
#include <cstring>
#include <tuple>

#include "base/coding.h"
#include "base/crc32.h"

namespace rocketstore::timer {

namespace {
int KindRank(TimerEntryKind k) { return k == TimerEntryKind::kAdd ? 1 : 0; }
}  // namespace

bool TimerEntry::operator<(const TimerEntry& o) const {
  return std::make_tuple(deliver_ms, KindRank(kind), offset, static_cast<int>(kind)) <
         std::make_tuple(o.deliver_ms, KindRank(o.kind), o.offset, static_cast<int>(o.kind));
}

void EncodeEntry(const TimerEntry& e, uint8_t* dst) {
  EncodeFixed64BE(dst, static_cast<uint64_t>(e.deliver_ms));
  EncodeFixed64BE(dst + 8, static_cast<uint64_t>(e.offset));
  if (e.kind == TimerEntryKind::kRolledAway) {
    EncodeFixed64BE(dst + 16, static_cast<uint64_t>(e.by_offset));
  } else {
    EncodeFixed32BE(dst + 16, static_cast<uint32_t>(e.size));
    EncodeFixed32BE(dst + 20, e.key_hash);
  }
  dst[24] = static_cast<uint8_t>(e.kind);
  dst[25] = dst[26] = dst[27] = 0;
  EncodeFixed32BE(dst + 28, Crc32(dst, 28));
}

std::optional<TimerEntry> DecodeEntry(const uint8_t* src) {
  if (DecodeFixed32BE(src + 28) != Crc32(src, 28)) return std::nullopt;
  if (src[25] != 0 || src[26] != 0 || src[27] != 0) return std::nullopt;
  const uint8_t kind = src[24];
  if (kind < 1 || kind > 3) return std::nullopt;
  TimerEntry e;
  e.deliver_ms = DecodeInt64BE(src);
  e.offset = DecodeInt64BE(src + 8);
  e.kind = static_cast<TimerEntryKind>(kind);
  if (e.kind == TimerEntryKind::kRolledAway) {
    e.by_offset = DecodeInt64BE(src + 16);
  } else {
    e.size = DecodeInt32BE(src + 16);
    e.key_hash = DecodeFixed32BE(src + 20);
  }
  return e;
}

uint32_t KeyHash(std::string_view delete_key) {
  return Crc32(delete_key.data(), delete_key.size());
}

std::string DeleteKey(std::string_view real_topic, std::string_view uniq_key) {
  std::string k(real_topic);
  k += '+';
  k += uniq_key;
  return k;
}

std::string BucketFileName(int level, int64_t window_start_ms) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%d_%020lld", level, static_cast<long long>(window_start_ms));
  return buf;
}

std::optional<BucketName> ParseBucketFileName(std::string_view name) {
  if (name.size() != 22 || name[1] != '_' || name[0] < '0' || name[0] >= '0' + kLevels) {
    return std::nullopt;
  }
  std::optional<int64_t> start = ParseLong(name.substr(2));
  if (!start || *start < 0 || name[2] == '-' || name[2] == '+') return std::nullopt;
  return BucketName{name[0] - '0', *start};
}

std::string EncodeState(const StateRecord& s) {
  std::string out(kStateFileSize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  EncodeFixed32BE(p, kStateMagic);
  EncodeFixed32BE(p + 4, kStateVersion);
  EncodeFixed64BE(p + 8, static_cast<uint64_t>(s.a));
  EncodeFixed64BE(p + 16, static_cast<uint64_t>(s.b));
  EncodeFixed32BE(p + 24, Crc32(p, 24));
  return out;
}

Result<StateRecord> DecodeState(std::string_view bytes) {
  if (bytes.size() != kStateFileSize) {
    return Corruption("timer state file: " + std::to_string(bytes.size()) + " bytes, want " +
                      std::to_string(kStateFileSize));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  if (DecodeFixed32BE(p) != kStateMagic || DecodeFixed32BE(p + 4) != kStateVersion) {
    return Corruption("timer state file: bad magic or version");
  }
  if (DecodeFixed32BE(p + 24) != Crc32(p, 24)) return Corruption("timer state file: bad crc");
  return StateRecord{DecodeInt64BE(p + 8), DecodeInt64BE(p + 16)};
}

std::optional<int64_t> ParseLong(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
    if (s.size() == 1) return std::nullopt;
  }
  uint64_t v = 0;
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

}  // namespace rocketstore::timer
