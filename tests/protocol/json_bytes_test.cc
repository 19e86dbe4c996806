// The JSON header's byte scan (protocol/internal/json_bytes.h): SkipJsonPlain, whichever
// width it scans at (16 bytes with SSE2, 8, then 1), stops exactly where a byte-by-byte
// reading of IsJsonSpecialByte does: every length, every position, every kind of byte.
#include "protocol/internal/json_bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace rocketstore::protocol::internal {
namespace {

const char* ByteByByte(const char* p, const char* end) {
  while (p != end && !IsJsonSpecialByte(static_cast<uint8_t>(*p))) ++p;
  return p;
}

TEST(JsonBytesTest, SkipJsonPlainStopsAtTheFirstSpecialByteAtEveryLengthAndPosition) {
  // Special: control bytes, '"', '\\', non-ASCII. Plain neighbours: ' ', DEL, '!', '#', '[', ']'.
  const unsigned char special[] = {0x00, 0x01, 0x1F, '"', '\\', 0x80, 0xC3, 0xFF};
  const unsigned char plain[] = {0x20, 0x7F, '!', '#', '[', ']', 'a', '~'};
  for (size_t len = 0; len <= 49; ++len) {
    for (unsigned char filler : plain) {
      const std::string all_plain(len, static_cast<char>(filler));
      EXPECT_EQ(SkipJsonPlain(all_plain.data(), all_plain.data() + len), all_plain.data() + len)
          << "len " << len << " filler " << int(filler);
    }
    for (size_t at = 0; at < len; ++at) {
      for (unsigned char s : special) {
        std::string text(len, 'x');
        text[at] = static_cast<char>(s);
        if (at + 3 < len) text[at + 3] = '"';  // a later special byte changes nothing
        const char* begin = text.data();
        const char* end = begin + len;
        ASSERT_EQ(SkipJsonPlain(begin, end), ByteByByte(begin, end))
            << "len " << len << " at " << at << " byte " << int(s);
        ASSERT_EQ(SkipJsonPlain(begin, end) - begin, static_cast<ptrdiff_t>(at));
      }
    }
  }
}

}  // namespace
}  // namespace rocketstore::protocol::internal
