// libFuzzer target for the web console's request decoding (console/request_parser.h,
// console/utf8.h), which turns what a browser or a script sends into the API's parameters.
// The input is "<query string>\n<form body>" (no newline: a query string only), decoded as
// ConsoleServer does (query first, then body; first value wins). Checks:
//   * decoding never crashes; a refusal's message is UTF-8 (it goes into a JSON answer);
//   * what is accepted has non-empty UTF-8 names and values without NUL, at most
//     kMaxParams of them per source, and percent-encoding it again decodes to the same;
//   * ParseInt / ParseBool / ParseTime on every value and on the raw input: an accepted
//     integer is in range and prints back to the same number, an accepted bool is one of
//     the four words, an accepted time is >= 0 and, for the ISO form, equals libc's
//     timegm() of its fields, whose gmtime() gives the same fields back (so no impossible
//     date such as February 30th gets through);
//   * ToValidUtf8 always yields valid UTF-8, the input itself when it was valid.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <string_view>

#include "console/request_parser.h"
#include "console/utf8.h"
#include "fuzz_check.h"  // this directory

namespace {

using namespace rocketstore;           // NOLINT(build/namespaces)
using namespace rocketstore::console;  // NOLINT(build/namespaces)

std::string Encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

int Field(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

void CheckTime(std::string_view text) {
  auto r = ParseTime("t", text);
  if (!r.ok()) {
    FUZZ_CHECK(r.status().code() == StatusCode::kInvalidArgument);
    if (IsValidUtf8(text)) FUZZ_CHECK(IsValidUtf8(r.status().message()));
    return;
  }
  FUZZ_CHECK(*r >= 0);
  if (text.find_first_not_of("0123456789") == std::string_view::npos) return;  // epoch ms
  // The ISO form: the fields sit at fixed places (the parser accepted it).
  FUZZ_CHECK(text.size() >= 16);
  std::tm tm{};
  tm.tm_year = Field(text, 0, 4) - 1900;
  tm.tm_mon = Field(text, 5, 2) - 1;
  tm.tm_mday = Field(text, 8, 2);
  tm.tm_hour = Field(text, 11, 2);
  tm.tm_min = Field(text, 14, 2);
  int ms = 0;
  if (text.size() > 16 && text[16] == ':') {
    tm.tm_sec = Field(text, 17, 2);
    if (text.size() > 19 && text[19] == '.') {
      size_t n = 0;
      while (20 + n < text.size() && n < 3 && text[20 + n] >= '0' && text[20 + n] <= '9') ++n;
      ms = Field(text, 20, n);
      for (size_t k = n; k < 3; ++k) ms *= 10;
    }
  }
  const std::tm asked = tm;
  const time_t t = timegm(&tm);
  FUZZ_CHECK(*r == static_cast<int64_t>(t) * 1000 + ms);
  std::tm back{};
  FUZZ_CHECK(gmtime_r(&t, &back) != nullptr);
  FUZZ_CHECK(back.tm_year == asked.tm_year && back.tm_mon == asked.tm_mon &&
             back.tm_mday == asked.tm_mday && back.tm_hour == asked.tm_hour &&
             back.tm_min == asked.tm_min && back.tm_sec == asked.tm_sec);
}

void CheckValue(std::string_view v) {
  auto i = ParseInt("n", v, -1000, 1000);
  if (i.ok()) {
    FUZZ_CHECK(*i >= -1000 && *i <= 1000);
    auto again = ParseInt("n", std::to_string(*i), -1000, 1000);
    FUZZ_CHECK(again.ok() && *again == *i);
  } else if (IsValidUtf8(v)) {
    FUZZ_CHECK(IsValidUtf8(i.status().message()));
  }
  auto b = ParseBool("b", v);
  if (b.ok()) FUZZ_CHECK(v == "true" || v == "false" || v == "1" || v == "0");
  CheckTime(v);
}

void CheckDecode(std::string_view text, std::map<std::string, std::string>* params) {
  std::map<std::string, std::string> alone;
  Status s = DecodeParams(text, &alone);
  if (!s.ok()) {
    FUZZ_CHECK(s.code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(IsValidUtf8(s.message()));
    return;
  }
  FUZZ_CHECK(alone.size() <= kMaxParams);
  std::string again;
  for (const auto& [name, value] : alone) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(IsValidUtf8(name) && IsValidUtf8(value));
    FUZZ_CHECK(name.find('\0') == std::string::npos && value.find('\0') == std::string::npos);
    if (!again.empty()) again += '&';
    again += Encode(name) + "=" + Encode(value);
  }
  std::map<std::string, std::string> round_trip;
  FUZZ_CHECK(DecodeParams(again, &round_trip).ok());
  FUZZ_CHECK(round_trip == alone);
  // Into the shared map (query, then body): a name already there keeps its value.
  std::map<std::string, std::string> before = *params;
  FUZZ_CHECK(DecodeParams(text, params).ok());
  for (const auto& [name, value] : before) FUZZ_CHECK(params->at(name) == value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view query = input.substr(0, nl);
  const std::string_view body =
      nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  std::map<std::string, std::string> params;
  CheckDecode(query, &params);
  CheckDecode(body, &params);
  for (const auto& [name, value] : params) CheckValue(value);
  CheckValue(input);
  size_t replaced = 0;
  const std::string valid = ToValidUtf8(input, &replaced);
  FUZZ_CHECK(IsValidUtf8(valid));
  FUZZ_CHECK((replaced == 0) == IsValidUtf8(input));
  if (replaced == 0) FUZZ_CHECK(valid == input);
  return 0;
}
