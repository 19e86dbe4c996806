// Topic changes answered after the name servers know them (broker/service/
// route_registration.h), as RocketMQ 4.9.8's AdminBrokerProcessor answers only after
// registerIncrementBrokerData / registerBrokerAll waited for every name server:
//   - NamesrvRegistrar's step: RequestNow(done) is answered by the first round that starts
//     after it, never by one already under way; AbandonPending answers the rest.
//   - Through a real broker and name server: UPDATE_AND_CREATE_TOPIC (17) and then at once
//     GET_ROUTEINFO_BY_TOPIC always finds the route (repeated); DELETE_TOPIC_IN_BROKER
//     (215) and at once the route is gone.
//   - HEART_BEAT (34) of a new consumer group, which creates its %RETRY% topic: answered
//     at once (not after the round), even with a hanging name server; the retry route
//     follows.
//   - A name server that refuses connections, or accepts them and never answers: the
//     create is still answered, SUCCESS as Java, after the registration timeout, with a
//     remark saying the routes do not show it yet.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "broker/broker.h"
#include "broker/namesrv_registrar.h"
#include "io/posix_file_system.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "protocol/bodies/client_bodies.h"
#include "testing/heartbeat_data.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::ToInt;

// A TCP listener that never accepts: connects succeed (the kernel's backlog), requests are
// never answered — a name server that hangs.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t len = sizeof(a);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  std::string addr() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A loopback port nothing listens on (bound then closed).
std::string RefusingAddr() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t len = sizeof(a);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  ::close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
}

// --- the registrar's step ---------------------------------------------------------------

class RegistrarStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    topics_ = std::make_unique<broker::TopicConfigManager>(fs_, Clock::Real(),
                                                           dir_.path() + "/topics.json");
  }
  void TearDown() override { ns_->Stop(); }

  std::unique_ptr<broker::NamesrvRegistrar> Registrar(std::vector<std::string> addrs,
                                                      int64_t timeout_ms = 3000) {
    broker::NamesrvRegistrar::Options o;
    o.namesrv_addrs = std::move(addrs);
    o.cluster_name = "C";
    o.broker_name = "b";
    o.broker_addr = "127.0.0.1:10911";
    o.interval_ms = 30000;
    o.timeout_ms = timeout_ms;
    return std::make_unique<broker::NamesrvRegistrar>(o, *topics_);
  }
  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_->port()); }

  testing::TempDir dir_;
  PosixFileSystem fs_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::TopicConfigManager> topics_;
};

TEST_F(RegistrarStepTest, FailedRoundAnswersItsWaitersWithTheError) {
  auto r = Registrar({RefusingAddr()}, 500);
  std::vector<Status> got;
  r->RequestNow([&](const Status& s) { got.push_back(s); });
  EXPECT_TRUE(got.empty());  // nothing happens before the step
  EXPECT_FALSE(r->RunOnce(0).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(got[0].ok());
  EXPECT_NE(got[0].message().find("name server"), std::string::npos) << got[0].ToString();
}

TEST_F(RegistrarStepTest, RequestDuringARoundWaitsForTheNextRound) {
  auto r = Registrar({ns_addr()});
  std::vector<std::string> order;
  r->RequestNow([&](const Status& s) {
    EXPECT_TRUE(s.ok()) << s.ToString();
    order.push_back("first");
    // Made while round 1 is ending: round 1's body may not hold its change.
    r->RequestNow([&](const Status& s2) {
      EXPECT_TRUE(s2.ok());
      order.push_back("second");
    });
  });
  ASSERT_TRUE(r->RunOnce(0).ok());
  EXPECT_EQ(order, std::vector<std::string>{"first"});
  EXPECT_EQ(r->pending_count(), 1u);
  // Not due for 30 s, but requested: the next step is a round.
  ASSERT_TRUE(r->RunOnce(1).ok());
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(r->pending_count(), 0u);
  // Nothing requested, not due: no round, nobody answered twice.
  ASSERT_TRUE(r->RunOnce(2).ok());
  EXPECT_EQ(order.size(), 2u);
}

TEST_F(RegistrarStepTest, AbandonPendingAnswersEveryWaiter) {
  auto r = Registrar({ns_addr()});
  int abandoned = 0;
  for (int i = 0; i < 3; ++i) {
    r->RequestNow([&](const Status& s) {
      EXPECT_EQ(s.code(), StatusCode::kUnavailable);
      ++abandoned;
    });
  }
  r->AbandonPending(Unavailable("stopping"));
  EXPECT_EQ(abandoned, 3);
  EXPECT_EQ(r->pending_count(), 0u);
  ASSERT_TRUE(r->RunOnce(0).ok());  // the round still runs; nobody is answered twice
  EXPECT_EQ(abandoned, 3);
}

// --- through a broker -------------------------------------------------------------------

class RegistrationWaitTest : public ::testing::Test {
 protected:
  void StartBroker(std::vector<std::string> namesrv_addrs, int64_t register_timeout_ms = 6000) {
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = std::move(namesrv_addrs);
    bo.broker_name = "broker-w";
    bo.register_timeout_ms = register_timeout_ms;
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 1 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 1000;
    bo.config_file_path = dir_.path() + "/broker.conf";
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
  }
  void StartNameServer() {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    ASSERT_TRUE(ns_client_.Connect(ns_addr()).ok());
  }
  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_->port()); }
  void TearDown() override {
    client_.Close();
    ns_client_.Close();
    if (broker_) {
      EXPECT_TRUE(broker_->Stop().ok());
    }
    if (ns_) ns_->Stop();
  }

  RemotingCommand Call(RemotingCommand req, int64_t timeout_ms = 20000) {
    auto r = client_.Invoke(std::move(req), timeout_ms);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  RemotingCommand Create(const std::string& topic, int queues = 4) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
    req.SetField("topic", topic);
    req.SetField("defaultTopic", "TBW102");
    req.SetIntField("readQueueNums", queues);
    req.SetIntField("writeQueueNums", queues);
    req.SetIntField("perm", 6);
    req.SetField("topicFilterType", "SINGLE_TAG");
    req.SetIntField("topicSysFlag", 0);
    req.SetField("order", "false");
    return Call(std::move(req));
  }
  // The name server's answer code for the topic's route (no retry, no wait).
  int RouteCode(const std::string& topic) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetRouteinfoByTopic);
    q.SetField("topic", topic);
    auto r = ns_client_.Invoke(std::move(q), 5000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->code : -1;
  }

  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
  net::RemotingClient ns_client_;
};

TEST_F(RegistrationWaitTest, RouteIsThereRightAfterTheCreateAnswer) {
  StartNameServer();
  StartBroker({ns_addr()});
  for (int i = 0; i < 25; ++i) {
    const std::string topic = "WAIT_T" + std::to_string(i);
    RemotingCommand created = Create(topic);
    ASSERT_EQ(created.code, 0) << created.remark.value_or("");
    EXPECT_FALSE(created.remark.has_value()) << *created.remark;  // registered: no remark
    ASSERT_EQ(RouteCode(topic), 0) << topic << ": no route right after the create answer";
  }
  // Deleting: the answer comes after the round that drops the topic from the routes.
  RemotingCommand del = protocol::MakeRequest(RequestCode::kDeleteTopicInBroker);
  del.SetField("topic", "WAIT_T3");
  ASSERT_EQ(Call(std::move(del)).code, 0);
  EXPECT_EQ(RouteCode("WAIT_T3"), ToInt(ResponseCode::kTopicNotExist));
  EXPECT_EQ(RouteCode("WAIT_T4"), 0);
}

// A heartbeat of a new group is answered at once, even when a name server hangs (its
// round would take registerBrokerTimeoutMills per name server, longer than a client waits
// for a heartbeat); the retry route follows when the round it asked for has ended.

TEST_F(RegistrationWaitTest, HeartbeatOfANewGroupIsAnsweredAtOnceAndItsRetryRouteFollows) {
  StartNameServer();
  StartBroker({ns_addr()});
  RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
  beat.body.Assign(testing::ConsumerHeartbeatData("127.0.0.1@hb", "HB_G").Encode());
  ASSERT_EQ(Call(std::move(beat)).code, 0);
  EXPECT_TRUE(broker_->topics().Find("%RETRY%HB_G").has_value());
  // The round it asked for registers the retry topic (waited for, not slept).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (RouteCode("%RETRY%HB_G") != 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(RouteCode("%RETRY%HB_G"), 0);
}

TEST_F(RegistrationWaitTest, HeartbeatWithAHangingNameServerIsAnsweredAtOnce) {
  SilentListener silent;
  // A round takes at least the timeout, past the 3 s a client waits for its heartbeat.
  StartBroker({silent.addr()}, 3200);
  const auto start = std::chrono::steady_clock::now();
  RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
  beat.body.Assign(testing::ConsumerHeartbeatData("127.0.0.1@hang", "HB_HANG").Encode());
  RemotingCommand answer = Call(std::move(beat));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  ASSERT_EQ(answer.code, 0) << answer.remark.value_or("");
  // Within the 3 s a RocketMQ client waits for a heartbeat (it does not wait for the round).
  EXPECT_LT(waited, 3000);
  // The member is registered.
  RemotingCommand ids = protocol::MakeRequest(RequestCode::kGetConsumerListByGroup);
  ids.SetField("consumerGroup", "HB_HANG");
  RemotingCommand listed = Call(std::move(ids));
  ASSERT_EQ(listed.code, 0) << listed.remark.value_or("");
  const std::vector<uint8_t> body = listed.body.Flatten();
  EXPECT_NE(std::string(body.begin(), body.end()).find("127.0.0.1@hang"), std::string::npos);
}

TEST_F(RegistrationWaitTest, RefusedTopicIsAnsweredAtOnceWithoutARound) {
  StartNameServer();
  StartBroker({ns_addr()});
  RemotingCommand bad = Create("bad topic");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.remark.value_or("").find("invalid"), std::string::npos);
}

TEST_F(RegistrationWaitTest, RefusingNameServerStillGetsSuccessWithARemark) {
  StartBroker({RefusingAddr()}, 500);
  RemotingCommand created = Create("DOWN_NS_T");
  // Java answers SUCCESS whatever registerBrokerAll met (its failures are only logged).
  ASSERT_EQ(created.code, 0);
  EXPECT_NE(created.remark.value_or("").find("no name server accepted"), std::string::npos)
      << created.remark.value_or("");
  // The topic itself is there.
  EXPECT_TRUE(broker_->topics().Find("DOWN_NS_T").has_value());
}

TEST_F(RegistrationWaitTest, HangingNameServerIsAnsweredAfterTheRegistrationTimeout) {
  SilentListener silent;
  StartBroker({silent.addr()}, 800);
  const auto start = std::chrono::steady_clock::now();
  RemotingCommand created = Create("HANG_NS_T");
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  ASSERT_EQ(created.code, 0);
  EXPECT_NE(created.remark.value_or("").find("no name server accepted"), std::string::npos)
      << created.remark.value_or("");
  // It waited for the round (the REGISTER_BROKER timed out), not less; the upper bound is
  // the client's own 20 s timeout.
  EXPECT_GE(waited, 700);
}

TEST_F(RegistrationWaitTest, OneOfTwoNameServersDownStillRegistersWithTheOther) {
  StartNameServer();
  StartBroker({RefusingAddr(), ns_addr()}, 500);
  RemotingCommand created = Create("HALF_T");
  ASSERT_EQ(created.code, 0);
  EXPECT_FALSE(created.remark.has_value()) << *created.remark;
  EXPECT_EQ(RouteCode("HALF_T"), 0);
}

}  // namespace
}  // namespace rocketstore
