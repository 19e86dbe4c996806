#include "base/java_hash.h"

#include <gtest/gtest.h>

namespace rocketstore {
namespace {

TEST(JavaHashTest, SpecExamples) {
  EXPECT_EQ(JavaStringHash("TagA"), 2598919);          // §12.1 tagsCode
  EXPECT_EQ(JavaStringHash("TopicTest#k1"), 2746024);  // §12.1 index key
  EXPECT_EQ(JavaStringHash("TopicTest#7F00000112340BADCAFE0001E2400001"), 1766377233);
  EXPECT_EQ(JavaStringHash(""), 0);
}

TEST(JavaHashTest, WrapsAroundLikeJava) {
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE in Java.
  EXPECT_EQ(JavaStringHash("polygenelubricants"), INT32_MIN);
  EXPECT_EQ(JavaStringHash("TopicTest#order-12345"), -2001722958);
  EXPECT_EQ(JavaStringHash("zzzzzzzzzzzzzzzzzzzz"), 1718487168);
}

TEST(JavaHashTest, NonAsciiHashesUtf16Units) {
  // "é" is U+00E9: one unit, hash 233.
  EXPECT_EQ(JavaStringHash("\xC3\xA9"), 233);
  // "中" U+4E2D: one unit.
  EXPECT_EQ(JavaStringHash("\xE4\xB8\xAD"), 0x4E2D);
  // U+1F600 is the surrogate pair D83D DE00: 31*0xD83D + 0xDE00.
  EXPECT_EQ(JavaStringHash("\xF0\x9F\x98\x80"), 31 * 0xD83D + 0xDE00);
  EXPECT_EQ(JavaStringLength("\xF0\x9F\x98\x80"), 2u);
  EXPECT_EQ(JavaStringLength("a\xC3\xA9"), 2u);
}

TEST(JavaHashTest, MalformedBytesCountAsReplacementChar) {
  EXPECT_EQ(JavaStringHash("\xFF"), 0xFFFD);
  EXPECT_EQ(JavaStringLength("\xC3"), 1u);
}

}  // namespace
}  // namespace rocketstore
