// SQL92 filtering through a real broker over loopback, replaying the Java 4.9.8 client's
// frames of tests/protocol/vectors/java-4.9.8/sql92.json: CHECK_CLIENT_CONFIG (46)
// accepted and rejected, the SQL92 heartbeat, the sends (a=0..7 over 4 queues; the
// capture kept two of them, the others are built from those), and the pulls, answered as
// the Java broker answered them (codes, remarks, offsets, the one matching message per
// queue, PULL_RETRY_IMMEDIATELY for the queue holding only a=2 and a=6). Then a consumer
// loop receives exactly the matching messages of a larger, mixed set.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "broker/broker.h"
#include "java_vectors.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "protocol/bodies/client_bodies.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::testing::CapturedFrame;
using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;

struct Message {
  std::string body, properties;
  int64_t queue_offset = 0;
  std::string Prop(std::string_view name) const {
    return std::string(format::FindProperty(properties, name).value_or("<absent>"));
  }
};

std::vector<Message> Messages(const RemotingCommand& pull_response) {
  std::vector<Message> out;
  std::vector<uint8_t> body = pull_response.body.Flatten();
  std::span<const uint8_t> rest(body);
  while (!rest.empty()) {
    auto d = format::DecodeRecord(rest, true);
    EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
    if (d.outcome != format::DecodeOutcome::kRecord) break;
    out.push_back(Message{std::string(d.record.body), std::string(d.record.properties),
                          d.record.queue_offset});
    rest = rest.subspan(static_cast<size_t>(d.record.total_size));
  }
  return out;
}

class Sql92IntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns_->port())};
    bo.cluster_name = "JavaCluster";
    bo.broker_name = "jbroker-a";
    bo.advertised_addr = "127.0.0.1:20911";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
  }
  void TearDown() override {
    client_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
    ns_->Stop();
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  // The captured send of a=0 with another value of `a`, queue and body.
  static RemotingCommand SendOf(const RemotingCommand& captured, int a, int queue,
                                const std::string& extra_props = "") {
    RemotingCommand send = captured;
    const std::string n = std::to_string(a);
    send.SetField("e", std::to_string(queue));
    send.SetField("i", extra_props + "a\x01" + n + "\x02KEYS\x01s" + n +
                           "\x02UNIQ_KEY\x01"
                           "FD000000000000000000000000000002159430946E09047BE9D4000" +
                           n + "\x02WAIT\x01true\x02TAGS\x01TagA");
    send.body.Assign(std::string_view("sql " + n));
    return send;
  }

  // Waits until every queue of `topic` has `n` messages dispatched (a send is answered
  // before the dispatcher has put it in its consume queue).
  void WaitDispatched(const std::string& topic, int queues, int64_t n) {
    for (int q = 0; q < queues; ++q) {
      for (int i = 0; i < 500; ++i) {
        RemotingCommand req = protocol::MakeRequest(RequestCode::kGetMaxOffset);
        req.SetField("topic", topic);
        req.SetIntField("queueId", q);
        const RemotingCommand resp = Call(std::move(req));
        if (resp.FindField("offset").value_or("") == std::to_string(n)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }

  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
};

TEST_F(Sql92IntegrationTest, JavaConsumersFramesAreAnsweredAsTheJavaBrokerDid) {
  const auto frames = LoadFrames("java-4.9.8/sql92.json");
  // CHECK_CLIENT_CONFIG: the good expression is accepted, "a >< 5" refused with the
  // parser's message naming the same position as Java's.
  RemotingCommand ok = Call(FindFrame(frames, "CHECK_CLIENT_CONFIG", false, 0).command);
  EXPECT_EQ(ok.code, FindFrame(frames, "CHECK_CLIENT_CONFIG", true, 0).command.code);
  EXPECT_EQ(ok.code, 0);
  RemotingCommand bad = Call(FindFrame(frames, "CHECK_CLIENT_CONFIG", false, 1).command);
  EXPECT_EQ(bad.code, FindFrame(frames, "CHECK_CLIENT_CONFIG", true, 1).command.code);
  EXPECT_EQ(bad.code, 23);  // SUBSCRIPTION_PARSE_FAILED
  EXPECT_EQ(bad.remark.value_or("").rfind("Encountered \"<\" at line 1, column 4.", 0), 0u)
      << bad.remark.value_or("");

  const CapturedFrame& heartbeat = FindFrame(frames, "HEART_BEAT", false);
  EXPECT_EQ(Call(heartbeat.command).code, 0);

  const RemotingCommand& send0 = FindFrame(frames, "SEND_MESSAGE_V2", false, 0).command;
  // The capture kept the sends of a=0 (queue 0) and a=1 (queue 1); its pulls show the
  // rest: queue 0 = a0, a4; queue 1 = a1, a5; queue 2 = two non-matching (a2, a6 here);
  // queue 3 = a non-matching one (a7 here), then a3.
  for (int a : {7, 0, 1, 2, 3, 4, 5, 6}) {
    RemotingCommand r = Call(SendOf(send0, a, a % 4));
    ASSERT_EQ(r.code, 0) << r.remark.value_or("");
    EXPECT_EQ(r.FindField("queueId").value_or(""), std::to_string(a % 4));
  }
  WaitDispatched("JV_sql", 4, 2);

  // The pulls: the first (queue 2) carries the heartbeat's subVersion; the others a newer
  // one, answered SUBSCRIPTION_NOT_LATEST until the heartbeat with it arrives.
  const CapturedFrame& first = FindFrame(frames, "PULL_MESSAGE", false, 0);
  RemotingCommand retry = Call(first.command);
  const RemotingCommand& java_retry = FindFrame(frames, "PULL_MESSAGE", true, 0).command;
  EXPECT_EQ(retry.code, java_retry.code);
  EXPECT_EQ(retry.code, 20);  // PULL_RETRY_IMMEDIATELY: a=2 and a=6 only
  EXPECT_EQ(retry.remark, java_retry.remark);
  for (const char* k : {"nextBeginOffset", "minOffset", "maxOffset", "suggestWhichBrokerId"}) {
    EXPECT_EQ(retry.FindField(k), java_retry.FindField(k)) << k;
  }
  EXPECT_EQ(Call(FindFrame(frames, "PULL_MESSAGE", false, 1).command).code, 25);
  RemotingCommand newer = heartbeat.command;
  std::string text = heartbeat.body_text;
  text.replace(text.find("1796158427531"), 13, "1796158427681");
  newer.body.Assign(std::string_view(text));
  ASSERT_EQ(Call(newer).code, 0);

  for (size_t i = 1; i <= 3; ++i) {
    SCOPED_TRACE("pull " + std::to_string(i));
    const RemotingCommand ours = Call(FindFrame(frames, "PULL_MESSAGE", false, i).command);
    const CapturedFrame& java = FindFrame(frames, "PULL_MESSAGE", true, i);
    EXPECT_EQ(ours.code, java.command.code);
    EXPECT_EQ(ours.remark, java.command.remark);
    for (const char* k : {"nextBeginOffset", "minOffset", "maxOffset", "suggestWhichBrokerId"}) {
      EXPECT_EQ(ours.FindField(k), java.command.FindField(k)) << k;
    }
    const std::vector<Message> mine = Messages(ours);
    const std::vector<Message> theirs = Messages(java.command);
    ASSERT_EQ(mine.size(), 1u);
    ASSERT_EQ(theirs.size(), 1u);
    EXPECT_EQ(mine[0].body, theirs[0].body);
    EXPECT_EQ(mine[0].queue_offset, theirs[0].queue_offset);
    for (const char* p : {"a", "KEYS", "TAGS", "CLUSTER"}) {
      EXPECT_EQ(mine[0].Prop(p), theirs[0].Prop(p)) << p;
    }
  }
}

// A consumer loop as the Java client runs it: heartbeat, then per queue pull from the
// next-begin offset, following PULL_RETRY_IMMEDIATELY, until the queue's end.
TEST_F(Sql92IntegrationTest, ASql92ConsumerReceivesExactlyTheMatchingMessages) {
  const auto frames = LoadFrames("java-4.9.8/sql92.json");
  const RemotingCommand& send0 = FindFrame(frames, "SEND_MESSAGE_V2", false, 0).command;
  const char* const colors[] = {"red", "green", "blue"};
  std::set<std::string> expected;
  for (int a = 0; a < 60; ++a) {
    const bool has_color = a % 7 != 0;
    const std::string color = colors[a % 3];
    ASSERT_EQ(Call(SendOf(send0, a, a % 4, has_color ? "color\x01" + color + "\x02" : "")).code, 0);
    if ((has_color && color == "red" && a >= 10) || a == 1 || a == 2 || (!has_color && a > 40)) {
      expected.insert("sql " + std::to_string(a));
    }
  }
  WaitDispatched("JV_sql", 4, 15);
  protocol::HeartbeatData hb;
  hb.client_id = "127.0.0.1@loop";
  protocol::ConsumerData& cd = hb.consumer_data_set.emplace_back();
  cd.group_name = "CG_loop";
  cd.consume_type = "CONSUME_PASSIVELY";
  cd.message_model = "CLUSTERING";
  cd.consume_from_where = "CONSUME_FROM_FIRST_OFFSET";
  protocol::SubscriptionData& sub = cd.subscription_data_set.emplace_back();
  sub.topic = "JV_sql";
  sub.expression_type = "SQL92";
  sub.sub_string = "(color = 'red' AND a >= 10) OR a IN ('1', '2') OR (color IS NULL AND a > 40)";
  sub.sub_version = 1;
  RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
  beat.body.Assign(hb.Encode());
  ASSERT_EQ(Call(std::move(beat)).code, 0);

  std::set<std::string> received;
  int retries = 0;
  for (int queue = 0; queue < 4; ++queue) {
    int64_t offset = 0;
    for (int round = 0; round < 100; ++round) {
      RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
      req.SetField("consumerGroup", "CG_loop");
      req.SetField("topic", "JV_sql");
      req.SetIntField("queueId", queue);
      req.SetIntField("queueOffset", offset);
      req.SetIntField("maxMsgNums", 4);  // several batches per queue
      req.SetIntField("sysFlag", 0);
      req.SetIntField("commitOffset", 0);
      req.SetIntField("suspendTimeoutMillis", 0);
      req.SetIntField("subVersion", 1);
      req.SetField("expressionType", "SQL92");
      const RemotingCommand resp = Call(std::move(req));
      if (resp.code == 19) break;  // PULL_NOT_FOUND: the queue's end
      ASSERT_TRUE(resp.code == 0 || resp.code == 20)
          << resp.code << " " << resp.remark.value_or("");
      if (resp.code == 20) ++retries;
      for (const Message& m : Messages(resp)) {
        EXPECT_TRUE(received.insert(m.body).second) << "twice: " << m.body;
      }
      offset = std::stoll(std::string(resp.FindField("nextBeginOffset").value_or("0")));
    }
    EXPECT_EQ(offset, 15) << "queue " << queue << " read to its end";
  }
  EXPECT_EQ(received, expected);
  EXPECT_GT(retries, 0) << "some batches held only filtered-out messages";
}

}  // namespace
}  // namespace rocketstore
