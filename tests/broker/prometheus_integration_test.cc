// The metrics endpoint scraped by a real Prometheus (Debian's `prometheus`): a real
// `rocketstore serve` (tests/testing/serve_process.h) with /metrics on a free port, a
// Prometheus started by the test on another free port scraping it every second. The test
// produces 15 messages to two queues over the remoting protocol, pulls one queue (10
// messages), commits offsets 4 and 0, and then asks Prometheus's HTTP API (PromQL):
//   up{job="rocketstore"}                                                   == 1
//   sum(rocketmq_messages_in_total{topic="PromT"})                          == 15
//   sum(rocketmq_messages_out_total{topic="PromT",consumer_group="PromG"})  == 10
//   sum(rocketmq_consumer_lag_messages{topic="PromT",consumer_group="PromG"}) == 11
//   sum(rocketmq_consumer_inflight_messages{...})                           == 6
//   sum(rocketmq_consumer_ready_messages{...})                              == 5
//   sum(rocketmq_rpc_latency_count{request_code="310"}) >= bool 15          == 1
//   rocketstore_storage_writable                                            == 1
// Then, while Prometheus scrapes, 5 more messages to PromT, a timer message (an hour
// ahead) to PromTimer and a delay-level-18 message (2 h) to PromDelay:
//   sum by (topic) (rocketmq_messages_in_total)     == {PromT: 20, PromTimer: 1, PromDelay: 1}
//   sum(rate(rocketmq_messages_in_total{topic="PromT"}[1m])) > bool 0       == 1
//   histogram_quantile(0.99, sum by (le)
//   (rate(rocketmq_rpc_latency_bucket{request_code="310"}[1m])))
//                                                                           in (0, 3000] ms
//   rocketstore_delay_messages{delay_level="18"}                            == 1
//   sum by (topic) (rocketmq_timing_messages)                               == {PromTimer: 1}
#include <gtest/gtest.h>
#include <httplib.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>

#include "net/remoting_client.h"
#include "protocol/remoting_command.h"
#include "protocol/request_code.h"
#include "testing/serve_process.h"
#include "testing/temp_dir.h"

#ifndef ROCKETSTORE_BINARY
#error "ROCKETSTORE_BINARY must name the rocketstore executable (CMakeLists.txt)"
#endif

extern char** environ;

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;

constexpr const char* kPrometheus = "/usr/bin/prometheus";

// A child process (Prometheus), killed and reaped by the destructor.
class Child {
 public:
  Status Spawn(std::vector<std::string> args, const std::string& log) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    const int rc = posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      pid_ = -1;
      return Status(StatusCode::kIOError,
                    std::string("cannot start ") + argv[0] + ": " + strerror(rc));
    }
    return Status::OK();
  }
  ~Child() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_ = -1;
};

class PrometheusIntegrationTest : public ::testing::Test {
 protected:
  RemotingCommand Call(RemotingCommand req) {
    auto r = client_.Invoke(std::move(req), 5000);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }

  RemotingCommand Send(int queue, const std::string& body, const std::string& topic = "PromT",
                       const std::string& properties = "") {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
    req.SetField("a", "PromP");
    req.SetField("b", topic);
    if (!properties.empty()) req.SetField("i", properties);
    req.SetField("c", "TBW102");
    req.SetIntField("d", 4);
    req.SetIntField("e", queue);
    req.SetIntField("f", 0);
    req.SetIntField("g", 1700000000000);
    req.SetIntField("h", 0);
    req.body.Assign(body);
    return Call(std::move(req));
  }

  int64_t MaxOffset(int queue) {
    RemotingCommand q = protocol::MakeRequest(RequestCode::kGetMaxOffset);
    q.SetField("topic", "PromT");
    q.SetIntField("queueId", queue);
    return std::stoll(std::string(Call(std::move(q)).FindField("offset").value_or("-1")));
  }

  // The value of a PromQL instant query with a single result; nullopt when it has none yet.
  std::optional<double> Query(httplib::Client& prom, const std::string& promql) {
    auto r = prom.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
    if (!r || r->status != 200) return std::nullopt;
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    if (d.HasParseError() || !d.HasMember("data")) return std::nullopt;
    const auto& result = d["data"]["result"];
    if (!result.IsArray() || result.Size() != 1) return std::nullopt;
    return std::stod(result[0]["value"][1].GetString());
  }

  // A PromQL instant query's results as (value of `label`) -> value; empty on any error.
  std::map<std::string, double> QueryBy(httplib::Client& prom, const std::string& promql,
                                        const std::string& label) {
    std::map<std::string, double> out;
    auto r = prom.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
    if (!r || r->status != 200) return out;
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    if (d.HasParseError() || !d.HasMember("data")) return out;
    const auto& result = d["data"]["result"];
    if (!result.IsArray()) return out;
    for (const auto& e : result.GetArray()) {
      const auto& metric = e["metric"];
      const std::string key =
          metric.HasMember(label.c_str()) ? metric[label.c_str()].GetString() : "";
      out[key] = std::stod(e["value"][1].GetString());
    }
    return out;
  }

  // Polls (up to 60 s: Prometheus starts, then scrapes every second) until `promql` gives
  // `want`; the last value seen otherwise.
  std::optional<double> WaitFor(httplib::Client& prom, const std::string& promql, double want) {
    return WaitUntil(prom, promql, [want](double v) { return v == want; });
  }
  std::optional<double> WaitUntil(httplib::Client& prom, const std::string& promql,
                                  const std::function<bool(double)>& good) {
    std::optional<double> v;
    for (int i = 0; i < 600; ++i) {
      v = Query(prom, promql);
      if (v && good(*v)) return v;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return v;
  }

  testing::TempDir dir_;
  net::RemotingClient client_;
};

TEST_F(PrometheusIntegrationTest, PromQlSeesProducedConsumedAndLag) {
  ASSERT_EQ(access(kPrometheus, X_OK), 0)
      << kPrometheus << " is missing: scripts/install-deps.sh installs Debian's prometheus";
  const uint16_t metrics_port = testing::FreeLoopbackPort();
  testing::ServeProcess::Options o;
  o.binary = ROCKETSTORE_BINARY;
  o.store_dir = dir_.path() + "/store";
  o.log_file = dir_.path() + "/rocketstore.log";
  o.metrics_port = metrics_port;
  const uint16_t console_port = testing::FreeLoopbackPort();
  o.console_listen = "127.0.0.1:" + std::to_string(console_port);
  testing::ServeProcess serve(o);
  ASSERT_TRUE(serve.Start().ok());
  ASSERT_TRUE(testing::WaitForLoopbackPort(metrics_port, 10000));
  ASSERT_TRUE(client_.Connect(serve.broker_addr()).ok());

  RemotingCommand create = protocol::MakeRequest(RequestCode::kUpdateAndCreateTopic);
  create.SetField("topic", "PromT");
  create.SetField("defaultTopic", "TBW102");
  create.SetIntField("readQueueNums", 2);
  create.SetIntField("writeQueueNums", 2);
  create.SetIntField("perm", 6);
  create.SetField("topicFilterType", "SINGLE_TAG");
  create.SetField("order", "false");
  ASSERT_EQ(Call(std::move(create)).code, 0);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(Send(0, "m" + std::to_string(i)).code, 0);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Send(1, "n" + std::to_string(i)).code, 0);
  for (int i = 0; i < 200 && (MaxOffset(0) != 10 || MaxOffset(1) != 5); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(MaxOffset(0), 10);

  RemotingCommand pull = protocol::MakeRequest(RequestCode::kPullMessage);
  pull.SetField("consumerGroup", "PromG");
  pull.SetField("topic", "PromT");
  pull.SetIntField("queueId", 0);
  pull.SetIntField("queueOffset", 0);
  pull.SetIntField("maxMsgNums", 32);
  pull.SetIntField("sysFlag", 4);  // FLAG_SUBSCRIPTION: in the request; no commit
  pull.SetIntField("commitOffset", 0);
  pull.SetIntField("suspendTimeoutMillis", 0);
  pull.SetField("subscription", "*");
  pull.SetIntField("subVersion", 1);
  ASSERT_EQ(Call(std::move(pull)).code, 0);  // FOUND: all 10
  auto commit = [&](int queue, int64_t offset) {
    RemotingCommand c = protocol::MakeRequest(RequestCode::kUpdateConsumerOffset);
    c.SetField("consumerGroup", "PromG");
    c.SetField("topic", "PromT");
    c.SetIntField("queueId", queue);
    c.SetIntField("commitOffset", offset);
    EXPECT_EQ(Call(std::move(c)).code, 0);
  };
  commit(0, 4);  // a partial consume: 6 left on queue 0
  commit(1, 0);  // nothing of queue 1: 5 left

  const uint16_t prom_port = testing::FreeLoopbackPort();
  const std::string config = dir_.path() + "/prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                        << "scrape_configs:\n  - job_name: rocketstore\n"
                        << "    static_configs:\n      - targets: ['127.0.0.1:" << metrics_port
                        << "']\n";
  Child prometheus;
  ASSERT_TRUE(prometheus
                  .Spawn({kPrometheus, "--config.file=" + config,
                          "--storage.tsdb.path=" + dir_.path() + "/tsdb",
                          "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                         dir_.path() + "/prometheus.log")
                  .ok());
  ASSERT_TRUE(testing::WaitForLoopbackPort(prom_port, 30000)) << "prometheus did not start";
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_read_timeout(5, 0);

  EXPECT_EQ(WaitFor(prom, "up{job=\"rocketstore\"}", 1), 1);
  EXPECT_EQ(WaitFor(prom, "sum(rocketmq_messages_in_total{topic=\"PromT\"})", 15), 15);
  EXPECT_EQ(
      WaitFor(prom, "sum(rocketmq_messages_out_total{topic=\"PromT\",consumer_group=\"PromG\"})",
              10),
      10);
  EXPECT_EQ(
      WaitFor(prom, "sum(rocketmq_consumer_lag_messages{topic=\"PromT\",consumer_group=\"PromG\"})",
              11),
      11);
  EXPECT_EQ(WaitFor(prom,
                    "sum(rocketmq_consumer_inflight_messages{topic=\"PromT\","
                    "consumer_group=\"PromG\"})",
                    6),
            6);
  EXPECT_EQ(WaitFor(prom,
                    "sum(rocketmq_consumer_ready_messages{topic=\"PromT\","
                    "consumer_group=\"PromG\"})",
                    5),
            5);
  EXPECT_EQ(WaitFor(prom, "sum(rocketmq_rpc_latency_count{request_code=\"310\"}) >= bool 15", 1),
            1);
  EXPECT_EQ(WaitFor(prom, "rocketstore_storage_writable", 1), 1);

  // Counters that move while Prometheus watches: rate() sees the increase.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Send(1, "late" + std::to_string(i)).code, 0);
  ASSERT_EQ(Send(0, "timer", "PromTimer", std::string("TIMER_DELAY_SEC\x01") + "3600\x02").code, 0);
  ASSERT_EQ(Send(0, "delayed", "PromDelay", std::string("DELAY\x01") + "18\x02").code, 0);
  const std::map<std::string, double> want_in = {{"PromT", 20}, {"PromTimer", 1}, {"PromDelay", 1}};
  std::map<std::string, double> in_by_topic;
  for (int i = 0; i < 600 && in_by_topic != want_in; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    in_by_topic = QueryBy(prom, "sum by (topic) (rocketmq_messages_in_total)", "topic");
  }
  EXPECT_EQ(in_by_topic, want_in);
  EXPECT_EQ(WaitFor(prom, "sum(rate(rocketmq_messages_in_total{topic=\"PromT\"}[1m])) > bool 0", 1),
            1);
  // Sends take well under 3 s, and a quantile in the +Inf bucket is reported as the largest
  // finite bound (3000), so the 99th percentile lies in (0, 3000] ms.
  const std::optional<double> p99 =
      WaitUntil(prom,
                "histogram_quantile(0.99, sum by (le) "
                "(rate(rocketmq_rpc_latency_bucket{request_code=\"310\"}[1m])))",
                [](double v) { return std::isfinite(v); });
  ASSERT_TRUE(p99.has_value());
  EXPECT_GT(*p99, 0);
  EXPECT_LE(*p99, 3000);
  EXPECT_EQ(WaitFor(prom, "rocketstore_delay_messages{delay_level=\"18\"}", 1), 1);
  std::map<std::string, double> timing;
  for (int i = 0; i < 600 && timing != std::map<std::string, double>{{"PromTimer", 1}}; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    timing = QueryBy(prom, "sum by (topic) (rocketmq_timing_messages)", "topic");
  }
  EXPECT_EQ(timing, (std::map<std::string, double>{{"PromTimer", 1}}));
  EXPECT_EQ(serve.Terminate(), 0);

  // Start-up printed every endpoint and the store's state, as key=value lines.
  std::ifstream log_in(o.log_file);
  const std::string log((std::istreambuf_iterator<char>(log_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find("rocketstore: metrics listening endpoint=http://127.0.0.1:" +
                     std::to_string(metrics_port) + "/metrics"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("rocketstore: broker listening name=broker-a"), std::string::npos);
  EXPECT_NE(log.find("rocketstore: name server listening endpoint="), std::string::npos);
  EXPECT_NE(log.find("rocketstore: store state last_exit=\"clean shutdown\" commitlog_min=0 "),
            std::string::npos);
  EXPECT_NE(log.find("rocketstore: web console url=http://127.0.0.1:" +
                     std::to_string(console_port) + "/ read_only=false"),
            std::string::npos);
  // The shutdown: the store's health change, then the clean stop.
  EXPECT_NE(log.find("store: not writable reason=shut_down error=\"the store is shut down\""),
            std::string::npos);
  EXPECT_NE(log.find("rocketstore: broker stopped cleanly"), std::string::npos);
}

}  // namespace
}  // namespace rocketstore
