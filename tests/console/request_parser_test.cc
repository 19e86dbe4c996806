// The console's request decoding (console/request_parser.h) and UTF-8 helpers
// (console/utf8.h): refusals first, each naming the parameter; then what is accepted.
#include "console/request_parser.h"

#include <gtest/gtest.h>

#include "console/utf8.h"

namespace rocketstore::console {
namespace {

using Params = std::map<std::string, std::string>;

Status Decode(std::string_view text, Params* out) { return DecodeParams(text, out); }

TEST(DecodeParamsTest, RefusesBadEscapesNonUtf8NulAndTooMany) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"a=%", "percent-encoding in parameter 'a'"},
      {"a=%4", "two hex digits"},
      {"a=%zz", "two hex digits"},
      {"%zz=1", "a parameter name"},
      {"topic=%FF", "parameter 'topic' is not UTF-8"},
      {"topic=%C0%80", "not UTF-8"},     // overlong NUL
      {"topic=%ED%A0%80", "not UTF-8"},  // a surrogate
      {"topic=ab%00cd", "NUL byte"},
      {"=x", "without a name"},
      {"%3D=x", nullptr},  // "=" as a name is a name
  };
  for (const Case& c : cases) {
    Params p;
    Status s = Decode(c.text, &p);
    if (c.says == nullptr) {
      EXPECT_TRUE(s.ok()) << c.text << ": " << s;
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.text << ": " << s;
    EXPECT_TRUE(IsValidUtf8(s.message())) << c.text;
  }
  std::string many;
  for (size_t i = 0; i <= kMaxParams; ++i) many += "p" + std::to_string(i) + "=1&";
  Params p;
  Status s = Decode(many, &p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more than 64 parameters"), std::string::npos) << s;
}

TEST(DecodeParamsTest, DecodesPlusEscapesEmptyPiecesAndFirstValueWins) {
  Params p;
  ASSERT_TRUE(Decode("a=1&b=x%20y+z&a=2&&c&%E2%82%AC=%e2%82%ac", &p).ok());
  EXPECT_EQ(p, (Params{{"a", "1"}, {"b", "x y z"}, {"c", ""}, {"\xE2\x82\xAC", "\xE2\x82\xAC"}}));
  // A second source (the body after the query string) does not override.
  ASSERT_TRUE(Decode("a=3&d=4", &p).ok());
  EXPECT_EQ(p.at("a"), "1");
  EXPECT_EQ(p.at("d"), "4");
  Params empty;
  ASSERT_TRUE(Decode("", &empty).ok());
  EXPECT_TRUE(empty.empty());
}

TEST(ParseValueTest, IntegersBoolsAndTheirRefusals) {
  for (const char* bad : {"", "4x", "+4", " 4", "4 ", "0x10", "99999999999999999999", "1e3"}) {
    auto r = ParseInt("max", bad, 0, 100);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("parameter 'max' is not an integer"), std::string::npos)
        << r.status();
  }
  auto out = ParseInt("max", "101", 1, 100);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("out of range: use 1..100"), std::string::npos);
  EXPECT_EQ(ParseInt("n", "-1", -5, 5).value(), -1);
  EXPECT_EQ(ParseInt("n", "007", 0, 10).value(), 7);
  for (const char* bad : {"yes", "TRUE", "", "2"}) EXPECT_FALSE(ParseBool("dryRun", bad).ok());
  EXPECT_TRUE(ParseBool("dryRun", "true").value());
  EXPECT_TRUE(ParseBool("dryRun", "1").value());
  EXPECT_FALSE(ParseBool("dryRun", "false").value());
  EXPECT_FALSE(ParseBool("dryRun", "0").value());
  // A long value is quoted cut at a character boundary: the message stays UTF-8.
  const std::string euros(30, 'x');
  auto cut = ParseInt("n", euros + "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC", 0, 1);
  ASSERT_FALSE(cut.ok());
  EXPECT_TRUE(IsValidUtf8(cut.status().message())) << cut.status();
}

TEST(ParseValueTest, TimesStrictlyChecked) {
  for (const char* bad :
       {"-1", "-0", "", "yesterday", "99999999999999999999", "2026-02-29T00:00", "2026-13-01T00:00",
        "2026-04-31T00:00", "2026-01-01T24:00", "2026-01-01T00:60", "2026-01-01T00:00:60",
        "1969-12-31T23:59", "2026-01-01 00:00", "2026-01-01T00:00junk", "2026-01-01T00:00:00.",
        "2026-1-01T00:00", "2026-01-01T00:00:00.1234", "+2026-01-01T00:00", "2026-01-01T00:00ZZ"}) {
    auto r = ParseTime("begin", bad);
    ASSERT_FALSE(r.ok()) << bad << " -> " << (r.ok() ? *r : 0);
    EXPECT_NE(r.status().message().find("parameter 'begin' is not a time"), std::string::npos);
  }
  EXPECT_EQ(ParseTime("t", "0").value(), 0);
  EXPECT_EQ(ParseTime("t", "1700000000000").value(), 1700000000000);
  EXPECT_EQ(ParseTime("t", "1970-01-01T00:00").value(), 0);
  EXPECT_EQ(ParseTime("t", "2026-01-31T23:59").value(), 1769903940000);
  EXPECT_EQ(ParseTime("t", "2026-01-31T23:59:00Z").value(), 1769903940000);
  EXPECT_EQ(ParseTime("t", "2024-02-29T12:00:00.5").value(), 1709208000500);
  EXPECT_EQ(ParseTime("t", "2024-02-29T12:00:00.025Z").value(), 1709208000025);
}

TEST(Utf8Test, ValidityAndReplacement) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  for (const char* bad : {"\xFF", "\x80", "\xC0\x80", "\xE0\x80\x80", "\xED\xA0\x80",
                          "\xF4\x90\x80\x80", "\xE2\x82", "\xF0\x9F\x98"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << ::testing::PrintToString(std::string(bad));
  }
  size_t n = 0;
  EXPECT_EQ(ToValidUtf8("a\xFF"
                        "b",
                        &n),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(ToValidUtf8("x\xE2\x82", &n), "x\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(ToValidUtf8("\xE2\x82\xAC", &n), "\xE2\x82\xAC");
  EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace rocketstore::console
