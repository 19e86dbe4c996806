#include "broker/schedule/delay_level_table.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/java_hash.h"
#include "broker/system_topics.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

namespace {
Status BadLevel(std::string_view item, std::string_view why) {
  return InvalidArgument("messageDelayLevel: \"" + std::string(item) + "\" " + std::string(why) +
                         " (expected durations like \"1s 5s 10s 30s 1m 2h 1d\": a number and "
                         "one unit of s, m, h, d)");
}

Result<int64_t> ParseDuration(std::string_view item) {
  int64_t unit_ms = 0;
  switch (item.back()) {
    case 's':
      unit_ms = 1000;
      break;
    case 'm':
      unit_ms = 60 * 1000;
      break;
    case 'h':
      unit_ms = 60 * 60 * 1000;
      break;
    case 'd':
      unit_ms = 24 * 60 * 60 * 1000;
      break;
    default:
      return BadLevel(item, "has no unit s, m, h or d");
  }
  const std::string_view digits = item.substr(0, item.size() - 1);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 0) {
    return BadLevel(item, "is not a non-negative number with a unit");
  }
  if (n > std::numeric_limits<int64_t>::max() / unit_ms) return BadLevel(item, "is too long");
  return n * unit_ms;
}
}  // namespace

Result<DelayLevelTable> DelayLevelTable::Parse(std::string_view levels) {
  DelayLevelTable t;
  t.text_ = std::string(levels);
  size_t pos = 0;
  while (pos < levels.size()) {
    if (levels[pos] == ' ') {
      ++pos;
      continue;
    }
    size_t end = levels.find(' ', pos);
    if (end == std::string_view::npos) end = levels.size();
    RS_ASSIGN_OR_RETURN(int64_t ms, ParseDuration(levels.substr(pos, end - pos)));
    t.delays_ms_.push_back(ms);
    pos = end;
  }
  if (t.delays_ms_.empty()) {
    return InvalidArgument("messageDelayLevel is empty (expected durations like \"1s 5s 10s\")");
  }
  return t;
}

DelayLevelTable DelayLevelTable::Default() { return *Parse(kDefaultMessageDelayLevel); }

int64_t DelayLevelTable::DeliverTimestamp(int level, int64_t store_timestamp) const {
  if (level < 1 || level > max_level()) return store_timestamp + 1000;
  return store_timestamp + DelayMs(level);
}

int64_t DelayLevelTable::TagsCode(const DispatchRequest& r) const {
  // The store's default (DefaultTagsCode, store/dispatch/dispatcher.h, below this layer).
  auto tag_hash = [&r] {
    return r.tags.empty() ? int64_t{0} : static_cast<int64_t>(JavaStringHash(r.tags));
  };
  if (r.topic != kScheduleTopic) return tag_hash();
  auto delay = format::FindProperty(r.properties, format::kPropertyDelay);
  if (!delay) return tag_hash();
  auto level = ParseDelayLevel(*delay);
  if (!level || *level <= 0) return tag_hash();
  return DeliverTimestamp(std::min(*level, max_level()), r.store_timestamp);
}

std::optional<int32_t> ParseDelayLevel(std::string_view value) {
  if (value.size() > 1 && value.front() == '+' && value[1] != '-') value.remove_prefix(1);
  int32_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
    return std::nullopt;
  }
  return n;
}

}  // namespace rocketstore::broker
