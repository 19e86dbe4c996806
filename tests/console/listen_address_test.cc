// --console-listen parsing, table-driven: every bad form is an error naming the fix.
#include <gtest/gtest.h>

#include "console/http_server.h"

namespace rocketstore::console {
namespace {

TEST(ListenAddressTest, BadFormsAreErrors) {
  for (const char* bad :
       {"", "abc", "127.0.0.1:", "127.0.0.1:65536", ":-1", "1.2.3.4:80x", "9999999"}) {
    auto a = ParseListenAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_NE(a.status().message().find("HOST:PORT"), std::string::npos) << bad;
  }
}

TEST(ListenAddressTest, GoodForms) {
  struct Case {
    const char* text;
    const char* host;
    uint16_t port;
  };
  for (const Case& c : {Case{"8080", "127.0.0.1", 8080}, Case{":9000", "127.0.0.1", 9000},
                        Case{"0.0.0.0:80", "0.0.0.0", 80}, Case{"[::1]:81", "::1", 81},
                        Case{"0", "127.0.0.1", 0}}) {
    auto a = ParseListenAddress(c.text);
    ASSERT_TRUE(a.ok()) << c.text;
    EXPECT_EQ(a->host, c.host) << c.text;
    EXPECT_EQ(a->port, c.port) << c.text;
  }
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
}

}  // namespace
}  // namespace rocketstore::console
