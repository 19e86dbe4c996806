// bench/index_query: how fast does the message index build, and how fast are lookups?
//
// For each key count (default 1 M and 10 M messages, one unique KEYS token each) it builds
// an index with the default RocketMQ geometry (5 M slots, 20 M entries per file, so 10 M
// keys fit one 420 MB file) through IndexService::Dispatch, as the dispatcher would, and
// reports the put rate. Then, with the index warm in the page cache, it times random
// lookups (IndexService::QueryOffsets, max 64, whole time range): keys that exist (each
// answer checked) and keys that do not. Last, the disk space the index files hold per key.
//
//   index_query [--keys 1000000,10000000] [--lookups 100000] [--slots 5000000]
//               [--entries 20000000]
// Scratch files go to $ROCKETSTORE_BENCH_DIR (default ./build/bench-data).
#include <sys/stat.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "bench/bench_util.h"
#include "io/posix_file_system.h"
#include "store/index/index_service.h"

namespace rocketstore::bench {
namespace {

struct Config {
  std::vector<int64_t> keys = {1'000'000, 10'000'000};
  int64_t lookups = 100'000;
  int32_t slots = format::kDefaultIndexHashSlotNum;
  int32_t entries = format::kDefaultIndexNum;
};

const std::string kTopic = "BenchTopic";
constexpr int64_t kBaseTimestamp = 1700000000000;
constexpr int64_t kRecordBytes = 200;  // synthetic commit-log spacing of the messages

// The key of message i.
int KeyOf(int64_t i, char* buf) {
  return std::snprintf(buf, 32, "order-%lld", static_cast<long long>(i));
}

struct RunResult {
  size_t files = 0;
  double build_keys_per_sec = 0;
  Latencies hit;
  Latencies miss;
  int64_t wrong_answers = 0;
  double disk_bytes = 0;
  double file_bytes = 0;
};

[[noreturn]] void Die(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

RunResult Run(const Config& cfg, int64_t n) {
  ScratchDir dir("index");
  IndexOptions o;
  o.dir = dir.path() + "/index";
  o.max_hash_slot_num = cfg.slots;
  o.max_index_num = cfg.entries;
  IndexService index(PosixFileSystem::Default(), Clock::Real(), o);
  if (Status s = index.Load(); !s.ok()) Die("load", s);

  RunResult r;
  char key[32];
  DispatchRequest req;
  req.topic = kTopic;
  req.size = static_cast<int32_t>(kRecordBytes);
  Progress p("build " + std::to_string(n) + " keys");
  const int64_t start = NowNanos();
  for (int64_t i = 0; i < n; ++i) {
    req.commit_log_offset = PhysicalOffset(i * kRecordBytes);
    req.store_timestamp = kBaseTimestamp + i / 100;  // 100 messages per ms
    req.keys = std::string_view(key, static_cast<size_t>(KeyOf(i, key)));
    if (Status s = index.Dispatch(req); !s.ok()) Die("dispatch", s);
    if ((i & 0xFFFFF) == 0) p.Update(static_cast<double>(i) / static_cast<double>(n));
  }
  const double secs = static_cast<double>(NowNanos() - start) / 1e9;
  p.Done();
  r.build_keys_per_sec = static_cast<double>(n) / secs;
  r.files = index.file_count();

  std::mt19937_64 rng(42);
  auto lookup = [&](bool hit, Latencies* lat) {
    const int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    const int len = hit ? KeyOf(i, key)
                        : std::snprintf(key, sizeof key, "absent-%lld", static_cast<long long>(i));
    const std::string_view k(key, static_cast<size_t>(len));
    const int64_t t0 = NowNanos();
    QueryOffsetResult q = index.QueryOffsets(kTopic, k, 64, 0, INT64_MAX);
    const int64_t t1 = NowNanos();
    if (lat) lat->Add(t1 - t0);
    // A hit must be found; any extra candidate would be a hash collision (fine, counted).
    bool found = false;
    for (PhysicalOffset off : q.phy_offsets) found |= off.value() == i * kRecordBytes;
    if (hit != found && lat) ++r.wrong_answers;
  };
  for (int64_t i = 0; i < cfg.lookups / 10; ++i) lookup(i & 1, nullptr);  // warm-up
  r.hit.Reserve(static_cast<size_t>(cfg.lookups));
  r.miss.Reserve(static_cast<size_t>(cfg.lookups));
  for (int64_t i = 0; i < cfg.lookups; ++i) {
    lookup(true, &r.hit);
    lookup(false, &r.miss);
  }

  for (const auto& f : index.Files()) {
    struct stat st;
    if (::stat(f->path().c_str(), &st) == 0) {
      r.disk_bytes += static_cast<double>(st.st_blocks) * 512;
      r.file_bytes += static_cast<double>(st.st_size);
    }
  }
  return r;
}

}  // namespace
}  // namespace rocketstore::bench

int main(int argc, char** argv) {
  using namespace rocketstore::bench;
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return FlagValue(argc, argv, i); };
    if (a == "--keys") {
      cfg.keys = ParseList<int64_t>(next());
    } else if (a == "--lookups") {
      cfg.lookups = std::stoll(next());
    } else if (a == "--slots") {
      cfg.slots = static_cast<int32_t>(std::stol(next()));
    } else if (a == "--entries") {
      cfg.entries = static_cast<int32_t>(std::stol(next()));
    } else {
      std::fprintf(stderr,
                   "usage: index_query [--keys 1000000,10000000] [--lookups 100000] "
                   "[--slots 5000000] [--entries 20000000]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  std::printf("index_query: %d slots x %d entries per file (%s), %lld lookups each, %u cores\n",
              cfg.slots, cfg.entries,
              HumanBytes(static_cast<double>(
                             rocketstore::format::IndexGeometry{cfg.slots, cfg.entries}.FileSize()))
                  .c_str(),
              static_cast<long long>(cfg.lookups), std::thread::hardware_concurrency());
  std::printf("%-10s %5s %12s | %9s %9s %9s | %9s %9s %9s | %10s %10s\n", "keys", "files",
              "build keys/s", "hit p50", "p99", "p99.9", "miss p50", "p99", "p99.9", "disk B/key",
              "file B/key");
  for (int64_t n : cfg.keys) {
    RunResult r = Run(cfg, n);
    std::printf(
        "%-10lld %5zu %12s | %9s %9s %9s | %9s %9s %9s | %10.1f %10.1f\n",
        static_cast<long long>(n), r.files, HumanRate(r.build_keys_per_sec).c_str(),
        HumanNanos(r.hit.Percentile(50)).c_str(), HumanNanos(r.hit.Percentile(99)).c_str(),
        HumanNanos(r.hit.Percentile(99.9)).c_str(), HumanNanos(r.miss.Percentile(50)).c_str(),
        HumanNanos(r.miss.Percentile(99)).c_str(), HumanNanos(r.miss.Percentile(99.9)).c_str(),
        r.disk_bytes / static_cast<double>(n), r.file_bytes / static_cast<double>(n));
    if (r.wrong_answers != 0) {
      std::printf("  ERROR: %lld lookups answered wrongly\n",
                  static_cast<long long>(r.wrong_answers));
      return 1;
    }
    std::fflush(stdout);
  }
  return 0;
}
