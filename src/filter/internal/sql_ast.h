// File: filter/internal/sql_ast.h
//
// The compiled form of a SQL92 filter (not part of the public API): a flat array of nodes
// (children by index; a subtree may be shared, e.g. the operand of BETWEEN), the value
// type of evaluation, and RocketMQ's comparison rules (ComparisonExpression.__compare with
// convertStringExpressions = true, which is how SelectorParser.parse builds every
// comparison). Java classes map to kinds: Integer -> kInt, Long -> kLong, Double ->
// kDouble, String -> kString, Boolean -> kBool, null -> kNull; kError stands for an
// exception thrown during evaluation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocketstore::filter {
class SqlExpression;
}  // namespace rocketstore::filter

namespace rocketstore::filter::internal {

enum class Kind : uint8_t { kNull, kBool, kInt, kLong, kDouble, kString, kError };

// Trivially copyable; a string points into the expression or the message (no ownership).
struct Value {
  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;  // kInt (within int32) and kLong
  double d = 0;
  std::string_view s;

  static Value Null() { return {}; }
  static Value Error() { return Make(Kind::kError); }
  static Value Bool(bool v) {
    Value x = Make(Kind::kBool);
    x.b = v;
    return x;
  }
  static Value Int(int32_t v) {
    Value x = Make(Kind::kInt);
    x.i = v;
    return x;
  }
  static Value Long(int64_t v) {
    Value x = Make(Kind::kLong);
    x.i = v;
    return x;
  }
  static Value Double(double v) {
    Value x = Make(Kind::kDouble);
    x.d = v;
    return x;
  }
  static Value String(std::string_view v) {
    Value x = Make(Kind::kString);
    x.s = v;
    return x;
  }
  static Value Make(Kind k) {
    Value x;
    x.kind = k;
    return x;
  }
  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kLong || kind == Kind::kDouble;
  }
};

enum class Op : uint8_t {
  kConstant,  // constant (string constants keep their text in Node::text)
  kProperty,  // slot = index into the property values
  kNegate,    // unary minus
  kNot,
  kBoolCast,  // a bare property used as a condition
  kAnd,
  kOr,
  kEqual,  // also IS NULL (right = a NULL constant); <> and IS NOT NULL are NOT(kEqual)
  kGreater,
  kGreaterEqual,
  kLess,
  kLessEqual,
  kIn,  // list = the string literals
  kNotIn,
  kContains,  // text = the search string
  kNotContains,
  kStartsWith,
  kNotStartsWith,
  kEndsWith,
  kNotEndsWith,
};

struct Node {
  Op op = Op::kConstant;
  int32_t left = -1;              // operand (unary) or left operand
  int32_t right = -1;             // right operand
  int32_t slot = -1;              // kProperty
  Value constant;                 // kConstant (a string constant's `s` is rebound to `text`)
  std::string text;               // string constant, search string
  std::vector<std::string> list;  // kIn / kNotIn
  uint32_t begin = 0, end = 0;    // source span, for messages
};

// Java's Integer.parseInt / Long.parseLong / Double.parseDouble over ASCII text; nullopt
// where Java throws NumberFormatException. Not supported (nullopt): hexadecimal floating
// point ("0x1p3") and non-ASCII digits, which Java accepts.
std::optional<int32_t> ParseJavaInt(std::string_view s);
std::optional<int64_t> ParseJavaLong(std::string_view s);
std::optional<double> ParseJavaDouble(std::string_view s);

// java.lang.Double.compare.
int JavaDoubleCompare(double a, double b);
// Object.equals between two non-null values (Integer(1) is not Long(1); NaN equals NaN).
bool JavaEquals(const Value& a, const Value& b);
// __compare(lv, rv, convertStringExpressions=true): the sign of the comparison, or nullopt
// where Java throws (a string that does not parse as the other side's number type;
// Boolean against String). REQUIRES: neither is kNull nor kError.
std::optional<int> JavaCompare(Value lv, Value rv);

class Parser;

}  // namespace rocketstore::filter::internal
