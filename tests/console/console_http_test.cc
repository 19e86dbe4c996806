// The console's HTTP server on a free loopback port: the embedded pages, the API through
// HTTP (query string and form body), JSON errors for bad paths and methods, and requests
// httplib cannot parse — the server answers 4xx and keeps serving.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "console/assets.h"
#include "console/http_server.h"
#include "console_fixture.h"

namespace rocketstore::console {
namespace {

// Sends raw bytes, returns the first line of the answer ("" when none).
std::string RawRequest(uint16_t port, const std::string& bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::write(fd, bytes.data(), bytes.size());
  ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out.substr(0, out.find("\r\n"));
}

class ConsoleHttpTest : public ConsoleFixture {
 protected:
  void SetUp() override {
    ConsoleFixture::SetUp();
    server_ = std::make_unique<ConsoleServer>(*api_);
    ASSERT_TRUE(server_->Start("127.0.0.1", 0).ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    ConsoleFixture::TearDown();
  }
  std::unique_ptr<ConsoleServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ConsoleHttpTest, ServesEmbeddedPages) {
  ASSERT_NE(FindAsset("/index.html"), nullptr);
  ASSERT_NE(FindAsset("/app.js"), nullptr);
  auto r = client_->Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, std::string(FindAsset("/index.html")->bytes));
  EXPECT_NE(r->get_header_value("Content-Type").find("text/html"), std::string::npos);
  auto js = client_->Get("/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_NE(js->get_header_value("Content-Type").find("javascript"), std::string::npos);
  auto missing = client_->Get("/no-such-page.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("\"error\""), std::string::npos);
}

TEST_F(ConsoleHttpTest, ApiOverHttpWithJsonErrors) {
  auto c = client_->Get("/api/cluster");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, 200);
  EXPECT_NE(c->get_header_value("Content-Type").find("application/json"), std::string::npos);
  auto bad = client_->Get("/api/message?offset=abc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("not an integer"), std::string::npos) << bad->body;
  // A form-encoded POST body carries the parameters.
  httplib::Params form{{"topic", "FormTopic"}, {"readQueueNums", "3"}};
  // Without the console's header (a cross-site form) or from another Origin: refused.
  auto forged = client_->Post("/api/topics", form);
  ASSERT_TRUE(forged);
  EXPECT_EQ(forged->status, 403) << forged->body;
  auto other_origin = client_->Post(
      "/api/topics", {{"X-Rocketstore-Console", "1"}, {"Origin", "http://evil.example"}}, form);
  ASSERT_TRUE(other_origin);
  EXPECT_EQ(other_origin->status, 403) << other_origin->body;
  EXPECT_FALSE(broker_->topics().Find("FormTopic"));
  auto created = client_->Post("/api/topics", {{"X-Rocketstore-Console", "1"}}, form);
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 200) << created->body;
  EXPECT_TRUE(broker_->topics().Find("FormTopic"));
  auto wrong = client_->Delete("/api/topics");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  auto post_page = client_->Post("/index.html", {{"X-Rocketstore-Console", "1"}}, "", "text/plain");
  ASSERT_TRUE(post_page);
  EXPECT_GE(post_page->status, 400);
  EXPECT_LT(post_page->status, 500);
}

// The parameters are the console's own decoding (console/request_parser.h): a bad escape
// or a value that is not UTF-8 is a 400 naming the parameter, a body that is not a form a
// 415; the query string's value wins over the body's.
TEST_F(ConsoleHttpTest, ParametersDecodedStrictly) {
  auto bad_escape = client_->Get("/api/topic?topic=%ZZ");
  ASSERT_TRUE(bad_escape);
  EXPECT_EQ(bad_escape->status, 400);
  EXPECT_NE(bad_escape->body.find("percent-encoding in parameter 'topic'"), std::string::npos)
      << bad_escape->body;
  auto not_utf8 = client_->Get("/api/topic?topic=%FF%FE");
  ASSERT_TRUE(not_utf8);
  EXPECT_EQ(not_utf8->status, 400);
  EXPECT_NE(not_utf8->body.find("not UTF-8"), std::string::npos) << not_utf8->body;
  auto json_body = client_->Post("/api/topics", {{"X-Rocketstore-Console", "1"}},
                                 "{\"topic\":\"JsonTopic\"}", "application/json");
  ASSERT_TRUE(json_body);
  EXPECT_EQ(json_body->status, 415) << json_body->body;
  EXPECT_FALSE(broker_->topics().Find("JsonTopic"));
  auto both = client_->Post("/api/topics?topic=QueryTopic", {{"X-Rocketstore-Console", "1"}},
                            httplib::Params{{"topic", "BodyTopic"}, {"readQueueNums", "2"}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->status, 200) << both->body;
  EXPECT_TRUE(broker_->topics().Find("QueryTopic"));
  EXPECT_FALSE(broker_->topics().Find("BodyTopic"));
  EXPECT_EQ(broker_->topics().Find("QueryTopic")->read_queue_nums, 2);
}

TEST_F(ConsoleHttpTest, UnparseableRequestsAre4xxAndServerKeepsServing) {
  const std::string cases[] = {
      "GARBAGE\r\n\r\n",
      "GET\r\n\r\n",
      "GET /api/cluster HTTP/9.9\r\n\r\n",
      "POST /api/topics HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nx",
      "GET /api/topic?topic=%ZZ%00 HTTP/1.1\r\nHost: x\r\n\r\n",
      std::string("GET /\x01\x02\xff HTTP/1.1\r\n\r\n"),
      "GET /api/cluster HTTP/1.1\r\n" + std::string(20000, 'A') + "\r\n\r\n",
  };
  for (const std::string& req : cases) {
    const std::string line = RawRequest(server_->port(), req);
    if (!line.empty()) {
      EXPECT_TRUE(line.find(" 4") != std::string::npos || line.find(" 200") != std::string::npos)
          << req.substr(0, 60) << " -> " << line;
      EXPECT_EQ(line.find(" 5"), std::string::npos) << req.substr(0, 60) << " -> " << line;
    }
  }
  auto still = client_->Get("/api/cluster");
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200);
}

TEST_F(ConsoleHttpTest, PortInUseIsAClearError) {
  ConsoleServer second(*api_);
  Status s = second.Start("127.0.0.1", server_->port());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--console-listen"), std::string::npos) << s.ToString();
  EXPECT_EQ(second.port(), 0);
}

}  // namespace
}  // namespace rocketstore::console
