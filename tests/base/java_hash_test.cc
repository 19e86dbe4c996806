#include "base/java_hash.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

TEST(JavaHashTest, EightByteStepsAgreeWithOneUnitAtATime) {
  // The ASCII words and the per-unit tail meet at every offset: the same hash as the
  // definition, h = 31*h + unit over Java's UTF-16 units, with a non-ASCII sequence
  // anywhere (the word loop stops there) and at every length around the 8-byte steps.
  const std::pair<std::string, std::vector<uint32_t>> pieces[] = {
      {"a", {'a'}},      {"Z", {'Z'}},         {"\x01", {1}},
      {"\x7F", {0x7F}},  {"\xC3\xA9", {0xE9}}, {"\xF0\x9F\x98\x80", {0xD83D, 0xDE00}},
      {"\xFF", {0xFFFD}}};
  uint64_t seed = 42;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    uint32_t expected = 0;
    const int n = round % 40;
    for (int k = 0; k < n; ++k) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      // Mostly ASCII, as real keys are, so the word loop runs.
      const size_t pick = (seed >> 33) % 20 < 17 ? (seed >> 40) % 4 : (seed >> 40) % 7;
      text += pieces[pick].first;
      for (uint32_t unit : pieces[pick].second) expected = 31 * expected + unit;
    }
    ASSERT_EQ(JavaStringHash(text), static_cast<int32_t>(expected)) << round;
  }
}

}  // namespace
}  // namespace rocketstore
