// End to end over loopback, through the project's codec: a name server and a broker in
// process on free ports; produce with tags and keys, pull with a tag filter (and a long
// poll woken by an arrival), commit and query offsets, find a message by key, and check
// that malformed frames close only their own connection.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "broker/broker.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;

struct Msg {
  std::string topic, body, tags, keys;
  int64_t queue_offset = 0;
};

std::vector<Msg> DecodeBody(const RemotingCommand& resp) {
  std::vector<Msg> out;
  std::vector<uint8_t> body = resp.body.Flatten();
  std::span<const uint8_t> rest(body);
  while (!rest.empty()) {
    auto d = format::DecodeRecord(rest, true);
    if (d.outcome != format::DecodeOutcome::kRecord) break;
    Msg m;
    m.topic = std::string(d.record.topic);
    m.body = std::string(d.record.body);
    m.tags = std::string(format::FindProperty(d.record.properties, "TAGS").value_or(""));
    m.keys = std::string(format::FindProperty(d.record.properties, "KEYS").value_or(""));
    m.queue_offset = d.record.queue_offset;
    out.push_back(m);
    rest = rest.subspan(static_cast<size_t>(d.record.total_size));
  }
  return out;
}

// A send request as a producer builds it (SEND_MESSAGE_V2's short field names, which
// SEND_BATCH_MESSAGE shares), producer group P, born at a fixed time.
RemotingCommand MakeSend(RequestCode code, const std::string& topic, int queue,
                         const std::string& body, const std::string& properties) {
  RemotingCommand req = protocol::MakeRequest(code);
  req.SetField("a", "P");
  req.SetField("b", topic);
  req.SetField("c", "TBW102");
  req.SetIntField("d", 4);
  req.SetIntField("e", queue);
  req.SetIntField("f", 0);
  req.SetIntField("g", 1700000000000);
  req.SetIntField("h", 0);
  if (!properties.empty()) req.SetField("i", properties);
  req.body.Assign(body);
  return req;
}

class BrokerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namesrv::NameServerOptions no;
    no.server.port = 0;
    ns_ = std::make_unique<namesrv::NameServer>(no);
    ASSERT_TRUE(ns_->Start().ok());
    ns_addr_ = "127.0.0.1:" + std::to_string(ns_->port());
    StartBroker();
  }
  void StartBroker(bool sync_flush = false, int in_memory_ratio = 40) {
    broker::BrokerOptions bo;
    bo.store.access_message_in_memory_max_ratio = in_memory_ratio;
    if (sync_flush) {
      bo.store.flush_disk_type = FlushDiskType::kSyncFlush;
      // The group commit never wakes by itself within a test: a send that waits for its
      // flush is answered only if it woke it.
      bo.store.group_commit_idle_ms = 60000;
    }
    bo.server.port = 0;
    bo.namesrv_addrs = {ns_addr_};
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    broker_ = std::make_unique<broker::Broker>(bo);
    Status s = broker_->Start();
    ASSERT_TRUE(s.ok()) << s.message();
    broker_addr_ = broker_->address();
    ASSERT_TRUE(client_.Connect(broker_addr_).ok());
  }
  void TearDown() override {
    client_.Close();
    if (broker_) {
      EXPECT_TRUE(broker_->Stop().ok());
    }
    ns_->Stop();
  }

  RemotingCommand Call(RemotingCommand req, int64_t timeout = 5000) {
    auto r = client_.Invoke(std::move(req), timeout);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
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
    EXPECT_EQ(Call(std::move(req)).code, 0);
  }

  RemotingCommand Send(const std::string& topic, int queue, const std::string& body,
                       const std::string& tags, const std::string& keys) {
    return Call(MakeSend(RequestCode::kSendMessageV2, topic, queue, body,
                         std::string("TAGS\x01") + tags + "\x02KEYS\x01" + keys + "\x02"));
  }

  RemotingCommand Pull(const std::string& topic, int queue, int64_t offset, const std::string& sub,
                       int sys_flag, int64_t suspend = 0, net::RemotingClient* c = nullptr) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
    req.SetField("consumerGroup", "G");
    req.SetField("topic", topic);
    req.SetIntField("queueId", queue);
    req.SetIntField("queueOffset", offset);
    req.SetIntField("maxMsgNums", 32);
    req.SetIntField("sysFlag", sys_flag);
    req.SetIntField("commitOffset", 0);
    req.SetIntField("suspendTimeoutMillis", suspend);
    req.SetField("subscription", sub);
    req.SetIntField("subVersion", 1);
    if (c) {
      auto r = c->Invoke(std::move(req), 10000);
      EXPECT_TRUE(r.ok());
      return r.ok() ? std::move(r).value() : RemotingCommand{};
    }
    return Call(std::move(req));
  }

  // Sends return once appended; consume queues are built by the store's dispatcher
  // thread just after. Waits (bounded) until `n` messages are visible.
  void WaitVisible(const std::string& topic, int queue, int64_t n) {
    for (int i = 0; i < 200; ++i) {
      RemotingCommand q = protocol::MakeRequest(RequestCode::kGetMaxOffset);
      q.SetField("topic", topic);
      q.SetIntField("queueId", queue);
      if (Call(std::move(q)).FindField("offset").value_or("") == std::to_string(n)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "messages not visible: " << topic << "/" << queue;
  }

  testing::TempDir dir_;
  std::unique_ptr<namesrv::NameServer> ns_;
  std::unique_ptr<broker::Broker> broker_;
  std::string ns_addr_, broker_addr_;
  net::RemotingClient client_;
};

TEST_F(BrokerIntegrationTest, ProduceConsumeOffsetsAndLookup) {
  CreateTopic("ItTopic", 2);
  // The route appears at the name server (registration after the topic change).
  net::RemotingClient ns;
  ASSERT_TRUE(ns.Connect(ns_addr_).ok());
  bool routed = false;
  for (int i = 0; i < 50 && !routed; ++i) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetRouteinfoByTopic);
    q.SetField("topic", "ItTopic");
    auto r = ns.Invoke(std::move(q));
    ASSERT_TRUE(r.ok());
    if (r->code == 0) {
      routed = true;
      EXPECT_NE(r->body.owned_text().find("\"brokerAddrs\":{\"0\":\"" + broker_addr_ + "\"}"),
                std::string::npos)
          << r->body.owned_text();
    } else {
      EXPECT_EQ(r->code, 17);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ASSERT_TRUE(routed);
  {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetRouteinfoByTopic);
    q.SetField("topic", "NoSuchTopic");
    auto r = ns.Invoke(std::move(q));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->code, 17);
  }

  // Produce 20 messages to queue 0, alternating tags.
  for (int i = 0; i < 20; ++i) {
    RemotingCommand r = Send("ItTopic", 0, "body-" + std::to_string(i), i % 2 ? "TagB" : "TagA",
                             "k" + std::to_string(i) + " idx");
    ASSERT_EQ(r.code, 0) << r.remark.value_or("");
    EXPECT_EQ(r.FindField("queueId").value_or(""), "0");
    EXPECT_EQ(r.FindField("queueOffset").value_or(""), std::to_string(i));
    EXPECT_EQ(r.FindField("msgId").value_or("").size(), 32u);
  }
  WaitVisible("ItTopic", 0, 20);
  // Unknown topic without auto-create template match → TOPIC_NOT_EXIST; bad name → 29.
  {
    RemotingCommand r = Send("bad topic", 0, "x", "TagA", "k");
    EXPECT_EQ(r.code, 29);
  }

  // Heartbeat, consumer list.
  {
    RemotingCommand hb = protocol::MakeRequest(RequestCode::kHeartBeat);
    hb.body.Assign(R"({"clientID":"127.0.0.1@it","consumerDataSet":[{"groupName":"G",)"
                   R"("consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",)"
                   R"("consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","subscriptionDataSet":[)"
                   R"({"topic":"ItTopic","subString":"TagA","subVersion":1}],"unitMode":false}],)"
                   R"("producerDataSet":[]})");
    EXPECT_EQ(Call(std::move(hb)).code, 0);
    RemotingCommand cl = protocol::MakeRequest(RequestCode::kGetConsumerListByGroup);
    cl.SetField("consumerGroup", "G");
    RemotingCommand r = Call(std::move(cl));
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.body.owned_text(), R"({"consumerIdList":["127.0.0.1@it"]})");
    // The membership change was announced to this connection (oneway, code 40).
    auto notes = client_.TakeServerRequests();
    ASSERT_FALSE(notes.empty());
    EXPECT_EQ(notes[0].code, 40);
    EXPECT_TRUE(notes[0].IsOneway());
  }

  // Pull with a tag filter (SUBSCRIPTION flag) and with the heartbeat's subscription.
  for (int flag : {4 | 2, 2}) {
    RemotingCommand r = Pull("ItTopic", 0, 0, "TagA", flag);
    ASSERT_EQ(r.code, 0) << r.remark.value_or("");
    EXPECT_EQ(r.FindField("nextBeginOffset").value_or(""), "20");
    EXPECT_EQ(r.FindField("minOffset").value_or(""), "0");
    EXPECT_EQ(r.FindField("maxOffset").value_or(""), "20");
    auto msgs = DecodeBody(r);
    ASSERT_EQ(msgs.size(), 10u);
    for (size_t i = 0; i < msgs.size(); ++i) {
      EXPECT_EQ(msgs[i].tags, "TagA");
      EXPECT_EQ(msgs[i].body, "body-" + std::to_string(2 * i));
      EXPECT_EQ(msgs[i].keys, "k" + std::to_string(2 * i) + " idx");
      EXPECT_EQ(msgs[i].queue_offset, static_cast<int64_t>(2 * i));
    }
  }
  // Offset out of range → 21; empty queue at 0 → 19.
  EXPECT_EQ(Pull("ItTopic", 0, 99, "*", 4).code, 21);
  EXPECT_EQ(Pull("ItTopic", 1, 0, "*", 4).code, 19);

  // Consumer offsets.
  {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
    q.SetField("consumerGroup", "G");
    q.SetField("topic", "ItTopic");
    q.SetIntField("queueId", 1);
    // Nothing committed, empty queue: 0, as the Java broker answers (a new group starts
    // at the beginning; see QueryOffsetOfANewGroupFollowsTheInMemoryRule).
    RemotingCommand none = Call(std::move(q));
    EXPECT_EQ(none.code, 0);
    EXPECT_EQ(none.FindField("offset").value_or(""), "0");
    RemotingCommand u = protocol::MakeRequest(RequestCode::kUpdateConsumerOffset);
    u.SetField("consumerGroup", "G");
    u.SetField("topic", "ItTopic");
    u.SetIntField("queueId", 0);
    u.SetIntField("commitOffset", 12);
    EXPECT_EQ(Call(std::move(u)).code, 0);
    RemotingCommand q2 = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
    q2.SetField("consumerGroup", "G");
    q2.SetField("topic", "ItTopic");
    q2.SetIntField("queueId", 0);
    RemotingCommand r = Call(std::move(q2));
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.FindField("offset").value_or(""), "12");
  }

  // Queue metadata.
  {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetMaxOffset);
    q.SetField("topic", "ItTopic");
    q.SetIntField("queueId", 0);
    EXPECT_EQ(Call(std::move(q)).FindField("offset").value_or(""), "20");
    RemotingCommand m = protocol::MakeRequest(RequestCode::kGetMinOffset);
    m.SetField("topic", "ItTopic");
    m.SetIntField("queueId", 0);
    EXPECT_EQ(Call(std::move(m)).FindField("offset").value_or(""), "0");
    RemotingCommand s = protocol::MakeRequest(RequestCode::kSearchOffsetByTimestamp);
    s.SetField("topic", "ItTopic");
    s.SetIntField("queueId", 0);
    s.SetIntField("timestamp", 0);
    EXPECT_EQ(Call(std::move(s)).FindField("offset").value_or(""), "0");
    // Past the newest message: 4.9.8 answers the last unit (19), not the max offset; 5.x's
    // boundaryType LOWER the first offset stored at or after it (none: 20), UPPER the last
    // stored at or before it (19). Java's client sends the enum name in capitals.
    auto search_future = [this](const char* boundary) {
      RemotingCommand f = protocol::MakeRequest(RequestCode::kSearchOffsetByTimestamp);
      f.SetField("topic", "ItTopic");
      f.SetIntField("queueId", 0);
      f.SetIntField("timestamp", INT64_MAX - 1);
      if (boundary) f.SetField("boundaryType", boundary);
      return std::string(Call(std::move(f)).FindField("offset").value_or(""));
    };
    EXPECT_EQ(search_future(nullptr), "19");
    EXPECT_EQ(search_future("LOWER"), "20");
    EXPECT_EQ(search_future("UPPER"), "19");
  }

  // Find by key (the index is built by the dispatcher: allow it a moment).
  {
    bool found = false;
    for (int i = 0; i < 50 && !found; ++i) {
      RemotingCommand q = protocol::MakeRequest(RequestCode::kQueryMessage);
      q.SetField("topic", "ItTopic");
      q.SetField("key", "k7");
      q.SetIntField("maxNum", 32);
      q.SetIntField("beginTimestamp", 0);
      q.SetIntField("endTimestamp", INT64_MAX);
      RemotingCommand r = Call(std::move(q));
      if (r.code == 0) {
        auto msgs = DecodeBody(r);
        ASSERT_EQ(msgs.size(), 1u);
        EXPECT_EQ(msgs[0].body, "body-7");
        found = true;
      } else {
        EXPECT_EQ(r.code, 22);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    EXPECT_TRUE(found);
  }

  // Missing header field → SYSTEM_ERROR naming it; unknown code → 3.
  {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetMaxOffset);
    q.SetField("topic", "ItTopic");
    RemotingCommand r = Call(std::move(q));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.remark.value_or("").find("queueId"), std::string::npos);
    EXPECT_EQ(Call(protocol::MakeRequest(7777)).code, 3);
  }
}

TEST_F(BrokerIntegrationTest, LongPollIsWokenByArrivalAndDoesNotBlockConnection) {
  CreateTopic("PollTopic", 1);
  net::RemotingClient puller;
  ASSERT_TRUE(puller.Connect(broker_addr_).ok());
  const int64_t t0 = net::SteadyNowMillis();
  auto held = std::async(std::launch::async,
                         [&] { return Pull("PollTopic", 0, 0, "TagA", 4 | 2, 8000, &puller); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // A non-matching tag does not satisfy it (it stays held); the first matching one does.
  ASSERT_EQ(Send("PollTopic", 0, "decoy", "TagB", "kd").code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(Send("PollTopic", 0, "late", "TagA", "kl").code, 0);
  RemotingCommand r = held.get();
  EXPECT_EQ(r.code, 0);
  EXPECT_LT(net::SteadyNowMillis() - t0, 5000);
  auto msgs = DecodeBody(r);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0].body, "late");
  EXPECT_EQ(r.FindField("nextBeginOffset").value_or(""), "2");

  // A held pull times out with PULL_NOT_FOUND, and meanwhile the same connection serves.
  RemotingCommand pull = protocol::MakeRequest(RequestCode::kPullMessage);
  pull.opaque = 5000;
  pull.SetField("consumerGroup", "G");
  pull.SetField("topic", "PollTopic");
  pull.SetIntField("queueId", 0);
  pull.SetIntField("queueOffset", 2);
  pull.SetIntField("maxMsgNums", 32);
  pull.SetIntField("sysFlag", 6);
  pull.SetIntField("commitOffset", 0);
  pull.SetIntField("suspendTimeoutMillis", 600);
  pull.SetField("subscription", "*");
  pull.SetIntField("subVersion", 1);
  ASSERT_TRUE(puller.SendRaw(protocol::EncodeFrame(pull)->Flatten()).ok());
  RemotingCommand q = protocol::MakeRequest(RequestCode::kGetMaxOffset);
  q.SetField("topic", "PollTopic");
  q.SetIntField("queueId", 0);
  const int64_t t1 = net::SteadyNowMillis();
  auto fast = puller.Invoke(std::move(q), 3000);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(fast->FindField("offset").value_or(""), "2");
  EXPECT_LT(net::SteadyNowMillis() - t1, 400);
}

TEST_F(BrokerIntegrationTest, MalformedFramesCloseOnlyTheirConnection) {
  CreateTopic("RobustTopic", 1);
  for (std::vector<uint8_t> bytes :
       {std::vector<uint8_t>{0x7F, 0xFF, 0xFF, 0xFF},
        std::vector<uint8_t>{0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, '{', '"', 'a', 0}}) {
    net::RemotingClient bad;
    ASSERT_TRUE(bad.Connect(broker_addr_).ok());
    ASSERT_TRUE(bad.SendRaw(bytes).ok());
    EXPECT_TRUE(bad.WaitPeerClosed(3000));
  }
  EXPECT_EQ(Send("RobustTopic", 0, "still", "TagA", "k").code, 0);
}

TEST_F(BrokerIntegrationTest, OffsetsSurviveRestart) {
  CreateTopic("RestartTopic", 1);
  ASSERT_EQ(Send("RestartTopic", 0, "m", "TagA", "k").code, 0);
  RemotingCommand u = protocol::MakeRequest(RequestCode::kUpdateConsumerOffset);
  u.SetField("consumerGroup", "G");
  u.SetField("topic", "RestartTopic");
  u.SetIntField("queueId", 0);
  u.SetIntField("commitOffset", 1);
  EXPECT_EQ(Call(std::move(u)).code, 0);
  client_.Close();
  ASSERT_TRUE(broker_->Stop().ok());
  broker_.reset();
  StartBroker();
  RemotingCommand q = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
  q.SetField("consumerGroup", "G");
  q.SetField("topic", "RestartTopic");
  q.SetIntField("queueId", 0);
  RemotingCommand r = Call(std::move(q));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.FindField("offset").value_or(""), "1");
}

void PutBe32(std::string& out, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

TEST_F(BrokerIntegrationTest, BatchSendStoresConsecutiveRecords) {
  CreateTopic("BatchTopic", 1);
  std::string body;
  for (int i = 0; i < 3; ++i) {
    const std::string b = "batch-" + std::to_string(i);
    const std::string p = std::string(
                              "TAGS\x01TagA\x02KEYS\x01"
                              "bk") +
                          std::to_string(i) + "\x02";
    PutBe32(body, static_cast<int32_t>(20 + b.size() + 2 + p.size()));
    PutBe32(body, 0);
    PutBe32(body, 0);
    PutBe32(body, 0);
    PutBe32(body, static_cast<int32_t>(b.size()));
    body += b;
    body.push_back(static_cast<char>(p.size() >> 8));
    body.push_back(static_cast<char>(p.size()));
    body += p;
  }
  RemotingCommand req = MakeSend(RequestCode::kSendBatchMessage, "BatchTopic", 0, body, "");
  req.SetBoolField("m", true);
  RemotingCommand r = Call(std::move(req));
  ASSERT_EQ(r.code, 0) << r.remark.value_or("");
  EXPECT_EQ(r.FindField("queueOffset").value_or(""), "0");
  const std::string ids(r.FindField("msgId").value_or(""));
  EXPECT_EQ(ids.size(), 32u * 3 + 2) << ids;
  WaitVisible("BatchTopic", 0, 3);
  RemotingCommand pulled = Pull("BatchTopic", 0, 0, "*", 4);
  ASSERT_EQ(pulled.code, 0);
  auto msgs = DecodeBody(pulled);
  ASSERT_EQ(msgs.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(msgs[i].body, "batch-" + std::to_string(i));
    EXPECT_EQ(msgs[i].keys, "bk" + std::to_string(i));
    EXPECT_EQ(msgs[i].queue_offset, i);
  }
  // VIEW_MESSAGE_BY_ID: the second id's physical offset is its last 16 hex digits.
  RemotingCommand view = protocol::MakeRequest(RequestCode::kViewMessageById);
  view.SetIntField("offset", std::stoll(ids.substr(33 + 16, 16), nullptr, 16));
  RemotingCommand viewed = Call(std::move(view));
  ASSERT_EQ(viewed.code, 0);
  auto one = DecodeBody(viewed);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].body, "batch-1");
}

TEST_F(BrokerIntegrationTest, GroupMembershipChangesAreNotified) {
  CreateTopic("GroupTopic", 1);
  auto heartbeat = [](const std::string& id) {
    RemotingCommand hb = protocol::MakeRequest(RequestCode::kHeartBeat);
    hb.body.Assign(R"({"clientID":")" + id +
                   R"(","consumerDataSet":[{"groupName":"MG","consumeType":"CONSUME_PASSIVELY",)"
                   R"("messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",)"
                   R"("subscriptionDataSet":[{"topic":"GroupTopic","subString":"*",)"
                   R"("subVersion":1}],"unitMode":false}],"producerDataSet":[]})");
    return hb;
  };
  auto list = [this]() {
    RemotingCommand cl = protocol::MakeRequest(RequestCode::kGetConsumerListByGroup);
    cl.SetField("consumerGroup", "MG");
    return Call(std::move(cl));
  };
  EXPECT_EQ(Call(heartbeat("c1")).code, 0);
  client_.TakeServerRequests();
  {
    net::RemotingClient second;
    ASSERT_TRUE(second.Connect(broker_addr_).ok());
    auto r = second.Invoke(heartbeat("c2"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->code, 0);
    auto note = client_.WaitServerRequest(3000);
    ASSERT_TRUE(note.ok());
    EXPECT_EQ(note->code, 40);
    EXPECT_EQ(note->FindField("consumerGroup").value_or(""), "MG");
    EXPECT_EQ(list().body.owned_text(), R"({"consumerIdList":["c1","c2"]})");
  }  // second connection closes: c2 is forgotten and c1 told
  auto note = client_.WaitServerRequest(3000);
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(note->code, 40);
  EXPECT_EQ(list().body.owned_text(), R"({"consumerIdList":["c1"]})");
  // The retry topic was created for the group.
  EXPECT_TRUE(broker_->topics().Find("%RETRY%MG").has_value());
  RemotingCommand un = protocol::MakeRequest(RequestCode::kUnregisterClient);
  un.SetField("clientID", "c1");
  un.SetField("consumerGroup", "MG");
  EXPECT_EQ(Call(std::move(un)).code, 0);
  RemotingCommand empty = list();
  EXPECT_EQ(empty.code, 1);
  EXPECT_EQ(empty.remark.value_or(""), "no consumer for this group, MG");
}

TEST_F(BrokerIntegrationTest, SyncFlushSendsAreAnsweredOnceDurable) {
  client_.Close();
  ASSERT_TRUE(broker_->Stop().ok());
  broker_.reset();
  StartBroker(/*sync_flush=*/true);
  CreateTopic("SyncTopic", 1);
  for (int i = 0; i < 5; ++i) {
    RemotingCommand r = Send("SyncTopic", 0, "s" + std::to_string(i), "TagA", "sk");
    ASSERT_EQ(r.code, 0) << r.remark.value_or("");
    EXPECT_EQ(r.FindField("queueOffset").value_or(""), std::to_string(i));
  }
  WaitVisible("SyncTopic", 0, 5);
  // Many producers at once, more than the broker has threads: each is answered (from the
  // thread that finished the group commit covering it), every offset exactly once.
  constexpr int kProducers = 12, kPer = 15;
  std::vector<std::thread> producers;
  std::mutex mu;
  std::set<std::string> offsets;
  std::atomic<int> failures{0};
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      net::RemotingClient c;
      if (!c.Connect(broker_addr_).ok()) {
        failures++;
        return;
      }
      for (int i = 0; i < kPer; ++i) {
        RemotingCommand req =
            MakeSend(RequestCode::kSendMessageV2, "SyncTopic", 0,
                     "p" + std::to_string(p) + "-" + std::to_string(i),
                     std::string("TAGS\x01T\x02KEYS\x01k") + std::to_string(p) + "\x02");
        auto r = c.Invoke(std::move(req), 10000);
        if (!r.ok() || r->code != 0) {
          failures++;
          continue;
        }
        std::lock_guard<std::mutex> l(mu);
        offsets.insert(std::string(r->FindField("queueOffset").value_or("")));
      }
    });
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(offsets.size(), static_cast<size_t>(kProducers * kPer));
  WaitVisible("SyncTopic", 0, 5 + kProducers * kPer);
}

// Two push consumers of one group: each client stamps its own subVersion (its start time)
// into its heartbeat and every pull. The group's subscription holds the highest version
// seen, so both members are served (the old broker compared each pull with the last
// member it found, answered the other SUBSCRIPTION_NOT_LATEST forever and starved it).
TEST_F(BrokerIntegrationTest, TwoConsumersOfOneGroupWithDifferentSubVersionsBothPull) {
  CreateTopic("SubTopic", 2);
  for (int q = 0; q < 2; ++q) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Send("SubTopic", q, "m" + std::to_string(q) + std::to_string(i), "t", "k").code, 0);
    }
  }
  WaitVisible("SubTopic", 0, 3);
  WaitVisible("SubTopic", 1, 3);
  auto heartbeat = [](const std::string& id, int64_t version) {
    RemotingCommand hb = protocol::MakeRequest(RequestCode::kHeartBeat);
    hb.body.Assign(R"({"clientID":")" + id +
                   R"(","consumerDataSet":[{"groupName":"SG","consumeType":"CONSUME_PASSIVELY",)"
                   R"("messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",)"
                   R"("subscriptionDataSet":[{"topic":"SubTopic","subString":"*","subVersion":)" +
                   std::to_string(version) + R"(}],"unitMode":false}],"producerDataSet":[]})");
    return hb;
  };
  auto pull = [](int queue, int64_t version) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
    req.SetField("consumerGroup", "SG");
    req.SetField("topic", "SubTopic");
    req.SetIntField("queueId", queue);
    req.SetIntField("queueOffset", 0);
    req.SetIntField("maxMsgNums", 32);
    req.SetIntField("sysFlag", 0);  // no subscription in the pull: the heartbeat's is used
    req.SetIntField("commitOffset", 0);
    req.SetIntField("suspendTimeoutMillis", 0);
    req.SetIntField("subVersion", version);
    return req;
  };
  net::RemotingClient newer;
  ASSERT_TRUE(newer.Connect(broker_addr_).ok());
  EXPECT_EQ(Call(heartbeat("older", 1700000000100)).code, 0);
  auto hb = newer.Invoke(heartbeat("newer", 1700000000200));
  ASSERT_TRUE(hb.ok());
  EXPECT_EQ(hb->code, 0);
  // Whatever order the heartbeats came in, both members read their queue, repeatedly.
  for (int round = 0; round < 3; ++round) {
    RemotingCommand a = Call(pull(0, 1700000000100));
    EXPECT_EQ(a.code, 0) << a.remark.value_or("");
    EXPECT_EQ(DecodeBody(a).size(), 3u);
    auto b = newer.Invoke(pull(1, 1700000000200));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->code, 0) << b->remark.value_or("");
    EXPECT_EQ(DecodeBody(*b).size(), 3u);
    // The older member heartbeats again: the group keeps the newer version.
    EXPECT_EQ(Call(heartbeat("older", 1700000000100)).code, 0);
  }
  // A pull newer than every heartbeat the broker has seen waits for that heartbeat.
  RemotingCommand ahead = Call(pull(0, 1700000000300));
  EXPECT_EQ(ahead.code, 25);
  EXPECT_EQ(ahead.remark.value_or(""), "the consumer's subscription not latest");
}

// QUERY_CONSUMER_OFFSET for a queue the group never committed (ConsumerManageProcessor):
// 0 when the queue starts at 0 and its first message is in memory or the queue is empty
// (a new group starts at the beginning), QUERY_NOT_FOUND otherwise.
TEST_F(BrokerIntegrationTest, QueryOffsetOfANewGroupFollowsTheInMemoryRule) {
  CreateTopic("NewGroupTopic", 2);
  auto query = [this](int queue) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kQueryConsumerOffset);
    q.SetField("consumerGroup", "NG");
    q.SetField("topic", "NewGroupTopic");
    q.SetIntField("queueId", queue);
    return Call(std::move(q));
  };
  RemotingCommand empty = query(0);
  EXPECT_EQ(empty.code, 0) << empty.remark.value_or("");
  EXPECT_EQ(empty.FindField("offset").value_or(""), "0");
  EXPECT_EQ(Send("NewGroupTopic", 1, "x", "t", "k").code, 0);
  WaitVisible("NewGroupTopic", 1, 1);
  RemotingCommand in_memory = query(1);
  EXPECT_EQ(in_memory.code, 0);
  EXPECT_EQ(in_memory.FindField("offset").value_or(""), "0");
  // With no in-memory window (accessMessageInMemoryMaxRatio=0) every message is "on
  // disk": a new CONSUME_FROM_LAST_OFFSET group must not read the backlog from 0.
  client_.Close();
  ASSERT_TRUE(broker_->Stop().ok());
  StartBroker(false, /*in_memory_ratio=*/0);
  RemotingCommand on_disk = query(1);
  EXPECT_EQ(on_disk.code, 22);
  EXPECT_EQ(query(0).code, 0);  // still empty: 0
}

// Timer messages through the real broker: the send answers a recall handle, the timer is
// delivered to its queue after its time, and RECALL_MESSAGE cancels a pending one.
TEST_F(BrokerIntegrationTest, TimerMessageDeliveryAndRecallOverRemoting) {
  CreateTopic("TimerT", 1);
  RemotingCommand soon = Call(MakeSend(RequestCode::kSendMessageV2, "TimerT", 0, "soon",
                                       std::string("TIMER_DELAY_MS\x01") + "300\x02"));
  ASSERT_EQ(soon.code, 0) << soon.remark.value_or("");
  EXPECT_TRUE(soon.FindField("recallHandle").has_value());
  RemotingCommand later = Call(MakeSend(RequestCode::kSendMessageV2, "TimerT", 0, "later",
                                        std::string("TIMER_DELAY_SEC\x01") + "60\x02"));
  ASSERT_EQ(later.code, 0) << later.remark.value_or("");
  const std::string handle(later.FindField("recallHandle").value_or(""));
  ASSERT_FALSE(handle.empty());

  RemotingCommand bad = protocol::MakeRequest(RequestCode::kRecallMessage);
  bad.SetField("topic", "TimerT");
  bad.SetField("recallHandle", "not-a-handle");
  RemotingCommand bad_resp = Call(std::move(bad));
  EXPECT_EQ(bad_resp.code, 604);  // ILLEGAL_OPERATION
  EXPECT_EQ(bad_resp.remark.value_or(""), "recall handle is invalid");
  RemotingCommand recall = protocol::MakeRequest(RequestCode::kRecallMessage);
  recall.SetField("producerGroup", "PG");
  recall.SetField("topic", "TimerT");
  recall.SetField("recallHandle", handle);
  RemotingCommand recall_resp = Call(std::move(recall));
  EXPECT_EQ(recall_resp.code, 0) << recall_resp.remark.value_or("");
  EXPECT_TRUE(recall_resp.FindField("msgId").has_value());

  WaitVisible("TimerT", 0, 1);  // "soon" arrives after its 300 ms
  RemotingCommand bad_value = Call(MakeSend(RequestCode::kSendMessageV2, "TimerT", 0, "x",
                                            std::string("TIMER_DELAY_SEC\x01") + "-1\x02"));
  EXPECT_EQ(bad_value.code, 13);  // MESSAGE_ILLEGAL
  EXPECT_NE(bad_value.remark.value_or("").find("TIMER_DELAY_SEC"), std::string::npos);
}

}  // namespace
}  // namespace rocketstore
