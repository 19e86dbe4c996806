#include "base/status.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "base/result.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrnoMapsFullDiskToNoSpace) {
  EXPECT_THAT(ErrnoStatus("fallocate x", ENOSPC), StatusIs(StatusCode::kNoSpace));
  EXPECT_THAT(ErrnoStatus("fallocate x", EDQUOT), StatusIs(StatusCode::kNoSpace));
  Status eio = ErrnoStatus("fsync x", EIO);
  EXPECT_THAT(eio, StatusIs(StatusCode::kIOError));
  EXPECT_EQ(eio.error_number(), EIO);
  EXPECT_NE(eio.ToString().find("fsync x"), std::string::npos);
}

TEST(StatusTest, WithContextPrefixesMessageKeepsCode) {
  Status s = NotFound("segment").WithContext("open store");
  EXPECT_THAT(s, StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(s.message(), "open store: segment");
}

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  RS_ASSIGN_OR_RETURN(int h, Half(x));
  RS_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(ResultTest, ValueAndErrorPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_THAT(Quarter(6), StatusIs(StatusCode::kInvalidArgument));
}

TEST(ResultTest, OkStatusWithoutValueIsInternalError) {
  Result<int> r{Status::OK()};
  EXPECT_THAT(r, StatusIs(StatusCode::kInternal));
}

}  // namespace
}  // namespace rocketstore
