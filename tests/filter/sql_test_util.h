// Helpers for the SQL92 filter tests: compile-or-fail and evaluate over a property map.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "filter/sql_expression.h"

namespace rocketstore::filter {

using Props = std::map<std::string, std::string>;

// The result of `sql` over `props`; a compile error fails the test and answers kError.
inline SqlResult Eval(const std::string& sql, const Props& props) {
  Result<SqlExpression> e = SqlExpression::Compile(sql);
  EXPECT_TRUE(e.ok()) << sql << ": " << e.status().message();
  if (!e.ok()) return SqlResult::kError;
  std::vector<std::optional<std::string_view>> values;
  for (const std::string& name : e->property_names()) {
    auto it = props.find(name);
    values.push_back(it == props.end() ? std::nullopt
                                       : std::optional<std::string_view>(it->second));
  }
  return e->Evaluate(values);
}

// The compile error message of `sql` (empty, and a test failure, if it compiles).
inline std::string CompileError(const std::string& sql) {
  Result<SqlExpression> e = SqlExpression::Compile(sql);
  EXPECT_FALSE(e.ok()) << sql << " compiled";
  if (e.ok()) return "";
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  return e.status().message();
}

}  // namespace rocketstore::filter
