// File: filter/internal/sql_lexer.h
//
// The tokens of RocketMQ's SelectorParser.jj (5.x: with CONTAINS / STARTSWITH / ENDSWITH):
//   white space  " " \t \n \r \f;  comments  "--" to a line end (the line end is part of
//   it: "--" at the very end of the text is two minus signs) and /* ... */
//   keywords     NOT AND OR BETWEEN IN TRUE FALSE NULL IS CONTAINS STARTSWITH ENDSWITH
//                (any case; a longer identifier wins: "notable" is an identifier)
//   DECIMAL      "0" | [1-9][0-9]* [lL]?
//   FLOAT        [0-9]+ "." [0-9]* EXP? | "." [0-9]+ EXP? | [0-9]+ EXP ; EXP = [eE][+-]?[0-9]+
//   STRING       ' ... ' with '' for a quote (may span lines)
//   ID           [a-zA-Z_$][a-zA-Z0-9_$]*  (property names are case-sensitive)
//   operators    = <> > >= < <= ( ) , + -
// Longest match, as JavaCC does. Lines and columns are 1-based; a tab is one column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rocketstore::filter::internal {

enum class Tok : uint8_t {
  kEnd,
  kNot,
  kAnd,
  kOr,
  kBetween,
  kIn,
  kTrue,
  kFalse,
  kNull,
  kIs,
  kContains,
  kStartsWith,
  kEndsWith,
  kDecimal,
  kFloat,
  kString,
  kId,
  kLParen,
  kRParen,
  kComma,
  kEq,
  kNe,
  kGt,
  kGe,
  kLt,
  kLe,
  kPlus,
  kMinus,
};

struct Token {
  Tok type = Tok::kEnd;
  uint32_t begin = 0, end = 0;  // byte span in the text
  int line = 1, column = 1;
  std::string_view image;
};

// How a token kind is written in messages ("NOT", "<DECIMAL_LITERAL>", "\"(\"").
std::string_view TokName(Tok t);

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  // The next token; kInvalidArgument "Lexical error at line L, column C. ..." for a
  // character that starts no token.
  Result<Token> Next();

 private:
  void SkipSpaceAndComments();
  void Advance(size_t n);
  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1, column_ = 1;
};

}  // namespace rocketstore::filter::internal
