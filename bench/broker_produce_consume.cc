// bench/broker_produce_consume: the broker over loopback, end to end.
//
// Starts a name server and a broker in this process (ASYNC_FLUSH, or SYNC_FLUSH with
// --flush sync; store in a scratch dir) and sends 1 KiB messages with SEND_MESSAGE_V2, S
// seconds per row:
//   * synchronous rows: one thread per connection with the blocking RemotingClient, one
//     request in flight per connection. The 1-connection row is the send latency of an
//     unloaded broker.
//   * pipelined rows: C connections with the AsyncRemotingClient, each keeping D requests
//     in flight (closed loop: every answer sends the next), all driven by --io-threads
//     client threads. Latency is from Send to the callback, so it includes the queueing
//     behind the D-1 other requests of the window.
// Prints sends/s, send latency p50/p99/p99.9 and the process CPU time per send (broker,
// store services and clients together) per row. Then one consumer pulls
// everything back (PULL_MESSAGE, 32 per pull, 8 queues) and prints msgs/s.
// NOTE: clients and broker share this machine's cores (2 here); the broker runs
// --broker-threads io threads (1, its default). --serialize rocketmq sends the requests
// with the binary header (RocketMQSerializable; the broker answers in kind) instead of
// JSON, the header every client we target uses.
// --flush sync: every send is answered once durable (group commit). Each row is then
// bracketed by the raw bound of bench/commitlog_append — 4 KiB pwrite + fdatasync at queue
// depth 1, appending and overwriting, 0.5 s each before and after the row — and the row
// prints that rate and its ratio to it. `--shapes 64x1` is 64 producers with one send each
// in flight.
//
// Default pipelined rows: 1 connection x 256 in flight (the shape of a RocketMQ Java
// producer sending asynchronously: one connection per broker, many requests on it) and
// 4 x 64 (the same window over four connections: smaller batches per read and write).
//
//   broker_produce_consume [--seconds S] [--sync-connections 1,4]
//                          [--shapes 1x256,4x64 | --connections 4 --inflight 64]
//                          [--io-threads 1] [--broker-threads 1] [--serialize json|rocketmq]
//                          [--resident-mib N]   (commit log page cache kept behind the writer)
//                          [--flush async|sync]
//                          [--metrics-ab N]  (N rounds: metrics on vs off, alternating)
#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/thread_name.h"
#include "bench/bench_util.h"
#include "broker/broker.h"
#include "namesrv/name_server.h"
#include "net/async_remoting_client.h"
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
// Header encoding of the send requests (and so of their responses): --serialize.
protocol::SerializeType g_serialize = protocol::SerializeType::kJson;

RemotingCommand SendRequest(int queue, const std::string& body) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
  req.serialize_type = g_serialize;
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

// CPU time (user + system) of the whole process: broker, store services and clients.
int64_t ProcessCpuNanos() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

struct Row {
  double sends_per_sec = 0;
  Latencies lat;
  int64_t sent = 0;
  int64_t cpu_nanos = 0;         // process CPU time spent during the row
  double raw_syncs_per_sec = 0;  // --flush sync: the qd-1 fdatasync rate around the row
};

// --flush sync: the raw qd-1 fdatasync loops run this long before and after each row.
constexpr int64_t kRawSliceNanos = 500'000'000;
bool g_sync_flush = false;

// Runs `row` between two rounds of the raw loops (when --flush sync) and notes their rate.
template <typename RunRow>
Row Bracketed(RunRow run_row) {
  if (!g_sync_flush) return run_row();
  RawSyncLoops raw;
  raw.RunSlice(/*overwrite=*/false, kRawSliceNanos);
  raw.RunSlice(/*overwrite=*/true, kRawSliceNanos);
  Row row = run_row();
  raw.RunSlice(/*overwrite=*/false, kRawSliceNanos);
  raw.RunSlice(/*overwrite=*/true, kRawSliceNanos);
  row.raw_syncs_per_sec = std::max(raw.Rate(false), raw.Rate(true));
  return row;
}

void PrintRow(const char* mode, int connections, int inflight, Row& row) {
  const int64_t cpu_per_send = row.sent > 0 ? row.cpu_nanos / row.sent : 0;
  std::printf("%-10s %11d %9d %12s %10s %10s %10s %12s", mode, connections, inflight,
              HumanRate(row.sends_per_sec).c_str(), HumanNanos(row.lat.Percentile(50)).c_str(),
              HumanNanos(row.lat.Percentile(99)).c_str(),
              HumanNanos(row.lat.Percentile(99.9)).c_str(), HumanNanos(cpu_per_send).c_str());
  if (g_sync_flush) {
    std::printf(" %10s %8.2f", HumanRate(row.raw_syncs_per_sec).c_str(),
                row.sends_per_sec / row.raw_syncs_per_sec);
  }
  std::printf("\n");
  std::fflush(stdout);
}

// n threads, each with a blocking RemotingClient: one request in flight per connection.
Row RunSync(const std::string& addr, int n, double seconds, const std::string& body) {
  std::atomic<bool> go{false};
  std::atomic<int64_t> sent{0};
  std::vector<Latencies> lat(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  int64_t deadline = 0;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      SetCurrentThreadName("bench-sync");
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
  const int64_t cpu0 = ProcessCpuNanos();
  const int64_t start = NowNanos();
  deadline = start + static_cast<int64_t>(seconds * 1e9);
  go.store(true);
  for (auto& th : threads) th.join();
  const double secs = static_cast<double>(NowNanos() - start) / 1e9;
  Row row;
  row.cpu_nanos = ProcessCpuNanos() - cpu0;
  for (auto& l : lat) row.lat.Merge(l);
  row.sent = sent.load();
  row.sends_per_sec = static_cast<double>(row.sent) / secs;
  return row;
}

// n AsyncRemotingClient connections, each with `depth` requests in flight (closed loop),
// driven by `io_threads` threads.
Row RunPipelined(const std::string& addr, int n, int depth, int io_threads, double seconds,
                 const std::string& body) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::vector<std::thread> threads;
  for (int i = 0; i < io_threads; ++i) {
    threads.emplace_back([&io] {
      SetCurrentThreadName("bench-client");
      io.run();
    });
  }

  struct Conn {
    std::unique_ptr<net::AsyncRemotingClient> client;
    Latencies lat;  // touched only by this connection's callbacks (serialised)
    std::atomic<int64_t> issued{0};
    std::atomic<int64_t> answered{0};
  };
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < n; ++i) {
    auto c = std::make_unique<Conn>();
    c->client = std::make_unique<net::AsyncRemotingClient>(io);
    if (Status s = c->client->Connect(addr); !s.ok()) {
      std::fprintf(stderr, "connect: %s\n", s.ToString().c_str());
      std::exit(1);
    }
    c->lat.Reserve(static_cast<size_t>(seconds * 400000 / n));
    conns.push_back(std::move(c));
  }
  // One prebuilt request per queue, copied for each send.
  std::vector<RemotingCommand> requests;
  for (int q = 0; q < kQueues; ++q) requests.push_back(SendRequest(q, body));
  std::mutex mu;
  std::condition_variable cv;
  int slots_left = n * depth;  // a slot ends when its answer arrives after the deadline
  int64_t deadline = 0;

  // One slot of the window: send, and on the answer record the latency and send again.
  std::function<void(Conn*, int)> send_one = [&](Conn* c, int queue) {
    const int64_t t0 = NowNanos();
    c->issued.fetch_add(1, std::memory_order_relaxed);
    Status s = c->client->Send(
        RemotingCommand(requests[static_cast<size_t>(queue)]),
        [&, c, queue, t0](Result<RemotingCommand> r) {
          if (!r.ok() || r->code != 0) {
            std::fprintf(stderr, "send failed: %s\n",
                         r.ok() ? r->remark.value_or("").c_str() : r.status().ToString().c_str());
            std::exit(1);
          }
          const int64_t now = NowNanos();
          c->lat.Add(now - t0);
          c->answered.fetch_add(1, std::memory_order_relaxed);
          if (now < deadline) {
            send_one(c, (queue + 1) % kQueues);
          } else {
            std::lock_guard lock(mu);
            if (--slots_left == 0) cv.notify_all();
          }
        },
        10000);
    if (!s.ok()) {
      std::fprintf(stderr, "send: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  };
  const int64_t cpu0 = ProcessCpuNanos();
  const int64_t start = NowNanos();
  deadline = start + static_cast<int64_t>(seconds * 1e9);
  for (int d = 0; d < depth; ++d) {
    for (int i = 0; i < n; ++i) send_one(conns[static_cast<size_t>(i)].get(), (i + d) % kQueues);
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return slots_left == 0; });
  }
  const double secs = static_cast<double>(NowNanos() - start) / 1e9;
  Row row;
  row.cpu_nanos = ProcessCpuNanos() - cpu0;
  for (auto& c : conns) {
    c->client->Close();
    row.lat.Merge(c->lat);
    row.sent += c->answered.load();
  }
  conns.clear();
  work.reset();
  for (auto& t : threads) t.join();
  row.sends_per_sec = static_cast<double>(row.sent) / secs;
  return row;
}

}  // namespace

// --metrics-ab N: "counting costs nothing measurable". Two brokers in this process, one
// with the counters and the /metrics endpoint on (BrokerOptions::metrics_counting, a free
// metrics port), one with them off; N rounds, each running the same rows against both, the
// order alternating (on/off, off/on) so drift in the VM's speed hits both alike. The "on"
// broker is scraped once per round (RenderMetrics, what GET /metrics serves) after the
// round's rows, never while a row is measured: the rows measure counting, and the scrape's
// own cost (on the scrape thread) is printed apart. Nothing else scrapes the endpoint.
// Prints each round's rates and the on/off ratio, then the medians.
int RunMetricsAb(int rounds, double seconds, int io_threads, int broker_threads,
                 const std::string& ns_addr, const std::string& dir) {
  auto make = [&](bool on) {
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.server.threads = broker_threads;
    bo.namesrv_addrs = {ns_addr};
    bo.store.root_dir = dir + (on ? "/on" : "/off");
    if (g_sync_flush) bo.store.flush_disk_type = FlushDiskType::kSyncFlush;
    bo.metrics_counting = on;
    bo.metrics_port = on ? -1 : 0;
    return std::make_unique<broker::Broker>(bo);
  };
  auto on = make(true);
  auto off = make(false);
  for (broker::Broker* b : {on.get(), off.get()}) {
    if (Status s = b->Start(); !s.ok()) {
      std::fprintf(stderr, "broker: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  std::printf(
      "broker_produce_consume --metrics-ab: %d rounds of %.1f s per row, metrics on vs off, "
      "order alternating; %s, %u cores\n",
      rounds, seconds, g_sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH",
      std::thread::hardware_concurrency());
  std::printf("%-6s %-14s %12s %12s %8s %12s %12s\n", "round", "row", "on sends/s", "off sends/s",
              "on/off", "on cpu/send", "off cpu/send");
  const std::string body(1024, 'x');
  std::vector<double> ratio_sync, ratio_pipe, cpu_sync, cpu_pipe;
  size_t scrape_bytes = 0;
  std::vector<double> scrape_nanos;
  for (int r = 0; r < rounds; ++r) {
    const bool on_first = r % 2 == 0;
    auto pair = [&](auto run) {
      Row a, b;
      if (on_first) {
        a = run(*on);
        b = run(*off);
      } else {
        b = run(*off);
        a = run(*on);
      }
      return std::make_pair(a, b);
    };
    auto [sa, sb] = pair([&](broker::Broker& b) { return RunSync(b.address(), 1, seconds, body); });
    auto [pa, pb] = pair([&](broker::Broker& b) {
      return RunPipelined(b.address(), 1, 256, io_threads, seconds, body);
    });
    // Between rounds, outside every measured row.
    const int64_t scrape_start = NowNanos();
    scrape_bytes = on->RenderMetrics().size();
    scrape_nanos.push_back(static_cast<double>(NowNanos() - scrape_start));
    auto print = [&](const char* name, const Row& a, const Row& b, std::vector<double>& ratios,
                     std::vector<double>& cpu) {
      const double ratio = b.sends_per_sec > 0 ? a.sends_per_sec / b.sends_per_sec : 0;
      ratios.push_back(ratio);
      if (a.sent > 0 && b.sent > 0 && b.cpu_nanos > 0) {
        cpu.push_back((static_cast<double>(a.cpu_nanos) / a.sent) /
                      (static_cast<double>(b.cpu_nanos) / b.sent));
      }
      std::printf("%-6d %-14s %12s %12s %8.3f %12s %12s\n", r + 1, name,
                  HumanRate(a.sends_per_sec).c_str(), HumanRate(b.sends_per_sec).c_str(), ratio,
                  HumanNanos(a.sent ? a.cpu_nanos / a.sent : 0).c_str(),
                  HumanNanos(b.sent ? b.cpu_nanos / b.sent : 0).c_str());
    };
    print("sync 1x1", sa, sb, ratio_sync, cpu_sync);
    print("pipelined 1x256", pa, pb, ratio_pipe, cpu_pipe);
  }
  const auto on_stats = on->stats().Collect();
  const auto off_stats = off->stats().Collect();
  std::printf(
      "median on/off: sends/s sync 1x1 %.3f, pipelined 1x256 %.3f; cpu/send sync 1x1 %.3f, "
      "pipelined 1x256 %.3f (counted on: %llu messages, off: %llu; last scrape %zu bytes, "
      "median scrape %s, outside the measured rows)\n",
      Median(ratio_sync), Median(ratio_pipe), Median(cpu_sync), Median(cpu_pipe),
      static_cast<unsigned long long>(on_stats.TotalPutMessages()),
      static_cast<unsigned long long>(off_stats.TotalPutMessages()), scrape_bytes,
      HumanNanos(static_cast<int64_t>(Median(scrape_nanos))).c_str());
  (void)on->Stop();
  (void)off->Stop();
  return 0;
}

int main(int argc, char** argv) {
  double seconds = 3;
  std::vector<int> sync_connections = {1};
  std::vector<int> connections;
  std::vector<int> inflight;
  std::vector<std::pair<int, int>> shapes = {{1, 256}, {4, 64}};  // connections x in flight
  int io_threads = 1;
  int broker_threads = 1;
  int64_t resident_mib = -1;  // -1: the store's default
  int metrics_ab = 0;         // --metrics-ab N: rounds of metrics on vs off
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::stod(argv[++i]);
    } else if (a == "--metrics-ab" && i + 1 < argc) {
      metrics_ab = std::stoi(argv[++i]);
    } else if (a == "--sync-connections" && i + 1 < argc) {
      sync_connections = ParseList(argv[++i]);
    } else if (a == "--connections" && i + 1 < argc) {
      connections = ParseList(argv[++i]);
    } else if (a == "--inflight" && i + 1 < argc) {
      inflight = ParseList(argv[++i]);
    } else if (a == "--shapes" && i + 1 < argc) {
      shapes.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) {
        const size_t x = item.find('x');
        if (x == std::string::npos) {
          std::fprintf(stderr, "--shapes: expected CONNECTIONSxINFLIGHT, got '%s'\n", item.c_str());
          return 2;
        }
        shapes.emplace_back(std::stoi(item.substr(0, x)), std::stoi(item.substr(x + 1)));
      }
    } else if (a == "--io-threads" && i + 1 < argc) {
      io_threads = std::max(1, std::stoi(argv[++i]));
    } else if (a == "--serialize" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v != "json" && v != "rocketmq") {
        std::fprintf(stderr, "--serialize: json or rocketmq\n");
        return 2;
      }
      g_serialize =
          v == "json" ? protocol::SerializeType::kJson : protocol::SerializeType::kRocketMq;
    } else if (a == "--broker-threads" && i + 1 < argc) {
      broker_threads = std::max(1, std::stoi(argv[++i]));
    } else if (a == "--flush" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v != "async" && v != "sync") {
        std::fprintf(stderr, "--flush: async or sync\n");
        return 2;
      }
      g_sync_flush = v == "sync";
    } else if (a == "--resident-mib" && i + 1 < argc) {
      resident_mib = std::max<int64_t>(0, std::stoll(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: broker_produce_consume [--seconds S] [--sync-connections 1,4] "
                   "[--shapes 1x256,4x64 | --connections 4 --inflight 64] [--io-threads 1] "
                   "[--broker-threads 1] "
                   "[--serialize json|rocketmq] [--resident-mib 1024] [--flush async|sync]\n"
                   "  --flush sync: SYNC_FLUSH (answers once durable); each row also prints "
                   "the raw 4 KiB write+fdatasync rate at queue depth 1 measured around it "
                   "and the ratio (--shapes 64x1 = 64 producers, one send in flight each)\n"
                   "  lists (1,4,16) give one row each; --sync-connections 0 skips the "
                   "synchronous rows\n"
                   "  --resident-mib: commit log page cache kept behind the writer "
                   "(0 = all; default: the store's)\n");
      return a == "--help" ? 0 : 2;
    }
  }
  ScratchDir dir("broker");
  namesrv::NameServerOptions no;
  no.server.port = 0;
  namesrv::NameServer ns(no);
  if (!ns.Start().ok()) return 1;
  if (metrics_ab > 0) {
    const int rc = RunMetricsAb(metrics_ab, seconds, io_threads, broker_threads,
                                "127.0.0.1:" + std::to_string(ns.port()), dir.path());
    ns.Stop();
    return rc;
  }
  broker::BrokerOptions bo;
  bo.server.port = 0;
  bo.server.threads = broker_threads;
  bo.namesrv_addrs = {"127.0.0.1:" + std::to_string(ns.port())};
  bo.store.root_dir = dir.path() + "/store";
  if (resident_mib >= 0) bo.store.commit_log_resident_window_bytes = resident_mib << 20;
  if (g_sync_flush) bo.store.flush_disk_type = FlushDiskType::kSyncFlush;
  broker::Broker broker(bo);
  if (Status s = broker.Start(); !s.ok()) {
    std::fprintf(stderr, "broker: %s\n", s.ToString().c_str());
    return 1;
  }
  const std::string addr = broker.address();
  std::printf(
      "broker_produce_consume: 1 KiB SEND_MESSAGE_V2 over loopback, %s, %.1f s per "
      "row.\nClients and broker share this machine's %u cores (broker: %d io thread%s; "
      "pipelined clients: %d io thread%s).\n",
      g_sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH", seconds, std::thread::hardware_concurrency(),
      bo.server.threads, bo.server.threads == 1 ? "" : "s", io_threads, io_threads == 1 ? "" : "s");
  std::printf("%-10s %11s %9s %12s %10s %10s %10s %12s", "mode", "connections", "in-flight",
              "sends/s", "p50", "p99", "p99.9", "cpu/send");
  if (g_sync_flush) std::printf(" %10s %8s", "raw qd-1", "vs raw");
  std::printf("\n");
  const std::string body(1024, 'x');
  int64_t total_sent = 0;
  for (int n : sync_connections) {
    if (n <= 0) continue;
    Row row = Bracketed([&] { return RunSync(addr, n, seconds, body); });
    total_sent += row.sent;
    PrintRow("sync", n, 1, row);
  }
  if (!connections.empty() || !inflight.empty()) {  // a cross product replaces the shapes
    if (connections.empty()) connections = {4};
    if (inflight.empty()) inflight = {64};
    shapes.clear();
    for (int n : connections) {
      for (int d : inflight) shapes.emplace_back(n, d);
    }
  }
  for (auto [n, d] : shapes) {
    if (n <= 0 || d <= 0) continue;
    Row row = Bracketed([&] { return RunPipelined(addr, n, d, io_threads, seconds, body); });
    total_sent += row.sent;
    PrintRow("pipelined", n, d, row);
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
