// The Prometheus exposition (broker/metrics/): text format details (escaping, histogram
// lines, the per-family cap and its dropped-label-set gauge), the rpc latency table
// (per-thread, overflow), a scrape rendered from real BrokerStats counts, and the HTTP
// endpoint's answers to good and bad requests.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "base/clock.h"
#include "broker/metrics/broker_metrics.h"
#include "broker/metrics/metrics_http_server.h"
#include "broker/metrics/prom_text.h"
#include "broker/metrics/rpc_stats.h"
#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/store_messages.h"

namespace rocketstore::broker {
namespace {

bool Contains(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

TEST(PromTextTest, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeHelp("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");
  PromTextWriter w(PromLabels{{"cluster", "c\"1"}});
  w.Family("m_total", "counter", "line one\nline two");
  w.Sample({{"topic", "t\\x"}}, 3);
  const std::string text = w.Finish();
  EXPECT_TRUE(Contains(text, "# HELP m_total line one\\nline two\n")) << text;
  EXPECT_TRUE(Contains(text, "# TYPE m_total counter\n")) << text;
  EXPECT_TRUE(Contains(text, "m_total{cluster=\"c\\\"1\",topic=\"t\\\\x\"} 3\n")) << text;
}

TEST(PromTextTest, FormatsValues) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(12345678901234.0), "12345678901234");
  EXPECT_EQ(FormatValue(0.5), "0.5");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
}

TEST(PromTextTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  PromTextWriter w(PromLabels{});
  w.Family("h", "histogram", "help");
  const std::vector<double> bounds = {1, 5};
  const std::vector<uint64_t> counts = {2, 3, 4};  // per bucket, +Inf last
  w.Histogram({{"k", "v"}}, bounds, counts, 42.5);
  const std::string text = w.Finish();
  EXPECT_TRUE(Contains(text, "h_bucket{k=\"v\",le=\"1\"} 2\n")) << text;
  EXPECT_TRUE(Contains(text, "h_bucket{k=\"v\",le=\"5\"} 5\n")) << text;
  EXPECT_TRUE(Contains(text, "h_bucket{k=\"v\",le=\"+Inf\"} 9\n")) << text;
  EXPECT_TRUE(Contains(text, "h_sum{k=\"v\"} 42.5\n")) << text;
  EXPECT_TRUE(Contains(text, "h_count{k=\"v\"} 9\n")) << text;
}

TEST(PromTextTest, CapDropsLabelSetsAndReportsThem) {
  PromTextWriter w(PromLabels{{"node_id", "b"}}, /*max_series=*/2);
  w.Family("g", "gauge", "help");
  w.Sample({{"topic", "a"}}, 1);
  w.Sample({{"topic", "b"}}, 2);
  w.Sample({{"topic", "c"}}, 3);  // over the cap
  w.Sample({{"topic", "d"}}, 4);
  w.Family("other", "gauge", "help");
  w.Sample({}, 7);
  const std::string text = w.Finish();
  EXPECT_TRUE(Contains(text, "g{node_id=\"b\",topic=\"b\"} 2\n"));
  EXPECT_FALSE(Contains(text, "topic=\"c\""));
  EXPECT_FALSE(Contains(text, "topic=\"d\""));
  EXPECT_TRUE(Contains(text, "other{node_id=\"b\"} 7\n"));  // the cap is per family
  EXPECT_TRUE(Contains(text, "rocketmq_metrics_dropped_label_sets{node_id=\"b\",metric=\"g\"} 2\n"))
      << text;
}

TEST(RpcStatsTest, CountsByCodePairAcrossThreadsIntoBuckets) {
  RpcStats rpc;
  rpc.OnRpc(10, 0, 500'000);      // 0.5 ms -> le 1
  rpc.OnRpc(10, 0, 4'000'000);    // 4 ms -> le 5
  rpc.OnRpc(10, 14, 50'000'000);  // another response code
  std::thread t([&] {
    for (int i = 0; i < 100; ++i) rpc.OnRpc(10, 0, 2'000'000);  // le 3
  });
  t.join();
  const RpcSnapshot s = rpc.Collect();
  ASSERT_EQ(s.by_code.size(), 2u);
  const RpcTotals& ok = s.by_code.at({10, 0});
  EXPECT_EQ(ok.count, 102u);
  EXPECT_EQ(ok.buckets[0], 1u);    // <= 1 ms
  EXPECT_EQ(ok.buckets[1], 100u);  // <= 3 ms
  EXPECT_EQ(ok.buckets[2], 1u);    // <= 5 ms
  EXPECT_EQ(ok.sum_micros, 500u + 4000u + 100u * 2000u);
  EXPECT_EQ(s.by_code.at({10, 14}).buckets[5], 1u);  // <= 100 ms
  EXPECT_EQ(s.dropped_pairs, 0u);
}

TEST(RpcStatsTest, AFullTableGoesToTheOverflowCell) {
  RpcStats rpc;
  for (int code = 0; code < static_cast<int>(RpcStats::kSlots) + 10; ++code) {
    rpc.OnRpc(code, 0, 1000);
  }
  const RpcSnapshot s = rpc.Collect();
  EXPECT_EQ(s.by_code.size(), RpcStats::kSlots);
  EXPECT_EQ(s.overflow.count, 10u);
  EXPECT_EQ(s.dropped_pairs, 1u);  // one thread's table overflowed
}

TEST(BrokerMetricsTest, RendersTheCountersWithRocketMq5NamesAndLabels) {
  BrokerStats stats(/*max_keys=*/2);
  stats.OnPut("T", MessageType::kNormal, 3, 3000);
  stats.OnPut("T", MessageType::kDelay, 1, 100);
  stats.OnPut("U", MessageType::kNormal, 1, 10);  // past the cap of 2 keys: overflow
  stats.OnGet("T", "G", 2, 2000);
  stats.OnSendBack("T", "G", true);
  RpcStats rpc;
  rpc.OnRpc(310, 0, 100'000);
  MetricsSources src;
  src.cluster = "DefaultCluster";
  src.node_id = "broker-a";
  src.stats = &stats;
  src.rpc = &rpc;
  const std::string text = RenderBrokerMetrics(src);
  const std::string common = "cluster=\"DefaultCluster\",node_type=\"broker\",node_id=\"broker-a\"";
  EXPECT_TRUE(Contains(text, "# TYPE rocketmq_messages_in_total counter\n"));
  EXPECT_TRUE(Contains(
      text, "rocketmq_messages_in_total{" + common + ",topic=\"T\",message_type=\"normal\"} 3\n"))
      << text;
  EXPECT_TRUE(Contains(
      text, "rocketmq_messages_in_total{" + common + ",topic=\"T\",message_type=\"delay\"} 1\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_messages_in_total{" + common +
                                 ",topic=\"__overflow__\",message_type=\"normal\"} 1\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_metrics_dropped_label_sets_total{" + common + "} 1\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_throughput_in_total{" + common +
                                 ",topic=\"T\",message_type=\"normal\"} 3000\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_message_size_bucket{" + common +
                                 ",topic=\"T\",message_type=\"normal\",le=\"1024\"} 3\n"));
  EXPECT_TRUE(Contains(
      text, "rocketmq_messages_out_total{" + common + ",topic=\"T\",consumer_group=\"G\"} 2\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_throughput_out_total{" + common +
                                 ",topic=\"T\",consumer_group=\"G\"} 2000\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_send_to_dlq_messages_total{" + common +
                                 ",topic=\"T\",consumer_group=\"G\"} 1\n"));
  EXPECT_TRUE(Contains(text, "rocketmq_rpc_latency_bucket{" + common +
                                 ",protocol_type=\"remoting\",request_code=\"310\","
                                 "response_code=\"0\",le=\"1\"} 1\n"))
      << text;
  EXPECT_TRUE(Contains(text, "rocketmq_rpc_latency_sum{" + common +
                                 ",protocol_type=\"remoting\",request_code=\"310\","
                                 "response_code=\"0\"} 0.1\n"));
}

// A small in-memory store's options (the tests below open one on a fault-injecting fs).
StoreOptions SmallStoreOptions() {
  StoreOptions o;
  o.root_dir = "/store";
  o.commit_log_segment_size = 64 * 1024;
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.consume_queue_units_per_file = 1024;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 4096;
  return o;
}

// A sticky I/O error: the gauge drops to 0 with the fixed-vocabulary reason, not the
// error's text (which changes and would make a new series each time).
TEST(BrokerMetricsTest, AnUnwritableStoreShowsItsReasonAsOneWord) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStoreOptions();
  o.flush_disk_type = FlushDiskType::kSyncFlush;
  o.start_background_services = false;
  auto store = MessageStore::Open(o, fs, clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  MetricsSources src;
  src.cluster = "C";
  src.node_id = "b";
  src.store = store->get();
  const std::string common = "cluster=\"C\",node_type=\"broker\",node_id=\"b\"";
  EXPECT_TRUE(Contains(RenderBrokerMetrics(src),
                       "rocketstore_storage_writable{" + common + ",reason=\"\"} 1\n"));
  ASSERT_TRUE((*store)->PutMessage(rocketstore::testing::MakeTestMessage(0).View()).ok());
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  (void)(*store)->PutMessage(rocketstore::testing::MakeTestMessage(1).View());
  ASSERT_FALSE((*store)->health().Writable());
  EXPECT_NE((*store)->health().Reason().find("Input/output error"), std::string::npos);
  const std::string text = RenderBrokerMetrics(src);
  EXPECT_TRUE(
      Contains(text, "rocketstore_storage_writable{" + common + ",reason=\"io_error\"} 0\n"))
      << text;
  EXPECT_FALSE(Contains(text, "Input/output")) << text;
  fs.ClearFailures();
  (void)(*store)->Close();
}

// The lag families stop computing at the cap: pairs past it are counted as left out
// without being evaluated — C@g, whose topic has no config (GET_CONSUME_STATS skips it,
// no series), is counted among them, which only an unevaluated pair can be.
TEST(BrokerMetricsTest, LagStopsComputingAtTheCapAndCountsTheRest) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStoreOptions();
  o.start_background_services = false;
  auto store = MessageStore::Open(o, fs, clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  TopicConfigManager topics(fs, clock, "/store/config/topics.json");
  for (const char* name : {"A", "B", "D"}) {
    TopicConfig t;
    t.name = name;
    t.read_queue_nums = t.write_queue_nums = 1;
    topics.Upsert(t);
  }
  ConsumerOffsetManager offsets(fs, clock, "/store/config/consumerOffset.json");
  for (const char* topic : {"A", "B", "C", "D"}) offsets.Commit("g", topic, 0, 0);
  SubscriptionGroupManager groups(fs, clock, "/store/config/subscriptionGroup.json");
  ConsumerManager consumers(clock, {});
  ConsumeStatsService consume(clock, "b", **store, topics, offsets, groups, consumers, nullptr);
  MetricsSources src;
  src.cluster = "C";
  src.node_id = "b";
  src.store = store->get();
  src.offsets = &offsets;
  src.consume_stats = &consume;
  const std::string common = "cluster=\"C\",node_type=\"broker\",node_id=\"b\"";
  auto lag_line = [&](const char* topic) {
    return "rocketmq_consumer_lag_messages{" + common + ",topic=\"" + topic +
           "\",consumer_group=\"g\"} 0\n";
  };

  std::string text = RenderBrokerMetrics(src, /*max_series=*/2);
  EXPECT_TRUE(Contains(text, lag_line("A"))) << text;
  EXPECT_TRUE(Contains(text, lag_line("B")));
  EXPECT_FALSE(Contains(text, "topic=\"D\""));
  for (const char* family :
       {"rocketmq_consumer_lag_messages", "rocketmq_consumer_lag_latency",
        "rocketmq_consumer_queueing_latency", "rocketmq_consumer_inflight_messages",
        "rocketmq_consumer_ready_messages"}) {
    EXPECT_TRUE(Contains(
        text, "rocketmq_metrics_dropped_label_sets{" + common + ",metric=\"" + family + "\"} 2\n"))
        << family << "\n"
        << text;
  }

  // Room for every pair: C is evaluated and skipped (no series), nothing is left out.
  text = RenderBrokerMetrics(src, /*max_series=*/3);
  EXPECT_TRUE(Contains(text, lag_line("D"))) << text;
  EXPECT_FALSE(Contains(text, "topic=\"C\""));
  EXPECT_FALSE(Contains(text, "metric=\"rocketmq_consumer_lag_messages\"")) << text;

  // More pairs than one chunk of the walk (256): every one is evaluated once.
  for (int i = 0; i < 300; ++i) offsets.Commit("h" + std::to_string(1000 + i), "A", 0, 0);
  text = RenderBrokerMetrics(src, /*max_series=*/1000);
  size_t series = 0;
  for (size_t at = 0;
       (at = text.find("\nrocketmq_consumer_lag_messages{", at)) != std::string::npos; ++at) {
    ++series;
  }
  EXPECT_EQ(series, 303u);  // A@g, A@h*, B@g, D@g
  text = RenderBrokerMetrics(src, /*max_series=*/300);
  EXPECT_TRUE(Contains(text, "rocketmq_metrics_dropped_label_sets{" + common +
                                 ",metric=\"rocketmq_consumer_lag_messages\"} 4\n"))
      << text;  // A@h1299, B@g, C@g, D@g
  ASSERT_TRUE((*store)->Close().ok());
}

// RocketMQ 5's ages: lag latency is the age of the message at the committed offset,
// queueing latency the age of the one at the pull offset (0 once everything is pulled);
// inflight and ready split the lag there. The broker's permission bits are a gauge.
TEST(BrokerMetricsTest, LagAndQueueingLatencyAreTheAgesAtTheCommittedAndPulledOffsets) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStoreOptions();
  o.start_background_services = false;
  auto store = MessageStore::Open(o, fs, clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  TopicConfigManager topics(fs, clock, "/store/config/topics.json");
  TopicConfig t;
  t.name = "TopicTest";
  t.read_queue_nums = t.write_queue_nums = 1;
  topics.Upsert(t);
  std::vector<int64_t> stored_ms;
  for (int i = 0; i < 4; ++i) {
    clock.AdvanceMillis(1000);
    stored_ms.push_back(clock.NowMillis());
    ASSERT_TRUE((*store)->PutMessage(rocketstore::testing::MakeTestMessage(i, 1).View()).ok());
  }
  for (int i = 0; i < 10 && (*store)->DispatchBehindBytes() > 0; ++i) {
    ASSERT_TRUE((*store)->RunDispatchStep().ok());
  }
  ASSERT_EQ((*store)->DispatchBehindBytes(), 0);
  ConsumerOffsetManager offsets(fs, clock, "/store/config/consumerOffset.json");
  offsets.Commit("g", "TopicTest", 0, 1);
  offsets.RecordPull("g", "TopicTest", 0, 3);
  SubscriptionGroupManager groups(fs, clock, "/store/config/subscriptionGroup.json");
  ConsumerManager consumers(clock, {});
  ConsumeStatsService consume(clock, "b", **store, topics, offsets, groups, consumers, nullptr);
  BrokerPermission permission(kPermRead);
  MetricsSources src;
  src.cluster = "C";
  src.node_id = "b";
  src.store = store->get();
  src.offsets = &offsets;
  src.consume_stats = &consume;
  src.permission = &permission;
  src.clock = &clock;
  clock.AdvanceMillis(5000);
  const int64_t now = clock.NowMillis();
  const std::string common = "cluster=\"C\",node_type=\"broker\",node_id=\"b\"";
  const std::string tg = "{" + common + ",topic=\"TopicTest\",consumer_group=\"g\"} ";
  auto line = [&](const char* family, int64_t v) {
    return std::string(family) + tg + std::to_string(v) + "\n";
  };
  std::string text = RenderBrokerMetrics(src);
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_lag_messages", 3))) << text;
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_lag_latency", now - stored_ms[1])));
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_queueing_latency", now - stored_ms[3])))
      << text;
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_inflight_messages", 2)));
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_ready_messages", 1)));
  EXPECT_TRUE(Contains(text, "rocketmq_broker_permission{" + common + "} 4\n")) << text;
  offsets.RecordPull("g", "TopicTest", 0, 4);  // all handed out: nothing queueing
  text = RenderBrokerMetrics(src);
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_queueing_latency", 0))) << text;
  EXPECT_TRUE(Contains(text, line("rocketmq_consumer_lag_latency", now - stored_ms[1])));
  ASSERT_TRUE((*store)->Close().ok());
}

// Past one chunk (256 pairs) of the offset table: the walk resumes after the last pair.
TEST(BrokerMetricsTest, LagWalksTheOffsetTableInChunks) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ConsumerOffsetManager offsets(fs, clock, "/c.json");
  for (int i = 0; i < 600; ++i) offsets.Commit("g" + std::to_string(1000 + i), "T", 0, 1);
  auto first = offsets.PairsAfter("", 256);
  ASSERT_EQ(first.size(), 256u);
  EXPECT_EQ(first.front(), (std::pair<std::string, std::string>{"T", "g1000"}));
  auto next = offsets.PairsAfter(first.back().first + "@" + first.back().second, 1000);
  ASSERT_EQ(next.size(), 600u - 256u);
  EXPECT_EQ(next.front().second, "g1256");
  EXPECT_EQ(offsets.CountPairsAfter(""), 600u);
  EXPECT_EQ(offsets.CountPairsAfter("T@g1597"), 2u);
}

std::string Fetch(httplib::Client& c, const std::string& method, const std::string& path,
                  int* status) {
  httplib::Result r = method == "GET"    ? c.Get(path.c_str())
                      : method == "POST" ? c.Post(path.c_str(), "x", "text/plain")
                                         : c.Delete(path.c_str());
  *status = r ? r->status : -1;
  return r ? r->body : std::string();
}

TEST(MetricsHttpServerTest, BadMethodsAndPathsGet4xxWithAMessage) {
  MetricsHttpServer server([] { return std::string("up 1\n"); });
  ASSERT_TRUE(server.Start("127.0.0.1", 0).ok());
  ASSERT_NE(server.port(), 0);
  httplib::Client c("127.0.0.1", server.port());
  int status = 0;
  std::string body = Fetch(c, "POST", "/metrics", &status);
  EXPECT_EQ(status, 405);
  EXPECT_TRUE(Contains(body, "use GET")) << body;
  body = Fetch(c, "DELETE", "/metrics", &status);
  EXPECT_EQ(status, 405);
  body = Fetch(c, "GET", "/nope", &status);
  EXPECT_EQ(status, 404);
  EXPECT_TRUE(Contains(body, "GET /metrics")) << body;
  body = Fetch(c, "GET", "/metrics", &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body, "up 1\n");
  auto r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");

  // The same port again: a clear error, not a crash.
  MetricsHttpServer second([] { return std::string(); });
  Status s = second.Start("127.0.0.1", server.port());
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_TRUE(Contains(s.message(), std::to_string(server.port()))) << s.message();
  server.Stop();
  server.Stop();  // idempotent
}

}  // namespace
}  // namespace rocketstore::broker
