// The SEND_BATCH_MESSAGE body (protocol/bodies/batch_body.h): records laid out as the Java
// client's MessageDecoder.encodeMessages writes them decode to views into the body; every
// truncation, bad length and disagreeing totalSize is an error naming the record and byte.
#include "protocol/bodies/batch_body.h"

#include <gtest/gtest.h>

#include <string>

#include "base/coding.h"

namespace rocketstore::protocol {
namespace {

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Three messages as Java encodes them, the record bytes spelled out for the first.
std::vector<uint8_t> ThreeMessages() {
  std::vector<uint8_t> out;
  AppendBatchRecord(7, Bytes("hello"), "KEYS\x01k1\x02WAIT\x01true", &out);
  AppendBatchRecord(0, Bytes(""), "", &out);
  AppendBatchRecord(-1, Bytes(std::string(300, '\xfe')), "TAGS\x01t", &out);
  return out;
}

TEST(BatchBodyTest, EmptyBodyIsAnError) {
  Result<std::vector<BatchMessageView>> r = DecodeBatchBody({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "batch body: empty (no messages)");
}

TEST(BatchBodyTest, RecordLayoutIsJavas) {
  std::vector<uint8_t> one;
  AppendBatchRecord(0x01020304, Bytes("ab"), "p", &one);
  const std::vector<uint8_t> expected = {0, 0, 0,  25,            // totalSize = 22 + 2 + 1
                                         0, 0, 0,  0,             // magic
                                         0, 0, 0,  0,             // body CRC
                                         1, 2, 3,  4,             // flag
                                         0, 0, 0,  2,  'a', 'b',  // bodyLen, body
                                         0, 1, 'p'};              // propsLen, properties
  EXPECT_EQ(one, expected);
}

TEST(BatchBodyTest, DecodesViewsIntoTheBody) {
  const std::vector<uint8_t> body = ThreeMessages();
  Result<std::vector<BatchMessageView>> r = DecodeBatchBody(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].flag, 7);
  EXPECT_EQ(std::string((*r)[0].body.begin(), (*r)[0].body.end()), "hello");
  EXPECT_EQ((*r)[0].properties, "KEYS\x01k1\x02WAIT\x01true");
  EXPECT_EQ((*r)[0].body.data(), body.data() + 20);  // a view, not a copy
  EXPECT_EQ((*r)[1].flag, 0);
  EXPECT_TRUE((*r)[1].body.empty());
  EXPECT_TRUE((*r)[1].properties.empty());
  EXPECT_EQ((*r)[2].flag, -1);
  EXPECT_EQ((*r)[2].body.size(), 300u);
  EXPECT_EQ((*r)[2].properties, "TAGS\x01t");
  EXPECT_EQ(reinterpret_cast<const uint8_t*>((*r)[2].properties.data()) + 6,
            body.data() + body.size());
}

TEST(BatchBodyTest, EveryTruncationInsideARecordFails) {
  const std::vector<uint8_t> body = ThreeMessages();
  const size_t first = 22 + 5 + 17, second = first + 22;  // the record boundaries
  for (size_t n = 1; n < body.size(); ++n) {
    Result<std::vector<BatchMessageView>> r = DecodeBatchBody(std::span(body).first(n));
    if (n == first || n == second) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->size(), n == first ? 1u : 2u);
      continue;
    }
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes decoded";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("batch body: message ", 0), 0u) << r.status().message();
  }
}

TEST(BatchBodyTest, ErrorsNameTheRecordPositionAndField) {
  const std::vector<uint8_t> good = ThreeMessages();
  const size_t second = 22 + 5 + 17;  // first record's size
  ASSERT_TRUE(DecodeBatchBody(good).ok());
  auto error_after = [&](size_t at, uint32_t value, bool as16 = false) {
    std::vector<uint8_t> b = good;
    if (as16) {
      EncodeFixed16BE(b.data() + at, static_cast<uint16_t>(value));
    } else {
      EncodeFixed32BE(b.data() + at, value);
    }
    Result<std::vector<BatchMessageView>> r = DecodeBatchBody(b);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error_after(second + 16, 0xFFFFFFFF),
            "batch body: message 1 at byte 44: negative bodyLen -1");
  EXPECT_EQ(error_after(16, 1000000),
            "batch body: message 0 at byte 0: bodyLen 1000000 runs past the end of the body (" +
                std::to_string(good.size()) + " bytes left)");
  EXPECT_EQ(error_after(20 + 5, 0x8000, true),
            "batch body: message 0 at byte 0: negative propsLen -32768");
  EXPECT_EQ(error_after(second + 20, 0x7FFF, true),
            "batch body: message 1 at byte 44: propsLen 32767 runs past the end of the body (" +
                std::to_string(good.size() - second) + " bytes left)");
  EXPECT_EQ(error_after(0, 47),
            "batch body: message 0 at byte 0: totalSize 47 disagrees with its lengths (44)");
  EXPECT_EQ(error_after(second, 0x80000000),
            "batch body: message 1 at byte 44: totalSize -2147483648 disagrees with its lengths "
            "(22)");
  // Bytes after the last record that are not a whole record.
  std::vector<uint8_t> tail = good;
  tail.insert(tail.end(), {0, 0, 0, 22});
  Result<std::vector<BatchMessageView>> r = DecodeBatchBody(tail);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "batch body: message 3 at byte " + std::to_string(good.size()) +
                                      ": 4 bytes left, fewer than the 22 of a record's fixed part");
}

TEST(BatchBodyTest, MagicAndCrcAreNotChecked) {
  std::vector<uint8_t> b = ThreeMessages();
  EncodeFixed32BE(b.data() + 4, 0xDAA320A7);
  EncodeFixed32BE(b.data() + 8, 12345);
  EXPECT_TRUE(DecodeBatchBody(b).ok());
}

}  // namespace
}  // namespace rocketstore::protocol
