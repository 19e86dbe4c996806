#include "base/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

namespace rocketstore {
namespace {

TEST(Crc32Test, RocketMqValueOfHello) {
  // Spec §12.1: BODYCRC of "hello" is 907060870 = 0x3610A686.
  EXPECT_EQ(RocketMqCrc32("hello"), 907060870u);
}

TEST(Crc32Test, EmptyIsZero) { EXPECT_EQ(RocketMqCrc32(""), 0u); }

TEST(Crc32Test, TopBitAlwaysCleared) {
  // crc32("a") = 0xE8B7BE43 has the top bit set; RocketMQ stores 0x68B7BE43.
  EXPECT_EQ(Crc32("a", 1), 0xE8B7BE43u);
  EXPECT_EQ(RocketMqCrc32("a"), 0x68B7BE43u);
}

TEST(Crc32Test, MatchesZlibOnEveryLengthAndAlignment) {
  std::mt19937 rng(42);
  std::vector<uint8_t> buf(5000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t len : {1u, 2u, 3u, 7u, 15u, 16u, 17u, 63u, 64u, 65u, 255u, 1024u, 4096u, 4999u}) {
    for (size_t align = 0; align < 4 && align + len <= buf.size(); ++align) {
      uint32_t want = static_cast<uint32_t>(crc32(0, buf.data() + align, len));
      ASSERT_EQ(Crc32(buf.data() + align, len), want) << "len " << len << " align " << align;
    }
  }
}

TEST(Crc32Test, ContinuationEqualsOneShot) {
  const char* s = "The quick brown fox jumps over the lazy dog";
  uint32_t whole = Crc32(s, 43);
  uint32_t part = Crc32(s + 10, 33, Crc32(s, 10));
  EXPECT_EQ(whole, part);
  EXPECT_EQ(whole, 0x414FA339u);
}

}  // namespace
}  // namespace rocketstore
