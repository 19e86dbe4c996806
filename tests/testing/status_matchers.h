// gtest helpers for Status / Result.
//   EXPECT_OK(s);  ASSERT_OK(s);  ASSERT_OK_AND_ASSIGN(auto v, ResultExpr());
//   EXPECT_THAT(s, StatusIs(StatusCode::kNoSpace));
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore::testing {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const Result<T>& r) {
  return r.status();
}

MATCHER_P(StatusIs, code, "") {
  const Status& s = ::rocketstore::testing::GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  return s.code() == code;
}

}  // namespace rocketstore::testing

#define EXPECT_OK(expr)                                                                   \
  do {                                                                                    \
    const ::rocketstore::Status rs_expect_tmp_ = ::rocketstore::testing::GetStatus(expr); \
    EXPECT_TRUE(rs_expect_tmp_.ok()) << rs_expect_tmp_.ToString();                        \
  } while (0)
// Copies the Status: `expr` may be a temporary (e.g. `Foo().status()` of a Result).
#define ASSERT_OK(expr)                                                               \
  do {                                                                                \
    const ::rocketstore::Status rs_ok_tmp_ = ::rocketstore::testing::GetStatus(expr); \
    ASSERT_TRUE(rs_ok_tmp_.ok()) << rs_ok_tmp_.ToString();                            \
  } while (0)
#define RS_TEST_CONCAT_INNER_(a, b) a##b
#define RS_TEST_CONCAT_(a, b) RS_TEST_CONCAT_INNER_(a, b)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)  \
  auto tmp = (expr);                                \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString(); \
  lhs = std::move(tmp).value()
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(RS_TEST_CONCAT_(rs_assign_tmp_, __LINE__), lhs, expr)
