// kill -9 of a real `rocketstore serve` process with delay-level messages and timer
// messages pending and being delivered: after a restart on the same store every message
// arrives in its real topic, exactly once — or twice only when it lay past the persisted
// progress (delayOffset.json; the timer index's progress file) at the kill. Over the wire
// with the project's RemotingClient.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "broker/config/delay_offset_manager.h"
#include "io/posix_file_system.h"
#include "net/remoting_client.h"
#include "protocol/request_code.h"
#include "store/format/message_record.h"
#include "testing/serve_process.h"
#include "testing/temp_dir.h"

#ifndef ROCKETSTORE_BINARY
#error "ROCKETSTORE_BINARY must name the rocketstore executable (CMakeLists.txt)"
#endif

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;

class DelayKill9Test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream conf(dir_.path() + "/broker.conf");
    // Short levels keep the test short; the delay offsets are written often, so that the
    // kill lands between writes with some progress persisted.
    conf << "messageDelayLevel=1s 1s 2s\nflushDelayOffsetInterval=300\n"
         << "flushCommitLogThoroughInterval=200\n";
    conf.close();
    testing::ServeProcess::Options o;
    o.binary = ROCKETSTORE_BINARY;
    o.store_dir = dir_.path() + "/store";
    o.config_file = dir_.path() + "/broker.conf";
    o.log_file = dir_.path() + "/rocketstore.log";
    serve_ = std::make_unique<testing::ServeProcess>(o);
  }

  void Connect() {
    client_ = std::make_unique<net::RemotingClient>();
    ASSERT_TRUE(client_->Connect(serve_->broker_addr()).ok());
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_->Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  void CreateTopic(const std::string& topic = "D") {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
    req.SetField("topic", topic);
    req.SetField("defaultTopic", "TBW102");
    req.SetIntField("readQueueNums", 2);
    req.SetIntField("writeQueueNums", 2);
    req.SetIntField("perm", 6);
    req.SetField("topicFilterType", "SINGLE_TAG");
    req.SetField("order", "false");
    ASSERT_EQ(Call(std::move(req)).code, 0);
  }

  // SEND_MESSAGE_V2 with DELAY; returns the schedule queue offset the broker answered.
  int64_t SendDelayed(const std::string& body, int level, int queue) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "P");
    req.SetField("b", "D");
    req.SetField("c", "TBW102");
    req.SetIntField("d", 4);
    req.SetIntField("e", queue);
    req.SetIntField("f", 0);
    req.SetIntField("g", 1700000000000);
    req.SetIntField("h", 0);
    req.SetField("i", "KEYS\x01" + body +
                          "\x02TAGS\x01t\x02"
                          "DELAY\x01" +
                          std::to_string(level));
    req.body.Assign(body);
    RemotingCommand resp = Call(std::move(req));
    EXPECT_EQ(resp.code, 0) << resp.remark.value_or("");
    EXPECT_EQ(resp.FindField("queueId").value_or(""), std::to_string(level - 1));
    return std::stoll(std::string(resp.FindField("queueOffset").value_or("-1")));
  }

  // SEND_MESSAGE_V2 to topic T with TIMER_DELAY_MS = delay_ms; checks SEND_OK.
  void SendTimer(const std::string& body, int64_t delay_ms, int queue) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "P");
    req.SetField("b", "T");
    req.SetField("c", "TBW102");
    req.SetIntField("d", 4);
    req.SetIntField("e", queue);
    req.SetIntField("f", 0);
    req.SetIntField("g", 1700000000000);
    req.SetIntField("h", 0);
    req.SetField(
        "i", "KEYS\x01" + body + "\x02TAGS\x01t\x02TIMER_DELAY_MS\x01" + std::to_string(delay_ms));
    req.body.Assign(body);
    RemotingCommand resp = Call(std::move(req));
    EXPECT_EQ(resp.code, 0) << resp.remark.value_or("");
  }

  // Every body in `topic` (both queues), with how often it was delivered.
  std::map<std::string, int> Delivered(const std::string& topic = "D") {
    std::map<std::string, int> n;
    for (int q = 0; q < 2; ++q) {
      int64_t offset = 0;
      while (true) {
        RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
        req.SetField("consumerGroup", "G");
        req.SetField("topic", topic);
        req.SetIntField("queueId", q);
        req.SetIntField("queueOffset", offset);
        req.SetIntField("maxMsgNums", 32);
        req.SetIntField("sysFlag", 4);
        req.SetIntField("commitOffset", 0);
        req.SetIntField("suspendTimeoutMillis", 0);
        req.SetField("subscription", "*");
        req.SetIntField("subVersion", 1);
        RemotingCommand resp = Call(std::move(req));
        if (resp.code != 0) break;
        std::vector<uint8_t> body = resp.body.Flatten();
        std::span<const uint8_t> rest(body);
        int got = 0;
        while (!rest.empty()) {
          auto d = format::DecodeRecord(rest, true);
          if (d.outcome != format::DecodeOutcome::kRecord) break;
          ++n[std::string(d.record.body)];
          ++got;
          rest = rest.subspan(static_cast<size_t>(d.record.total_size));
        }
        if (got == 0) break;
        offset += got;
      }
    }
    return n;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::ServeProcess> serve_;
  std::unique_ptr<net::RemotingClient> client_;
};

TEST_F(DelayKill9Test, AllDelayedMessagesArriveAfterKill9DuplicatesOnlyUnpersisted) {
  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  CreateTopic();
  // Level 1 (1 s) and level 3 (2 s), interleaved; (level, schedule queue offset) per body.
  constexpr int kMessages = 60;
  std::map<std::string, std::pair<int, int64_t>> sent;
  for (int i = 0; i < kMessages; ++i) {
    const std::string body = "d" + std::to_string(i);
    const int level = i % 2 == 0 ? 1 : 3;
    sent[body] = {level, SendDelayed(body, level, i % 2)};
    // The first half is delivered, and its progress persisted, before the second is sent.
    if (i == kMessages / 2 - 1) std::this_thread::sleep_for(std::chrono::milliseconds(2800));
  }
  // Kill while the second half's level 1 is being delivered and its level 3 still waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(1050));
  client_.reset();
  serve_->Kill9();

  // The progress the killed process had persisted.
  broker::DelayOffsetManager persisted(PosixFileSystem::Default(), Clock::Real(),
                                       dir_.path() + "/store/config/delayOffset.json");
  ASSERT_TRUE(persisted.Load().ok());
  EXPECT_GE(persisted.Query(1), kMessages / 4) << "the first half's progress was persisted";

  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  std::map<std::string, int> n;
  for (int i = 0; i < 100; ++i) {  // up to 10 s
    n = Delivered();
    if (n.size() == sent.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(n.size(), sent.size()) << "every delayed message arrives after the restart";
  int duplicates = 0;
  for (const auto& [body, where] : sent) {
    const auto [level, offset] = where;
    const int64_t progress = persisted.Query(level);
    if (offset < progress) {
      EXPECT_EQ(n[body], 1) << body << " (level " << level << ", offset " << offset
                            << ") was below the persisted progress " << progress;
    } else {
      EXPECT_LE(n[body], 2) << body;
      duplicates += n[body] - 1;
    }
  }
  std::cout << "persisted progress: level 1 " << persisted.Query(1) << ", level 3 "
            << persisted.Query(3) << "; duplicates after kill -9: " << duplicates << "\n";
  // GET_ALL_DELAY_OFFSET (45) answers delayOffset.json's text, fastjson's bare keys.
  for (int i = 0; i < 50; ++i) {
    RemotingCommand resp = Call(protocol::MakeRequest(RequestCode::kGetAllDelayOffset));
    ASSERT_EQ(resp.code, 0);
    std::vector<uint8_t> b = resp.body.Flatten();
    const std::string text(b.begin(), b.end());
    if (text == R"({"offsetTable":{1:30,3:30}})") break;
    ASSERT_EQ(text.rfind(R"({"offsetTable":{)", 0), 0u) << text;
    ASSERT_LT(i, 49) << "progress never fully committed: " << text;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  client_.reset();
  EXPECT_EQ(serve_->Terminate(), 0);
}

// Timers due from 0.3 s to 3 s after their send, and some due in an hour: kill -9 while
// the first ones are being delivered. After the restart every due timer arrives (at most
// twice: once before the kill, once again if its delivery lay past the persisted
// progress), the far ones stay pending, and nothing arrives early.
TEST_F(DelayKill9Test, AllTimersArriveAfterKill9AndFarOnesStayPending) {
  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  CreateTopic("T");
  constexpr int kTimers = 60;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kTimers; ++i) {
    SendTimer("t" + std::to_string(i), 300 + 45 * i, i % 2);  // due 0.3 s .. 2.96 s
  }
  for (int i = 0; i < 5; ++i) SendTimer("far" + std::to_string(i), 3600 * 1000, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200) -
                              (std::chrono::steady_clock::now() - start));
  const std::map<std::string, int> before = Delivered("T");
  client_.reset();
  serve_->Kill9();
  EXPECT_GT(before.size(), 0u) << "some timers were delivered before the kill";
  EXPECT_LT(before.size(), static_cast<size_t>(kTimers)) << "some were still pending";

  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  std::map<std::string, int> n;
  for (int i = 0; i < 100; ++i) {  // up to 10 s
    n = Delivered("T");
    if (n.size() >= static_cast<size_t>(kTimers)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  int duplicates = 0;
  for (int i = 0; i < kTimers; ++i) {
    const std::string body = "t" + std::to_string(i);
    EXPECT_GE(n[body], 1) << body << " was not delivered after the restart";
    EXPECT_LE(n[body], 2) << body;
    duplicates += std::max(0, n[body] - 1);
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(n.count("far" + std::to_string(i)), 0u) << "a timer due in an hour arrived";
  }
  std::cout << "timers delivered before the kill: " << before.size()
            << "; duplicates after kill -9: " << duplicates << "\n";
  client_.reset();
  EXPECT_EQ(serve_->Terminate(), 0);
}

}  // namespace
}  // namespace rocketstore
