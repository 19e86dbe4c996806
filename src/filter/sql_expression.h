// File: filter/sql_expression.h
//
// RocketMQ's SQL92 message filter (ExpressionType.SQL92: the `filter/` module of 4.9.8,
// plus 5.x's CONTAINS / STARTSWITH / ENDSWITH), as a compiled expression evaluated over a
// message's properties. The grammar, the checks made at compile time and the evaluation
// rules (null, number and string semantics) are written down with examples in
// docs/messaging.md, "SQL92 filters"; tests/filter/ checks each of them.
//
//   RS_ASSIGN_OR_RETURN(SqlExpression e, SqlExpression::Compile("a BETWEEN 3 AND 5"));
//   // e.property_names() == {"a"}: the caller looks each name up once per message ...
//   std::optional<std::string_view> values[] = {"4"};
//   e.Matches(values);  // true
//
// Compile errors are kInvalidArgument with a message that names the line and column
// (1-based, as RocketMQ's parser does): `Encountered "<" at line 1, column 4. Was
// expecting one of: ...`.
//
// Property values are strings, as the broker reads them from the record (RocketMQ's
// MessageEvaluationContext); TAGS, KEYS ... are properties like any other. Evaluation does
// not allocate, and a message matches only when the expression evaluates to TRUE (FALSE,
// NULL — "unknown" — and an evaluation error such as comparing 'abc' with a number do not
// match, as in RocketMQ).
//
// Thread-safety: a compiled expression is immutable; Evaluate/Matches from any number of
// threads. Ownership: a value type (copy or move it freely).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "filter/internal/sql_ast.h"

namespace rocketstore::filter {

// The three-valued result of an expression, plus RocketMQ's "the evaluation threw".
enum class SqlResult : uint8_t { kTrue, kFalse, kNull, kError };
std::string_view SqlResultName(SqlResult r);

class SqlExpression {
 public:
  // Parses and checks `text`; kInvalidArgument with the position on any error.
  static Result<SqlExpression> Compile(std::string_view text);

  // The distinct property names the expression reads, in order of first use. Evaluate
  // takes their values in this order.
  const std::vector<std::string>& property_names() const { return names_; }
  const std::string& text() const { return text_; }

  // `values[i]` is the value of property_names()[i], nullopt when the message lacks it.
  // REQUIRES: values.size() == property_names().size().
  SqlResult Evaluate(std::span<const std::optional<std::string_view>> values) const;
  bool Matches(std::span<const std::optional<std::string_view>> values) const {
    return Evaluate(values) == SqlResult::kTrue;
  }

 private:
  friend class internal::Parser;
  SqlExpression() = default;
  internal::Value Eval(int32_t node, std::span<const std::optional<std::string_view>> v) const;
  internal::Value EvalCompare(const internal::Node& n,
                              std::span<const std::optional<std::string_view>> v) const;
  internal::Value EvalEqual(const internal::Node& n,
                            std::span<const std::optional<std::string_view>> v) const;
  internal::Value EvalString(const internal::Node& n,
                             std::span<const std::optional<std::string_view>> v) const;

  std::string text_;
  std::vector<internal::Node> nodes_;
  int32_t root_ = -1;
  std::vector<std::string> names_;
};

}  // namespace rocketstore::filter
