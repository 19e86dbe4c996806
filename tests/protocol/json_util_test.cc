#include "protocol/json_util.h"

#include <gtest/gtest.h>

namespace rocketstore::protocol {
namespace {

TEST(JsonUtilTest, QuotesBareIntegerKeysOnly) {
  EXPECT_EQ(QuoteBareIntegerKeys(R"({0:"x",  12 :{"a":"{1:2}"}})"),
            R"({"0":"x",  "12" :{"a":"{1:2}"}})");
  // Values, strings with escaped quotes and negative keys.
  EXPECT_EQ(QuoteBareIntegerKeys(R"({"a":[1,2],"b":"q\"{3:4}",-1:5})"),
            R"({"a":[1,2],"b":"q\"{3:4}","-1":5})");
  EXPECT_EQ(QuoteBareIntegerKeys(""), "");
}

}  // namespace
}  // namespace rocketstore::protocol
