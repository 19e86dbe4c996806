#include "filter/sql_expression.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace rocketstore::filter {

using internal::Kind;
using internal::Node;
using internal::Op;
using internal::Value;

namespace internal {
namespace {

template <typename T>
std::optional<T> ParseJavaInteger(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    if (s.size() == 1) return std::nullopt;
    i = 1;
  }
  // Accumulate negatively so that MIN_VALUE parses (as Java does).
  constexpr T kMin = std::numeric_limits<T>::min();
  const T limit = negative ? kMin : -std::numeric_limits<T>::max();
  T result = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const int digit = s[i] - '0';
    if (result < limit / 10) return std::nullopt;
    result = static_cast<T>(result * 10);
    if (result < limit + digit) return std::nullopt;
    result = static_cast<T>(result - digit);
  }
  return negative ? result : static_cast<T>(-result);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<int32_t> ParseJavaInt(std::string_view s) { return ParseJavaInteger<int32_t>(s); }
std::optional<int64_t> ParseJavaLong(std::string_view s) { return ParseJavaInteger<int64_t>(s); }

// FloatingDecimal.readJavaFormatString: trim() (every char <= ' '), a sign, then "NaN",
// "Infinity", or digits [. digits] [e[+-]digits] with at least one digit, then an optional
// f/F/d/D.
std::optional<double> ParseJavaDouble(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "NaN") return std::nan("");
  if (s == "Infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'd' || s.back() == 'D')) {
    s.remove_suffix(1);
  }
  size_t i = 0, digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exp_start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == exp_start) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // strtod needs a terminated string; the stack buffer covers every realistic property.
  char buf[128];
  std::string heap;
  const char* p = buf;
  if (s.size() < sizeof(buf)) {
    std::memcpy(buf, s.data(), s.size());
    buf[s.size()] = '\0';
  } else {
    heap.assign(s);
    p = heap.c_str();
  }
  const double v = std::strtod(p, nullptr);  // overflow: HUGE_VAL, underflow: 0, as Java
  return negative ? -v : v;
}

int JavaDoubleCompare(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  // doubleToLongBits: one NaN, and -0.0 < 0.0.
  const auto bits = [](double x) {
    return std::isnan(x) ? int64_t{0x7ff8000000000000} : std::bit_cast<int64_t>(x);
  };
  const int64_t x = bits(a), y = bits(b);
  return x == y ? 0 : (x < y ? -1 : 1);
}

bool JavaEquals(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kBool:
      return a.b == b.b;
    case Kind::kInt:
    case Kind::kLong:
      return a.i == b.i;
    case Kind::kDouble:
      return JavaDoubleCompare(a.d, b.d) == 0;
    case Kind::kString:
      return a.s == b.s;
    default:
      return true;
  }
}

namespace {

template <typename T>
int Sign(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Converts the string `s` to the Java class of `like` (Boolean.valueOf, Integer.valueOf,
// Long.valueOf, Double.valueOf); nullopt where Java throws NumberFormatException.
std::optional<Value> ConvertString(std::string_view s, Kind like) {
  switch (like) {
    case Kind::kBool: {
      const bool t = s.size() == 4 && (s[0] | 0x20) == 't' && (s[1] | 0x20) == 'r' &&
                     (s[2] | 0x20) == 'u' && (s[3] | 0x20) == 'e';
      return Value::Bool(t);
    }
    case Kind::kInt:
      if (auto v = ParseJavaInt(s)) return Value::Int(*v);
      return std::nullopt;
    case Kind::kLong:
      if (auto v = ParseJavaLong(s)) return Value::Long(*v);
      return std::nullopt;
    case Kind::kDouble:
      if (auto v = ParseJavaDouble(s)) return Value::Double(*v);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

int SameKindCompare(const Value& a, const Value& b) {
  switch (a.kind) {
    case Kind::kBool:
      return Sign<int>(a.b, b.b);
    case Kind::kInt:
    case Kind::kLong:
      return Sign(a.i, b.i);
    case Kind::kDouble:
      return JavaDoubleCompare(a.d, b.d);
    case Kind::kString:
      return Sign(a.s.compare(b.s), 0);
    default:
      return 0;
  }
}

}  // namespace

std::optional<int> JavaCompare(Value lv, Value rv) {
  if (lv.kind != rv.kind) {
    const Kind lc = lv.kind, rc = rv.kind;
    if (lc == Kind::kBool) {
      if (rc == Kind::kString) return std::nullopt;  // Java: ClassCastException
      return -1;
    }
    if (lc == Kind::kString) {
      std::optional<Value> l = ConvertString(lv.s, rc);
      if (!l) return std::nullopt;
      lv = *l;
    } else if (rc == Kind::kString) {
      std::optional<Value> r = ConvertString(rv.s, lc);
      if (!r) return std::nullopt;
      rv = *r;
    } else if (rc == Kind::kBool) {
      return -1;  // a number against a Boolean
    } else if (lc == Kind::kDouble || rc == Kind::kDouble) {
      lv = Value::Double(lc == Kind::kDouble ? lv.d : static_cast<double>(lv.i));
      rv = Value::Double(rc == Kind::kDouble ? rv.d : static_cast<double>(rv.i));
    } else {  // Integer and Long: both as long
      lv.kind = rv.kind = Kind::kLong;
    }
  }
  return SameKindCompare(lv, rv);
}

}  // namespace internal

std::string_view SqlResultName(SqlResult r) {
  switch (r) {
    case SqlResult::kTrue:
      return "TRUE";
    case SqlResult::kFalse:
      return "FALSE";
    case SqlResult::kNull:
      return "NULL";
    case SqlResult::kError:
      return "ERROR";
  }
  return "?";
}

SqlResult SqlExpression::Evaluate(std::span<const std::optional<std::string_view>> values) const {
  const Value v = Eval(root_, values);
  switch (v.kind) {
    case Kind::kBool:
      return v.b ? SqlResult::kTrue : SqlResult::kFalse;
    case Kind::kNull:
      return SqlResult::kNull;
    default:
      return SqlResult::kError;
  }
}

Value SqlExpression::EvalEqual(const Node& n,
                               std::span<const std::optional<std::string_view>> v) const {
  const Value l = Eval(n.left, v);
  if (l.kind == Kind::kError) return l;
  const Value r = Eval(n.right, v);
  if (r.kind == Kind::kError) return r;
  const bool ln = l.kind == Kind::kNull, rn = r.kind == Kind::kNull;
  if (ln != rn) return ln ? Value::Null() : Value::Bool(false);
  if (ln || internal::JavaEquals(l, r)) return Value::Bool(true);
  const std::optional<int> c = internal::JavaCompare(l, r);
  return c ? Value::Bool(*c == 0) : Value::Error();
}

Value SqlExpression::EvalCompare(const Node& n,
                                 std::span<const std::optional<std::string_view>> v) const {
  Value l = Eval(n.left, v);
  if (l.kind == Kind::kError || l.kind == Kind::kNull) return l;
  Value r = Eval(n.right, v);
  if (r.kind == Kind::kError || r.kind == Kind::kNull) return r;
  if (l.kind == Kind::kString && r.kind == Kind::kString) {  // both parsed as Double
    const auto ld = internal::ParseJavaDouble(l.s), rd = internal::ParseJavaDouble(r.s);
    if (!ld || !rd) return Value::Error();
    l = Value::Double(*ld);
    r = Value::Double(*rd);
  }
  const std::optional<int> c = internal::JavaCompare(l, r);
  if (!c) return Value::Error();
  switch (n.op) {
    case Op::kGreater:
      return Value::Bool(*c > 0);
    case Op::kGreaterEqual:
      return Value::Bool(*c >= 0);
    case Op::kLess:
      return Value::Bool(*c < 0);
    default:
      return Value::Bool(*c <= 0);
  }
}

Value SqlExpression::EvalString(const Node& n,
                                std::span<const std::optional<std::string_view>> v) const {
  if (n.op == Op::kIn || n.op == Op::kNotIn) {
    const Value x = Eval(n.left, v);
    if (x.kind != Kind::kString) return x.kind == Kind::kError ? x : Value::Null();
    bool found = false;
    for (const std::string& s : n.list) found = found || s == x.s;
    return Value::Bool(found != (n.op == Op::kNotIn));
  }
  // 5.x's CONTAINS family: an empty search, a missing or non-string value are all FALSE,
  // for the NOT forms too.
  if (n.text.empty()) return Value::Bool(false);
  const Value x = Eval(n.left, v);
  if (x.kind == Kind::kError) return x;
  if (x.kind != Kind::kString) return Value::Bool(false);
  bool hit = false;
  switch (n.op) {
    case Op::kContains:
    case Op::kNotContains:
      hit = x.s.find(n.text) != std::string_view::npos;
      break;
    case Op::kStartsWith:
    case Op::kNotStartsWith:
      hit = x.s.starts_with(n.text);
      break;
    default:
      hit = x.s.ends_with(n.text);
  }
  const bool negated =
      n.op == Op::kNotContains || n.op == Op::kNotStartsWith || n.op == Op::kNotEndsWith;
  return Value::Bool(hit != negated);
}

Value SqlExpression::Eval(int32_t index, std::span<const std::optional<std::string_view>> v) const {
  const Node& n = nodes_[index];
  switch (n.op) {
    case Op::kConstant: {
      Value c = n.constant;
      if (c.kind == Kind::kString) c.s = n.text;
      return c;
    }
    case Op::kProperty: {
      const std::optional<std::string_view>& p = v[n.slot];
      return p ? Value::String(*p) : Value::Null();
    }
    case Op::kNegate: {
      Value x = Eval(n.left, v);
      if (x.kind == Kind::kInt)
        return Value::Int(static_cast<int32_t>(-static_cast<uint32_t>(x.i)));
      if (x.kind == Kind::kLong)
        return Value::Long(static_cast<int64_t>(-static_cast<uint64_t>(x.i)));
      if (x.kind == Kind::kDouble) return Value::Double(-x.d);
      return x.kind == Kind::kError ? x : Value::Null();  // not a number: null
    }
    case Op::kNot:
    case Op::kBoolCast: {
      const Value x = Eval(n.left, v);
      if (x.kind == Kind::kNull || x.kind == Kind::kError) return x;
      if (x.kind != Kind::kBool) return n.op == Op::kBoolCast ? Value::Bool(false) : Value::Error();
      return n.op == Op::kNot ? Value::Bool(!x.b) : x;
    }
    case Op::kAnd:
    case Op::kOr: {
      const bool decisive = n.op == Op::kOr;  // the value that short-circuits
      const Value l = Eval(n.left, v);
      if (l.kind == Kind::kError || (l.kind == Kind::kBool && l.b == decisive)) return l;
      const Value r = Eval(n.right, v);
      if (r.kind == Kind::kError || (r.kind == Kind::kBool && r.b == decisive)) return r;
      if (l.kind == Kind::kNull || r.kind == Kind::kNull) return Value::Null();
      return Value::Bool(!decisive);
    }
    case Op::kEqual:
      return EvalEqual(n, v);
    case Op::kGreater:
    case Op::kGreaterEqual:
    case Op::kLess:
    case Op::kLessEqual:
      return EvalCompare(n, v);
    default:
      return EvalString(n, v);
  }
}

}  // namespace rocketstore::filter
