// A Broker in process with /metrics on a free port: the scrape over HTTP carries the store's
// own metrics (flush latency, group-commit batches under SYNC_FLUSH, recovery, health) and
// the lag gauges after sends and a partial commit; a taken port fails the start with an
// error naming it; metrics_counting=false leaves the counters at zero.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "broker/broker.h"
#include "net/remoting_client.h"
#include "protocol/request_code.h"
#include "testing/temp_dir.h"

namespace rocketstore::broker {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;

class MetricsBrokerTest : public ::testing::Test {
 protected:
  BrokerOptions Options(const std::string& sub) {
    BrokerOptions bo;
    bo.server.port = 0;
    bo.store.root_dir = dir_.path() + "/" + sub;
    bo.store.commit_log_segment_size = 1 << 20;
    bo.store.index_hash_slot_num = 1000;
    bo.store.index_num = 4000;
    bo.store.consume_queue_units_per_file = 10000;
    bo.store.flush_disk_type = FlushDiskType::kSyncFlush;
    bo.metrics_port = -1;  // any free port
    bo.register_interval_ms = 3600000;
    return bo;
  }
  RemotingCommand Send(net::RemotingClient& c, int queue) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "P");
    req.SetField("b", "MT");
    req.SetField("c", "TBW102");
    req.SetIntField("d", 2);
    req.SetIntField("e", queue);
    req.SetIntField("f", 0);
    req.SetIntField("g", 1700000000000);
    req.SetIntField("h", 0);
    req.body.Assign(std::string(100, 'x'));
    auto r = c.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  std::string Scrape(uint16_t port) {
    httplib::Client http("127.0.0.1", port);
    auto r = http.Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? r->body : std::string();
  }
  testing::TempDir dir_;
};

bool Has(const std::string& text, const std::string& s) {
  return text.find(s) != std::string::npos;
}

TEST_F(MetricsBrokerTest, AnOccupiedPortFailsTheStartNamingIt) {
  Broker first(Options("a"));
  ASSERT_TRUE(first.Start().ok());
  ASSERT_NE(first.metrics_port(), 0);
  BrokerOptions o = Options("b");
  o.metrics_port = first.metrics_port();
  Broker second(o);
  Status s = second.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(std::to_string(first.metrics_port())), std::string::npos)
      << s.message();
  EXPECT_TRUE(first.Stop().ok());
}

TEST_F(MetricsBrokerTest, ScrapeHasStoreMetricsAndLag) {
  Broker broker(Options("s"));
  ASSERT_TRUE(broker.Start().ok());
  net::RemotingClient c;
  ASSERT_TRUE(c.Connect(broker.address()).ok());
  for (int i = 0; i < 6; ++i) ASSERT_EQ(Send(c, 0).code, 0);  // SYNC_FLUSH: each one durable
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Send(c, 1).code, 0);  // a queue MG never commits on
  for (int i = 0; i < 200 && (broker.store().GetMaxOffsetInQueue("MT", 0).value() < 6 ||
                              broker.store().GetMaxOffsetInQueue("MT", 1).value() < 3);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  broker.offsets().Commit("MG", "MT", 0, 2);
  const std::string text = Scrape(broker.metrics_port());
  const std::string common = "cluster=\"DefaultCluster\",node_type=\"broker\",node_id=\"broker-a\"";
  EXPECT_TRUE(Has(
      text, "rocketmq_messages_in_total{" + common + ",topic=\"MT\",message_type=\"normal\"} 9\n"))
      << text;
  // Lag as GET_CONSUME_STATS (208) has it: queue 0 6 - 2, queue 1 (no commit) 3 - 0.
  const GroupConsumeStats admin = broker.consume_stats().ConsumeStats("MG", std::string("MT"));
  EXPECT_EQ(admin.TotalDiff(), 7);
  EXPECT_TRUE(Has(text, "rocketmq_consumer_lag_messages{" + common +
                            ",topic=\"MT\",consumer_group=\"MG\"} 7\n"))
      << text;
  EXPECT_TRUE(Has(text, "rocketmq_consumer_ready_messages{" + common +
                            ",topic=\"MT\",consumer_group=\"MG\"} 7\n"));
  EXPECT_TRUE(Has(text, "rocketstore_storage_writable{" + common + ",reason=\"\"} 1\n"));
  EXPECT_TRUE(Has(text, "# TYPE rocketstore_storage_flush_latency_seconds histogram\n"));
  // Six sends, each answered once durable: at least six producers released by flushes.
  const StoreMetrics& m = broker.store().metrics();
  EXPECT_GE(m.group_commit_batch.Snapshot().sum, 6);
  EXPECT_GE(m.flush_micros.Snapshot().count, 1u);
  EXPECT_GE(m.flush_bytes.Snapshot().sum, 6 * 100);
  EXPECT_TRUE(Has(text, "rocketstore_storage_group_commit_batch_count{" + common + "} "));
  EXPECT_TRUE(Has(text, "rocketstore_storage_recovery_duration_seconds{" + common + "} "));
  EXPECT_TRUE(Has(text, "rocketmq_storage_flush_behind_bytes{" + common +
                            ",storage_type=\"local\",storage_medium=\"disk\"} 0\n"));
  // Page-cache residency: the one segment is examined, and the pages just written are in.
  auto sample = [&text](const std::string& series) -> double {
    const size_t at = text.find(series + " ");
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + series.size() + 1));
  };
  const std::string local = "{" + common + ",storage_type=\"local\",storage_medium=\"disk\"}";
  EXPECT_EQ(sample("rocketstore_storage_page_cache_examined_bytes" + local),
            static_cast<double>(broker.store().CommitLogFileBytes()))
      << text;
  const double resident = sample("rocketstore_storage_page_cache_resident_bytes" + local);
  EXPECT_GE(resident, 4096) << text;
  EXPECT_LE(resident, static_cast<double>(broker.store().CommitLogFileBytes()));
  EXPECT_TRUE(Has(text, "rocketmq_rpc_latency_count{" + common +
                            ",protocol_type=\"remoting\",request_code=\"310\","
                            "response_code=\"0\"} 9\n"))
      << text;
  c.Close();
  EXPECT_TRUE(broker.Stop().ok());
}

TEST_F(MetricsBrokerTest, CountingOffLeavesTheCountersAtZero) {
  BrokerOptions o = Options("off");
  o.metrics_counting = false;
  o.metrics_port = 0;
  Broker broker(o);
  ASSERT_TRUE(broker.Start().ok());
  EXPECT_EQ(broker.metrics_port(), 0);
  net::RemotingClient c;
  ASSERT_TRUE(c.Connect(broker.address()).ok());
  ASSERT_EQ(Send(c, 0).code, 0);
  EXPECT_EQ(broker.stats().Collect().TotalPutMessages(), 0u);
  EXPECT_TRUE(broker.rpc_stats().Collect().by_code.empty());
  c.Close();
  EXPECT_TRUE(broker.Stop().ok());
}

}  // namespace
}  // namespace rocketstore::broker
