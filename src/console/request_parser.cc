#include "console/request_parser.h"

#include <charconv>
#include <optional>

#include "console/utf8.h"

namespace rocketstore::console {

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes one name or value; `what` names it in an error.
Result<std::string> Unescape(std::string_view s, std::string_view what) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      const int hi = i + 1 < s.size() ? HexValue(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return Invalid("bad percent-encoding in " + std::string(what) + " at byte " +
                       std::to_string(i) +
                       ": '%' must be followed by two hex digits (send %25 "
                       "for a '%')");
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  if (out.find('\0') != std::string::npos) {
    return Invalid(std::string(what) + " holds a NUL byte (%00): remove it");
  }
  if (!IsValidUtf8(out)) {
    return Invalid(std::string(what) + " is not UTF-8 once decoded: send UTF-8 text");
  }
  return out;
}

// The text quoted in an error: at most 40 bytes, cut at a character boundary.
std::string Excerpt(std::string_view s) {
  if (s.size() <= 40) return std::string(s);
  size_t n = 40;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

// n digits at s[pos..pos+n) -> value; nullopt if any is not a digit.
std::optional<int> Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "YYYY-MM-DDTHH:MM[:SS[.m{1,3}]][Z]" as UTC epoch ms; nullopt when not that form.
std::optional<int64_t> ParseIsoUtc(std::string_view s) {
  auto y = Digits(s, 0, 4), mo = Digits(s, 5, 2), d = Digits(s, 8, 2), h = Digits(s, 11, 2),
       mi = Digits(s, 14, 2);
  if (!y || !mo || !d || !h || !mi || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':') {
    return std::nullopt;
  }
  size_t pos = 16;
  int sec = 0, ms = 0;
  if (pos < s.size() && s[pos] == ':') {
    auto ss = Digits(s, pos + 1, 2);
    if (!ss) return std::nullopt;
    sec = *ss;
    pos += 3;
    if (pos < s.size() && s[pos] == '.') {
      size_t n = 0;
      int frac = 0;
      while (pos + 1 + n < s.size() && n < 3 && s[pos + 1 + n] >= '0' && s[pos + 1 + n] <= '9') {
        frac = frac * 10 + (s[pos + 1 + n] - '0');
        ++n;
      }
      if (n == 0) return std::nullopt;
      for (size_t k = n; k < 3; ++k) frac *= 10;
      ms = frac;
      pos += 1 + n;
    }
  }
  if (pos < s.size() && s[pos] == 'Z') ++pos;
  if (pos != s.size()) return std::nullopt;
  if (*y < 1970 || *mo < 1 || *mo > 12 || *d < 1 || *d > DaysInMonth(*y, *mo) || *h > 23 ||
      *mi > 59 || sec > 59) {
    return std::nullopt;
  }
  const int64_t days = DaysFromCivil(*y, *mo, *d);
  return ((days * 24 + *h) * 60 + *mi) * 60000 + int64_t{sec} * 1000 + ms;
}

}  // namespace

Status DecodeParams(std::string_view text, std::map<std::string, std::string>* params) {
  size_t count = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('&', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view piece = text.substr(pos, end - pos);
    pos = end + 1;
    if (piece.empty()) continue;
    if (++count > kMaxParams) {
      return Invalid("more than " + std::to_string(kMaxParams) +
                     " parameters: the console's endpoints take a few; send only those");
    }
    const size_t eq = piece.find('=');
    auto name = Unescape(piece.substr(0, eq), "a parameter name");
    if (!name.ok()) return name.status();
    if (name->empty()) return Invalid("a parameter without a name (\"=...\"): send name=value");
    auto value = Unescape(eq == std::string_view::npos ? std::string_view() : piece.substr(eq + 1),
                          "parameter '" + Excerpt(*name) + "'");
    if (!value.ok()) return value.status();
    params->emplace(std::move(name).value(), std::move(value).value());  // first wins
  }
  return Status::OK();
}

Result<int64_t> ParseInt(std::string_view name, std::string_view text, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Invalid("parameter '" + std::string(name) + "' is not an integer (got \"" +
                   Excerpt(text) + "\"): send a decimal number");
  }
  if (v < min || v > max) {
    return Invalid("parameter '" + std::string(name) + "' = " + std::to_string(v) +
                   " is out of range: use " + std::to_string(min) + ".." + std::to_string(max));
  }
  return v;
}

Result<bool> ParseBool(std::string_view name, std::string_view text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return Invalid("parameter '" + std::string(name) + "' must be true or false (got \"" +
                 Excerpt(text) + "\")");
}

Result<int64_t> ParseTime(std::string_view name, std::string_view text) {
  // Epoch milliseconds: digits only (no sign: "-0" is not a time).
  int64_t v = 0;
  const bool digits =
      !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (digits && ec == std::errc() && end == text.data() + text.size()) return v;
  if (auto iso = ParseIsoUtc(text)) return *iso;
  return Invalid("parameter '" + std::string(name) + "' is not a time (got \"" + Excerpt(text) +
                 "\"): send epoch milliseconds or YYYY-MM-DDTHH:MM[:SS] (UTC), e.g. "
                 "2026-01-31T23:59:00");
}

}  // namespace rocketstore::console
