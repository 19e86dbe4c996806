// bench/metrics_counting: what the metrics' hot-path counting costs per call.
//
// Plain timing loops (steady clock around N calls) over the calls the broker makes per
// request: BrokerStats::OnPut (SendService, per stored put), BrokerStats::OnGet
// (PullService, per pull that returned messages), RpcStats::OnRpc (the remoting server,
// per answered request), and BrokerStats::OnPut for a key past the cardinality cap (the
// over-cap path). Each is run on 1 thread and on 2 threads at once (each thread counts into
// its own shard), for --rounds rounds, alternating the order of the cases between rounds;
// min / median / max over the rounds are printed, since a shared machine makes single
// rounds swing. The figure is each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID) per
// call, averaged over the threads: on a loaded machine wall time mostly measures waiting
// for a core; CPU time still includes what two threads cost each other (cache lines).
//
//   metrics_counting [--calls 20000000] [--rounds 7] [--keys 16]
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "broker/metrics/rpc_stats.h"
#include "broker/stats/broker_stats.h"

namespace {

using namespace rocketstore;  // NOLINT(build/namespaces)

// Keeps the compiler from dropping a loop whose results it cannot see used.
std::atomic<uint64_t> g_sink{0};

struct Case {
  const char* name;
  // Makes the per-thread body: `calls` calls, thread number `t`.
  std::function<std::function<void(int64_t)>(int t)> make;
};

int64_t ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// CPU ns per call per thread (mean over the threads) for `threads` threads running
// body(calls) at once.
double Run(const Case& c, int threads, int64_t calls) {
  std::vector<std::function<void(int64_t)>> bodies;
  for (int t = 0; t < threads; ++t) bodies.push_back(c.make(t));
  // Warm up each thread's shard and cells outside the timed part: the steady state is
  // what the broker pays per message.
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<int64_t> elapsed(threads);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      bodies[t](1000);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      const int64_t start = ThreadCpuNanos();
      bodies[t](calls);
      elapsed[t] = ThreadCpuNanos() - start;
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  int64_t total = 0;
  for (int64_t e : elapsed) total += e;
  return static_cast<double>(total) / threads / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rocketstore::bench;  // NOLINT(build/namespaces)
  int64_t calls = 20'000'000;
  int rounds = 7;
  int keys = 16;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--calls") {
      calls = std::stoll(FlagValue(argc, argv, i));
    } else if (a == "--rounds") {
      rounds = std::stoi(FlagValue(argc, argv, i));
    } else if (a == "--keys") {
      keys = std::stoi(FlagValue(argc, argv, i));
    } else {
      std::fprintf(stderr, "usage: metrics_counting [--calls N] [--rounds R] [--keys K]\n");
      return 2;
    }
  }
  // Realistic names: longer than the small-string buffer, as most topics and groups are.
  std::vector<std::string> topics, groups, over_cap;
  for (int k = 0; k < keys; ++k) {
    topics.push_back("order-events-topic-" + std::to_string(k));
    groups.push_back("billing-consumer-group-" + std::to_string(k % 4));
    over_cap.push_back("a-topic-past-the-cap-" + std::to_string(k));
  }
  broker::BrokerStats stats;
  broker::BrokerStats capped(/*max_keys=*/1);
  capped.OnPut("the-one-admitted-topic", broker::MessageType::kNormal, 1, 1);
  broker::RpcStats rpc;
  const size_t mask = static_cast<size_t>(keys - 1);
  if ((static_cast<size_t>(keys) & mask) != 0) {
    std::fprintf(stderr, "--keys must be a power of two\n");
    return 2;
  }

  const std::vector<Case> cases = {
      {"BrokerStats::OnPut",
       [&](int t) {
         return [&, t](int64_t n) {
           for (int64_t i = 0; i < n; ++i) {
             stats.OnPut(topics[(static_cast<size_t>(i) + t) & mask], broker::MessageType::kNormal,
                         1, 1024);
           }
         };
       }},
      {"BrokerStats::OnGet",
       [&](int t) {
         return [&, t](int64_t n) {
           for (int64_t i = 0; i < n; ++i) {
             const size_t k = (static_cast<size_t>(i) + t) & mask;
             stats.OnGet(topics[k], groups[k], 32, 32 * 1024);
           }
         };
       }},
      {"RpcStats::OnRpc",
       [&](int t) {
         return [&](int64_t n) {
           uint64_t x = 0;
           for (int64_t i = 0; i < n; ++i) {
             // Codes of a producer/consumer mix; latencies across the buckets.
             const int32_t code = (i & 7) == 0 ? 11 : 310;
             rpc.OnRpc(code, 0, (i & 1023) * 20'000);
             x += static_cast<uint64_t>(code);
           }
           g_sink.fetch_add(x, std::memory_order_relaxed);
         };
       }},
      {"OnPut past the cap",
       [&](int t) {
         return [&, t](int64_t n) {
           for (int64_t i = 0; i < n; ++i) {
             capped.OnPut(over_cap[(static_cast<size_t>(i) + t) & mask],
                          broker::MessageType::kNormal, 1, 1024);
           }
         };
       }},
  };

  std::printf(
      "metrics_counting: %lld calls per thread per case, %d rounds (order alternating), "
      "%d keys, %u cores\n",
      static_cast<long long>(calls), rounds, keys, std::thread::hardware_concurrency());
  // results[case][threads-1] = ns per call per round
  std::vector<std::vector<std::vector<double>>> results(cases.size(),
                                                        std::vector<std::vector<double>>(2));
  for (int r = 0; r < rounds; ++r) {
    for (size_t j = 0; j < cases.size(); ++j) {
      const size_t c = r % 2 == 0 ? j : cases.size() - 1 - j;
      for (int threads : {1, 2}) {
        results[c][threads - 1].push_back(Run(cases[c], threads, calls));
      }
    }
  }
  std::printf("%-22s %8s %28s\n", "call", "threads", "CPU ns/call: min / median / max");
  for (size_t c = 0; c < cases.size(); ++c) {
    for (int threads : {1, 2}) {
      const auto& v = results[c][threads - 1];
      std::printf("%-22s %8d %10.1f / %6.1f / %6.1f\n", cases[c].name, threads,
                  *std::min_element(v.begin(), v.end()), Median(v),
                  *std::max_element(v.begin(), v.end()));
    }
  }
  const auto snap = stats.Collect();
  std::printf("(counted %llu puts, %llu gets; capped: %llu dropped keys; sink %llu)\n",
              static_cast<unsigned long long>(snap.TotalPutMessages()),
              static_cast<unsigned long long>(snap.TotalGetMessages()),
              static_cast<unsigned long long>(capped.dropped_keys()),
              static_cast<unsigned long long>(g_sink.load()));
  return 0;
}
