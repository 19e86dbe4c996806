#include "store/segment/file_names.h"

#include <gtest/gtest.h>

namespace rocketstore {
namespace {

TEST(FileNamesTest, TwentyDigitNames) {
  EXPECT_EQ(SegmentFileName(0), "00000000000000000000");
  EXPECT_EQ(SegmentFileName(1073741824), "00000000001073741824");
  EXPECT_EQ(ParseSegmentFileName("00000000001073741824"), 1073741824);
}

TEST(FileNamesTest, RejectsOtherNames) {
  EXPECT_FALSE(ParseSegmentFileName("0000000000107374182"));    // 19 digits
  EXPECT_FALSE(ParseSegmentFileName("000000000010737418240"));  // 21 digits
  EXPECT_FALSE(ParseSegmentFileName("0000000000107374182x"));
  EXPECT_FALSE(ParseSegmentFileName("00000000001073741824.tmp"));
  EXPECT_FALSE(ParseSegmentFileName("99999999999999999999"));  // overflows int64
}

}  // namespace
}  // namespace rocketstore
