// bench/broker_produce_consume: the broker over loopback, end to end.
//
// Starts a name server and a broker in this process (ASYNC_FLUSH, store in a scratch
// dir), then N client threads, each with its own connection, send 1 KiB messages with
// SEND_MESSAGE_V2 for S seconds, one request in flight per connection (the project's
// client is synchronous). Prints sends/s and send latency p50/p99/p99.9; the N=1 row is
// the single-connection synchronous send latency. Then one consumer pulls everything back
// (PULL_MESSAGE, 32 per pull, 8 queues) and prints msgs/s.
// NOTE: clients and broker share this machine's cores (2 here).
//
//   broker_produce_consume [--seconds S] [--connections 1,4,16]
#include <atomic>
#include <cstdio>
#include <sstream>
#include <thread>

#include "bench/bench_util.h"
#include "broker/broker.h"
#include "namesrv/name_server.h"
#include "net/remoting_client.h"
#include "protocol/request_code.h"
#include "store/format/message_record.h"

using namespace rocketstore;
using namespace rocketstore::bench;
using protocol::RemotingCommand;
using protocol::RequestCode;

namespace {

constexpr int kQueues = 8;
const char kTopic[] = "BenchTopic";

RemotingCommand SendRequest(int queue, const std::string& body) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
  req.SetField("a", "BenchProducer");
  req.SetField("b", kTopic);
  req.SetField("c", "TBW102");
  req.SetIntField("d", kQueues);
  req.SetIntField("e", queue);
  req.SetIntField("f", 0);
  req.SetIntField("g", 1700000000000);
  req.SetIntField("h", 0);
  req.SetField("i", std::string("TAGS\x01TagA\x02KEYS\x01k\x02", 16));
  req.body.Assign(body);
  return req;
}

int64_t CountRecords(const RemotingCommand& resp) {
  std::vector<uint8_t> body = resp.body.Flatten();
  std::span<const uint8_t> rest(body);
  int64_t n = 0;
  while (!rest.empty()) {
    auto d = format::DecodeRecord(rest, false);
    if (d.outcome != format::DecodeOutcome::kRecord) break;
    ++n;
    rest = rest.subspan(static_cast<size_t>(d.record.total_size));
  }
  return n;
}

std::vector<int> ParseList(const char* s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  std::vector<int> connections = {1, 4, 16};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::stod(argv[++i]);
    } else if (a == "--connections" && i + 1 < argc) {
      connections = ParseList(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: broker_produce_consume [--seconds S] [--connections 1,4,16]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  ScratchDir dir("broker");
  namesrv::NameServerOptions no;
  no.server.port = 0;
  namesrv::NameServer ns(no);
  if (!ns.Start().ok()) return 1;
  broker::BrokerOptions bo;
  bo.server.port = 0;
  bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns.port())};
  bo.store.root_dir = dir.path() + "/store";
  broker::Broker broker(bo);
  if (Status s = broker.Start(); !s.ok()) {
    std::fprintf(stderr, "broker: %s\n", s.ToString().c_str());
    return 1;
  }
  const std::string addr = broker.address();
  std::printf(
      "broker_produce_consume: 1 KiB SEND_MESSAGE_V2 over loopback, 1 request in flight "
      "per connection, %.1f s per row; clients and broker share %u cores\n",
      seconds, std::thread::hardware_concurrency());
  std::printf("%-11s %12s %10s %10s %10s\n", "connections", "sends/s", "p50", "p99", "p99.9");
  const std::string body(1024, 'x');
  int64_t total_sent = 0;
  for (int n : connections) {
    std::atomic<bool> go{false};
    std::atomic<int64_t> sent{0};
    std::vector<Latencies> lat(static_cast<size_t>(n));
    std::vector<std::thread> threads;
    int64_t deadline = 0;
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([&, t] {
        net::RemotingClient c;
        if (!c.Connect(addr).ok()) std::exit(1);
        while (!go.load()) std::this_thread::yield();
        int64_t k = 0;
        while (NowNanos() < deadline) {
          const int64_t a = NowNanos();
          auto r = c.Invoke(SendRequest(static_cast<int>((t + k) % kQueues), body), 5000);
          if (!r.ok() || r->code != 0) {
            std::fprintf(stderr, "send failed\n");
            std::exit(1);
          }
          lat[static_cast<size_t>(t)].Add(NowNanos() - a);
          ++k;
        }
        sent.fetch_add(k);
      });
    }
    const int64_t start = NowNanos();
    deadline = start + static_cast<int64_t>(seconds * 1e9);
    go.store(true);
    for (auto& th : threads) th.join();
    const double secs = static_cast<double>(NowNanos() - start) / 1e9;
    Latencies all;
    for (auto& l : lat) all.Merge(l);
    total_sent += sent.load();
    std::printf("%-11d %12s %10s %10s %10s\n", n,
                HumanRate(static_cast<double>(sent.load()) / secs).c_str(),
                HumanNanos(all.Percentile(50)).c_str(), HumanNanos(all.Percentile(99)).c_str(),
                HumanNanos(all.Percentile(99.9)).c_str());
    std::fflush(stdout);
  }

  // Pull everything back, queue by queue.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let dispatch finish
  net::RemotingClient c;
  if (!c.Connect(addr).ok()) return 1;
  int64_t pulled = 0;
  const int64_t p0 = NowNanos();
  for (int q = 0; q < kQueues; ++q) {
    int64_t offset = 0;
    while (true) {
      RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
      req.SetField("consumerGroup", "BenchGroup");
      req.SetField("topic", kTopic);
      req.SetIntField("queueId", q);
      req.SetIntField("queueOffset", offset);
      req.SetIntField("maxMsgNums", 32);
      req.SetIntField("sysFlag", 4);  // FLAG_SUBSCRIPTION: the subscription is in the request
      req.SetIntField("commitOffset", 0);
      req.SetIntField("suspendTimeoutMillis", 0);
      req.SetField("subscription", "*");
      req.SetIntField("subVersion", 1);
      auto r = c.Invoke(std::move(req), 5000);
      if (!r.ok() || r->code != 0) {
        if (q == 0 && offset == 0) {
          std::fprintf(stderr, "pull: code %d %s\n", r.ok() ? r->code : -1,
                       r.ok() ? r->remark.value_or("").c_str() : r.status().ToString().c_str());
        }
        break;
      }
      const int64_t got = CountRecords(*r);
      if (got == 0) break;
      pulled += got;
      offset = std::stoll(std::string(r->FindField("nextBeginOffset").value_or("0")));
    }
  }
  const double psecs = static_cast<double>(NowNanos() - p0) / 1e9;
  std::printf("consume: %lld of %lld messages pulled, %s msgs/s (32 per pull, 1 connection)\n",
              static_cast<long long>(pulled), static_cast<long long>(total_sent),
              HumanRate(static_cast<double>(pulled) / psecs).c_str());
  c.Close();
  (void)broker.Stop();
  ns.Stop();
  return pulled == total_sent ? 0 : 1;
}
