#include "store/format/consume_queue_unit.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "base/coding.h"
#include "base/java_hash.h"

namespace rocketstore::format {
namespace {

std::string Hex(const ConsumeQueueUnit& unit) {
  std::array<uint8_t, kConsumeQueueUnitSize> bytes{};
  EncodeConsumeQueueUnit(unit, bytes.data());
  return HexUpper(bytes.data(), bytes.size());
}

TEST(ConsumeQueueUnitTest, LayoutConstants) {
  EXPECT_EQ(kConsumeQueueUnitSize, 20u);
  EXPECT_EQ(kCqPhysicalOffsetOffset, 0u);
  EXPECT_EQ(kCqSizeOffset, 8u);
  EXPECT_EQ(kCqTagsCodeOffset, 12u);
  EXPECT_EQ(kDefaultConsumeQueueUnitsPerFile * static_cast<int64_t>(kConsumeQueueUnitSize),
            6000000);
}

// Spec §12.3 (example C, 256-byte commit-log files): unit0 = (0, 122, jhash("TagA")),
// unit1 = (256, 187, jhash("TagA")).
TEST(ConsumeQueueUnitTest, GoldenUnitsOfExampleC) {
  const int64_t tag_a = JavaStringHash("TagA");
  ASSERT_EQ(tag_a, 2598919);
  ASSERT_EQ(187, 0xBB);
  const ConsumeQueueUnit unit0{PhysicalOffset(0), 122, tag_a};
  const ConsumeQueueUnit unit1{PhysicalOffset(256), 187, tag_a};
  EXPECT_EQ(Hex(unit0),
            "0000000000000000"
            "0000007A"
            "000000000027A807");
  EXPECT_EQ(Hex(unit1),
            "0000000000000100"
            "000000BB"
            "000000000027A807");

  auto bytes = HexDecode("0000000000000100000000BB000000000027A807");
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(DecodeConsumeQueueUnit(bytes->data()), unit1);
  EXPECT_EQ(unit1.end(), PhysicalOffset(443));
}

TEST(ConsumeQueueUnitTest, NegativeTagHashIsSignExtended) {
  const int32_t hash = JavaStringHash("negative-hash-tag-zz");
  const ConsumeQueueUnit unit{PhysicalOffset(1), 100, hash};
  const std::string hex = Hex(unit);
  if (hash < 0) {
    EXPECT_EQ(hex.substr(24, 8), "FFFFFFFF") << hex;
  } else {
    EXPECT_EQ(hex.substr(24, 8), "00000000") << hex;
  }
  std::array<uint8_t, kConsumeQueueUnitSize> b{};
  EncodeConsumeQueueUnit(ConsumeQueueUnit{PhysicalOffset(1), 100, -5}, b.data());
  EXPECT_EQ(HexUpper(b.data() + kCqTagsCodeOffset, 8), "FFFFFFFFFFFFFFFB");
  EXPECT_EQ(DecodeConsumeQueueUnit(b.data()).tags_code, -5);
}

TEST(ConsumeQueueUnitTest, BlankUnitBytesAndValidity) {
  EXPECT_EQ(Hex(kBlankUnit),
            "0000000000000000"
            "7FFFFFFF"
            "0000000000000000");
  EXPECT_TRUE(kBlankUnit.IsBlank());
  EXPECT_TRUE(kBlankUnit.IsValid());  // recovery counts pre-fill as written

  const ConsumeQueueUnit zero{};
  EXPECT_FALSE(zero.IsValid());  // the sparse tail ends a queue
  EXPECT_FALSE(zero.IsBlank());
  EXPECT_FALSE((ConsumeQueueUnit{PhysicalOffset(-1), 10, 0}.IsValid()));
  EXPECT_FALSE((ConsumeQueueUnit{PhysicalOffset(5), 0, 0}.IsValid()));
  EXPECT_FALSE((ConsumeQueueUnit{PhysicalOffset(5), -3, 0}.IsValid()));
  EXPECT_TRUE((ConsumeQueueUnit{PhysicalOffset(0), 91, 0}.IsValid()));
  EXPECT_FALSE((ConsumeQueueUnit{PhysicalOffset(0), kBlankUnitSize, 1}.IsBlank()));
}

TEST(ConsumeQueueUnitTest, ConfiguredFileSizeRoundsUpToWholeUnits) {
  EXPECT_EQ(ConsumeQueueUnitsPerFile(6000000), 300000);
  EXPECT_EQ(ConsumeQueueUnitsPerFile(4096), 205);  // 4100 bytes, as RocketMQ's tests use
  EXPECT_EQ(ConsumeQueueUnitsPerFile(20), 1);
  EXPECT_EQ(ConsumeQueueUnitsPerFile(21), 2);
}

TEST(ConsumeQueueUnitTest, ExtAddressBoundary) {
  EXPECT_FALSE(IsConsumeQueueExtAddress(INT32_MIN));
  EXPECT_FALSE(IsConsumeQueueExtAddress(0));
  EXPECT_TRUE(IsConsumeQueueExtAddress(int64_t{INT32_MIN} - 1));
  EXPECT_TRUE(IsConsumeQueueExtAddress(INT64_MIN));
}

}  // namespace
}  // namespace rocketstore::format
