// ClientCalls over a real RemotingServer and a raw client on loopback: a broker -> client
// request is answered through the connection's response frames, matched by the broker's
// opaque; it fails with kDeadlineExceeded once RunOnce passes its deadline (FakeClock), with
// kUnavailable when the connection closes; late or foreign answers are dropped.
#include "broker/remoting/client_calls.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

#include "broker/remoting/remoting_channel.h"
#include "net/remoting_client.h"
#include "protocol/request_code.h"

namespace rocketstore::broker {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using Answer = Result<RemotingCommand>;

class ClientCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    net::ServerOptions o;
    o.port = 0;
    server_ = std::make_unique<net::RemotingServer>(o);
    // A heartbeat makes the connection known, as the broker's front end does.
    server_->RegisterHandler(ToInt(RequestCode::kHeartBeat),
                             [this](const net::ConnectionPtr& c, RemotingCommand& r) {
                               (void)ChannelOf(c, &calls_);
                               if (!conn_known_.exchange(true)) conn_promise_.set_value(c);
                               return std::optional(protocol::MakeResponse(r, 0));
                             });
    server_->SetCloseListener(
        [this](const net::ConnectionPtr& c) { calls_.OnConnectionClosed(c->id()); });
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(server_->port())).ok());
    ASSERT_TRUE(client_.Invoke(protocol::MakeRequest(RequestCode::kHeartBeat)).ok());
    conn_ = conn_promise_.get_future().get();
  }
  void TearDown() override {
    client_.Close();
    server_->Stop();
  }

  // Calls the client and returns a future of the outcome.
  std::future<Answer> Call(const net::ConnectionPtr& conn) {
    auto promise = std::make_shared<std::promise<Answer>>();
    calls_.Call(conn, protocol::MakeRequest(RequestCode::kPushReplyMessageToClient),
                [promise](Answer a) { promise->set_value(std::move(a)); });
    return promise->get_future();
  }
  // The client answers `request` with `code`.
  void Respond(const RemotingCommand& request, int32_t code) {
    RemotingCommand resp =
        protocol::MakeResponse(request, code, code ? "process reply message fail" : "");
    auto frame = protocol::EncodeFrame(resp);
    ASSERT_TRUE(frame.ok());
    ASSERT_TRUE(client_.SendRaw(frame->Flatten()).ok());
  }
  static bool Ready(std::future<Answer>& f) {
    return f.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  }

  FakeClock clock_;
  ClientCalls calls_{clock_};
  std::unique_ptr<net::RemotingServer> server_;
  std::atomic<bool> conn_known_{false};
  std::promise<net::ConnectionPtr> conn_promise_;
  net::ConnectionPtr conn_;
  net::RemotingClient client_;
};

TEST_F(ClientCallsTest, UnansweredCallFailsAtItsDeadlineAndALateAnswerIsDropped) {
  auto f = Call(conn_);
  auto req = client_.WaitServerRequest(3000);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_EQ(calls_.RunOnce(calls_.NowMs() + ClientCalls::kDefaultTimeoutMs - 1), 0);
  EXPECT_EQ(calls_.pending(), 1u);
  clock_.AdvanceMillis(ClientCalls::kDefaultTimeoutMs);
  EXPECT_EQ(calls_.RunOnce(calls_.NowMs()), 1);
  ASSERT_TRUE(Ready(f));
  EXPECT_EQ(f.get().status().code(), StatusCode::kDeadlineExceeded);
  Respond(*req, 0);  // too late: nobody waits for it
  // Frames are handled in order: once this round trip is done the late answer was read
  // (and dropped: a second completion would throw from the promise).
  ASSERT_TRUE(client_.Invoke(protocol::MakeRequest(RequestCode::kHeartBeat)).ok());
  EXPECT_EQ(calls_.pending(), 0u);
}

TEST_F(ClientCallsTest, ClosedConnectionFailsItsCalls) {
  auto f = Call(conn_);
  ASSERT_TRUE(client_.WaitServerRequest(3000).ok());
  client_.Close();
  ASSERT_TRUE(Ready(f));
  EXPECT_EQ(f.get().status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls_.pending(), 0u);
  // A call on the closed connection fails at once.
  auto g = Call(conn_);
  ASSERT_TRUE(Ready(g));
  EXPECT_EQ(g.get().status().code(), StatusCode::kUnavailable);
}

TEST_F(ClientCallsTest, AnswerFromAnotherConnectionDoesNotCompleteTheCall) {
  auto f = Call(conn_);
  auto req = client_.WaitServerRequest(3000);
  ASSERT_TRUE(req.ok());
  RemotingCommand foreign = protocol::MakeResponse(*req, 0);
  calls_.OnResponse(conn_->id() + 1000, foreign);
  EXPECT_EQ(f.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  EXPECT_EQ(calls_.pending(), 1u);
  Respond(*req, 0);
  ASSERT_TRUE(Ready(f));
  EXPECT_TRUE(f.get().ok());
}

TEST_F(ClientCallsTest, AnswersAreMatchedByTheBrokersOpaque) {
  auto f1 = Call(conn_);
  auto f2 = Call(conn_);
  auto r1 = client_.WaitServerRequest(3000);
  auto r2 = client_.WaitServerRequest(3000);
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(r1->code, ToInt(RequestCode::kPushReplyMessageToClient));
  EXPECT_FALSE(r1->IsOneway());
  EXPECT_NE(r1->opaque, r2->opaque);
  Respond(*r2, 1);  // out of order, an error
  Respond(*r1, 0);
  ASSERT_TRUE(Ready(f1) && Ready(f2));
  auto a1 = f1.get();
  auto a2 = f2.get();
  ASSERT_TRUE(a1.ok() && a2.ok());
  EXPECT_EQ(a1->code, 0);
  EXPECT_EQ(a2->code, 1);
  EXPECT_EQ(a2->remark, "process reply message fail");
  EXPECT_EQ(calls_.pending(), 0u);
}

TEST_F(ClientCallsTest, ChannelPushReplyMessageReportsTheClientsAnswer) {
  ChannelPtr channel = ChannelOf(conn_);  // the one made by the handler, with the calls
  std::promise<Status> first, second;
  ReplyPush push;
  push.producer_group = "PG";
  push.topic = "C_REPLY_TOPIC";
  push.default_topic = "TBW102";
  push.properties =
      "PUSH_REPLY_TIME\x01"
      "1\x02"
      "CORRELATION_ID\x01"
      "c1";
  push.born_host = "127.0.0.1:1";
  push.store_host = "127.0.0.1:2";
  push.body = "pong";
  channel->PushReplyMessage(push, [&](Status s) { first.set_value(s); });
  auto req = client_.WaitServerRequest(3000);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req->FindField("properties"), push.properties);
  EXPECT_EQ(req->FindField("storeHost"), "127.0.0.1:2");
  EXPECT_EQ(req->body.owned_text(), "pong");
  Respond(*req, 0);
  auto f = first.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(f.get().ok());

  channel->PushReplyMessage(push, [&](Status s) { second.set_value(s); });
  req = client_.WaitServerRequest(3000);
  ASSERT_TRUE(req.ok());
  Respond(*req, 1);
  auto g = second.get_future();
  ASSERT_EQ(g.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  Status s = g.get();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("process reply message fail"), std::string::npos);
}

TEST_F(ClientCallsTest, ChannelWithoutCallsOrConnectionFailsThePushAtOnce) {
  std::vector<Status> got;
  RemotingChannel no_calls(conn_);  // made without a ClientCalls: cannot wait for answers
  no_calls.PushReplyMessage(ReplyPush{}, [&](Status s) { got.push_back(s); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].code(), StatusCode::kFailedPrecondition);
  RemotingChannel closed(conn_, &calls_);
  conn_->Close();
  ASSERT_TRUE(client_.WaitPeerClosed(3000));  // the server closed it: closed() holds
  closed.PushReplyMessage(ReplyPush{}, [&](Status s) { got.push_back(s); });
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls_.pending(), 0u);
}

}  // namespace
}  // namespace rocketstore::broker
