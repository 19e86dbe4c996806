// Evaluation as RocketMQ's expression classes evaluate (property values are strings, as the
// broker reads them): the semantics table of docs/messaging.md "SQL92 filters", row by row.
#include <gtest/gtest.h>

#include <cmath>

#include "filter/internal/sql_ast.h"
#include "filter/sql_test_util.h"

namespace rocketstore::filter {
namespace {

constexpr SqlResult T = SqlResult::kTrue;
constexpr SqlResult F = SqlResult::kFalse;
constexpr SqlResult N = SqlResult::kNull;
constexpr SqlResult E = SqlResult::kError;

struct Row {
  const char* sql;
  Props props;
  SqlResult want;
};

void Check(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    std::string shown;
    for (const auto& [k, v] : r.props) shown += k + "='" + v + "' ";
    EXPECT_EQ(SqlResultName(Eval(r.sql, r.props)), SqlResultName(r.want))
        << r.sql << " over {" << shown << "}";
  }
}

TEST(SqlEval, MissingPropertiesAreNull) {
  Check({
      {"a > 3", {}, N},
      {"a = 'x'", {}, N},
      {"a <> 'x'", {}, N},  // NOT NULL is NULL: a missing property matches neither
      {"NOT (a = 1)", {}, N},
      {"a IN ('x')", {}, N},
      {"a NOT IN ('x')", {}, N},
      {"a BETWEEN 1 AND 2", {}, N},
      {"a IS NULL", {}, T},
      {"a IS NOT NULL", {}, F},
      {"a IS NULL", {{"a", ""}}, F},
      {"a IS NOT NULL", {{"a", "x"}}, T},
      {"a = b", {}, T},  // null == null in RocketMQ's equality
      {"a = b", {{"a", "1"}}, F},
      {"a = b", {{"b", "1"}}, N},
  });
}

TEST(SqlEval, ThreeValuedLogic) {
  Check({
      {"a = 1 OR b = 2", {{"b", "2"}}, T},
      {"a = 1 OR b = 2", {{"b", "3"}}, N},
      {"a = 1 AND b = 2", {{"b", "3"}}, F},
      {"a = 1 AND b = 2", {{"b", "2"}}, N},
      {"a = 1 AND b = 2", {{"a", "1"}, {"b", "2"}}, T},
      {"TRUE", {}, T},
      {"FALSE", {}, F},
      {"NULL", {}, N},
      {"NOT NULL", {}, N},
  });
}

TEST(SqlEval, NumbersAgainstStringProperties) {
  Check({
      {"a = 3", {{"a", "3"}}, T},
      {"a = 3", {{"a", "+3"}}, T},   // Integer.valueOf takes a sign
      {"a = 3", {{"a", " 3"}}, E},   // ... but no blanks
      {"a = 3", {{"a", "3.0"}}, E},  // Integer.valueOf("3.0") throws: no match
      {"a = 3", {{"a", "abc"}}, E},
      {"a = 3.0", {{"a", "3"}}, T},  // a double constant parses the property as a double
      {"a = 3.0", {{"a", " 3 "}}, T},
      {"a = 3.0", {{"a", "3d"}}, T},
      {"a > 3", {{"a", "10"}}, T},
      {"a > 3", {{"a", "3000000000"}}, E},  // 3 is an Integer: the property must fit 32 bits
      {"a > 3.0", {{"a", "3000000000"}}, T},
      {"a > 2147483648", {{"a", "3000000000"}}, T},  // a Long constant
      {"a > -1", {{"a", "0"}}, T},
      {"a < -1.5", {{"a", "-2"}}, T},
      {"a > 1.0", {{"a", "NaN"}}, T},  // Double.compareTo orders NaN above everything
      {"a > 1.0", {{"a", "Infinity"}}, T},
      {"-a > 1", {{"a", "5"}}, N},  // negating a string gives null
  });
}

TEST(SqlEval, Between) {
  Check({
      {"a BETWEEN 3 AND 5", {{"a", "3"}}, T},
      {"a BETWEEN 3 AND 5", {{"a", "5"}}, T},
      {"a BETWEEN 3 AND 5", {{"a", "6"}}, F},
      {"a BETWEEN 3 AND 5", {{"a", "4.5"}}, E},
      {"a BETWEEN 3.0 AND 5", {{"a", "4.5"}}, E},  // a <= 5 parses "4.5" as an Integer
      {"a BETWEEN 3.0 AND 5.0", {{"a", "4.5"}}, T},
      {"a NOT BETWEEN 3 AND 5", {{"a", "2"}}, T},
      {"a NOT BETWEEN 3 AND 5", {{"a", "4"}}, F},
      {"a BETWEEN -1 AND -5", {{"a", "-3"}}, F},  // not checked, never true
  });
}

TEST(SqlEval, StringsAndBooleans) {
  Check({
      {"a = 'abc'", {{"a", "abc"}}, T},
      {"a = 'abc'", {{"a", "ABC"}}, F},
      {"a <> 'abc'", {{"a", "x"}}, T},
      {"a > b", {{"a", "10"}, {"b", "9"}}, T},  // two properties are ordered as doubles
      {"a > b", {{"a", "x"}, {"b", "9"}}, E},
      {"a = b", {{"a", "1"}, {"b", "1.0"}}, F},  // ... but compared for equality as strings
      {"a = TRUE", {{"a", "true"}}, T},
      {"a = TRUE", {{"a", "TRUE"}}, T},
      {"a = TRUE", {{"a", "yes"}}, F},
      {"a = FALSE", {{"a", "yes"}}, T},  // Boolean.valueOf: anything but "true" is false
      {"a", {{"a", "true"}}, F},         // a bare property is a condition only if Boolean
      {"a", {}, N},
      {"NOT a", {{"a", "x"}}, T},
      {"b = (a = 1)", {{"a", "1"}, {"b", "true"}}, T},
      {"(a = 1) = b", {{"a", "1"}, {"b", "true"}}, E},  // Boolean vs String: Java throws
      {"1 = 1.0", {}, T},
      {"1 = TRUE", {}, F},
      {"TAGS = 'TagA' AND KEYS = 'k1'", {{"TAGS", "TagA"}, {"KEYS", "k1"}}, T},
  });
}

TEST(SqlEval, InAndStringTests) {
  Check({
      {"a IN ('x', 'y')", {{"a", "x"}}, T},
      {"a IN ('x', 'y')", {{"a", "z"}}, F},
      {"a IN ('a', 'b', 'c', 'd', 'e', 'f')", {{"a", "f"}}, T},
      {"a NOT IN ('x', 'y')", {{"a", "z"}}, T},
      {"a CONTAINS 'b'", {{"a", "abc"}}, T},
      {"a CONTAINS 'z'", {{"a", "abc"}}, F},
      {"a CONTAINS 'b'", {}, F},  // not null: FALSE
      {"a NOT CONTAINS 'b'", {}, F},
      {"a NOT CONTAINS 'z'", {{"a", "abc"}}, T},
      {"a CONTAINS ''", {{"a", "abc"}}, F},  // an empty search never matches
      {"a NOT CONTAINS ''", {{"a", "abc"}}, F},
      {"a STARTSWITH 'ab'", {{"a", "abc"}}, T},
      {"a NOT STARTSWITH 'ab'", {{"a", "abc"}}, F},
      {"a ENDSWITH 'bc'", {{"a", "abc"}}, T},
      {"a NOT ENDSWITH 'x'", {{"a", "abc"}}, T},
      {"a ENDSWITH 'x'", {}, F},
  });
}

TEST(SqlEval, AnErrorAbortsTheWholeExpressionUnlessShortCircuited) {
  Check({
      {"a = 1 OR b = 2", {{"a", "x"}, {"b", "2"}}, E},
      {"b = 2 OR a = 1", {{"a", "x"}, {"b", "2"}}, T},
      {"b = 3 AND a = 1", {{"a", "x"}, {"b", "2"}}, F},
      {"NOT (a = 1)", {{"a", "x"}}, E},
      {"a > 1 IS NULL", {{"a", "x"}}, E},
  });
}

TEST(SqlEval, TheVectorsExpression) {
  // sql92.json: "a BETWEEN 3 AND 5" delivered a=3, 4, 5 of a=0..5.
  for (int a = 0; a <= 6; ++a) {
    EXPECT_EQ(Eval("a BETWEEN 3 AND 5", {{"a", std::to_string(a)}}), a >= 3 && a <= 5 ? T : F);
  }
}

TEST(SqlJavaNumbers, IntegerParsing) {
  using internal::ParseJavaInt;
  using internal::ParseJavaLong;
  EXPECT_EQ(ParseJavaInt("2147483647"), 2147483647);
  EXPECT_EQ(ParseJavaInt("-2147483648"), INT32_MIN);
  EXPECT_EQ(ParseJavaInt("2147483648"), std::nullopt);
  EXPECT_EQ(ParseJavaInt("+"), std::nullopt);
  EXPECT_EQ(ParseJavaInt(""), std::nullopt);
  EXPECT_EQ(ParseJavaInt("1_0"), std::nullopt);
  EXPECT_EQ(ParseJavaLong("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ParseJavaLong("9223372036854775808"), std::nullopt);
}

TEST(SqlJavaNumbers, DoubleParsing) {
  using internal::ParseJavaDouble;
  EXPECT_EQ(ParseJavaDouble("1.5"), 1.5);
  EXPECT_EQ(ParseJavaDouble(" -1.5e2F "), -150.0);
  EXPECT_EQ(ParseJavaDouble(".5"), 0.5);
  EXPECT_EQ(ParseJavaDouble("5."), 5.0);
  EXPECT_EQ(ParseJavaDouble("1e400"), HUGE_VAL);
  EXPECT_EQ(ParseJavaDouble("-Infinity"), -HUGE_VAL);
  EXPECT_TRUE(std::isnan(*ParseJavaDouble("NaN")));
  for (const char* bad : {"", ".", "e5", "1e", "1.5x", "inf", "nan", "0x10", "1 2", "--1"}) {
    EXPECT_EQ(ParseJavaDouble(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(internal::JavaDoubleCompare(-0.0, 0.0), -1);
  EXPECT_EQ(internal::JavaDoubleCompare(std::nan(""), std::nan("")), 0);
}

}  // namespace
}  // namespace rocketstore::filter
