#include "base/coding.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "base/offsets.h"

namespace rocketstore {
namespace {

TEST(CodingTest, BigEndianLayout) {
  uint8_t buf[8];
  EncodeFixed32BE(buf, 0xDAA320A7u);
  EXPECT_EQ(buf[0], 0xDA);
  EXPECT_EQ(buf[3], 0xA7);
  EXPECT_EQ(DecodeInt32BE(buf), -626843481);  // the spec's signed view of the V1 magic
  EncodeFixed64BE(buf, 1700000000000ull);
  EXPECT_EQ(HexUpper(buf, 8), "0000018BCFE56800");
  EXPECT_EQ(DecodeFixed64BE(buf), 1700000000000ull);
  EncodeFixed16BE(buf, 0x0011);
  EXPECT_EQ(buf[0], 0x00);
  EXPECT_EQ(buf[1], 0x11);
  EXPECT_EQ(DecodeInt16BE("\xFF\xFE"), -2);
}

TEST(CodingTest, HexRoundTripAndRejects) {
  const uint8_t bytes[] = {0x7F, 0x00, 0x00, 0x01, 0xAB};
  EXPECT_EQ(HexUpper(bytes, 5), "7F000001AB");
  auto back = HexDecode("7f000001Ab");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, std::vector<uint8_t>(bytes, bytes + 5));
  EXPECT_FALSE(HexDecode("ABC").has_value());
  EXPECT_FALSE(HexDecode("ZZ").has_value());
}

// Every byte value's two digits (from HexUpperTo's table) against printf's %02X, and
// HexUpperTo writes exactly 2n characters.
TEST(CodingTest, HexUpperWritesEveryByteAsPrintfDoes) {
  uint8_t all[256];
  for (int b = 0; b < 256; ++b) all[b] = static_cast<uint8_t>(b);
  std::string expected;
  for (int b = 0; b < 256; ++b) {
    char two[3];
    std::snprintf(two, sizeof(two), "%02X", b);
    expected += two;
  }
  EXPECT_EQ(HexUpper(all, 256), expected);
  std::string out(2 * 3 + 2, '.');
  HexUpperTo(all + 253, 3, out.data() + 1);  // nothing written before or past 2n
  EXPECT_EQ(out, ".FDFEFF.");
  EXPECT_EQ(HexUpper(all, 0), "");
}

TEST(OffsetsTest, ArithmeticStaysTyped) {
  PhysicalOffset a(100);
  PhysicalOffset b = a + 22;
  EXPECT_EQ(b.value(), 122);
  EXPECT_EQ(b - a, 22);
  EXPECT_LT(a, b);
  QueueOffset q(3);
  q += 1;
  EXPECT_EQ(q.value(), 4);
  static_assert(!std::is_convertible_v<PhysicalOffset, QueueOffset>);
}

}  // namespace
}  // namespace rocketstore
