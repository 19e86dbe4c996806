// A real in-process broker (fake clock, broker jbroker-a of cluster JavaCluster, as in
// the Java captures) with three raw connections: an admin tool, a consumer client and a
// producer client; helpers to send, heartbeat, commit and pull the way the Java 4.9.8
// client does, and to compare JSON bodies the way the Java classes read them.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "broker/broker.h"
#include "io/posix_file_system.h"
#include "java_vectors.h"
#include "net/remoting_client.h"
#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/frame_codec.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "protocol/internal/json_tree.h"
#include "testing/heartbeat_data.h"
#include "testing/temp_dir.h"

namespace rocketstore::broker::testing {

using protocol::RemotingCommand;
using protocol::RequestCode;

// A JSON body in one canonical text: object members sorted by name (bare keys quoted),
// members named in `masked` shown as "*".
inline void CanonicalInto(const protocol::internal::JsonNode& n,
                          const std::set<std::string>& masked, std::string& out) {
  using Kind = protocol::internal::JsonNode::Kind;
  switch (n.kind) {
    case Kind::kObject: {
      std::map<std::string, const protocol::internal::JsonNode*> sorted;
      for (const auto& c : n.children) sorted[std::string(c.key)] = &c;
      out += '{';
      bool first = true;
      for (const auto& [k, v] : sorted) {
        if (!first) out += ',';
        first = false;
        out += '"' + k + "\":";
        if (masked.contains(k)) {
          out += "\"*\"";
        } else {
          CanonicalInto(*v, masked, out);
        }
      }
      out += '}';
      return;
    }
    case Kind::kArray:
      out += '[';
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i > 0) out += ',';
        CanonicalInto(n.children[i], masked, out);
      }
      out += ']';
      return;
    case Kind::kString:
      out += '"' + std::string(n.text) + '"';
      return;
    case Kind::kNumber:
      out += std::string(n.text);
      return;
    case Kind::kBool:
      out += n.boolean ? "true" : "false";
      return;
    case Kind::kNull:
      out += "null";
      return;
  }
}

inline std::string Canonical(std::string_view json, const std::set<std::string>& masked = {}) {
  auto quoted = protocol::QuoteBareKeys(json, "body");
  EXPECT_TRUE(quoted.ok()) << quoted.status();
  if (!quoted.ok()) return "<bad>";
  auto tree = protocol::internal::JsonTree::Parse(*quoted, "body");
  EXPECT_TRUE(tree.ok()) << tree.status();
  if (!tree.ok()) return "<bad>";
  std::string out;
  CanonicalInto(tree->root(), masked, out);
  return out;
}

class AdminPartBTest : public ::testing::Test {
 protected:
  static constexpr int64_t kStart = 1796159100000;  // the captures' time, roughly

  void SetUp() override {
    BrokerOptions bo;
    bo.server.port = 0;
    bo.cluster_name = "JavaCluster";
    bo.broker_name = "jbroker-a";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    broker_ = std::make_unique<Broker>(bo, PosixFileSystem::Default(), clock_);
    Status s = broker_->Start();
    ASSERT_TRUE(s.ok()) << s;
    const std::string addr = "127.0.0.1:" + std::to_string(broker_->port());
    ASSERT_TRUE(admin_.Connect(addr).ok());
    ASSERT_TRUE(consumer_.Connect(addr).ok());
    ASSERT_TRUE(producer_.Connect(addr).ok());
  }
  void TearDown() override {
    admin_.Close();
    consumer_.Close();
    producer_.Close();
    if (broker_) {
      EXPECT_TRUE(broker_->Stop().ok());
    }
  }

  static RemotingCommand Call(net::RemotingClient& c, RemotingCommand req) {
    auto r = c.Invoke(std::move(req), 15000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  std::future<RemotingCommand> CallAsync(RemotingCommand req) {
    return std::async(std::launch::async, [this, req] { return Call(admin_, req); });
  }
  // The consumer client answers a broker -> client request.
  void Answer(const RemotingCommand& request, int32_t code, std::optional<std::string> remark,
              std::string_view body) {
    RemotingCommand resp = remark ? protocol::MakeResponse(request, code, *remark)
                                  : protocol::MakeResponse(request, code);
    if (!body.empty()) resp.body.Assign(body);
    auto frame = protocol::EncodeFrame(resp);
    ASSERT_TRUE(frame.ok());
    ASSERT_TRUE(consumer_.SendRaw(frame->Flatten()).ok());
  }

  void CreateTopic(const std::string& topic, int queues) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
    req.SetField("topic", topic);
    req.SetField("defaultTopic", "TBW102");
    req.SetIntField("readQueueNums", queues);
    req.SetIntField("writeQueueNums", queues);
    req.SetIntField("perm", 6);
    req.SetField("topicFilterType", "SINGLE_TAG");
    req.SetField("order", "false");
    RemotingCommand r = Call(admin_, std::move(req));
    ASSERT_EQ(r.code, 0) << topic << ": " << r.remark.value_or("");
  }
  // Sends one message to `queue`; returns the send answer's msgId. Waits until visible.
  std::string Send(const std::string& topic, int queue, const std::string& body) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "PGV_adm");
    req.SetField("b", topic);
    req.SetField("c", "TBW102");
    req.SetIntField("d", 4);
    req.SetIntField("e", queue);
    req.SetIntField("f", 0);
    req.SetIntField("g", clock_.NowMillis());
    req.SetIntField("h", 0);
    req.SetField("i", "TAGS\x01TagA\x02");
    req.body.Assign(body);
    RemotingCommand r = Call(producer_, std::move(req));
    EXPECT_EQ(r.code, 0) << r.remark.value_or("");
    const int64_t want = std::stoll(std::string(r.FindField("queueOffset").value_or("0"))) + 1;
    for (int i = 0; i < 300 && MaxOffset(topic, queue) < want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_GE(MaxOffset(topic, queue), want);
    return std::string(r.FindField("msgId").value_or(""));
  }
  int64_t MaxOffset(const std::string& topic, int queue) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kGetMaxOffset);
    req.SetField("topic", topic);
    req.SetIntField("queueId", queue);
    RemotingCommand r = Call(admin_, std::move(req));
    return std::stoll(std::string(r.FindField("offset").value_or("-1")));
  }
  // A consumer heartbeat (as DefaultMQPushConsumer's) on `conn`.
  void ConsumerHeartbeat(net::RemotingClient& conn, const std::string& client_id,
                         const std::string& group,
                         const std::vector<std::pair<std::string, int64_t>>& topics,
                         const std::string& from_where = "CONSUME_FROM_FIRST_OFFSET",
                         int32_t version = 409) {
    protocol::HeartbeatData hb =
        ::rocketstore::testing::ConsumerHeartbeatData(client_id, group, from_where);
    protocol::ConsumerData& cd = hb.consumer_data_set[0];
    for (const auto& [topic, version_stamp] : topics) {
      protocol::SubscriptionData s;
      s.topic = topic;
      s.sub_string = "*";
      s.sub_version = version_stamp;
      cd.subscription_data_set.push_back(s);
    }
    hb.producer_data_set.push_back({"CLIENT_INNER_PRODUCER"});
    RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
    beat.version = version;
    beat.language = protocol::LanguageCode::kJava;
    beat.body.Assign(hb.Encode());
    ASSERT_EQ(Call(conn, std::move(beat)).code, 0);
  }
  void Commit(const std::string& group, const std::string& topic, int queue, int64_t offset) {
    RemotingCommand up = protocol::MakeRequest(RequestCode::kUpdateConsumerOffset);
    up.SetField("consumerGroup", group);
    up.SetField("topic", topic);
    up.SetIntField("queueId", queue);
    up.SetIntField("commitOffset", offset);
    ASSERT_EQ(Call(consumer_, std::move(up)).code, 0);
  }
  int64_t Committed(const std::string& group, const std::string& topic, int queue) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
    q.SetField("consumerGroup", group);
    q.SetField("topic", topic);
    q.SetIntField("queueId", queue);
    RemotingCommand r = Call(admin_, std::move(q));
    if (r.code != 0) return -1;
    return std::stoll(std::string(r.FindField("offset").value_or("-1")));
  }
  // Pulls up to `n` messages of `queue` from `offset` for `group`; returns how many came.
  int Pull(const std::string& group, const std::string& topic, int queue, int64_t offset, int n) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
    req.SetField("consumerGroup", group);
    req.SetField("topic", topic);
    req.SetIntField("queueId", queue);
    req.SetIntField("queueOffset", offset);
    req.SetIntField("maxMsgNums", n);
    req.SetIntField("sysFlag", 2);
    req.SetIntField("commitOffset", 0);
    req.SetIntField("suspendTimeoutMillis", 0);
    req.SetField("subscription", "*");
    req.SetIntField("subVersion", 0);
    RemotingCommand r = Call(consumer_, std::move(req));
    if (r.code != 0) return 0;
    const int64_t next = std::stoll(std::string(r.FindField("nextBeginOffset").value_or("0")));
    return static_cast<int>(next - offset);
  }
  // A broker -> consumer request other than NOTIFY_CONSUMER_IDS_CHANGED (40), or a
  // failed test.
  RemotingCommand ToConsumer(int64_t timeout_ms = 5000) {
    for (;;) {
      auto r = consumer_.WaitServerRequest(timeout_ms);
      EXPECT_TRUE(r.ok()) << r.status();
      if (!r.ok()) return RemotingCommand{};
      if (r->code != ToInt(RequestCode::kNotifyConsumerIdsChanged)) return std::move(r).value();
    }
  }

  FakeClock clock_{kStart};
  ::rocketstore::testing::TempDir dir_;
  std::unique_ptr<Broker> broker_;
  net::RemotingClient admin_, consumer_, producer_;
};

}  // namespace rocketstore::broker::testing
