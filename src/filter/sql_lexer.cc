#include "filter/internal/sql_lexer.h"

#include <array>
#include <tuple>
#include <utility>

namespace rocketstore::filter::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IsIdPart(char c) { return IsIdStart(c) || IsDigit(c); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

constexpr std::array<std::pair<std::string_view, Tok>, 12> kKeywords = {{
    {"NOT", Tok::kNot},
    {"AND", Tok::kAnd},
    {"OR", Tok::kOr},
    {"BETWEEN", Tok::kBetween},
    {"IN", Tok::kIn},
    {"TRUE", Tok::kTrue},
    {"FALSE", Tok::kFalse},
    {"NULL", Tok::kNull},
    {"IS", Tok::kIs},
    {"CONTAINS", Tok::kContains},
    {"STARTSWITH", Tok::kStartsWith},
    {"ENDSWITH", Tok::kEndsWith},
}};

// Length of an exponent ([eE][+-]?[0-9]+) at `s`, or 0.
size_t ExponentLength(std::string_view s) {
  if (s.empty() || (s[0] != 'e' && s[0] != 'E')) return 0;
  size_t i = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const size_t digits = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i > digits ? i : 0;
}

// The longest numeric token at the start of `s` (which starts with a digit or '.').
std::pair<Tok, size_t> ScanNumber(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  const size_t int_digits = i;
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && IsDigit(s[j])) ++j;
    if (int_digits > 0 || j > i + 1) return {Tok::kFloat, j + ExponentLength(s.substr(j))};
    return {Tok::kEnd, 0};  // a lone "."
  }
  if (int_digits == 0) return {Tok::kEnd, 0};
  if (const size_t e = ExponentLength(s.substr(i)); e > 0) return {Tok::kFloat, i + e};
  if (s[0] == '0') return {Tok::kDecimal, 1};  // "0" takes no L and no more digits
  if (i < s.size() && (s[i] == 'l' || s[i] == 'L')) ++i;
  return {Tok::kDecimal, i};
}

}  // namespace

std::string_view TokName(Tok t) {
  switch (t) {
    case Tok::kEnd:
      return "<EOF>";
    case Tok::kNot:
      return "\"NOT\"";
    case Tok::kAnd:
      return "\"AND\"";
    case Tok::kOr:
      return "\"OR\"";
    case Tok::kBetween:
      return "\"BETWEEN\"";
    case Tok::kIn:
      return "\"IN\"";
    case Tok::kTrue:
      return "\"TRUE\"";
    case Tok::kFalse:
      return "\"FALSE\"";
    case Tok::kNull:
      return "\"NULL\"";
    case Tok::kIs:
      return "\"IS\"";
    case Tok::kContains:
      return "\"CONTAINS\"";
    case Tok::kStartsWith:
      return "\"STARTSWITH\"";
    case Tok::kEndsWith:
      return "\"ENDSWITH\"";
    case Tok::kDecimal:
      return "<DECIMAL_LITERAL>";
    case Tok::kFloat:
      return "<FLOATING_POINT_LITERAL>";
    case Tok::kString:
      return "<STRING_LITERAL>";
    case Tok::kId:
      return "<ID>";
    case Tok::kLParen:
      return "\"(\"";
    case Tok::kRParen:
      return "\")\"";
    case Tok::kComma:
      return "\",\"";
    case Tok::kEq:
      return "\"=\"";
    case Tok::kNe:
      return "\"<>\"";
    case Tok::kGt:
      return "\">\"";
    case Tok::kGe:
      return "\">=\"";
    case Tok::kLt:
      return "\"<\"";
    case Tok::kLe:
      return "\"<=\"";
    case Tok::kPlus:
      return "\"+\"";
    case Tok::kMinus:
      return "\"-\"";
  }
  return "?";
}

void Lexer::Advance(size_t n) {
  for (size_t k = 0; k < n && pos_ < text_.size(); ++k, ++pos_) {
    const char c = text_[pos_];
    if (c == '\n' || (c == '\r' && (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '\n'))) {
      ++line_;
      column_ = 1;
    } else if (c != '\r') {
      ++column_;
    }
  }
}

void Lexer::SkipSpaceAndComments() {
  while (pos_ < text_.size()) {
    const std::string_view rest = text_.substr(pos_);
    const char c = rest[0];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      Advance(1);
      continue;
    }
    if (rest.starts_with("--")) {
      const size_t eol = rest.find_first_of("\r\n");
      if (eol == std::string_view::npos) return;  // no line end: not a comment
      Advance(eol + 1);
      continue;
    }
    if (rest.starts_with("/*")) {
      const size_t close = rest.find("*/", 2);
      if (close == std::string_view::npos) return;  // unterminated: "/" is no token
      Advance(close + 2);
      continue;
    }
    return;
  }
}

Result<Token> Lexer::Next() {
  SkipSpaceAndComments();
  Token t;
  t.begin = static_cast<uint32_t>(pos_);
  t.line = line_;
  t.column = column_;
  if (pos_ >= text_.size()) {
    t.end = t.begin;
    return t;
  }
  const std::string_view rest = text_.substr(pos_);
  const char c = rest[0];
  size_t len = 0;
  if (IsIdStart(c)) {
    while (len < rest.size() && IsIdPart(rest[len])) ++len;
    t.type = Tok::kId;
    for (const auto& [word, tok] : kKeywords) {
      if (EqualsIgnoreCase(rest.substr(0, len), word)) t.type = tok;
    }
  } else if (IsDigit(c) || c == '.') {
    std::tie(t.type, len) = ScanNumber(rest);
  } else if (c == '\'') {
    size_t i = 1;
    while (i < rest.size()) {
      if (rest[i] == '\'') {
        if (i + 1 < rest.size() && rest[i + 1] == '\'') {
          i += 2;
          continue;
        }
        len = i + 1;
        break;
      }
      ++i;
    }
    t.type = Tok::kString;
  } else {
    const auto two = rest.substr(0, 2);
    if (two == "<>" || two == ">=" || two == "<=") {
      len = 2;
      t.type = two == "<>" ? Tok::kNe : two == ">=" ? Tok::kGe : Tok::kLe;
    } else {
      len = 1;
      switch (c) {
        case '=':
          t.type = Tok::kEq;
          break;
        case '>':
          t.type = Tok::kGt;
          break;
        case '<':
          t.type = Tok::kLt;
          break;
        case '(':
          t.type = Tok::kLParen;
          break;
        case ')':
          t.type = Tok::kRParen;
          break;
        case ',':
          t.type = Tok::kComma;
          break;
        case '+':
          t.type = Tok::kPlus;
          break;
        case '-':
          t.type = Tok::kMinus;
          break;
        default:
          len = 0;
      }
    }
  }
  if (len == 0) {
    const unsigned char u = static_cast<unsigned char>(c);
    std::string shown = (u >= 0x20 && u < 0x7f) ? std::string(1, c) : "\\x" + [u] {
      static constexpr char kHex[] = "0123456789abcdef";
      return std::string{kHex[u >> 4], kHex[u & 15]};
    }();
    return InvalidArgument("Lexical error at line " + std::to_string(line_) + ", column " +
                           std::to_string(column_) + ". Encountered: \"" + shown + "\"" +
                           (c == '\'' ? " (an unterminated string)" : ""));
  }
  t.image = rest.substr(0, len);
  Advance(len);
  t.end = static_cast<uint32_t>(pos_);
  return t;
}

}  // namespace rocketstore::filter::internal
