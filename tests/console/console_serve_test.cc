// The console's settings through a real `rocketstore serve` (its flag and broker.conf
// parsing, apps/serve.cc): --console-read-only, the broker.conf keys consoleListen and
// consoleReadOnly (a flag that differs from its default wins), a bad consoleReadOnly or
// consoleListen value (serve refuses to start, before the broker, and says why), and the warning
// logged when the console listens on a non-loopback address without authentication.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "base/status.h"
#include "testing/serve_process.h"
#include "testing/temp_dir.h"

#ifndef ROCKETSTORE_BINARY
#error "ROCKETSTORE_BINARY must name the rocketstore executable (CMakeLists.txt)"
#endif

namespace rocketstore {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ConsoleServeTest : public ::testing::Test {
 protected:
  testing::ServeProcess::Options Options(const std::string& name) {
    testing::ServeProcess::Options o;
    o.binary = ROCKETSTORE_BINARY;
    o.store_dir = dir_.path() + "/" + name;
    o.log_file = dir_.path() + "/" + name + ".log";
    return o;
  }
  // Waits (up to 15 s) for the log line announcing the console; its text ("" if none).
  static std::string WaitForConsoleLine(const std::string& log) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < end) {
      const std::string text = ReadFile(log);
      const size_t at = text.find("web console url=");
      if (at != std::string::npos) return text.substr(at, text.find('\n', at) - at);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
  }
  // The console at port: whether it says read-only, and what a POST answers.
  static void ExpectReadOnly(uint16_t port, bool read_only) {
    httplib::Client c("127.0.0.1", port);
    auto info = c.Get("/api/console");
    ASSERT_TRUE(info) << "no console on port " << port;
    ASSERT_EQ(info->status, 200) << info->body;
    EXPECT_NE(info->body.find(read_only ? "\"readOnly\":true" : "\"readOnly\":false"),
              std::string::npos)
        << info->body;
    auto post = c.Post("/api/topics", {{"X-Rocketstore-Console", "1"}},
                       httplib::Params{{"topic", "ServeTestTopic"}});
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, read_only ? 403 : 200) << post->body;
  }
  testing::TempDir dir_;
};

TEST_F(ConsoleServeTest, ReadOnlyFlag) {
  auto o = Options("flag");
  const uint16_t port = testing::FreeLoopbackPort();
  o.console_listen = "127.0.0.1:" + std::to_string(port);
  o.extra_args = {"--console-read-only"};
  testing::ServeProcess serve(o);
  ASSERT_TRUE(serve.Start().ok());
  const std::string line = WaitForConsoleLine(o.log_file);
  EXPECT_NE(line.find("read_only=true"), std::string::npos) << line;
  ExpectReadOnly(port, true);
  EXPECT_EQ(serve.Terminate(), 0);
}

TEST_F(ConsoleServeTest, BrokerConfKeysAndFlagsOverThem) {
  const uint16_t conf_port = testing::FreeLoopbackPort();
  {
    std::ofstream conf(dir_.path() + "/broker.conf");
    conf << "# the console\nconsoleListen = 127.0.0.1:" << conf_port << "\nconsoleReadOnly=true\n";
  }
  auto o = Options("conf");
  o.config_file = dir_.path() + "/broker.conf";
  o.console_listen = "";  // no flag: broker.conf decides
  {
    testing::ServeProcess serve(o);
    ASSERT_TRUE(serve.Start().ok());
    const std::string line = WaitForConsoleLine(o.log_file);
    EXPECT_NE(line.find(":" + std::to_string(conf_port) + "/"), std::string::npos) << line;
    EXPECT_NE(line.find("read_only=true"), std::string::npos) << line;
    ExpectReadOnly(conf_port, true);
    EXPECT_EQ(serve.Terminate(), 0);
  }
  // --console-listen differs from its default: it wins over consoleListen.
  const uint16_t flag_port = testing::FreeLoopbackPort();
  auto o2 = Options("conf-flag");
  o2.config_file = dir_.path() + "/broker.conf";
  o2.console_listen = "127.0.0.1:" + std::to_string(flag_port);
  testing::ServeProcess serve(o2);
  ASSERT_TRUE(serve.Start().ok());
  const std::string line = WaitForConsoleLine(o2.log_file);
  EXPECT_NE(line.find(":" + std::to_string(flag_port) + "/"), std::string::npos) << line;
  ExpectReadOnly(flag_port, true);  // consoleReadOnly=true still applies
  EXPECT_EQ(serve.Terminate(), 0);
}

TEST_F(ConsoleServeTest, BadConsoleSettingsStopServeBeforeTheBroker) {
  {
    std::ofstream conf(dir_.path() + "/bad.conf");
    conf << "consoleReadOnly=yes\n";
  }
  auto o = Options("bad");
  o.config_file = dir_.path() + "/bad.conf";
  o.console_listen = "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  testing::ServeProcess serve(o);
  // Read before anything starts: serve exits with 2 (a usage error), the broker never up.
  Status s = serve.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exited with code 2 before listening"), std::string::npos) << s;
  const std::string log = ReadFile(o.log_file);
  EXPECT_NE(log.find("consoleReadOnly in " + o.config_file + " must be true or false, not yes"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("broker listening"), std::string::npos) << log;
  // A bad consoleListen the same.
  {
    std::ofstream conf(dir_.path() + "/bad.conf");
    conf << "consoleListen=127.0.0.1:notaport\n";
  }
  auto o2 = Options("bad-listen");
  o2.config_file = dir_.path() + "/bad.conf";
  o2.console_listen = "";
  testing::ServeProcess serve2(o2);
  s = serve2.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exited with code 2"), std::string::npos) << s;
  EXPECT_NE(ReadFile(o2.log_file).find("bad console address \"127.0.0.1:notaport\""),
            std::string::npos)
      << ReadFile(o2.log_file);
}

// Without --log-file, serve logs into the store directory's logs/ (and stderr); every line
// is one event: time, level, thread, source, then the message with key=value facts.
TEST_F(ConsoleServeTest, LogsGoToTheStoresLogsDirectoryOneLinePerEvent) {
  auto o = Options("deflog");
  o.log_file = "";  // `--log-file ""`: the default, <store>/logs/rocketstore.log
  o.console_listen = "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  const std::string file = o.store_dir + "/logs/rocketstore.log";
  {
    testing::ServeProcess serve(o);
    ASSERT_TRUE(serve.Start().ok());
    ASSERT_NE(WaitForConsoleLine(file), "") << ReadFile(file);
    EXPECT_EQ(serve.Terminate(), 0);
  }
  const std::string log = ReadFile(file);
  for (const std::string& event : std::vector<std::string>{
           "rocketstore: logging file=" + file + " level=info",
           "rocketstore: broker listening name=broker-a cluster=DefaultCluster endpoint=",
           std::string("rocketstore: store state last_exit=\"clean shutdown\""),
           // ServeProcess passes --metrics-port 0: the endpoint is off, and says so.
           std::string("rocketstore: metrics off (metricsPromExporterPort=0)"),
           std::string("rocketstore: web console url=http://127.0.0.1:"),
           std::string("rocketstore: shutting down signal=SIGTERM"),
           std::string("rocketstore: broker stopped cleanly")}) {
    EXPECT_NE(log.find(event), std::string::npos) << event << "\n" << log;
  }
  const std::regex line_format(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} (trace|debug|info|warning|error|critical) \d+ )"
      R"([a-z_]+\.cc:\d+\] [a-z]+: [^\n]*)");
  std::istringstream lines(log);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    EXPECT_TRUE(std::regex_match(line, line_format)) << line;
  }
  EXPECT_GE(n, 6);
}

TEST_F(ConsoleServeTest, NonLoopbackListenIsWarnedAboutLoopbackIsNot) {
  auto o = Options("any");
  const uint16_t port = testing::FreeLoopbackPort();
  o.console_listen = "0.0.0.0:" + std::to_string(port);
  // The metrics endpoint too: a non-loopback --metrics-host is warned about.
  o.metrics_port = testing::FreeLoopbackPort();
  o.extra_args = {"--metrics-host", "0.0.0.0"};
  {
    testing::ServeProcess serve(o);
    ASSERT_TRUE(serve.Start().ok());
    ASSERT_NE(WaitForConsoleLine(o.log_file), "");
    EXPECT_EQ(serve.Terminate(), 0);
  }
  const std::string log = ReadFile(o.log_file);
  const size_t at = log.find(
      "the web console listens on a non-loopback address without authentication host=0.0.0.0");
  ASSERT_NE(at, std::string::npos) << log;
  const size_t line_start = log.rfind('\n', at) == std::string::npos ? 0 : log.rfind('\n', at);
  EXPECT_NE(log.substr(line_start, at - line_start).find("warn"), std::string::npos) << log;
  const size_t metrics_at = log.find(
      "the metrics endpoint has no authentication and listens on a non-loopback address "
      "host=0.0.0.0");
  ASSERT_NE(metrics_at, std::string::npos) << log;
  const size_t metrics_line = log.rfind('\n', metrics_at);
  ASSERT_NE(metrics_line, std::string::npos) << log;
  EXPECT_NE(log.substr(metrics_line, metrics_at - metrics_line).find("warn"), std::string::npos)
      << log;
  auto lo = Options("loopback");
  lo.console_listen = "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  lo.metrics_port = testing::FreeLoopbackPort();  // on the default host, 127.0.0.1
  testing::ServeProcess serve(lo);
  ASSERT_TRUE(serve.Start().ok());
  ASSERT_NE(WaitForConsoleLine(lo.log_file), "");
  EXPECT_EQ(serve.Terminate(), 0);
  EXPECT_EQ(ReadFile(lo.log_file).find("non-loopback"), std::string::npos);
}

}  // namespace
}  // namespace rocketstore
