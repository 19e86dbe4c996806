#include "store/format/message_id.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/status_matchers.h"

namespace rocketstore::format {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;

TEST(OffsetMsgIdTest, RejectsWrongLength) {
  for (std::string_view bad : {"", "7F00000100002A9F000000000000000",        // 31
                               "7F00000100002A9F00000000000000000",          // 33
                               "7F00000100002A9F0000000000000000000000"}) {  // 38
    Result<OffsetMsgId> r = DecodeOffsetMsgId(bad);
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("32 (IPv4) or 56 (IPv6)"));
  }
}

TEST(OffsetMsgIdTest, RejectsNonHex) {
  Result<OffsetMsgId> r = DecodeOffsetMsgId("7F00000100002A9F00000000000000G0");
  EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(r.status().message(), HasSubstr("non-hex character at position 30"));
  EXPECT_THAT(DecodeOffsetMsgId("7F00000100002A9F 000000000000000"),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeOffsetMsgId(std::string_view("7F00000100002A9F\0"
                                                 "00000000000000x",
                                                 32)),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST(OffsetMsgIdTest, RejectsNegativeOffset) {
  Result<OffsetMsgId> r = DecodeOffsetMsgId("7F00000100002A9F8000000000000000");
  EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(r.status().message(), HasSubstr("negative physical offset"));
}

TEST(OffsetMsgIdTest, SpecExamples) {
  const HostAddress store = HostAddress::V4(127, 0, 0, 1, 10911);
  EXPECT_EQ(EncodeOffsetMsgId(store, 0), "7F00000100002A9F0000000000000000");
  EXPECT_EQ(EncodeOffsetMsgId(store, 1073741824), "7F00000100002A9F0000000040000000");
  EXPECT_EQ(EncodeOffsetMsgId(store, 256), "7F00000100002A9F0000000000000100");

  ASSERT_OK_AND_ASSIGN(OffsetMsgId id, DecodeOffsetMsgId("7F00000100002A9F0000000040000000"));
  EXPECT_EQ(id.host, store);
  EXPECT_EQ(id.physical_offset, 1073741824);
}

TEST(OffsetMsgIdTest, Ipv6AndLowerCase) {
  ASSERT_OK_AND_ASSIGN(HostAddress store, HostAddress::Parse("[2001:db8::1]:10911"));
  const std::string id = EncodeOffsetMsgId(store, 0x0123456789ABCDEF);
  EXPECT_EQ(id.size(), kOffsetMsgIdLengthV6);
  EXPECT_EQ(OffsetMsgIdLength(store), 56u);
  EXPECT_EQ(id, "20010DB800000000000000000000000100002A9F0123456789ABCDEF");
  ASSERT_OK_AND_ASSIGN(OffsetMsgId back, DecodeOffsetMsgId(id));
  EXPECT_EQ(back.host, store);
  EXPECT_EQ(back.physical_offset, 0x0123456789ABCDEF);

  ASSERT_OK_AND_ASSIGN(OffsetMsgId lower, DecodeOffsetMsgId("7f00000100002a9f00000000000000ff"));
  EXPECT_EQ(lower.host, HostAddress::V4(127, 0, 0, 1, 10911));
  EXPECT_EQ(lower.physical_offset, 255);
}

}  // namespace
}  // namespace rocketstore::format
