// kill -9 of a real `rocketstore serve` process with transaction halves pending, being
// committed (oneway END_TRANSACTION in flight at the kill) and rolled back: after a restart
// on the same store the broker checks the producer back for every half still pending, and
// every committed transaction is delivered exactly once, no rolled-back one ever. Over the
// wire with the project's RemotingClient playing the Java TransactionMQProducer.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "net/remoting_client.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"
#include "store/format/message_id.h"
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

struct Half {
  int64_t queue_offset = 0, commit_log_offset = 0;
  std::string uniq;
};

class TransactionKill9Test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream conf(dir_.path() + "/broker.conf");
    conf << "transactionTimeOut=1500\ntransactionCheckInterval=1000\n"
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
    RemotingCommand hb = protocol::MakeRequest(RequestCode::kHeartBeat);
    hb.body.Assign(R"({"clientID":"127.0.0.1@tx","consumerDataSet":[],)"
                   R"("producerDataSet":[{"groupName":"TPG"}]})");
    ASSERT_EQ(Call(std::move(hb)).code, 0);
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_->Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  void CreateTopic() {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
    req.SetField("topic", "X");
    req.SetField("defaultTopic", "TBW102");
    req.SetIntField("readQueueNums", 4);
    req.SetIntField("writeQueueNums", 4);
    req.SetIntField("perm", 6);
    req.SetField("topicFilterType", "SINGLE_TAG");
    req.SetField("order", "false");
    ASSERT_EQ(Call(std::move(req)).code, 0);
  }

  // A half as the Java client sends it (SEND_MESSAGE_V2, sysFlag 4, TRAN_MSG, PGROUP).
  Half SendHalf(const std::string& body, int queue) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "TPG");
    req.SetField("b", "X");
    req.SetField("c", "TBW102");
    req.SetIntField("d", 4);
    req.SetIntField("e", queue);
    req.SetIntField("f", 4);
    req.SetIntField("g", 1700000000000);
    req.SetIntField("h", 0);
    const std::string uniq = "UNIQ" + body;
    req.SetField("i", "KEYS\x01" + body + "\x02TRAN_MSG\x01true\x02UNIQ_KEY\x01" + uniq +
                          "\x02PGROUP\x01TPG\x02TAGS\x01t");
    req.body.Assign(body);
    RemotingCommand resp = Call(std::move(req));
    EXPECT_EQ(resp.code, 0) << resp.remark.value_or("");
    EXPECT_EQ(resp.FindField("queueId").value_or(""), std::to_string(queue));
    Half h;
    h.uniq = uniq;
    h.queue_offset = std::stoll(std::string(resp.FindField("queueOffset").value_or("-1")));
    auto id = format::DecodeOffsetMsgId(resp.FindField("msgId").value_or(""));
    EXPECT_TRUE(id.ok());
    h.commit_log_offset = id.ok() ? id->physical_offset : -1;
    return h;
  }

  RemotingCommand EndRequest(const Half& h, int32_t type, bool from_check) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kEndTransaction);
    protocol::EndTransactionRequestHeader e;
    e.producer_group = "TPG";
    e.tran_state_table_offset = h.queue_offset;
    e.commit_log_offset = h.commit_log_offset;
    e.commit_or_rollback = type;
    e.from_transaction_check = from_check;
    e.msg_id = h.uniq;
    e.EncodeTo(req);
    return req;
  }

  // Every body in X, with how often it was delivered.
  std::map<std::string, int> Delivered() {
    std::map<std::string, int> n;
    for (int q = 0; q < 4; ++q) {
      int64_t offset = 0;
      while (true) {
        RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
        req.SetField("consumerGroup", "G");
        req.SetField("topic", "X");
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
          EXPECT_EQ(d.record.TransactionType(), format::kTransactionCommit);
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

TEST_F(TransactionKill9Test, CommittedExactlyOnceRolledBackNeverAfterKill9) {
  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  CreateTopic();
  // c*: committed (oneway, some still in flight at the kill); r*: rolled back (answered
  // before the kill); u*: unknown, settled by the check-back after the restart (even
  // ones commit).
  constexpr int kEach = 20;
  std::map<std::string, Half> halves;
  std::set<std::string> commit, rollback;
  for (int i = 0; i < kEach; ++i) {
    for (const char* kind : {"r", "u", "c"}) {
      const std::string body = std::string(kind) + std::to_string(i);
      halves[body] = SendHalf(body, i % 4);
      if (kind[0] == 'r') {
        RemotingCommand resp =
            Call(EndRequest(halves[body], protocol::kTransactionRollbackType, false));
        EXPECT_EQ(resp.code, 0) << resp.remark.value_or("");
        rollback.insert(body);
      } else if (kind[0] == 'c') {
        ASSERT_TRUE(
            client_->InvokeOneway(EndRequest(halves[body], protocol::kTransactionCommitType, false))
                .ok());
        commit.insert(body);
      } else {
        (i % 2 == 0 ? commit : rollback).insert(body);
      }
    }
  }
  client_.reset();
  serve_->Kill9();

  ASSERT_TRUE(serve_->Start().ok());
  Connect();
  // The broker asks about every half still pending; answer as the producer would. (A
  // timed-out wait closes the client's connection: wait long, once per request.)
  std::set<std::string> asked;
  auto answer = [&](const RemotingCommand& req) {
    ASSERT_EQ(req.code, protocol::ToInt(RequestCode::kCheckTransactionState));
    auto h = protocol::CheckTransactionStateRequestHeader::Decode(req);
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    std::vector<uint8_t> body = req.body.Flatten();
    auto d = format::DecodeRecord(body, true);
    ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
    const std::string name(d.record.body);
    EXPECT_EQ(d.record.topic, "X");
    EXPECT_NE(name[0], 'r') << name << " was rolled back before the kill";
    asked.insert(name);
    Half copy = halves[name];
    copy.queue_offset = h->tran_state_table_offset;
    copy.commit_log_offset = h->commit_log_offset;
    const int32_t type =
        commit.count(name) ? protocol::kTransactionCommitType : protocol::kTransactionRollbackType;
    ASSERT_TRUE(client_->InvokeOneway(EndRequest(copy, type, true)).ok());
  };
  auto all_asked = [&] {
    for (int i = 0; i < kEach; ++i) {
      if (!asked.count("u" + std::to_string(i))) return false;
    }
    return true;
  };
  while (!all_asked()) {
    auto req = client_->WaitServerRequest(15000);
    ASSERT_TRUE(req.ok()) << req.status().ToString() << "; asked " << asked.size();
    answer(*req);
  }
  // The rest of that check pass (c* whose commit the kill lost) arrives before this answer.
  RemotingCommand hb = protocol::MakeRequest(RequestCode::kHeartBeat);
  hb.body.Assign(R"({"clientID":"127.0.0.1@tx","consumerDataSet":[],)"
                 R"("producerDataSet":[{"groupName":"TPG"}]})");
  ASSERT_EQ(Call(std::move(hb)).code, 0);
  for (const RemotingCommand& req : client_->TakeServerRequests()) answer(req);
  for (int i = 0; i < kEach; ++i) {
    EXPECT_TRUE(asked.count("u" + std::to_string(i))) << "u" << i << " never checked";
  }
  // A producer repeating its commits, and a late commit of a rolled-back one: no effect.
  for (int i = 0; i < kEach; ++i) {
    RemotingCommand resp =
        Call(EndRequest(halves["c" + std::to_string(i)], protocol::kTransactionCommitType, false));
    EXPECT_EQ(resp.code, 0) << resp.remark.value_or("");
    resp =
        Call(EndRequest(halves["r" + std::to_string(i)], protocol::kTransactionCommitType, false));
    EXPECT_EQ(resp.code, 1) << "already rolled back";
  }
  std::map<std::string, int> n;
  for (int i = 0; i < 50; ++i) {
    n = Delivered();
    if (n.size() >= commit.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const std::string& c : commit) EXPECT_EQ(n[c], 1) << c << " delivered once";
  for (const std::string& r : rollback) EXPECT_EQ(n.count(r), 0u) << r << " never delivered";
  EXPECT_EQ(n.size(), commit.size());
  client_.reset();
  EXPECT_EQ(serve_->Terminate(), 0);
}

}  // namespace
}  // namespace rocketstore
