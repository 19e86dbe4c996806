// Test fixture for the broker admin codes, part A: a real broker (cluster JavaCluster,
// broker jbroker-a, as the Java broker of tests/protocol/vectors/java-4.9.8/
// admin-broker.json) on loopback, one raw remoting client, the captured frames, and
// helpers to send, put and parse.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "java_vectors.h"
#include "net/remoting_client.h"
#include "protocol/json_util.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore::admin_a_test {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::testing::CapturedFrame;

inline std::string Remark(const RemotingCommand& c) { return c.remark.value_or(""); }

inline std::string BodyText(const RemotingCommand& c) {
  const std::vector<uint8_t> b = c.body.Flatten();
  return std::string(b.begin(), b.end());
}

// Parses JSON (fastjson's bare integer and object keys accepted); a test failure if not.
inline rapidjson::Document Json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(protocol::QuoteBareIntegerKeys(protocol::QuoteBareObjectKeys(text)).c_str());
  EXPECT_FALSE(d.HasParseError()) << text.substr(0, 200);
  return d;
}

inline std::vector<std::string> Keys(const rapidjson::Value& o) {
  std::vector<std::string> out;
  if (!o.IsObject()) return out;
  for (const auto& m : o.GetObject()) out.emplace_back(m.name.GetString());
  std::sort(out.begin(), out.end());
  return out;
}

// `keys` without the 5.x members rocketstore's config files carry beside 4.9.8's
// (DataVersion.stateVersion, TopicConfig.attributes; docs/protocol.md §10a): a 4.9.8
// client ignores them, as fastjson ignores unknown members.
inline std::vector<std::string> Without5xMembers(std::vector<std::string> keys) {
  std::erase_if(keys,
                [](const std::string& k) { return k == "stateVersion" || k == "attributes"; });
  return keys;
}

class AdminATest : public ::testing::Test {
 protected:
  virtual void Configure(broker::BrokerOptions& bo) {}

  void SetUp() override {
    frames_ = protocol::testing::LoadFrames("java-4.9.8/admin-broker.json");
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.cluster_name = "JavaCluster";
    bo.broker_name = "jbroker-a";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 1 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 1000;
    bo.config_file_path = dir_.path() + "/broker.conf";
    Configure(bo);
    broker_ = std::make_unique<broker::Broker>(bo);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
  }
  void TearDown() override {
    client_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
  }

  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 10000);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  // The captured request, replayed (a copy: its opaque is replaced by the client's).
  RemotingCommand Replay(std::string_view request) {
    return Call(protocol::testing::FindFrame(frames_, request, false).command);
  }
  const CapturedFrame& JavaReply(std::string_view request) {
    return protocol::testing::FindFrame(frames_, request, true);
  }
  static RemotingCommand Request(RequestCode code,
                                 std::vector<std::pair<std::string, std::string>> fields = {}) {
    return protocol::testing::CommandWith(ToInt(code), std::move(fields));
  }
  void CreateTopic(const std::string& topic, int queues) {
    broker::TopicConfig t;
    t.name = topic;
    t.read_queue_nums = t.write_queue_nums = queues;
    broker_->topics().Upsert(t);
  }
  // Puts `n` messages on `topic`/`queue` and waits until they are dispatched.
  void Put(const std::string& topic, int32_t queue, int n) {
    for (int i = 0; i < n; ++i) {
      testing::TestMessage m = testing::MakeTestMessage(i);
      m.topic = topic;
      m.queue_id = queue;
      ASSERT_EQ(broker_->store().PutMessage(m.View()).status, PutMessageStatus::kPutOk);
    }
    for (int i = 0; i < 1000 && broker_->store().DispatchBehindBytes() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  ::rocketstore::testing::TempDir dir_;
  std::vector<CapturedFrame> frames_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
};

}  // namespace rocketstore::admin_a_test
