// SelectorParser.jj's grammar by recursive descent, with the checks its expression
// factories make (ComparisonExpression.create*, UnaryExpression, asBooleanExpression):
//
//   selector   := or EOF                          (must be a condition)
//   or         := and (OR and)*
//   and        := equality (AND equality)*
//   equality   := comparison ( "=" comparison | "<>" comparison | IS NULL | IS NOT NULL )*
//   comparison := unary ( (">" | ">=" | "<" | "<=") unary
//                       | [NOT] BETWEEN unary AND unary
//                       | [NOT] IN "(" STRING ("," STRING)* ")"
//                       | [NOT] (CONTAINS | STARTSWITH | ENDSWITH) STRING )*
//   unary      := "+" unary | "-" unary | NOT unary | primary
//   primary    := literal | ID | "(" or ")"
//
// NOT in `unary` binds tighter than any comparison ("NOT a = 1" is "(NOT a) = 1").
#include <algorithm>
#include <climits>
#include <string>
#include <utility>

#include "filter/internal/sql_lexer.h"
#include "filter/sql_expression.h"

namespace rocketstore::filter::internal {

namespace {
constexpr int kMaxNesting = 200;     // parser recursion ("((((..." / "NOT NOT ...")
constexpr int kMaxTreeDepth = 1000;  // evaluation recursion (long AND/OR chains)
constexpr std::string_view kExpectExpression =
    "\"NOT\", \"TRUE\", \"FALSE\", \"NULL\", <DECIMAL_LITERAL>, <FLOATING_POINT_LITERAL>, "
    "<STRING_LITERAL>, <ID>, \"(\", \"+\", \"-\"";
}  // namespace

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<SqlExpression> Run() {
    Lexer lexer(text_);
    while (true) {
      RS_ASSIGN_OR_RETURN(Token t, lexer.Next());
      tokens_.push_back(t);
      if (t.type == Tok::kEnd) break;
    }
    out_.text_ = std::string(text_);
    RS_ASSIGN_OR_RETURN(int32_t root, Or());
    if (Peek().type != Tok::kEnd) {
      return Unexpected(
          "\"AND\", \"OR\", \"=\", \"<>\", \">\", \">=\", \"<\", \"<=\", \"IS\", \"BETWEEN\", "
          "\"IN\", \"NOT\", \"CONTAINS\", \"STARTSWITH\", \"ENDSWITH\", <EOF>");
    }
    RS_ASSIGN_OR_RETURN(out_.root_, AsBoolean(root));
    return std::move(out_);
  }

 private:
  using R = Result<int32_t>;

  const Token& Peek(size_t ahead = 0) const {
    const size_t i = std::min(next_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  Token Take() { return tokens_[std::min(next_++, tokens_.size() - 1)]; }

  Status Unexpected(std::string_view expected) const {
    const Token& t = Peek();
    const std::string found = t.type == Tok::kEnd ? "<EOF>" : std::string(t.image);
    return InvalidArgument("Encountered \"" + found + "\" at line " + std::to_string(t.line) +
                           ", column " + std::to_string(t.column) +
                           ". Was expecting one of: " + std::string(expected));
  }
  Result<Token> Expect(Tok type) {
    if (Peek().type != type) return Unexpected(TokName(type));
    return Take();
  }
  // An error about node `n`, RocketMQ's message plus where the node starts.
  Status Semantic(std::string message, int32_t n) const {
    const uint32_t at = out_.nodes_[n].begin;
    int line = 1, column = 1;
    for (uint32_t i = 0; i < at && i < text_.size(); ++i) {  // as Lexer::Advance counts
      const char c = text_[i];
      if (c == '\n' || (c == '\r' && (i + 1 >= text_.size() || text_[i + 1] != '\n'))) {
        ++line;
        column = 1;
      } else if (c != '\r') {
        ++column;
      }
    }
    return InvalidArgument(std::move(message) + " (at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ")");
  }
  static Status AtToken(std::string message, const Token& t) {
    return InvalidArgument(std::move(message) + " (at line " + std::to_string(t.line) +
                           ", column " + std::to_string(t.column) + ")");
  }
  std::string Source(int32_t n) const {
    const Node& node = out_.nodes_[n];
    return std::string(text_.substr(node.begin, node.end - node.begin));
  }

  int Depth(int32_t n) const { return n < 0 ? 0 : depth_[n]; }
  R Add(Node node) {
    const int depth = 1 + std::max(Depth(node.left), Depth(node.right));
    if (depth > kMaxTreeDepth) {
      return InvalidArgument("the expression is too deep (more than " +
                             std::to_string(kMaxTreeDepth) + " levels)");
    }
    out_.nodes_.push_back(std::move(node));
    depth_.push_back(depth);
    return static_cast<int32_t>(out_.nodes_.size() - 1);
  }
  R Unary(Op op, int32_t operand, uint32_t begin) {
    Node n;
    n.op = op;
    n.left = operand;
    n.begin = begin;
    n.end = out_.nodes_[operand].end;
    return Add(std::move(n));
  }
  R Binary(Op op, int32_t l, int32_t r) {
    Node n;
    n.op = op;
    n.left = l;
    n.right = r;
    n.begin = out_.nodes_[l].begin;
    n.end = out_.nodes_[r].end;
    return Add(std::move(n));
  }

  bool IsConstant(int32_t n) const { return out_.nodes_[n].op == Op::kConstant; }
  // RocketMQ's BooleanExpression: conditions, and the TRUE / FALSE / NULL constants.
  bool IsBoolean(int32_t n) const {
    const Node& node = out_.nodes_[n];
    switch (node.op) {
      case Op::kConstant:
        return node.constant.kind == Kind::kBool || node.constant.kind == Kind::kNull;
      case Op::kProperty:
      case Op::kNegate:
        return false;
      default:
        return true;
    }
  }
  // asBooleanExpression: conditions stay, a property is cast, anything else is refused.
  R AsBoolean(int32_t n) {
    if (IsBoolean(n)) return n;
    if (out_.nodes_[n].op == Op::kProperty) return Unary(Op::kBoolCast, n, out_.nodes_[n].begin);
    return Semantic("Expression will not result in a boolean value: " + Source(n), n);
  }
  // checkLessThanOperand: a constant must be a number; no condition may be ordered.
  Status CheckOrderable(int32_t n) const {
    if (IsConstant(n) ? !out_.nodes_[n].constant.is_number() : IsBoolean(n)) {
      return Semantic("Value '" + Source(n) + "' cannot be compared.", n);
    }
    return Status::OK();
  }
  R Ordered(Op op, int32_t l, int32_t r) {
    RS_RETURN_IF_ERROR(CheckOrderable(l));
    RS_RETURN_IF_ERROR(CheckOrderable(r));
    return Binary(op, l, r);
  }
  // createEqual: no NULL constant; TRUE/FALSE on the left of a constant only with another.
  R Equal(int32_t l, int32_t r) {
    for (int32_t n : {l, r}) {
      if (IsConstant(n) && out_.nodes_[n].constant.kind == Kind::kNull) {
        return Semantic("'" + Source(n) + "' cannot be compared.", n);
      }
    }
    if (IsConstant(l) && IsConstant(r) && IsBoolean(l) && !IsBoolean(r)) {
      return Semantic("'" + Source(l) + "' cannot be compared with '" + Source(r) + "'", l);
    }
    return Binary(Op::kEqual, l, r);
  }
  R Between(int32_t v, int32_t low, int32_t high, bool negated);
  R InList(int32_t left, bool negated, uint32_t begin);
  R StringTest(Op op, int32_t left);

  R Or();
  R And();
  R Equality();
  R Comparison();
  R UnaryExpr();
  R Primary();
  R Literal();

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int nesting_ = 0;
  std::vector<int> depth_;
  SqlExpression out_;
};

Result<int32_t> Parser::Or() {
  RS_ASSIGN_OR_RETURN(int32_t left, And());
  while (Peek().type == Tok::kOr) {
    Take();
    RS_ASSIGN_OR_RETURN(int32_t right, And());
    RS_ASSIGN_OR_RETURN(left, AsBoolean(left));
    RS_ASSIGN_OR_RETURN(right, AsBoolean(right));
    RS_ASSIGN_OR_RETURN(left, Binary(Op::kOr, left, right));
  }
  return left;
}

Result<int32_t> Parser::And() {
  RS_ASSIGN_OR_RETURN(int32_t left, Equality());
  while (Peek().type == Tok::kAnd) {
    Take();
    RS_ASSIGN_OR_RETURN(int32_t right, Equality());
    RS_ASSIGN_OR_RETURN(left, AsBoolean(left));
    RS_ASSIGN_OR_RETURN(right, AsBoolean(right));
    RS_ASSIGN_OR_RETURN(left, Binary(Op::kAnd, left, right));
  }
  return left;
}

Result<int32_t> Parser::Equality() {
  RS_ASSIGN_OR_RETURN(int32_t left, Comparison());
  while (true) {
    const Tok t = Peek().type;
    if (t == Tok::kEq || t == Tok::kNe) {
      const uint32_t begin = out_.nodes_[left].begin;
      Take();
      RS_ASSIGN_OR_RETURN(int32_t right, Comparison());
      RS_ASSIGN_OR_RETURN(left, Equal(left, right));
      if (t == Tok::kNe) {
        RS_ASSIGN_OR_RETURN(left, Unary(Op::kNot, left, begin));
      }
    } else if (t == Tok::kIs) {
      Take();
      const bool negated = Peek().type != Tok::kNull;
      if (negated) RS_RETURN_IF_ERROR(Expect(Tok::kNot).status());
      RS_ASSIGN_OR_RETURN(Token null_token, Expect(Tok::kNull));
      Node null_node;
      null_node.begin = null_token.begin;
      null_node.end = null_token.end;
      RS_ASSIGN_OR_RETURN(int32_t null_constant, Add(std::move(null_node)));
      const uint32_t begin = out_.nodes_[left].begin;
      RS_ASSIGN_OR_RETURN(left, Binary(Op::kEqual, left, null_constant));
      if (negated) {
        RS_ASSIGN_OR_RETURN(left, Unary(Op::kNot, left, begin));
      }
    } else {
      return left;
    }
  }
}

Result<int32_t> Parser::Between(int32_t v, int32_t low, int32_t high, bool negated) {
  if (negated) {  // createNotBetween checks nothing more than < and > do
    RS_ASSIGN_OR_RETURN(int32_t lt, Ordered(Op::kLess, v, low));
    RS_ASSIGN_OR_RETURN(int32_t gt, Ordered(Op::kGreater, v, high));
    return Binary(Op::kOr, lt, gt);
  }
  if (IsConstant(low) && IsConstant(high)) {
    const Value& lv = out_.nodes_[low].constant;
    const Value& hv = out_.nodes_[high].constant;
    if (lv.kind == Kind::kNull || hv.kind == Kind::kNull) {
      return Semantic("Illegal values of between, values can not be null!", v);
    }
    Value l = lv, h = hv;
    if (l.kind == Kind::kString) l.s = out_.nodes_[low].text;
    if (h.kind == Kind::kString) h.s = out_.nodes_[high].text;
    const std::optional<int> c = JavaCompare(h, l);
    if (!c || *c < 0) {
      return Semantic("Illegal values of between, left value(" + Source(low) +
                          ") must less than or equal to right value(" + Source(high) + ")",
                      low);
    }
  }
  RS_ASSIGN_OR_RETURN(int32_t ge, Ordered(Op::kGreaterEqual, v, low));
  RS_ASSIGN_OR_RETURN(int32_t le, Ordered(Op::kLessEqual, v, high));
  return Binary(Op::kAnd, ge, le);
}

std::string DecodeString(std::string_view image) {
  std::string s;
  for (size_t i = 1; i + 1 < image.size(); ++i) {
    s.push_back(image[i]);
    if (image[i] == '\'') ++i;  // '' is one quote
  }
  return s;
}

Result<int32_t> Parser::InList(int32_t left, bool negated, uint32_t begin) {
  if (out_.nodes_[left].op != Op::kProperty) {
    return Semantic("Expected a property for In expression, got: " + Source(left), left);
  }
  RS_RETURN_IF_ERROR(Expect(Tok::kLParen).status());
  Node n;
  n.op = negated ? Op::kNotIn : Op::kIn;
  n.left = left;
  n.begin = begin;
  while (true) {
    RS_ASSIGN_OR_RETURN(Token s, Expect(Tok::kString));
    n.list.push_back(DecodeString(s.image));
    if (Peek().type != Tok::kComma) break;
    Take();
  }
  RS_ASSIGN_OR_RETURN(Token close, Expect(Tok::kRParen));
  n.end = close.end;
  return Add(std::move(n));
}

Result<int32_t> Parser::StringTest(Op op, int32_t left) {
  RS_ASSIGN_OR_RETURN(Token s, Expect(Tok::kString));
  Node n;
  n.op = op;
  n.left = left;
  n.text = DecodeString(s.image);
  n.begin = out_.nodes_[left].begin;
  n.end = s.end;
  return Add(std::move(n));
}

Op StringOp(Tok t, bool negated) {
  switch (t) {
    case Tok::kContains:
      return negated ? Op::kNotContains : Op::kContains;
    case Tok::kStartsWith:
      return negated ? Op::kNotStartsWith : Op::kStartsWith;
    default:
      return negated ? Op::kNotEndsWith : Op::kEndsWith;
  }
}

Result<int32_t> Parser::Comparison() {
  RS_ASSIGN_OR_RETURN(int32_t left, UnaryExpr());
  while (true) {
    Tok t = Peek().type;
    const bool negated = t == Tok::kNot;
    if (negated) {
      t = Peek(1).type;
      if (t != Tok::kBetween && t != Tok::kIn && t != Tok::kContains && t != Tok::kStartsWith &&
          t != Tok::kEndsWith) {
        return left;  // NOT followed by anything else ends the comparison
      }
      Take();
    }
    const uint32_t begin = out_.nodes_[left].begin;
    switch (t) {
      case Tok::kGt:
      case Tok::kGe:
      case Tok::kLt:
      case Tok::kLe: {
        Take();
        RS_ASSIGN_OR_RETURN(int32_t right, UnaryExpr());
        const Op op = t == Tok::kGt   ? Op::kGreater
                      : t == Tok::kGe ? Op::kGreaterEqual
                      : t == Tok::kLt ? Op::kLess
                                      : Op::kLessEqual;
        RS_ASSIGN_OR_RETURN(left, Ordered(op, left, right));
        break;
      }
      case Tok::kBetween: {
        Take();
        RS_ASSIGN_OR_RETURN(int32_t low, UnaryExpr());
        RS_RETURN_IF_ERROR(Expect(Tok::kAnd).status());
        RS_ASSIGN_OR_RETURN(int32_t high, UnaryExpr());
        RS_ASSIGN_OR_RETURN(left, Between(left, low, high, negated));
        break;
      }
      case Tok::kIn: {
        Take();
        RS_ASSIGN_OR_RETURN(left, InList(left, negated, begin));
        break;
      }
      case Tok::kContains:
      case Tok::kStartsWith:
      case Tok::kEndsWith: {
        Take();
        RS_ASSIGN_OR_RETURN(left, StringTest(StringOp(t, negated), left));
        break;
      }
      default:
        return left;
    }
  }
}

Result<int32_t> Parser::UnaryExpr() {
  if (++nesting_ > kMaxNesting) {
    return InvalidArgument("the expression is nested too deeply (more than " +
                           std::to_string(kMaxNesting) + " levels)");
  }
  struct Leave {
    int& n;
    ~Leave() { --n; }
  } leave{nesting_};
  const Token t = Peek();
  if (t.type == Tok::kPlus) {
    Take();
    return UnaryExpr();
  }
  if (t.type == Tok::kMinus || t.type == Tok::kNot) {
    Take();
    RS_ASSIGN_OR_RETURN(int32_t operand, UnaryExpr());
    if (t.type == Tok::kMinus) return Unary(Op::kNegate, operand, t.begin);
    RS_ASSIGN_OR_RETURN(operand, AsBoolean(operand));
    return Unary(Op::kNot, operand, t.begin);
  }
  return Primary();
}

Result<int32_t> Parser::Primary() {
  const Token t = Peek();
  if (t.type == Tok::kId) {
    Take();
    Node n;
    n.op = Op::kProperty;
    n.begin = t.begin;
    n.end = t.end;
    const auto it = std::find(out_.names_.begin(), out_.names_.end(), t.image);
    n.slot = static_cast<int32_t>(it - out_.names_.begin());
    if (it == out_.names_.end()) out_.names_.emplace_back(t.image);
    return Add(std::move(n));
  }
  if (t.type == Tok::kLParen) {
    Take();
    RS_ASSIGN_OR_RETURN(int32_t inner, Or());
    RS_RETURN_IF_ERROR(Expect(Tok::kRParen).status());
    return inner;
  }
  return Literal();
}

Result<int32_t> Parser::Literal() {
  const Token t = Peek();
  Node n;
  n.begin = t.begin;
  n.end = t.end;
  switch (t.type) {
    case Tok::kString:
      n.text = DecodeString(t.image);
      n.constant = Value::String({});
      break;
    case Tok::kTrue:
    case Tok::kFalse:
      n.constant = Value::Bool(t.type == Tok::kTrue);
      break;
    case Tok::kNull:
      n.constant = Value::Null();
      break;
    case Tok::kDecimal: {  // createFromDecimal: Integer when it fits, else Long
      std::string_view digits = t.image;
      if (digits.ends_with('l') || digits.ends_with('L')) digits.remove_suffix(1);
      const std::optional<int64_t> v = ParseJavaLong(digits);
      if (!v) return AtToken("For input string: \"" + std::string(digits) + "\"", t);
      n.constant = (*v >= INT32_MIN && *v <= INT32_MAX) ? Value::Int(static_cast<int32_t>(*v))
                                                        : Value::Long(*v);
      break;
    }
    case Tok::kFloat: {  // createFloat refuses what overflows and 0 (< Double.MIN_VALUE)
      const std::optional<double> v = ParseJavaDouble(t.image);
      if (!v || *v > 1.7976931348623157e308) {
        return AtToken(std::string(t.image) + " is greater than 1.7976931348623157E308", t);
      }
      if (*v < 4.9e-324) return AtToken(std::string(t.image) + " is less than 4.9E-324", t);
      n.constant = Value::Double(*v);
      break;
    }
    default:
      return Unexpected(kExpectExpression);
  }
  Take();
  return Add(std::move(n));
}

}  // namespace rocketstore::filter::internal

namespace rocketstore::filter {

Result<SqlExpression> SqlExpression::Compile(std::string_view text) {
  return internal::Parser(text).Run();
}

}  // namespace rocketstore::filter
