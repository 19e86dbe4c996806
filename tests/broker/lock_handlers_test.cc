// LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) through the real remoting front end on
// loopback: the Java 4.9.8 orderly consumer's captured requests (order-lock.json) are
// replayed in order and every answer is compared with the Java broker's, field by field
// (code, remark, ext fields, body; lockOKMQSet as a set, each queue's JSON byte for
// byte). Then the failure paths: bodies that do not decode, missing ids, another client.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/clock.h"
#include "broker/remoting/remoting_frontend.h"
#include "broker/service/rebalance_lock_manager.h"
#include "java_vectors.h"
#include "net/remoting_client.h"
#include "net/remoting_server.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/request_code.h"

namespace rocketstore::broker {
namespace {

using protocol::LockBatchRequestBody;
using protocol::LockBatchResponseBody;
using protocol::MessageQueue;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::testing::CapturedFrame;

std::string Text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

LockBatchResponseBody DecodeAnswer(const RemotingCommand& resp) {
  auto b = LockBatchResponseBody::Decode(Text(resp.body.Flatten()));
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *b : LockBatchResponseBody{};
}

std::vector<MessageQueue> Sorted(std::vector<MessageQueue> v) {
  auto key = [](const MessageQueue& q) { return std::tie(q.topic, q.broker_name, q.queue_id); };
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return v;
}

class LockHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerServices services;
    services.locks = &locks_;
    frontend_ = std::make_unique<RemotingFrontend>(services);
    frontend_->Register(server_);
    frontend_->SetReady(true);
    ASSERT_TRUE(server_.Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(server_.port())).ok());
  }
  void TearDown() override {
    client_.Close();
    server_.Stop();
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  RemotingCommand LockRequest(const std::string& client, std::vector<MessageQueue> queues,
                              RequestCode code = RequestCode::kLockBatchMq) {
    LockBatchRequestBody b{"CGV_order", client, std::move(queues)};
    RemotingCommand req = protocol::MakeRequest(code);
    req.body.Assign(b.Encode());
    return req;
  }

  FakeClock clock_;
  RebalanceLockManager locks_{clock_};
  net::RemotingServer server_{net::ServerOptions{}};
  std::unique_ptr<RemotingFrontend> frontend_;
  net::RemotingClient client_;
};

// Our answer against the Java broker's captured one, field by field.
void ExpectSameAnswer(const RemotingCommand& ours, const CapturedFrame& java) {
  const RemotingCommand& j = java.command;
  EXPECT_EQ(ours.code, j.code);
  EXPECT_EQ(ours.remark, j.remark);
  EXPECT_EQ(ours.ext_fields, j.ext_fields);
  EXPECT_TRUE(ours.IsResponse());
  if (java.request == "UNLOCK_BATCH_MQ") {
    EXPECT_EQ(ours.body.Flatten().size(), 0u);
    EXPECT_EQ(j.body.Flatten().size(), 0u);
    return;
  }
  LockBatchResponseBody mine = DecodeAnswer(ours);
  LockBatchResponseBody theirs = DecodeAnswer(j);
  EXPECT_EQ(Sorted(mine.lock_ok_mq_set), Sorted(theirs.lock_ok_mq_set));
  // Java's set order is its HashSet's; in our order, Java's elements encode to our bytes.
  EXPECT_EQ(Text(LockBatchResponseBody{mine.lock_ok_mq_set}.Encode()), Text(ours.body.Flatten()));
  if (mine.lock_ok_mq_set == theirs.lock_ok_mq_set) {
    EXPECT_EQ(Text(ours.body.Flatten()), java.body_text);
  }
}

TEST_F(LockHandlersTest, JavaOrderlyConsumerSessionGetsJavasAnswers) {
  const auto frames = protocol::testing::LoadFrames("java-4.9.8/order-lock.json");
  int answered = 0, oneway = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const CapturedFrame& f = frames[i];
    if (f.is_response || (f.request != "LOCK_BATCH_MQ" && f.request != "UNLOCK_BATCH_MQ")) {
      continue;
    }
    SCOPED_TRACE(f.request + " " + f.body_text);
    if (f.command.IsOneway()) {
      ASSERT_TRUE(client_.InvokeOneway(f.command).ok());
      ++oneway;
      continue;
    }
    ASSERT_LT(i + 1, frames.size());
    const CapturedFrame& java = frames[i + 1];
    ASSERT_TRUE(java.is_response);
    ASSERT_EQ(java.command.opaque, f.command.opaque);
    ExpectSameAnswer(Call(f.command), java);
    ++answered;
    clock_.AdvanceMillis(100);
  }
  EXPECT_EQ(answered, 9);  // 7 locks, 2 sync unlocks
  EXPECT_EQ(oneway, 1);
  // The session ended with unlockAll: nothing is held any more.
  EXPECT_EQ(locks_.Holder("CGV_order", {"JV_order", "jbroker-a", 2}, locks_.NowMs()), "");
  EXPECT_EQ(locks_.entry_count(), 0u);
}

TEST_F(LockHandlersTest, OnewayUnlockIsAppliedWithoutAnAnswer) {
  const MessageQueue q{"JV_order", "jbroker-a", 3};
  ASSERT_EQ(DecodeAnswer(Call(LockRequest("c1", {q}))).lock_ok_mq_set.size(), 1u);
  RemotingCommand unlock = LockRequest("c1", {q}, RequestCode::kUnlockBatchMq);
  unlock.MarkOneway();
  ASSERT_TRUE(client_.InvokeOneway(std::move(unlock)).ok());
  // Same connection, handled in order: c2 now gets the queue.
  EXPECT_EQ(DecodeAnswer(Call(LockRequest("c2", {q}))).lock_ok_mq_set,
            (std::vector<MessageQueue>{q}));
}

TEST_F(LockHandlersTest, BodyThatDoesNotDecodeIsSystemError) {
  RemotingCommand empty = protocol::MakeRequest(RequestCode::kLockBatchMq);
  RemotingCommand resp = Call(std::move(empty));
  EXPECT_EQ(resp.code, 1);  // SYSTEM_ERROR, as Java's decode(null) exception
  EXPECT_TRUE(resp.remark.has_value());

  RemotingCommand bad = protocol::MakeRequest(RequestCode::kUnlockBatchMq);
  bad.body.Assign(std::string_view(R"({"mqSet":[{"queueId":"x"}]})"));
  resp = Call(std::move(bad));
  EXPECT_EQ(resp.code, 1);
  EXPECT_EQ(resp.remark, "UnlockBatchRequestBody: mqSet[0].queueId is not an int");
}

TEST_F(LockHandlersTest, MissingIdsAreSystemError) {
  const MessageQueue q{"T", "b", 0};
  RemotingCommand resp = Call(LockRequest("", {q}));
  EXPECT_EQ(resp.code, 1);
  EXPECT_EQ(resp.remark, "LockBatchRequestBody: clientId is empty");
  RemotingCommand req = protocol::MakeRequest(RequestCode::kUnlockBatchMq);
  req.body.Assign(std::string_view(R"({"clientId":"c1","mqSet":[]})"));
  resp = Call(std::move(req));
  EXPECT_EQ(resp.code, 1);
  EXPECT_EQ(resp.remark, "UnlockBatchRequestBody: consumerGroup is empty");
  EXPECT_EQ(locks_.entry_count(), 0u);
}

TEST_F(LockHandlersTest, AnotherClientGetsAnEmptySetAndCannotUnlock) {
  const MessageQueue q0{"T", "b", 0}, q1{"T", "b", 1};
  ASSERT_EQ(DecodeAnswer(Call(LockRequest("c1", {q0}))).lock_ok_mq_set.size(), 1u);
  RemotingCommand resp = Call(LockRequest("c2", {q0}));
  EXPECT_EQ(resp.code, 0);
  EXPECT_EQ(Text(resp.body.Flatten()), R"({"lockOKMQSet":[]})");
  EXPECT_EQ(DecodeAnswer(Call(LockRequest("c2", {q0, q1}))).lock_ok_mq_set,
            (std::vector<MessageQueue>{q1}));
  resp = Call(LockRequest("c2", {q0}, RequestCode::kUnlockBatchMq));
  EXPECT_EQ(resp.code, 0);  // as Java: SUCCESS, nothing released
  EXPECT_EQ(locks_.Holder("CGV_order", {"T", "b", 0}, locks_.NowMs()), "c1");
  // After 60 s without renewal the lock is c2's to take.
  clock_.AdvanceMillis(60001);
  EXPECT_EQ(DecodeAnswer(Call(LockRequest("c2", {q0}))).lock_ok_mq_set,
            (std::vector<MessageQueue>{q0}));
}

}  // namespace
}  // namespace rocketstore::broker
