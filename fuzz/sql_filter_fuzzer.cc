// libFuzzer target for the SQL92 filter compiler (filter/sql_expression.h). The input is
// split at the first 0x00: before it the expression text, after it property values (one
// per 0x01-separated piece, given to the expression's names in order; a missing piece is
// a missing property). Checks: compiling never crashes and fails only with
// kInvalidArgument and a message; a compiled expression names each property once,
// evaluates without crashing, gives the same result twice, and compiles again to the
// same names and the same result.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "filter/sql_expression.h"
#include "fuzz_check.h"  // this directory

namespace {

using rocketstore::Result;
using rocketstore::StatusCode;
using rocketstore::filter::SqlExpression;
using rocketstore::filter::SqlResult;

std::vector<std::optional<std::string_view>> ValuesFor(const SqlExpression& e,
                                                       std::string_view rest) {
  std::vector<std::optional<std::string_view>> values;
  for (size_t i = 0; i < e.property_names().size(); ++i) {
    if (rest.empty()) {
      values.emplace_back(std::nullopt);
      continue;
    }
    const size_t cut = rest.find('\x01');
    values.emplace_back(rest.substr(0, cut));
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
  }
  return values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t zero = input.find('\0');
  const std::string_view text = input.substr(0, zero);
  const std::string_view rest = zero == std::string_view::npos ? "" : input.substr(zero + 1);
  Result<SqlExpression> e = SqlExpression::Compile(text);
  if (!e.ok()) {
    FUZZ_CHECK(e.status().code() == StatusCode::kInvalidArgument);
    FUZZ_CHECK(!e.status().message().empty());
    return 0;
  }
  const std::set<std::string> distinct(e->property_names().begin(), e->property_names().end());
  FUZZ_CHECK(distinct.size() == e->property_names().size());
  const auto values = ValuesFor(*e, rest);
  const SqlResult r = e->Evaluate(values);
  FUZZ_CHECK(r == e->Evaluate(values));
  Result<SqlExpression> again = SqlExpression::Compile(text);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->property_names() == e->property_names());
  FUZZ_CHECK(again->Evaluate(values) == r);
  return 0;
}
