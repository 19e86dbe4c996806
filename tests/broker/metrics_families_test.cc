// Every per-scrape family of /metrics against a Broker in process, on a FakeClock (so ages
// are exact), after a producer and a consumer heartbeat, sends, a committed, a rolled-back
// and a pending transaction, timer messages (one delivered, one pending), a delay-level
// message and two send-backs (one to retry, one to the DLQ): each family's series — label
// sets and values — must be exactly the expected ones.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "base/clock.h"
#include "broker/broker.h"
#include "io/posix_file_system.h"
#include "net/remoting_client.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"
#include "store/format/message_id.h"
#include "testing/temp_dir.h"

namespace rocketstore::broker {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;

constexpr char kCommon[] = "cluster=\"DefaultCluster\",node_type=\"broker\",node_id=\"broker-a\"";

// family -> { "{labels}" (without the common ones) -> value } for one scrape.
using Series = std::map<std::string, std::string>;
Series Family(const std::string& text, const std::string& name) {
  Series out;
  const std::string common = std::string("{") + kCommon;
  size_t at = 0;
  while ((at = text.find(name + "{", at)) != std::string::npos) {
    if (at > 0 && text[at - 1] != '\n') {
      at += name.size();
      continue;
    }
    const size_t eol = text.find('\n', at);
    const std::string line = text.substr(at, eol - at);
    at = eol;
    const size_t close = line.rfind("} ");
    std::string labels = line.substr(name.size(), close + 1 - name.size());
    if (labels.compare(0, common.size(), common) != 0) {
      ADD_FAILURE() << "no common labels: " << line;
      continue;
    }
    labels = "{" + labels.substr(common.size() + (labels[common.size()] == ',' ? 1 : 0));
    out[labels] = line.substr(close + 2);
  }
  return out;
}

bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class MetricsFamiliesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerOptions bo;
    bo.server.port = 0;
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 1 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    bo.metrics_port = -1;
    bo.register_interval_ms = 3600000;
    bo.transaction_timeout_ms = 3600000;  // no check-back while the test runs
    broker_ = std::make_unique<Broker>(bo, PosixFileSystem::Default(), clock_);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(producer_.Connect(broker_->address()).ok());
    ASSERT_TRUE(consumer_.Connect(broker_->address()).ok());
  }
  void TearDown() override {
    producer_.Close();
    consumer_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
  }

  RemotingCommand Call(net::RemotingClient& c, RemotingCommand req) {
    auto r = c.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  // SEND_MESSAGE_V2 to queue 0 of `topic`; returns the commit-log offset (the msgId's).
  int64_t Send(const std::string& topic, const std::string& props, int32_t sys_flag = 0) {
    protocol::SendMessageRequestHeader h;
    h.producer_group = "PG";
    h.topic = topic;
    h.default_topic = "TBW102";
    h.default_topic_queue_nums = 4;
    h.queue_id = 0;
    h.sys_flag = sys_flag;
    h.born_timestamp = clock_.NowMillis();
    h.properties = props;
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    h.EncodeTo(req, /*v2=*/true);
    req.body.Assign(std::string(100, 'x'));
    RemotingCommand r = Call(producer_, std::move(req));
    EXPECT_EQ(r.code, 0) << r.remark.value_or("");
    auto id = format::DecodeOffsetMsgId(r.FindField("msgId").value_or(""));
    EXPECT_TRUE(id.ok());
    last_queue_offset_ = std::stoll(std::string(r.FindField("queueOffset").value_or("-1")));
    last_recall_handle_ = std::string(r.FindField("recallHandle").value_or(""));
    return id.ok() ? id->physical_offset : -1;
  }
  void EndTransaction(int64_t commit_log_offset, int64_t queue_offset, int32_t how) {
    protocol::EndTransactionRequestHeader h;
    h.producer_group = "PG";
    h.tran_state_table_offset = queue_offset;
    h.commit_log_offset = commit_log_offset;
    h.commit_or_rollback = how;
    h.msg_id = "m" + std::to_string(queue_offset);
    RemotingCommand req = protocol::MakeRequest(RequestCode::kEndTransaction);
    h.EncodeTo(req);
    ASSERT_TRUE(producer_.InvokeOneway(std::move(req)).ok());
  }
  RemotingCommand SendBack(int64_t offset, int32_t delay_level) {
    protocol::ConsumerSendMsgBackRequestHeader h;
    h.offset = offset;
    h.group = "CG";
    h.delay_level = delay_level;
    h.origin_topic = "MT";
    h.max_reconsume_times = 16;
    RemotingCommand req = protocol::MakeRequest(RequestCode::kConsumerSendMsgBack);
    h.EncodeTo(req);
    return Call(consumer_, std::move(req));
  }
  std::string Scrape() {
    httplib::Client http("127.0.0.1", broker_->metrics_port());
    auto r = http.Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? r->body : std::string();
  }

  FakeClock clock_;
  testing::TempDir dir_;
  std::unique_ptr<Broker> broker_;
  net::RemotingClient producer_, consumer_;
  int64_t last_queue_offset_ = -1;
  std::string last_recall_handle_;
};

TEST_F(MetricsFamiliesTest, EveryPerScrapeFamilyHasExactlyTheExpectedSeries) {
  const int64_t t0 = clock_.NowMillis();
  // Heartbeats: a Java producer of group PG, a C++ consumer of group CG.
  RemotingCommand phb = protocol::MakeRequest(RequestCode::kHeartBeat);
  phb.language = protocol::LanguageCode::kJava;
  phb.body.Assign(R"({"clientID":"127.0.0.1@p","consumerDataSet":[],)"
                  R"("producerDataSet":[{"groupName":"PG"}]})");
  ASSERT_EQ(Call(producer_, std::move(phb)).code, 0);
  RemotingCommand chb = protocol::MakeRequest(RequestCode::kHeartBeat);
  chb.body.Assign(R"({"clientID":"127.0.0.1@c","consumerDataSet":[{"groupName":"CG",)"
                  R"("consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",)"
                  R"("consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","subscriptionDataSet":[)"
                  R"({"topic":"MT","subString":"*","subVersion":1}],"unitMode":false}],)"
                  R"("producerDataSet":[]})");
  ASSERT_EQ(Call(consumer_, std::move(chb)).code, 0);

  // Three plain messages; CG commits one of them.
  int64_t mt[3];
  for (int64_t& off : mt) off = Send("MT", "TAGS\x01t\x02");
  // Transactions: one committed, one rolled back, one left pending.
  const std::string half = "TRAN_MSG\x01true\x02PGROUP\x01PG\x02";
  int64_t tx_off[3], tx_qoff[3];
  for (int i = 0; i < 3; ++i) {
    tx_off[i] = Send("TX", half, /*TRANSACTION_PREPARED_TYPE*/ 0x4);
    tx_qoff[i] = last_queue_offset_;
  }
  EndTransaction(tx_off[0], tx_qoff[0], protocol::kTransactionCommitType);
  EndTransaction(tx_off[1], tx_qoff[1], protocol::kTransactionRollbackType);
  ASSERT_TRUE(WaitFor([&] {
    const auto c = broker_->transactions()->counters();
    return c.committed == 1 && c.rolled_back == 1;
  }));
  // The third half is learned from the half queue once dispatched (the service's step).
  ASSERT_TRUE(WaitFor([&] { return broker_->transactions()->Pending().size() == 1; }));
  // Timers: one due in 500 ms, one in 800 ms recalled at once, one in 60 s. A delay-level
  // message (level 2, 5 s).
  Send("TM", std::string("TIMER_DELAY_MS\x01") + "500\x02");
  Send("TM", std::string("TIMER_DELAY_MS\x01") + "800\x02");
  ASSERT_FALSE(last_recall_handle_.empty());
  RemotingCommand recall = protocol::MakeRequest(RequestCode::kRecallMessage);
  recall.SetField("producerGroup", "PG");
  recall.SetField("topic", "TM");
  recall.SetField("recallHandle", last_recall_handle_);
  ASSERT_EQ(Call(producer_, std::move(recall)).code, 0);
  Send("TM",
       "TIMER_DELAY_SEC\x01"
       "60\x02");
  Send("DL",
       "DELAY\x01"
       "2\x02");
  // Send-backs of CG: MT's first message to retry (level 3 + 0), its second to the DLQ.
  ASSERT_EQ(SendBack(mt[0], 0).code, 0);
  ASSERT_EQ(SendBack(mt[1], -1).code, 0);
  broker_->offsets().Commit("CG", "MT", 0, 1);

  clock_.AdvanceMillis(2000);  // the 500 ms timer falls due; the rest stay pending
  // Wait for the due timer's delivery and the recall, then for dispatch to catch up (last:
  // the delivery is a put), so that nothing changes between here and the scrape.
  ASSERT_TRUE(WaitFor([&] {
    const std::string m = broker_->RenderMetrics();
    return Family(m, "rocketmq_timer_dequeue_total") == Series{{"{topic=\"TM\"}", "1"}} &&
           Family(m, "rocketstore_timer_recalled_total") == Series{{"{}", "1"}} &&
           Family(m, "rocketmq_timer_dequeue_latency") == Series{{"{}", "0"}} &&
           broker_->store().DispatchBehindBytes() == 0;
  }));
  const int64_t now = clock_.NowMillis();
  ASSERT_EQ(now - t0, 2000);
  const std::string text = Scrape();

  EXPECT_EQ(Family(text, "rocketmq_producer_connections"),
            (Series{{"{language=\"java\",protocol_type=\"remoting\"}", "1"}}))
      << text;
  EXPECT_EQ(Family(text, "rocketmq_consumer_connections"),
            (Series{{"{consumer_group=\"CG\",language=\"cpp\",protocol_type=\"remoting\"}", "1"}}));
  // MT queue 0 holds 3, CG committed 1: the oldest uncommitted was stored at t0.
  const std::string mt_cg = "{topic=\"MT\",consumer_group=\"CG\"}";
  EXPECT_EQ(Family(text, "rocketmq_consumer_lag_messages"), (Series{{mt_cg, "2"}}));
  EXPECT_EQ(Family(text, "rocketmq_consumer_lag_latency"), (Series{{mt_cg, "2000"}}));
  // CG never pulled: its pull offset is the committed one, whose message is 2 s old.
  EXPECT_EQ(Family(text, "rocketmq_consumer_queueing_latency"), (Series{{mt_cg, "2000"}}));
  EXPECT_EQ(Family(text, "rocketmq_broker_permission"), (Series{{"{}", "6"}}));
  const std::string local = "{storage_type=\"local\",storage_medium=\"disk\"}";
  EXPECT_EQ(Family(text, "rocketmq_storage_size"),
            (Series{{local, std::to_string(broker_->store().CommitLogFileBytes())}}));
  EXPECT_EQ(broker_->store().CommitLogFileBytes(), 1 << 20);  // one segment
  EXPECT_EQ(Family(text, "rocketmq_storage_dispatch_behind_bytes"), (Series{{local, "0"}}));
  EXPECT_EQ(Family(text, "rocketmq_storage_message_reserve_time"), (Series{{local, "2000"}}));

  EXPECT_EQ(Family(text, "rocketmq_half_messages"), (Series{{"{topic=\"TX\"}", "1"}}));
  EXPECT_EQ(Family(text, "rocketmq_commit_messages_total"), (Series{{"{topic=\"TX\"}", "1"}}));
  EXPECT_EQ(Family(text, "rocketmq_rollback_messages_total"), (Series{{"{topic=\"TX\"}", "1"}}));
  EXPECT_EQ(Family(text, "rocketstore_transaction_checks_total"), (Series{{"{}", "0"}}));

  // Three timers of TM filed: one delivered, one recalled, one pending.
  const std::string tm = "{topic=\"TM\"}";
  EXPECT_EQ(Family(text, "rocketmq_timer_enqueue_total"), (Series{{tm, "3"}}));
  EXPECT_EQ(Family(text, "rocketmq_timer_dequeue_total"), (Series{{tm, "1"}}));
  EXPECT_EQ(Family(text, "rocketmq_timing_messages"), (Series{{tm, "1"}}));
  EXPECT_EQ(Family(text, "rocketmq_timer_dequeue_latency"), (Series{{"{}", "0"}}));
  EXPECT_EQ(Family(text, "rocketstore_timer_recalled_total"), (Series{{"{}", "1"}}));
  const timer::TimerIndexStats ts = broker_->timer_index()->Stats();
  EXPECT_EQ(Family(text, "rocketstore_timer_entries_in_memory"),
            (Series{{"{}", std::to_string(ts.in_memory)}}));
  EXPECT_EQ(Family(text, "rocketstore_timer_entries_on_disk"),
            (Series{{"{}", std::to_string(ts.entries_on_disk)}}));

  // Level 2 holds the DELAY=2 message, level 3 the send-back to retry; 18 levels.
  Series delay;
  for (int level = 1; level <= 18; ++level) {
    delay["{delay_level=\"" + std::to_string(level) + "\"}"] = level == 2 || level == 3 ? "1" : "0";
  }
  EXPECT_EQ(Family(text, "rocketstore_delay_messages"), delay);

  EXPECT_EQ(Family(text, "rocketmq_topic_number"),
            (Series{{"{}", std::to_string(broker_->topics().List().size())}}));
  for (const char* t : {"MT", "TX", "TM", "DL", "%RETRY%CG", "%DLQ%CG"}) {
    EXPECT_TRUE(broker_->topics().Find(t).has_value()) << t;
  }
  EXPECT_EQ(Family(text, "rocketmq_send_back_messages_total"), (Series{{mt_cg, "2"}}));
  EXPECT_EQ(Family(text, "rocketmq_send_to_dlq_messages_total"), (Series{{mt_cg, "1"}}));
}

}  // namespace
}  // namespace rocketstore::broker
