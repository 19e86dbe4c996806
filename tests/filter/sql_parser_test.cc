// The grammar and the compile-time checks of RocketMQ's SelectorParser: errors first.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "filter/sql_test_util.h"

namespace rocketstore::filter {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SqlParserErrors, TheJavaVectorsBadExpressionNamesTheSamePosition) {
  // sql92.json: "a >< 5" -> ParseException: Encountered "<" at line 1, column 4.
  const std::string m = CompileError("a >< 5");
  EXPECT_THAT(m, StartsWith("Encountered \"<\" at line 1, column 4. Was expecting one of: "));
  EXPECT_THAT(m, HasSubstr("\"NOT\""));
  EXPECT_THAT(m, HasSubstr("<DECIMAL_LITERAL>"));
}

TEST(SqlParserErrors, PositionsCountLinesAndColumns) {
  EXPECT_THAT(CompileError("a = 1\n  AND\n b >"), HasSubstr("\"<EOF>\" at line 3, column 5"));
  EXPECT_THAT(CompileError("a = 1 b"), HasSubstr("Encountered \"b\" at line 1, column 7"));
  EXPECT_THAT(CompileError("(a = 1"), HasSubstr("Was expecting one of: \")\""));
}

TEST(SqlParserErrors, EmptyAndCommentOnly) {
  EXPECT_THAT(CompileError(""), HasSubstr("Encountered \"<EOF>\" at line 1, column 1"));
  EXPECT_THAT(CompileError("   "), HasSubstr("<EOF>"));
  EXPECT_THAT(CompileError("/* nothing */"), HasSubstr("<EOF>"));
}

TEST(SqlParserErrors, LexicalErrors) {
  EXPECT_THAT(CompileError("a = 1 # 2"), StartsWith("Lexical error at line 1, column 7"));
  EXPECT_THAT(CompileError("a = 'open"), HasSubstr("unterminated string"));
  EXPECT_THAT(CompileError("a = \"x\""), StartsWith("Lexical error at line 1, column 5"));
  EXPECT_THAT(CompileError("a.b = 1"), StartsWith("Lexical error at line 1, column 2"));
  EXPECT_THAT(CompileError("a = 1 /* unterminated"), StartsWith("Lexical error"));
  EXPECT_THAT(CompileError("a = \xc3\xa9"), HasSubstr("\\xc3"));
  EXPECT_THAT(CompileError("a = ."), StartsWith("Lexical error"));
}

TEST(SqlParserErrors, NotABooleanExpression) {
  for (const char* sql : {"1", "'x'", "-a", "1 AND a = 1", "a = 1 OR 2", "NOT 3"}) {
    EXPECT_THAT(CompileError(sql), HasSubstr("Expression will not result in a boolean value"))
        << sql;
  }
}

TEST(SqlParserErrors, OrderingNeedsNumbersOrProperties) {
  for (const char* sql :
       {"a > 'x'", "a < TRUE", "a >= NULL", "(a = 1) > 2", "a > 1 > 2", "'x' <= a",
        "a BETWEEN 'a' AND 'b'", "a NOT BETWEEN 1 AND 'z'", "NOT a BETWEEN 1 AND 2"}) {
    EXPECT_THAT(CompileError(sql), HasSubstr("cannot be compared")) << sql;
  }
}

TEST(SqlParserErrors, SemanticErrorsNameWhereTheOperandStarts) {
  EXPECT_THAT(CompileError("a = 1 AND\r\n b > 'x'"), HasSubstr("(at line 2, column 6)"));
  EXPECT_THAT(CompileError("a = 1 OR\r 3"), HasSubstr("(at line 2, column 2)"));
}

TEST(SqlParserErrors, EqualityRefusesNullConstantsAndBooleanConstantOnTheLeft) {
  EXPECT_THAT(CompileError("a = NULL"), HasSubstr("'NULL' cannot be compared."));
  EXPECT_THAT(CompileError("NULL <> a"), HasSubstr("'NULL' cannot be compared."));
  EXPECT_THAT(CompileError("TRUE = 1"), HasSubstr("'TRUE' cannot be compared with '1'"));
  EXPECT_TRUE(SqlExpression::Compile("1 = TRUE").ok());
  EXPECT_TRUE(SqlExpression::Compile("TRUE = FALSE").ok());
}

TEST(SqlParserErrors, BetweenBoundsMustBeOrderedConstants) {
  EXPECT_THAT(CompileError("a BETWEEN 5 AND 3"),
              HasSubstr("Illegal values of between, left value(5) must less than or equal to "
                        "right value(3)"));
  EXPECT_THAT(CompileError("a BETWEEN 2.5 AND 2"), HasSubstr("Illegal values of between"));
  EXPECT_THAT(CompileError("a BETWEEN NULL AND 2"), HasSubstr("values can not be null"));
  // Only constants are checked: a negative bound is a negation, not a constant.
  EXPECT_TRUE(SqlExpression::Compile("a BETWEEN -1 AND -5").ok());
  EXPECT_TRUE(SqlExpression::Compile("a NOT BETWEEN 5 AND 3").ok());
  EXPECT_TRUE(SqlExpression::Compile("a BETWEEN 1 AND 1").ok());
}

TEST(SqlParserErrors, InNeedsAPropertyAndStrings) {
  EXPECT_THAT(CompileError("1 IN ('a')"), HasSubstr("Expected a property for In expression"));
  EXPECT_THAT(CompileError("a IN (1, 2)"), HasSubstr("Was expecting one of: <STRING_LITERAL>"));
  EXPECT_THAT(CompileError("a IN ()"), HasSubstr("<STRING_LITERAL>"));
  EXPECT_THAT(CompileError("a IN 'x'"), HasSubstr("\"(\""));
  EXPECT_THAT(CompileError("a IN ('x',)"), HasSubstr("<STRING_LITERAL>"));
}

TEST(SqlParserErrors, StringTestsNeedAStringLiteral) {
  EXPECT_THAT(CompileError("a CONTAINS b"), HasSubstr("<STRING_LITERAL>"));
  EXPECT_THAT(CompileError("a STARTSWITH 1"), HasSubstr("<STRING_LITERAL>"));
  EXPECT_THAT(CompileError("a NOT ENDSWITH"), HasSubstr("<STRING_LITERAL>"));
}

TEST(SqlParserErrors, IsNeedsNullOrNotNull) {
  EXPECT_THAT(CompileError("a IS 1"), HasSubstr("Was expecting one of: \"NOT\""));
  EXPECT_THAT(CompileError("a IS NOT 1"), HasSubstr("Was expecting one of: \"NULL\""));
}

TEST(SqlParserErrors, Literals) {
  EXPECT_THAT(CompileError("a = 99999999999999999999"), HasSubstr("For input string"));
  // RocketMQ's createFloat refuses 0 and what overflows a double.
  EXPECT_THAT(CompileError("a > 0.0"), HasSubstr("0.0 is less than 4.9E-324"));
  EXPECT_THAT(CompileError("a > 1e400"), HasSubstr("is greater than"));
  EXPECT_THAT(CompileError("a = 0L"), HasSubstr("Encountered \"L\""));  // "0" takes no L
  EXPECT_THAT(CompileError("a = 012"), HasSubstr("Encountered \"12\""));
}

TEST(SqlParserErrors, DeepNestingIsRefusedNotACrash) {
  EXPECT_THAT(CompileError(std::string(5000, '(') + "a = 1" + std::string(5000, ')')),
              HasSubstr("nested too deeply"));
  std::string chain = "a = 1";
  for (int i = 0; i < 1500; ++i) chain += " AND a = 1";
  EXPECT_THAT(CompileError(chain), HasSubstr("too deep"));
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_THAT(CompileError(nots + "a"), HasSubstr("nested too deeply"));
}

TEST(SqlParser, EveryConstructCompiles) {
  for (const char* sql : {"a = 1",
                          "a <> 1",
                          "a > 1",
                          "a >= 1",
                          "a < 1",
                          "a <= 1",
                          "a = 'x'",
                          "a = 1.5",
                          "a = 10L",
                          "a = 5E3",
                          "a = .5",
                          "a = 5.",
                          "a = 1.5e-3",
                          "a = TRUE",
                          "a = FALSE",
                          "a BETWEEN 1 AND 2",
                          "a NOT BETWEEN 1 AND 2",
                          "a IN ('x')",
                          "a IN ('x', 'y', 'z')",
                          "a NOT IN ('x')",
                          "a IS NULL",
                          "a IS NOT NULL",
                          "a = 1 AND b = 2",
                          "a = 1 OR b = 2",
                          "NOT (a = 1)",
                          "(a = 1 OR b = 2) AND c = 3",
                          "a CONTAINS 'x'",
                          "a NOT CONTAINS 'x'",
                          "a STARTSWITH 'x'",
                          "a NOT STARTSWITH 'x'",
                          "a ENDSWITH 'x'",
                          "a NOT ENDSWITH 'x'",
                          "a > -1",
                          "a > +1",
                          "a > - -1",
                          "TRUE",
                          "FALSE",
                          "NULL",
                          "a",
                          "NOT a",
                          "a = b",
                          "TAGS = 'TagA'",
                          "$x_1 = 1",
                          "a = 1 -- trailing comment\n",
                          "/* c */ a /* d */ = 1",
                          "a IN ('it''s')"}) {
    Result<SqlExpression> e = SqlExpression::Compile(sql);
    EXPECT_TRUE(e.ok()) << sql << ": " << e.status().message();
  }
}

TEST(SqlParser, KeywordsAreCaseInsensitivePropertyNamesAreNot) {
  EXPECT_EQ(Eval("a between 1 and 3 aNd b is not null", {{"a", "2"}, {"b", "x"}}),
            SqlResult::kTrue);
  EXPECT_EQ(Eval("A = 1", {{"a", "1"}}), SqlResult::kNull);  // A is not a
  Result<SqlExpression> e = SqlExpression::Compile("notable = 1 AND instance = 2");
  ASSERT_TRUE(e.ok()) << e.status().message();  // longer identifiers win over keywords
  EXPECT_EQ(e->property_names(), (std::vector<std::string>{"notable", "instance"}));
}

TEST(SqlParser, PropertyNamesAreDistinctInFirstUseOrder) {
  Result<SqlExpression> e = SqlExpression::Compile("b = 1 AND a = 2 OR b = 3 AND TAGS = 'x'");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->property_names(), (std::vector<std::string>{"b", "a", "TAGS"}));
}

TEST(SqlParser, LineCommentNeedsALineEnd) {
  // Without a line end "--" is two minus signs (as in RocketMQ's token manager).
  EXPECT_THAT(CompileError("a = 1 --x"), HasSubstr("Encountered \"-\""));
  EXPECT_EQ(Eval("a = 1 --x\n", {{"a", "1"}}), SqlResult::kTrue);
  EXPECT_EQ(Eval("a = --1\n1", {{"a", "1"}}), SqlResult::kTrue);
}

TEST(SqlParser, StringLiteralsUnescapeDoubledQuotes) {
  EXPECT_EQ(Eval("a = 'it''s'", {{"a", "it's"}}), SqlResult::kTrue);
  EXPECT_EQ(Eval("a = ''", {{"a", ""}}), SqlResult::kTrue);
  EXPECT_EQ(Eval("a = 'two\nlines'", {{"a", "two\nlines"}}), SqlResult::kTrue);
}

TEST(SqlParser, NotBindsTighterThanComparisons) {
  // "NOT a = 1" is "(NOT a) = 1": NOT(cast a) is TRUE for a present non-boolean string,
  // and TRUE = 1 is FALSE.
  EXPECT_EQ(Eval("NOT a = 1", {{"a", "1"}}), SqlResult::kFalse);
  EXPECT_EQ(Eval("NOT (a = 1)", {{"a", "1"}}), SqlResult::kFalse);
  EXPECT_EQ(Eval("NOT (a = 1)", {{"a", "2"}}), SqlResult::kTrue);
  EXPECT_EQ(Eval("NOT a = 1", {{"a", "2"}}), SqlResult::kFalse);
}

TEST(SqlParser, AndBindsTighterThanOr) {
  EXPECT_EQ(Eval("a = 1 OR a = 2 AND b = 3", {{"a", "1"}}), SqlResult::kTrue);
  EXPECT_EQ(Eval("(a = 1 OR a = 2) AND b = 3", {{"a", "1"}, {"b", "4"}}), SqlResult::kFalse);
}

}  // namespace
}  // namespace rocketstore::filter
