// Every change asked of the console leaves one INFO log line with who (the peer's address),
// what, its parameters and the outcome — refused ones too, dry runs and reads not — read
// back from a log file (log::InitLogging before the broker starts, the default stderr
// logger put back after it stopped).
#include <httplib.h>

#include <fstream>
#include <vector>

#include "console/http_server.h"
#include "console_fixture.h"
#include "log/log.h"

namespace rocketstore::console {
namespace {

class ConsoleAuditLogTest : public ConsoleFixture {
 protected:
  void SetUp() override {
    log::LogOptions o;
    o.file = dir_.path() + "/console.log";
    o.also_stderr = false;
    ASSERT_TRUE(log::InitLogging(o).ok());
    ConsoleFixture::SetUp();
  }
  void TearDown() override {
    ConsoleFixture::TearDown();
    ASSERT_TRUE(log::InitLogging(log::LogOptions{}).ok());
  }
  // The log's "console: change" lines, from the message on.
  std::vector<std::string> Changes() const {
    std::ifstream in(dir_.path() + "/console.log");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
      const size_t at = line.find("console: change ");
      if (at != std::string::npos) out.push_back(line.substr(at));
    }
    return out;
  }
  HttpReply From(const std::string& who, const std::string& method, const std::string& path,
                 std::map<std::string, std::string> params) {
    return api_->Handle({method, path, std::move(params), who});
  }
};

TEST_F(ConsoleAuditLogTest, EveryChangeLeavesOneLine) {
  const std::string who = "10.1.2.3:4567";
  ASSERT_EQ(
      From(who, "POST", "/api/topics", {{"topic", "AuditTopic"}, {"readQueueNums", "2"}}).status,
      200);
  ASSERT_EQ(From(who, "POST", "/api/topics/delete", {{"topic", "AuditTopic"}}).status, 200);
  ASSERT_EQ(From(who, "POST", "/api/topics/delete", {{"topic", "AuditTopic"}}).status, 404);
  for (int32_t q = 1; q < 4; ++q) broker_->offsets().Commit("G1", "TopicTest", q, 1);
  const std::map<std::string, std::string> reset = {
      {"group", "G1"}, {"topic", "TopicTest"}, {"timestamp", "0"}};
  auto dry = reset;
  dry["dryRun"] = "true";
  ASSERT_EQ(From(who, "POST", "/api/groups/reset-offset", dry).status, 200);  // not a change
  ASSERT_EQ(From(who, "POST", "/api/groups/reset-offset", reset).status, 200);
  ASSERT_EQ(From(who, "POST", "/api/messages/resend-dlq", {{"offset", "0"}}).status, 400);
  ASSERT_EQ(From(who, "GET", "/api/topics", {}).status, 200);  // a read: no line
  // A parameter cannot break the line or forge another.
  ASSERT_EQ(From(who, "POST", "/api/topics", {{"topic", "x\nconsole: change forged"}}).status, 400);
  api_ = MakeApi(true);
  ASSERT_EQ(From("", "POST", "/api/topics", {{"topic", "RoTopic"}}).status, 403);

  const std::vector<std::string> lines = Changes();
  const std::vector<std::string> want = {
      "console: change who=10.1.2.3:4567 what=create-topic topic=AuditTopic readQueueNums=2 "
      "outcome=ok status=200",
      "console: change who=10.1.2.3:4567 what=delete-topic topic=AuditTopic outcome=ok "
      "status=200",
      "console: change who=10.1.2.3:4567 what=delete-topic topic=AuditTopic outcome=refused "
      "status=404 error=\"no topic AuditTopic on this broker: nothing deleted\"",
      "console: change who=10.1.2.3:4567 what=reset-offset topic=TopicTest group=G1 "
      "timestamp=0 outcome=ok status=200",
      "console: change who=10.1.2.3:4567 what=resend-dlq offset=0 outcome=refused status=400 "
      "error=\"the message at offset 0 is in topic TopicTest, not a %DLQ% topic: only DLQ "
      "messages are resent\"",
      "console: change who=10.1.2.3:4567 what=create-topic topic=\"x\\x0aconsole: change "
      "forged\"",
      "console: change who=- what=create-topic topic=RoTopic outcome=refused status=403",
  };
  ASSERT_EQ(lines.size(), want.size()) << ::testing::PrintToString(lines);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(lines[i].substr(0, want[i].size()), want[i]) << i;
  }
  EXPECT_NE(lines[5].find("outcome=refused status=400"), std::string::npos) << lines[5];
}

TEST_F(ConsoleAuditLogTest, WhoIsThePeerOverHttp) {
  ConsoleServer server(*api_);
  ASSERT_TRUE(server.Start("127.0.0.1", 0).ok());
  httplib::Client c("127.0.0.1", server.port());
  auto r = c.Post("/api/topics", {{"X-Rocketstore-Console", "1"}},
                  httplib::Params{{"topic", "HttpAuditTopic"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  server.Stop();
  const auto lines = Changes();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].substr(0, 30), "console: change who=127.0.0.1:") << lines[0];
  EXPECT_NE(lines[0].find(" what=create-topic topic=HttpAuditTopic outcome=ok status=200"),
            std::string::npos)
      << lines[0];
}

}  // namespace
}  // namespace rocketstore::console
