#include "tools/cli/cli_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "client/route.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/layout/layout.h"
#include "store/segment/file_names.h"

namespace rocketstore::tools::cli {

std::vector<std::string> GlobalOptions::NamesrvAddrs() const {
  std::string text = namesrv;
  if (text.empty()) {
    const char* env = std::getenv("ROCKETSTORE_NAMESRV");
    text = env != nullptr && *env != '\0' ? env : "127.0.0.1:9876";
  }
  return client::SplitNamesrvAddrs(text);
}

int ExitCodeFor(const Status& s) {
  if (s.ok()) return kExitOk;
  if (s.code() == StatusCode::kNotFound) return kExitNotFound;
  if (s.code() == StatusCode::kInvalidArgument) return kExitUsage;
  return kExitError;
}

int Fail(FILE* err, const Status& s, std::string_view hint) {
  fmt::print(err, "error: {}\n", s.message().empty() ? s.ToString() : s.message());
  if (!hint.empty()) fmt::print(err, "hint: {}\n", hint);
  if (s.code() == StatusCode::kUnavailable && hint.empty()) {
    fmt::print(err,
               "hint: check that the name server (--namesrv, $ROCKETSTORE_NAMESRV) and the "
               "brokers are running and reachable\n");
  }
  return ExitCodeFor(s);
}

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out.push_back(ch);
        }
    }
  }
  out += '"';
  return out;
}

void Json::Sep() {
  if (!body_.empty()) body_ += ',';
}
Json& Json::Add(std::string_view key, const Json& v) {
  Sep();
  body_ += JsonQuote(key) + ":" + v.str();
  return *this;
}
Json& Json::Add(std::string_view key, std::string_view v) {
  Sep();
  body_ += JsonQuote(key) + ":" + JsonQuote(v);
  return *this;
}
Json& Json::Add(std::string_view key, int64_t v) {
  Sep();
  body_ += JsonQuote(key) + ":" + std::to_string(v);
  return *this;
}
Json& Json::Add(std::string_view key, double v) {
  Sep();
  body_ += JsonQuote(key) + ":" + fmt::format("{:.3f}", v);
  return *this;
}
Json& Json::Add(std::string_view key, bool v) {
  Sep();
  body_ += JsonQuote(key) + ":" + (v ? "true" : "false");
  return *this;
}
Json& Json::Push(const Json& v) {
  Sep();
  body_ += v.str();
  return *this;
}
Json& Json::Push(std::string_view v) {
  Sep();
  body_ += JsonQuote(v);
  return *this;
}
std::string Json::str() const { return std::string(1, open_) + body_ + (open_ == '{' ? '}' : ']'); }

void Table::Print(FILE* out) const {
  std::vector<size_t> w;
  for (const auto& r : rows_) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  for (const auto& r : rows_) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
    }
    fmt::print(out, "{}\n", line);
  }
}

std::string FormatTime(int64_t ms) {
  if (ms <= 0) return "-";
  const time_t secs = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

bool ParseTime(std::string_view text, int64_t now_ms, int64_t* out) {
  if (text.empty()) return false;
  if (text[0] == '-' && text.size() >= 3) {
    int64_t n = 0;
    auto [p, ec] = std::from_chars(text.data() + 1, text.data() + text.size() - 1, n);
    if (ec != std::errc() || p != text.data() + text.size() - 1) return false;
    const char unit = text.back();
    const int64_t mult = unit == 's'   ? 1000
                         : unit == 'm' ? 60000
                         : unit == 'h' ? 3600000
                         : unit == 'd' ? 86400000
                                       : 0;
    if (mult == 0) return false;
    *out = now_ms - n * mult;
    return true;
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size()) {
    *out = v;
    return true;
  }
  std::tm tm{};
  int ms = 0;
  int y, mo, d, h, mi, s = 0;
  const std::string t(text);
  const int n = std::sscanf(t.c_str(), "%d-%d-%d%*c%d:%d:%d.%d", &y, &mo, &d, &h, &mi, &s, &ms);
  if (n < 5) return false;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = n >= 6 ? s : 0;
  *out = static_cast<int64_t>(timegm(&tm)) * 1000 + (n >= 7 ? ms : 0);
  return true;
}

std::string SegmentExplanation(int64_t offset, int64_t segment_size) {
  const int64_t start = offset / segment_size * segment_size;
  return fmt::format(
      "{}/{} at position {} (offset {} rounded down to the {}-byte "
      "segment size gives the file; the rest is the position)",
      layout::kCommitLogDir, SegmentFileName(start), offset - start, offset, segment_size);
}

std::string ConsumeQueueExplanation(std::string_view topic, int32_t queue_id, int64_t queue_offset,
                                    int64_t file_bytes) {
  const auto unit = static_cast<int64_t>(format::kConsumeQueueUnitSize);
  const int64_t file_size = format::ConsumeQueueUnitsPerFile(file_bytes) * unit;
  const int64_t logical = queue_offset * unit;
  const int64_t start = logical / file_size * file_size;
  return fmt::format(
      "{}/{}/{}/{} at position {} (queue offset {} x {}-byte units = byte {} of the queue; "
      "rounded down to the {}-byte file size gives the file)",
      layout::kConsumeQueueDir, topic, queue_id, SegmentFileName(start), logical - start,
      queue_offset, unit, logical, file_size);
}

std::string IndexExplanation(std::string_view topic, std::string_view key, int32_t hash_slot_num) {
  const std::string full = format::BuildIndexKey(topic, key);
  const int32_t hash = format::IndexKeyHash(full);
  const int32_t slot = format::IndexSlotOf(hash, hash_slot_num);
  const format::IndexGeometry g{hash_slot_num, format::kDefaultIndexNum};
  return fmt::format(
      "key {}: keyHash |String.hashCode()| = {}, slot {} % {} = {} at byte {} (40 + 4 x {}) "
      "of the {}/ file covering the store time; the slot holds the newest entry of its chain "
      "(`rocketstore inspect key {} {}` on the broker's store walks it)",
      full, hash, hash, hash_slot_num, slot, g.SlotPosition(slot), slot, layout::kIndexDir, topic,
      key);
}

}  // namespace rocketstore::tools::cli
