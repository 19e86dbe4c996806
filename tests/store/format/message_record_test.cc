#include "store/format/message_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/coding.h"
#include "base/crc32.h"
#include "store/format/message_id.h"
#include "testing/status_matchers.h"

namespace rocketstore::format {
namespace {

using ::rocketstore::testing::StatusIs;
using ::testing::HasSubstr;

// Spec §12: inputs common to every worked example.
constexpr int64_t kBornTimestamp = 1700000000000;   // 0x0000018BCFE56800
constexpr int64_t kStoreTimestamp = 1700000000123;  // 0x0000018BCFE5687B
// 17 bytes, 4.9.8 form (no trailing separator).
constexpr std::string_view kExampleProperties = "KEYS\x01k1\x02TAGS\x01TagA";

// §12.1 Example A, written field by field from the spec table (122 bytes).
constexpr std::string_view kExampleAHex =
    "0000007A"                             // 0   TOTALSIZE 122
    "DAA320A7"                             // 4   MAGIC V1
    "3610A686"                             // 8   BODYCRC crc32("hello") = 907060870
    "00000000"                             // 12  QUEUEID
    "00000000"                             // 16  FLAG
    "0000000000000000"                     // 20  QUEUEOFFSET
    "0000000000000000"                     // 28  PHYSICALOFFSET
    "00000000"                             // 36  SYSFLAG
    "0000018BCFE56800"                     // 40  BORNTIMESTAMP
    "7F000001000015B3"                     // 48  BORNHOST 127.0.0.1:5555
    "0000018BCFE5687B"                     // 56  STORETIMESTAMP
    "7F00000100002A9F"                     // 64  STOREHOST 127.0.0.1:10911
    "00000000"                             // 72  RECONSUMETIMES
    "0000000000000000"                     // 76  PREPARED TX OFFSET
    "00000005"                             // 84  BODY LENGTH
    "68656C6C6F"                           // 88  BODY "hello"
    "09"                                   // 93  TOPIC LENGTH
    "546F70696354657374"                   // 94  TOPIC "TopicTest"
    "0011"                                 // 103 PROPERTIES LENGTH 17
    "4B455953016B3102544147530154616741";  // 105 PROPERTIES

MessageToStore ExampleMessage() {
  MessageToStore m;
  m.topic = "TopicTest";
  m.body = "hello";
  m.properties = kExampleProperties;
  m.born_timestamp = kBornTimestamp;
  m.born_host = HostAddress::V4(127, 0, 0, 1, 5555);
  m.store_host = HostAddress::V4(127, 0, 0, 1, 10911);
  return m;
}

std::vector<uint8_t> Encode(const MessageToStore& m, int64_t queue_offset = 0,
                            int64_t physical_offset = 0, uint32_t magic = kMessageMagicV1) {
  std::vector<uint8_t> out(EncodedRecordSize(m, magic));
  EncodeRecord(m, RocketMqCrc32(m.body), queue_offset, physical_offset, kStoreTimestamp, out.data(),
               magic);
  return out;
}

std::string Hex(const std::vector<uint8_t>& v) { return HexUpper(v.data(), v.size()); }

DecodeResult Decode(const std::vector<uint8_t>& v, size_t n, bool check_crc = true) {
  // Copy into an exactly-sized heap buffer so ASan catches any read past `n`.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[n == 0 ? 1 : n]);
  if (n > 0) std::memcpy(exact.get(), v.data(), n);
  DecodeResult r = DecodeRecord(std::span<const uint8_t>(exact.get(), n), check_crc);
  // Views into `exact` die here; callers only look at outcome/error/scalars.
  r.record.body = r.record.topic = r.record.properties = {};
  return r;
}

// Re-encodes a decoded record; used to prove that "kRecord" saw every byte.
std::vector<uint8_t> ReEncode(const RecordView& r) {
  std::vector<uint8_t> out(EncodedRecordSize(ToMessageToStore(r), r.magic));
  EncodeRecord(ToMessageToStore(r), r.body_crc, r.queue_offset, r.physical_offset,
               r.store_timestamp, out.data(), r.magic);
  return out;
}

// ---- Failure paths ------------------------------------------------------------------------

TEST(DecodeRecordTest, EveryProperPrefixIsTruncated) {
  MessageToStore v6 = ExampleMessage();
  v6.born_host = HostAddress::V6({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 5555);
  v6.store_host = v6.born_host;
  MessageToStore empty = ExampleMessage();
  empty.body = empty.topic = empty.properties = {};
  for (const auto& record : {Encode(ExampleMessage()), Encode(v6),
                             Encode(ExampleMessage(), 0, 0, kMessageMagicV2), Encode(empty)}) {
    for (size_t n = 0; n < record.size(); ++n) {
      for (bool check_crc : {true, false}) {
        DecodeResult r = Decode(record, n, check_crc);
        EXPECT_EQ(r.outcome, DecodeOutcome::kTruncated) << "prefix " << n << ": " << r.error;
        EXPECT_FALSE(r.error.empty());
      }
    }
    EXPECT_EQ(Decode(record, record.size()).outcome, DecodeOutcome::kRecord);
  }
}

TEST(DecodeRecordTest, BlankPrefixIsTruncated) {
  std::vector<uint8_t> blank(8);
  EncodeBlank(blank.data(), 134);
  for (size_t n = 0; n < 8; ++n) EXPECT_EQ(Decode(blank, n).outcome, DecodeOutcome::kTruncated);
  EXPECT_EQ(Decode(blank, 8).outcome, DecodeOutcome::kBlank);
}

TEST(DecodeRecordTest, EveryBitFlipIsCorruptOrAVisibleFieldChange) {
  const std::vector<uint8_t> original = Encode(ExampleMessage());
  for (size_t i = 0; i < original.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> damaged = original;
      damaged[i] ^= static_cast<uint8_t>(1u << bit);
      std::unique_ptr<uint8_t[]> exact(new uint8_t[damaged.size()]);
      std::memcpy(exact.get(), damaged.data(), damaged.size());
      DecodeResult r = DecodeRecord(std::span<const uint8_t>(exact.get(), damaged.size()),
                                    /*check_crc=*/true);
      if (r.outcome == DecodeOutcome::kRecord) {
        // Accepted: then the decoded fields must carry the change (nothing was skipped).
        EXPECT_EQ(Hex(ReEncode(r.record)), Hex(damaged)) << "byte " << i << " bit " << bit;
      } else {
        EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt)
            << "byte " << i << " bit " << bit << ": " << r.error;
      }
    }
  }
}

TEST(DecodeRecordTest, FlipsOfMagicCrcLengthsAndBodyAreCorrupt) {
  const std::vector<uint8_t> original = Encode(ExampleMessage());
  const size_t body_len_pos = kBodyLengthOffsetV4;
  const size_t topic_len_pos = kBodyOffsetV4 + 5;
  const size_t props_len_pos = topic_len_pos + 1 + 9;
  std::vector<size_t> positions;
  for (size_t k = 0; k < 4; ++k) {
    positions.push_back(kTotalSizeOffset + k);
    positions.push_back(kMagicOffset + k);
    positions.push_back(kBodyCrcOffset + k);
    positions.push_back(body_len_pos + k);
  }
  for (size_t k = 0; k < 5; ++k) positions.push_back(kBodyOffsetV4 + k);  // body -> CRC
  positions.push_back(topic_len_pos);
  positions.push_back(props_len_pos);
  positions.push_back(props_len_pos + 1);
  for (size_t pos : positions) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> damaged = original;
      damaged[pos] ^= static_cast<uint8_t>(1u << bit);
      DecodeResult r = Decode(damaged, damaged.size());
      EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt) << "byte " << pos << " bit " << bit;
    }
  }
}

TEST(DecodeRecordTest, BodyCrcMismatchNamesBothValues) {
  std::vector<uint8_t> record = Encode(ExampleMessage());
  record[kBodyOffsetV4] = 'j';  // "jello"
  DecodeResult r = Decode(record, record.size(), /*check_crc=*/true);
  EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(r.error, HasSubstr("body CRC mismatch: stored 0x3610A686 computed 0x"));
  // Without the check (the dispatcher's mode) the record is accepted as is.
  DecodeResult unchecked = Decode(record, record.size(), /*check_crc=*/false);
  EXPECT_EQ(unchecked.outcome, DecodeOutcome::kRecord);
  EXPECT_EQ(unchecked.record.body_crc, 0x3610A686u);
}

TEST(DecodeRecordTest, BadMagicAndZeroFilledSpace) {
  std::vector<uint8_t> record = Encode(ExampleMessage());
  EncodeFixed32BE(record.data() + kMagicOffset, 0x12345678u);
  DecodeResult r = Decode(record, record.size());
  EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(r.error, HasSubstr("bad magic 0x12345678"));
  EXPECT_FALSE(HeaderIsZero(record));

  const std::vector<uint8_t> zeros(256, 0);
  DecodeResult z = Decode(zeros, zeros.size());
  EXPECT_EQ(z.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(z.error, HasSubstr("zero-filled"));
  EXPECT_TRUE(HeaderIsZero(zeros));
  EXPECT_TRUE(HeaderIsZero(std::span<const uint8_t>(zeros.data(), 3)));
}

TEST(DecodeRecordTest, TotalSizeBelowMinimumOrNegative) {
  for (int32_t total : {0, 8, 90, -1, static_cast<int32_t>(0x8000007A)}) {
    std::vector<uint8_t> record = Encode(ExampleMessage());
    EncodeFixed32BE(record.data(), static_cast<uint32_t>(total));
    DecodeResult r = Decode(record, record.size());
    EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt) << total;
    EXPECT_THAT(r.error, HasSubstr("below the minimum record size 91"));
  }
}

TEST(DecodeRecordTest, TotalSizeInconsistentWithFieldsIsCorruptEvenWhenShort) {
  // TOTALSIZE one larger than the fields: corrupt, although the buffer also looks short.
  std::vector<uint8_t> record = Encode(ExampleMessage());
  EncodeFixed32BE(record.data(), 123);
  DecodeResult r = Decode(record, record.size());
  EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(r.error, HasSubstr("TOTALSIZE 123 but the fields end at 122"));
  // ... and with the extra byte available.
  record.push_back(0);
  EXPECT_EQ(Decode(record, record.size()).outcome, DecodeOutcome::kCorrupt);

  // TOTALSIZE one smaller: the properties run past it.
  std::vector<uint8_t> shorter = Encode(ExampleMessage());
  EncodeFixed32BE(shorter.data(), 121);
  DecodeResult s = Decode(shorter, shorter.size());
  EXPECT_EQ(s.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(s.error, HasSubstr("PROPERTIES at offset 105 (17 bytes) runs past TOTALSIZE 121"));
}

TEST(DecodeRecordTest, NegativeLengthsAreCorrupt) {
  const std::vector<uint8_t> original = Encode(ExampleMessage());
  {
    std::vector<uint8_t> r = original;
    EncodeFixed32BE(r.data() + kBodyLengthOffsetV4, 0xFFFFFFFFu);
    DecodeResult d = Decode(r, r.size());
    EXPECT_EQ(d.outcome, DecodeOutcome::kCorrupt);
    EXPECT_THAT(d.error, HasSubstr("negative BODY LENGTH -1"));
  }
  {
    std::vector<uint8_t> r = original;
    r[kBodyOffsetV4 + 5] = 0x89;  // V1 topic length is a signed byte: -119
    DecodeResult d = Decode(r, r.size());
    EXPECT_EQ(d.outcome, DecodeOutcome::kCorrupt);
    EXPECT_THAT(d.error, HasSubstr("negative TOPIC LENGTH -119"));
  }
  {
    std::vector<uint8_t> r = original;
    EncodeFixed16BE(r.data() + kBodyOffsetV4 + 5 + 1 + 9, 0x8011);
    DecodeResult d = Decode(r, r.size());
    EXPECT_EQ(d.outcome, DecodeOutcome::kCorrupt);
    EXPECT_THAT(d.error, HasSubstr("negative PROPERTIES LENGTH"));
  }
}

TEST(DecodeRecordTest, HugeBodyLengthIsCorruptNotTruncated) {
  std::vector<uint8_t> record = Encode(ExampleMessage());
  EncodeFixed32BE(record.data() + kBodyLengthOffsetV4, 0x7FFFFFFFu);
  DecodeResult r = Decode(record, record.size());
  EXPECT_EQ(r.outcome, DecodeOutcome::kCorrupt);
  EXPECT_THAT(r.error, HasSubstr("BODY at offset 88"));
}

TEST(DecodeRecordTest, BlankShorterThanEightIsCorrupt) {
  std::vector<uint8_t> blank(8);
  EncodeBlank(blank.data(), 7);
  EXPECT_EQ(Decode(blank, 8).outcome, DecodeOutcome::kCorrupt);
  EncodeBlank(blank.data(), -8);
  EXPECT_EQ(Decode(blank, 8).outcome, DecodeOutcome::kCorrupt);
}

TEST(ValidateForStoreTest, TopicLimits) {
  MessageToStore m = ExampleMessage();
  m.topic = "";
  EXPECT_THAT(ValidateForStore(m, kDefaultMaxBodyBytes), StatusIs(StatusCode::kInvalidArgument));
  const std::string t127(127, 't');
  const std::string t128(128, 't');
  m.topic = t127;
  EXPECT_OK(ValidateForStore(m, kDefaultMaxBodyBytes));
  m.topic = t128;
  Status s = ValidateForStore(m, kDefaultMaxBodyBytes);
  EXPECT_THAT(s, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(s.message(), HasSubstr("topic is 128 bytes, more than the V1 limit of 127"));
  // Bytes, not characters: 64 x "é" is 64 Java chars but 128 bytes.
  std::string accented;
  for (int i = 0; i < 64; ++i) accented += "\xC3\xA9";
  m.topic = accented;
  EXPECT_THAT(ValidateForStore(m, kDefaultMaxBodyBytes), StatusIs(StatusCode::kInvalidArgument));
  // V2 takes long topics.
  m.topic = t128;
  EXPECT_OK(ValidateForStore(m, kDefaultMaxBodyBytes, kMessageMagicV2));
  const std::string t32768(32768, 't');
  m.topic = t32768;
  EXPECT_THAT(ValidateForStore(m, kDefaultMaxBodyBytes, kMessageMagicV2),
              StatusIs(StatusCode::kInvalidArgument));
  m.topic = "TopicTest";
  EXPECT_THAT(ValidateForStore(m, kDefaultMaxBodyBytes, 0x12345678u),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST(ValidateForStoreTest, PropertiesLimit) {
  MessageToStore m = ExampleMessage();
  const std::string p32767(32767, 'p');
  const std::string p32768(32768, 'p');
  m.properties = p32767;
  EXPECT_OK(ValidateForStore(m, kDefaultMaxBodyBytes));
  m.properties = p32768;
  Status s = ValidateForStore(m, kDefaultMaxBodyBytes);
  EXPECT_THAT(s, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(s.message(), HasSubstr("properties are 32768 bytes, more than the limit of 32767"));
}

TEST(ValidateForStoreTest, BodyLimit) {
  MessageToStore m = ExampleMessage();
  const std::string body(1000, 'b');
  m.body = body;
  EXPECT_OK(ValidateForStore(m, 1000));
  Status s = ValidateForStore(m, 999);
  EXPECT_THAT(s, StatusIs(StatusCode::kResourceExhausted));
  EXPECT_THAT(s.message(), HasSubstr("body is 1000 bytes, more than maxMessageSize 999"));
  m.body = "";
  EXPECT_OK(ValidateForStore(m, 0));
}

TEST(HostAddressTest, ParseRejectsMalformedInput) {
  for (std::string_view bad : {"",
                               "127.0.0.1",
                               "127.0.0.1:",
                               ":10911",
                               "127.0.0.1:65536",
                               "127.0.0.1:-1",
                               "127.0.0.1:10911x",
                               "127.0.0.1: 10911",
                               "127.0.0.256:1",
                               "127.0.0:1",
                               "localhost:10911",
                               "::1:5555",
                               "[::1]",
                               "[::1]5555",
                               "[::1:5555",
                               "[]:1",
                               "[127.0.0.1]:1",
                               "[::g]:1",
                               "[fe80::1%eth0]:1",
                               "1.2.3.4:99999999999999999999"}) {
    Result<HostAddress> r = HostAddress::Parse(bad);
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << "'" << bad << "'";
  }
  // inet_pton stops at a NUL; the parser must not.
  EXPECT_THAT(HostAddress::Parse(std::string_view("1.2.3.4\0x:80", 12)),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST(HostAddressTest, ParseAndFormat) {
  ASSERT_OK_AND_ASSIGN(HostAddress v4, HostAddress::Parse("127.0.0.1:10911"));
  EXPECT_EQ(v4, HostAddress::V4(127, 0, 0, 1, 10911));
  EXPECT_EQ(v4.ToString(), "127.0.0.1:10911");
  EXPECT_EQ(v4.EncodedSize(), 8u);
  ASSERT_OK_AND_ASSIGN(HostAddress v6, HostAddress::Parse("[::1]:5555"));
  EXPECT_TRUE(v6.v6);
  EXPECT_EQ(v6.ip[15], 1);
  EXPECT_EQ(v6.port, 5555);
  EXPECT_EQ(v6.ToString(), "[::1]:5555");
  EXPECT_EQ(v6.EncodedSize(), 20u);
  ASSERT_OK_AND_ASSIGN(HostAddress full, HostAddress::Parse("[2001:db8::ff00:42:8329]:0"));
  EXPECT_EQ(full.ToString(), "[2001:db8::ff00:42:8329]:0");
  ASSERT_OK_AND_ASSIGN(HostAddress mapped, HostAddress::Parse("[::ffff:10.1.2.3]:7"));
  EXPECT_EQ(mapped, HostAddress::V4(10, 1, 2, 3, 7));  // Java: an Inet4Address
  uint8_t buf[20];
  EncodeHost(v4, buf);
  EXPECT_EQ(HexUpper(buf, 8), "7F00000100002A9F");  // spec §2.2
}

// ---- Golden bytes (spec §12) --------------------------------------------------------------

TEST(MessageRecordGoldenTest, ExampleAByteForByte) {
  const MessageToStore m = ExampleMessage();
  EXPECT_EQ(m.properties.size(), 17u);
  EXPECT_EQ(EncodedRecordSize(m), 122u);
  const std::vector<uint8_t> record = Encode(m);
  EXPECT_EQ(Hex(record), kExampleAHex);

  DecodeResult r = DecodeRecord(record, /*check_crc=*/true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  const RecordView& v = r.record;
  EXPECT_EQ(v.total_size, 122);
  EXPECT_EQ(v.magic, kMessageMagicV1);
  EXPECT_EQ(v.body_crc, 907060870u);
  EXPECT_EQ(v.queue_id, 0);
  EXPECT_EQ(v.sys_flag, 0);
  EXPECT_EQ(v.born_timestamp, kBornTimestamp);
  EXPECT_EQ(v.store_timestamp, kStoreTimestamp);
  EXPECT_EQ(v.born_host.ToString(), "127.0.0.1:5555");
  EXPECT_EQ(v.store_host.ToString(), "127.0.0.1:10911");
  EXPECT_EQ(v.body, "hello");
  EXPECT_EQ(v.topic, "TopicTest");
  EXPECT_EQ(v.properties, kExampleProperties);
  EXPECT_EQ(v.TransactionType(), kTransactionNotType);
  EXPECT_EQ(EncodeOffsetMsgId(v.store_host, v.physical_offset), "7F00000100002A9F0000000000000000");
}

TEST(MessageRecordGoldenTest, ExampleAInSecondGigabyteFileDiffersOnlyInPhysicalOffset) {
  const std::vector<uint8_t> at0 = Encode(ExampleMessage(), 0, 0);
  const std::vector<uint8_t> at1g = Encode(ExampleMessage(), 0, 1073741824);
  ASSERT_EQ(at0.size(), at1g.size());
  for (size_t i = 0; i < at0.size(); ++i) {
    if (i >= kPhysicalOffsetOffset && i < kPhysicalOffsetOffset + 8) continue;
    EXPECT_EQ(at0[i], at1g[i]) << i;
  }
  EXPECT_EQ(HexUpper(at1g.data() + kPhysicalOffsetOffset, 8), "0000000040000000");
  DecodeResult r = DecodeRecord(at1g, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord);
  EXPECT_EQ(EncodeOffsetMsgId(r.record.store_host, r.record.physical_offset),
            "7F00000100002A9F0000000040000000");

  std::vector<uint8_t> patched = at0;
  PatchPhysicalOffset(patched.data(), 1073741824);
  EXPECT_EQ(Hex(patched), Hex(at1g));
}

TEST(MessageRecordGoldenTest, ExampleBIpv6BornHost) {
  MessageToStore m = ExampleMessage();
  ASSERT_OK_AND_ASSIGN(m.born_host, HostAddress::Parse("[::1]:5555"));
  const std::vector<uint8_t> record = Encode(m);
  ASSERT_EQ(record.size(), 134u);
  const uint8_t* p = record.data();
  EXPECT_EQ(DecodeInt32BE(p + kSysFlagOffset), 0x10);
  EXPECT_EQ(HexUpper(p + kBornHostOffset, 20), "00000000000000000000000000000001000015B3");
  constexpr size_t bh = kHostV6Size, sh = kHostV4Size;
  static_assert(StoreTimestampOffset(bh) == 68 && StoreHostOffset(bh) == 76);
  static_assert(ReconsumeTimesOffset(bh, sh) == 84 &&
                PreparedTransactionOffsetOffset(bh, sh) == 88);
  static_assert(BodyLengthOffset(bh, sh) == 96 && BodyOffset(bh, sh) == 100);
  EXPECT_EQ(DecodeInt64BE(p + 68), kStoreTimestamp);
  EXPECT_EQ(HexUpper(p + 76, 8), "7F00000100002A9F");
  EXPECT_EQ(DecodeInt32BE(p + 84), 0);
  EXPECT_EQ(DecodeInt64BE(p + 88), 0);
  EXPECT_EQ(DecodeInt32BE(p + 96), 5);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(p + 100), 5), "hello");
  EXPECT_EQ(p[105], 9);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(p + 106), 9), "TopicTest");
  EXPECT_EQ(DecodeInt16BE(p + 115), 17);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(p + 117), 17), kExampleProperties);

  DecodeResult r = DecodeRecord(record, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_EQ(r.record.born_host, m.born_host);
  EXPECT_EQ(r.record.born_host.ToString(), "[::1]:5555");
  EXPECT_EQ(r.record.store_timestamp, kStoreTimestamp);
  EXPECT_EQ(r.record.properties, kExampleProperties);
}

TEST(MessageRecordGoldenTest, TwoIpv6HostsAndOffsetMsgId) {
  MessageToStore m = ExampleMessage();
  ASSERT_OK_AND_ASSIGN(m.born_host, HostAddress::Parse("[::1]:5555"));
  ASSERT_OK_AND_ASSIGN(m.store_host, HostAddress::Parse("[::1]:10911"));
  const std::vector<uint8_t> record = Encode(m);
  EXPECT_EQ(record.size(), 115u + 5 + 9 + 17);
  DecodeResult r = DecodeRecord(record, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_EQ(r.record.sys_flag, kSysFlagBornHostV6 | kSysFlagStoreHostV6);
  EXPECT_EQ(r.record.store_host, m.store_host);
  EXPECT_EQ(EncodeOffsetMsgId(r.record.store_host, r.record.physical_offset),
            "0000000000000000000000000000000100002A9F0000000000000000");
}

TEST(MessageRecordGoldenTest, ExampleCBlankAtEndOf256ByteSegment) {
  constexpr size_t kSegmentSize = 256;
  const std::string props_b =
      "KEYS\x01k1\x02UNIQ_KEY\x01"
      "7F00000112340BADCAFE0001E2400001\x02"
      "CLUSTER\x01"
      "DefaultCluster\x02TAGS\x01TagA";
  ASSERT_EQ(props_b.size(), 82u);
  MessageToStore b = ExampleMessage();
  b.properties = props_b;
  ASSERT_EQ(EncodedRecordSize(b), 187u);

  // Two zero-filled segments, appended to as CommitLog would.
  std::vector<uint8_t> seg0(kSegmentSize, 0), seg1(kSegmentSize, 0);
  const std::vector<uint8_t> a = Encode(ExampleMessage(), 0, 0);
  std::memcpy(seg0.data(), a.data(), a.size());
  const size_t remaining = kSegmentSize - a.size();
  ASSERT_EQ(remaining, 134u);
  ASSERT_FALSE(EncodedRecordSize(b) + kEndFileMinBlankLength <= remaining);  // does not fit
  EncodeBlank(seg0.data() + a.size(), static_cast<int32_t>(remaining));
  EXPECT_EQ(HexUpper(seg0.data() + 122, 8), "00000086CBD43194");
  const std::vector<uint8_t> rec_b = Encode(b, /*queue_offset=*/1, /*physical_offset=*/256);
  std::memcpy(seg1.data(), rec_b.data(), rec_b.size());

  // Read them back the way recovery walks a segment.
  std::span<const uint8_t> s0(seg0);
  DecodeResult r0 = DecodeRecord(s0, true);
  ASSERT_EQ(r0.outcome, DecodeOutcome::kRecord);
  DecodeResult r1 = DecodeRecord(s0.subspan(static_cast<size_t>(r0.record.total_size)), true);
  ASSERT_EQ(r1.outcome, DecodeOutcome::kBlank);
  EXPECT_EQ(r1.blank_length, 134);
  EXPECT_EQ(122 + r1.blank_length, 256);

  DecodeResult rb = DecodeRecord(seg1, true);
  ASSERT_EQ(rb.outcome, DecodeOutcome::kRecord) << rb.error;
  EXPECT_EQ(rb.record.total_size, 187);
  EXPECT_EQ(rb.record.physical_offset, 256);
  EXPECT_EQ(rb.record.queue_offset, 1);
  EXPECT_EQ(rb.record.properties, props_b);
  EXPECT_EQ(EncodeOffsetMsgId(rb.record.store_host, rb.record.physical_offset),
            "7F00000100002A9F0000000000000100");
  // After B the segment is zero-filled: not a record, but recognisably unwritten.
  std::span<const uint8_t> tail = std::span<const uint8_t>(seg1).subspan(187);
  EXPECT_EQ(DecodeRecord(tail, true).outcome, DecodeOutcome::kCorrupt);
  EXPECT_TRUE(HeaderIsZero(tail));
}

// ---- Encoder behaviour --------------------------------------------------------------------

TEST(EncodeRecordTest, V2UsesTwoByteTopicLength) {
  const std::vector<uint8_t> v2 = Encode(ExampleMessage(), 0, 0, kMessageMagicV2);
  ASSERT_EQ(v2.size(), 123u);
  EXPECT_EQ(DecodeFixed32BE(v2.data() + kMagicOffset), kMessageMagicV2);
  EXPECT_EQ(DecodeInt16BE(v2.data() + kBodyOffsetV4 + 5), 9);
  DecodeResult r = DecodeRecord(v2, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_EQ(r.record.magic, kMessageMagicV2);
  EXPECT_EQ(r.record.topic, "TopicTest");
  EXPECT_EQ(r.record.properties, kExampleProperties);
  EXPECT_EQ(Hex(ReEncode(r.record)), Hex(v2));

  // A 200-byte topic: only V2 can hold it.
  const std::string long_topic(200, 'L');
  MessageToStore m = ExampleMessage();
  m.topic = long_topic;
  const std::vector<uint8_t> big = Encode(m, 0, 0, kMessageMagicV2);
  DecodeResult rb = DecodeRecord(big, true);
  ASSERT_EQ(rb.outcome, DecodeOutcome::kRecord) << rb.error;
  EXPECT_EQ(rb.record.topic, long_topic);
  // The same bytes with a V1 magic are inconsistent, never silently accepted.
  std::vector<uint8_t> as_v1 = big;
  EncodeFixed32BE(as_v1.data() + kMagicOffset, kMessageMagicV1);
  EXPECT_EQ(DecodeRecord(as_v1, false).outcome, DecodeOutcome::kCorrupt);
}

TEST(EncodeRecordTest, HostFlagsFollowTheHosts) {
  MessageToStore m = ExampleMessage();
  m.sys_flag = kSysFlagBornHostV6 | kSysFlagStoreHostV6 | kTransactionCommit | kSysFlagCompressed;
  const std::vector<uint8_t> record = Encode(m);  // both hosts are IPv4: V6 bits cleared
  EXPECT_EQ(record.size(), 122u);
  EXPECT_EQ(DecodeInt32BE(record.data() + kSysFlagOffset), kTransactionCommit | kSysFlagCompressed);
  DecodeResult r = DecodeRecord(record, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord);
  EXPECT_EQ(r.record.TransactionType(), kTransactionCommit);

  m.sys_flag = 0;
  ASSERT_OK_AND_ASSIGN(m.store_host, HostAddress::Parse("[::1]:10911"));
  const std::vector<uint8_t> v6 = Encode(m);
  EXPECT_EQ(DecodeInt32BE(v6.data() + kSysFlagOffset), kSysFlagStoreHostV6);
}

TEST(EncodeRecordTest, EmptyFieldsGiveTheMinimumRecord) {
  MessageToStore m;
  const std::vector<uint8_t> record = Encode(m);
  EXPECT_EQ(record.size(), kMinRecordSizeV1);
  DecodeResult r = DecodeRecord(record, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_TRUE(r.record.body.empty());
  EXPECT_EQ(r.record.body_crc, 0u);
  EXPECT_EQ(Encode(m, 0, 0, kMessageMagicV2).size(), kMinRecordSizeV2);
}

TEST(EncodeRecordTest, PatchesAndBackToBackRecords) {
  MessageToStore m = ExampleMessage();
  ASSERT_OK_AND_ASSIGN(m.born_host, HostAddress::Parse("[::1]:5555"));
  std::vector<uint8_t> record = Encode(m, 0, 0);
  PatchQueueOffset(record.data(), 42);
  PatchPhysicalOffset(record.data(), 4096);
  PatchStoreTimestamp(record.data(), 1700000009999);
  std::vector<uint8_t> two = record;
  const std::vector<uint8_t> second = Encode(ExampleMessage(), 43, 4096 + 134);
  two.insert(two.end(), second.begin(), second.end());

  DecodeResult r = DecodeRecord(two, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_EQ(r.record.queue_offset, 42);
  EXPECT_EQ(r.record.physical_offset, 4096);
  EXPECT_EQ(r.record.store_timestamp, 1700000009999);
  EXPECT_EQ(r.record.born_timestamp, kBornTimestamp);  // neighbour untouched
  DecodeResult r2 = DecodeRecord(std::span<const uint8_t>(two).subspan(134), true);
  ASSERT_EQ(r2.outcome, DecodeOutcome::kRecord) << r2.error;
  EXPECT_EQ(r2.record.queue_offset, 43);
}

TEST(EncodeRecordTest, RecordViewRoundTrip) {
  MessageToStore m = ExampleMessage();
  m.queue_id = -7;
  m.flag = 0x7FFFFFFF;
  m.reconsume_times = 3;
  m.prepared_transaction_offset = 123456789012;
  m.sys_flag = kTransactionPrepared | kSysFlagMultiTags;
  const std::vector<uint8_t> record = Encode(m, 9, 77);
  DecodeResult r = DecodeRecord(record, true);
  ASSERT_EQ(r.outcome, DecodeOutcome::kRecord) << r.error;
  EXPECT_EQ(r.record.queue_id, -7);
  EXPECT_EQ(r.record.flag, 0x7FFFFFFF);
  EXPECT_EQ(r.record.reconsume_times, 3);
  EXPECT_EQ(r.record.prepared_transaction_offset, 123456789012);
  EXPECT_EQ(r.record.TransactionType(), kTransactionPrepared);
  EXPECT_EQ(Hex(ReEncode(r.record)), Hex(record));
}

TEST(SysFlagTest, OnlyNonTransactionalAndCommitRecordsTakeQueueOffsets) {
  EXPECT_TRUE(TakesQueueOffset(kTransactionNotType));
  EXPECT_TRUE(TakesQueueOffset(kTransactionCommit));
  EXPECT_FALSE(TakesQueueOffset(kTransactionPrepared));
  EXPECT_FALSE(TakesQueueOffset(kTransactionRollback));
  // Other bits do not matter.
  EXPECT_TRUE(TakesQueueOffset(kSysFlagMultiTags | kSysFlagBornHostV6 | kCompressionZlib));
  EXPECT_FALSE(TakesQueueOffset(kTransactionPrepared | kSysFlagCompressed));
}

}  // namespace
}  // namespace rocketstore::format
