// The timer index's byte formats (timer/timer_format.h) and the recall handle.
#include "timer/timer_format.h"

#include <gtest/gtest.h>

#include "testing/status_matchers.h"
#include "timer/recall_handle.h"

namespace rocketstore::timer {
namespace {
using ::rocketstore::testing::StatusIs;

TEST(TimerFormatTest, DamagedEntryIsRejectedAtEveryByte) {
  TimerEntry e{1700000000100, 4096, 230, 0xABCD1234, TimerEntryKind::kCancel};
  uint8_t buf[kEntrySize];
  EncodeEntry(e, buf);
  for (size_t i = 0; i < kEntrySize; ++i) {
    uint8_t bad[kEntrySize];
    std::copy(buf, buf + kEntrySize, bad);
    bad[i] ^= 0x01;
    EXPECT_FALSE(DecodeEntry(bad).has_value()) << "byte " << i;
  }
  uint8_t zero[kEntrySize] = {};
  EXPECT_FALSE(DecodeEntry(zero).has_value());  // a zero tail is not an entry
  ASSERT_TRUE(DecodeEntry(buf).has_value());
  EXPECT_EQ(*DecodeEntry(buf), e);
}

TEST(TimerFormatTest, LayoutIsBigEndianAsDocumented) {
  TimerEntry e{0x0102030405060708, 0x1112131415161718, 0x21222324, 0x31323334,
               TimerEntryKind::kAdd};
  uint8_t buf[kEntrySize];
  EncodeEntry(e, buf);
  EXPECT_EQ(buf[0], 0x01);
  EXPECT_EQ(buf[7], 0x08);
  EXPECT_EQ(buf[8], 0x11);
  EXPECT_EQ(buf[16], 0x21);
  EXPECT_EQ(buf[20], 0x31);
  EXPECT_EQ(buf[24], 1);
  EXPECT_EQ(buf[25] | buf[26] | buf[27], 0);
}

TEST(TimerFormatTest, TombstoneCarriesTheOffsetOfTheRolledCopy) {
  TimerEntry t;
  t.deliver_ms = 5;
  t.offset = 100;
  t.kind = TimerEntryKind::kRolledAway;
  t.by_offset = 0x7000000000;
  uint8_t buf[kEntrySize];
  EncodeEntry(t, buf);
  auto d = DecodeEntry(buf);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->by_offset, 0x7000000000);
  EXPECT_EQ(d->source_offset(), 0x7000000000);
  EXPECT_EQ(d->offset, 100);
}

TEST(TimerFormatTest, StateFileRejectsDamageAndWrongSize) {
  std::string s = EncodeState({123, 456});
  ASSERT_EQ(s.size(), kStateFileSize);
  ASSERT_OK_AND_ASSIGN(StateRecord r, DecodeState(s));
  EXPECT_EQ(r.a, 123);
  EXPECT_EQ(r.b, 456);
  for (size_t i = 0; i < s.size(); ++i) {
    std::string bad = s;
    bad[i] ^= 0x10;
    EXPECT_THAT(DecodeState(bad).status(), StatusIs(StatusCode::kCorruption)) << i;
  }
  EXPECT_THAT(DecodeState(s.substr(0, 27)).status(), StatusIs(StatusCode::kCorruption));
}

TEST(TimerFormatTest, BucketNamesRoundTripAndOthersAreIgnored) {
  EXPECT_EQ(BucketFileName(2, 1700000000000), "2_00000001700000000000");
  auto b = ParseBucketFileName("1_00000001700000600000");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->level, 1);
  EXPECT_EQ(b->window_start_ms, 1700000600000);
  for (const char* n : {"progress", "filed", "3_00000001700000000000", "0_0000000170000000000x",
                        "0_-0000001700000000000", "0_00000001700000000000.tmp"}) {
    EXPECT_FALSE(ParseBucketFileName(n).has_value()) << n;
  }
}

TEST(TimerFormatTest, ParseLongIsJavaParseLong) {
  EXPECT_EQ(ParseLong("0"), 0);
  EXPECT_EQ(ParseLong("-12"), -12);
  EXPECT_EQ(ParseLong("+7"), 7);
  EXPECT_EQ(ParseLong("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseLong("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", "-", "1.5", "1e3", " 1", "9223372036854775808", "abc"}) {
    EXPECT_FALSE(ParseLong(bad).has_value()) << bad;
  }
}

// RocketMQ 5.3's RecallMessageHandle.HandleV1.buildHandle of these fields (Java's
// Base64.getUrlEncoder(), with padding).
TEST(RecallHandleTest, MatchesRocketMqEncoding) {
  RecallHandle h{"TopicA", "broker-a", "1700000060001", "7F0000010001000000000000000A0001"};
  const std::string want =
      "djEgVG9waWNBIGJyb2tlci1hIDE3MDAwMDAwNjAwMDEgN0YwMDAwMDEwMDAxMDAwMDAwMDAwMDAwMDAwQTAwMDE=";
  EXPECT_EQ(EncodeRecallHandle(h), want);
  ASSERT_OK_AND_ASSIGN(RecallHandle d, DecodeRecallHandle(want));
  EXPECT_EQ(d.topic, "TopicA");
  EXPECT_EQ(d.broker_name, "broker-a");
  EXPECT_EQ(d.timestamp, "1700000060001");
  EXPECT_EQ(d.message_id, "7F0000010001000000000000000A0001");
}

TEST(RecallHandleTest, InvalidHandlesAreRefusedAsRocketMqDoes) {
  for (const std::string& bad : {std::string(), std::string("!!!!"), Base64UrlEncode("v2 T b 1 id"),
                                 Base64UrlEncode("v1 T b 1"), Base64UrlEncode("garbage")}) {
    Result<RecallHandle> r = DecodeRecallHandle(bad);
    EXPECT_THAT(r.status(), StatusIs(StatusCode::kInvalidArgument)) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().message(), "recall handle is invalid");
    }
  }
  for (size_t n = 0; n < 7; ++n) {  // every padding case round-trips
    const std::string s = std::string("abcdefg").substr(0, n);
    ASSERT_OK_AND_ASSIGN(std::string back, Base64UrlDecode(Base64UrlEncode(s)));
    EXPECT_EQ(back, s);
  }
}

}  // namespace
}  // namespace rocketstore::timer
