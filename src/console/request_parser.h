// File: console/request_parser.h
//
// The console's request decoding, with no HTTP library in it (so it is unit-tested and
// fuzzed alone, fuzz/console_request_fuzzer.cc): the parameters of a query string or an
// application/x-www-form-urlencoded body, and the typed values the API reads from them.
//
//   DecodeParams(text, &params): "a=1&b=x%20y+z" -> {a: "1", b: "x y z"}. '+' is a space,
//     %XX a byte (either case); a name without '=' has the value ""; empty pieces ("a&&b")
//     are skipped; the first value of a repeated name wins. Refused, with a message naming
//     the parameter: a '%' not followed by two hex digits, a name or value that is not
//     UTF-8 after decoding (what the API echoes must be valid JSON text) or holds a NUL,
//     an empty name, more than kMaxParams parameters.
//   ParseInt(text, min, max): a decimal integer (optional '-'), nothing else, in range.
//   ParseBool(text): "true"/"1" or "false"/"0".
//   ParseTime(text): epoch milliseconds (digits only), or "YYYY-MM-DDTHH:MM[:SS[.mmm]][Z]" read
//     as UTC (the calendar checked: no February 30th), from 1970 to 9999.
// Errors are kInvalidArgument with a message that says what to send instead; `name` is
// the parameter's name for the message.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore::console {

inline constexpr size_t kMaxParams = 64;

Status DecodeParams(std::string_view text, std::map<std::string, std::string>* params);

Result<int64_t> ParseInt(std::string_view name, std::string_view text, int64_t min, int64_t max);
Result<bool> ParseBool(std::string_view name, std::string_view text);
Result<int64_t> ParseTime(std::string_view name, std::string_view text);

}  // namespace rocketstore::console
