#include "store/format/index_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "base/coding.h"
#include "testing/xorshift.h"

namespace rocketstore::format {
namespace {

TEST(IndexLayoutTest, DefaultGeometryIsRocketMqs) {
  IndexGeometry g;
  EXPECT_EQ(g.hash_slot_num, 5'000'000);
  EXPECT_EQ(g.index_num, 20'000'000);
  EXPECT_EQ(g.FileSize(), 420'000'040u);
  EXPECT_EQ(g.EntriesStart(), 20'000'040u);
  EXPECT_EQ(g.SlotPosition(2746024), 40u + 4u * 2746024u);
}

TEST(IndexLayoutTest, SmallGeometryPositions) {
  IndexGeometry g{8, 16};
  EXPECT_EQ(g.SlotPosition(0), kIndexHeaderSize);
  EXPECT_EQ(g.SlotPosition(7), 68u);
  EXPECT_EQ(g.EntriesStart(), 72u);
  EXPECT_EQ(g.EntryPosition(1), 92u);
  EXPECT_EQ(g.FileSize(), 72u + 16u * 20u);
  EXPECT_TRUE(g.Valid());
  EXPECT_FALSE((IndexGeometry{0, 16}).Valid());
  EXPECT_FALSE((IndexGeometry{8, 1}).Valid());
}

TEST(IndexLayoutTest, KeyHashIsAbsoluteJavaHash) {
  EXPECT_EQ(IndexKeyHash("TopicTest#k1"), 2746024);
  EXPECT_EQ(IndexKeyHash("TopicTest#7F00000112340BADCAFE0001E2400001"), 1766377233);
  // Negative Java hash -> its absolute value.
  EXPECT_EQ(JavaStringHash("TopicTest#order-12345"), -2001722958);
  EXPECT_EQ(IndexKeyHash("TopicTest#order-12345"), 2001722958);
  // Math.abs(Integer.MIN_VALUE) stays negative in Java; RocketMQ then uses 0.
  EXPECT_EQ(JavaStringHash("polygenelubricants"), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(IndexKeyHash("polygenelubricants"), 0);
  // "Aa" and "BB" collide in Java, so the index cannot tell them apart.
  EXPECT_EQ(IndexKeyHash("T#Aa"), IndexKeyHash("T#BB"));
}

// The dispatcher hashes "topic#" once per record and continues with each key: the same
// hash as of the built key, for any bytes (non-ASCII, malformed UTF-8, 4-byte sequences
// split across the parts, every tail length of the 8-byte step).
TEST(IndexLayoutTest, KeyHashFromTheTopicSeedIsTheBuiltKeysHash) {
  EXPECT_EQ(IndexKeyHashFrom(IndexKeySeed("TopicTest"), "k1"), 2746024);
  EXPECT_EQ(IndexKeyHashFrom(IndexKeySeed("TopicTest"), "order-12345"), 2001722958);
  const std::string pieces[] = {"",     "a",    "TopicTest", "\xC3\xA9", "\xF0\x9F\x98\x80",
                                "\xC3", "\x80", "\xF0\x9F",  "#",        "0123456789abcdefXYZ"};
  testing::XorShift64 next(0x2545F4914F6CDD1Dull);
  for (int i = 0; i < 20000; ++i) {
    std::string topic, key;
    for (int n = static_cast<int>(next() % 4); n > 0; --n) topic += pieces[next() % 10];
    for (int n = static_cast<int>(next() % 5); n > 0; --n) key += pieces[next() % 10];
    ASSERT_EQ(IndexKeyHashFrom(IndexKeySeed(topic), key), IndexKeyHash(BuildIndexKey(topic, key)))
        << "topic " << topic << " key " << key;
  }
}

TEST(IndexLayoutTest, SlotsOfExampleC) {
  EXPECT_EQ(IndexSlotOf(IndexKeyHash("TopicTest#k1"), 8), 0);
  EXPECT_EQ(IndexSlotOf(IndexKeyHash("TopicTest#7F00000112340BADCAFE0001E2400001"), 8), 1);
  EXPECT_EQ(IndexSlotOf(IndexKeyHash("TopicTest#k1"), 5'000'000), 2746024);
}

TEST(IndexLayoutTest, BuildIndexKey) {
  EXPECT_EQ(BuildIndexKey("TopicTest", "k1"), "TopicTest#k1");
  EXPECT_EQ(BuildIndexKey("", ""), "#");
}

TEST(IndexLayoutTest, TimeDiffFollowsPutKey) {
  EXPECT_EQ(IndexTimeDiff(1700000000123, 0), 0);   // no begin time yet
  EXPECT_EQ(IndexTimeDiff(1700000000123, -5), 0);  // begin <= 0
  EXPECT_EQ(IndexTimeDiff(1000, 2000), 0);         // negative
  EXPECT_EQ(IndexTimeDiff(2999, 1000), 1);         // truncated
  EXPECT_EQ(IndexTimeDiff(1000 + 3'600'000, 1000), 3600);
  EXPECT_EQ(IndexTimeDiff(std::numeric_limits<int64_t>::max() / 2, 1),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(IndexEntryTime(1700000000123, 5), 1700000005123);
}

TEST(IndexLayoutTest, HeaderBytes) {
  IndexHeader h;
  h.begin_timestamp = 1700000000123;
  h.end_timestamp = 1700000000123;
  h.begin_phy_offset = 0;
  h.end_phy_offset = 256;
  h.hash_slot_count = 2;
  h.index_count = 4;
  uint8_t buf[kIndexHeaderSize];
  EncodeIndexHeader(h, buf);
  EXPECT_EQ(HexUpper(buf, sizeof buf),
            "0000018BCFE5687B0000018BCFE5687B000000000000000000000000000001000000000200000004");
  EXPECT_EQ(DecodeIndexHeader(buf), h);
  EXPECT_EQ(NormalizedIndexCount(0), 1);
  EXPECT_EQ(NormalizedIndexCount(-3), 1);
  EXPECT_EQ(NormalizedIndexCount(7), 7);
}

TEST(IndexLayoutTest, EntryBytes) {
  IndexEntry e{2746024, 256, 7, 1};
  uint8_t buf[kIndexEntrySize];
  EncodeIndexEntry(e, buf);
  EXPECT_EQ(HexUpper(buf, sizeof buf),
            "0029E6A8000000000000010000000007" + std::string("00000001"));
  EXPECT_EQ(DecodeIndexEntry(buf), e);
  IndexEntry neg{-1, -2, -3, -4};
  EncodeIndexEntry(neg, buf);
  EXPECT_EQ(DecodeIndexEntry(buf), neg);
}

}  // namespace
}  // namespace rocketstore::format
