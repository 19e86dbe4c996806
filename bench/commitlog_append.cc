// bench/commitlog_append: how fast can producers append to the CommitLog?
//
// For each body size (128 B, 1 KiB, 4 KiB) it first measures the raw bound on this
// machine: a single thread memcpy-appending records of the same size into a fresh
// mmap'd file of the segment size (no store logic at all). Then it runs the real
// CommitLog (ASYNC_FLUSH: flusher every 500 ms, segment preparer running) with 1, 4 and
// 64 producer threads and prints msgs/s, MiB/s, put latency percentiles and the ratio to
// the raw bound.
//
// SYNC_FLUSH (--mode sync): 1 KiB messages from 1, 8, 64 and 256 producers through the
// MessageStore with group commit; put->durable latency, messages per fsync, and the raw
// bound measured in the same run, interleaved with each case in slices: a 4 KiB
// pwrite+fdatasync loop at queue depth 1.
//
//   commitlog_append [--mode async|sync|both] [--seconds S] [--sizes 128,1024,4096]
//                    [--threads 1,4,64] [--sync-threads 1,8,64,256]
//                    [--sync-method fdatasync|msync] [--no-zero-fill] [--segment-mib 1024]
//                    [--resident-mib N] [--memory as-is|warm|cold] [--rounds N]
//                    [--slice-ms 250]
// Scratch files go to $ROCKETSTORE_BENCH_DIR (default ./build/bench-data).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

#include "base/clock.h"
#include "base/service_runner.h"
#include "bench/bench_util.h"
#include "io/posix_file_system.h"
#include "store/commitlog/commit_log.h"
#include "store/flush/async_flusher.h"
#include "store/message_store.h"

namespace rocketstore::bench {
namespace {

struct Config {
  double seconds = 2.0;
  std::vector<int> sizes = {128, 1024, 4096};
  std::vector<int> threads = {1, 4, 64};
  int64_t segment_size = int64_t{1} << 30;
  std::string mode = "both";
  std::vector<int> sync_threads = {1, 8, 64, 256};
  std::string sync_producers = "both";  // threads | async | both
  FlushMethod sync_method = FlushMethod::kFdatasync;
  bool zero_fill = true;  // --no-zero-fill: SYNC_FLUSH flushes into unwritten extents
  // --resident-mib: commit log page cache kept behind the writer; -1: the store's default
  // (accessMessageInMemoryMaxRatio of physical memory).
  int64_t resident_bytes = -1;
  // --memory: the state of the machine's memory when each raw or store case starts (see
  // PrepareMemory).
  std::string memory = "as-is";
  int rounds = 1;  // --rounds (sync mode): cases repeated, median of the ratios
  // --slice-ms (sync mode): store slices alternate with raw-loop slices this long.
  int64_t slice_nanos = 250'000'000;
  bool flush = true;    // --no-flush: diagnostics only (no background flusher)
  bool prepare = true;  // --no-prepare: diagnostics only (no segment preparer)
};

const std::string kTopic = "BenchTopic";
const std::string kProps = std::string("TAGS\x01TagA\x02KEYS\x01key-0001", 22);

format::MessageToStore MakeMessage(const std::string& body, int queue) {
  format::MessageToStore m;
  m.topic = kTopic;
  m.queue_id = queue;
  m.body = body;
  m.properties = kProps;
  m.born_timestamp = 1700000000000;
  m.born_host = format::HostAddress::V4(127, 0, 0, 1, 50000);
  m.store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
  return m;
}

// Both the raw loop and the store run stop after this many bytes (or at the deadline):
// about two segments, so each crosses one roll and both draw on the same amount of fresh
// page-cache memory (on this VM the cost of memory differs between the first and the
// second GiB a process touches; a raw loop over one segment against a store run over two
// compared different memory).
int64_t ByteBudget(const Config& cfg) { return cfg.segment_size * 2 - (64 << 20); }

// On a VM whose host backs guest memory lazily and takes freed memory back after a few
// seconds, what a case costs depends on the memory it is handed (docs/benchmarks.md):
// memory freed a moment ago is cheap to touch, memory idle for ~10 s is not. A case run
// right after another reuses what that one freed. `--memory` sets the state explicitly,
// the same for the raw loop and the store, so their ratio compares code with code:
//   as-is  nothing (whatever the previous case left),
//   warm   just before the case, write and delete a scratch file of the case's byte
//          budget through a map: the case reuses page-cache memory just freed (a
//          long-running broker whose page cache is full appends into recycled memory),
//   cold   sleep 10 s first: the case meets memory the host has taken back (a freshly
//          booted machine's first gigabytes).
void PrepareMemory(const Config& cfg) {
  if (cfg.memory == "cold") {
    std::this_thread::sleep_for(std::chrono::seconds(10));
  } else if (cfg.memory == "warm") {
    ScratchDir dir("warm");
    const size_t len = static_cast<size_t>(ByteBudget(cfg));
    const std::string path = dir.path() + "/warm";
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(len)) != 0) {
      std::perror("warm-up file");
      std::exit(1);
    }
    void* base = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
      std::perror("mmap");
      std::exit(1);
    }
    std::memset(base, 1, len);
    ::munmap(base, len);
    ::close(fd);
  }  // ScratchDir's destructor deletes the file: its page cache is freed here.
}

// The raw bound: memcpy records into fresh MAP_SHARED file mappings of the segment size,
// one thread, a new file when one is full, up to the same byte budget as the store run.
double RawBoundMsgsPerSec(const Config& cfg, size_t record_size) {
  ScratchDir dir("raw");
  const size_t seg = static_cast<size_t>(cfg.segment_size);
  std::vector<uint8_t> record(record_size, 0x5A);
  const int64_t budget = ByteBudget(cfg);
  const int64_t deadline = NowNanos() + static_cast<int64_t>(cfg.seconds * 1e9);
  int64_t n = 0, bytes = 0;
  int64_t elapsed = 0;
  for (int file = 0; bytes + static_cast<int64_t>(record_size) <= budget; ++file) {
    // File creation and mapping happen outside the timed part, as the store's preparer
    // creates its next segment off the hot path.
    const std::string path = dir.path() + "/raw" + std::to_string(file);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::ftruncate(fd, cfg.segment_size) != 0) {
      std::perror("raw bound file");
      std::exit(1);
    }
    auto* base =
        static_cast<uint8_t*>(::mmap(nullptr, seg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    if (base == MAP_FAILED) {
      std::perror("mmap");
      std::exit(1);
    }
    const int64_t start = NowNanos();
    size_t pos = 0;
    bool out_of_time = false;
    while (pos + record_size <= seg && bytes + static_cast<int64_t>(record_size) <= budget) {
      std::memcpy(base + pos, record.data(), record_size);
      pos += record_size;
      bytes += static_cast<int64_t>(record_size);
      ++n;
      if ((n & 1023) == 0 && NowNanos() > deadline) {
        out_of_time = true;
        break;
      }
    }
    elapsed += NowNanos() - start;
    ::munmap(base, seg);
    ::close(fd);
    if (out_of_time || pos + record_size <= seg) break;
  }
  return static_cast<double>(n) / (static_cast<double>(elapsed) / 1e9);
}

struct RunResult {
  double msgs_per_sec = 0;
  double bytes_per_sec = 0;
  Latencies latencies;
};

RunResult RunStore(const Config& cfg, int body_size, int threads) {
  ScratchDir dir("store");
  StoreHealth health;
  CommitLogOptions o;
  o.dir = dir.path() + "/commitlog";
  o.segment_size = cfg.segment_size;
  {
    StoreOptions defaults;
    defaults.commit_log_resident_window_bytes = cfg.resident_bytes;
    o.resident_window_bytes =
        defaults.ResidentWindowBytes(static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                                     static_cast<uint64_t>(::sysconf(_SC_PAGE_SIZE)));
  }
  auto log_or = CommitLog::Open(PosixFileSystem::Default(), o, Clock::Real(), health);
  if (!log_or.ok()) {
    std::fprintf(stderr, "open: %s\n", log_or.status().ToString().c_str());
    std::exit(1);
  }
  CommitLog& log = **log_or;
  AsyncFlusher flusher(log.segments(), health, AsyncFlusher::Options{});
  ServiceRunner flush_runner("flush", std::chrono::milliseconds(500),
                             [&] { (void)flusher.RunOnce(Clock::Real().NowMillis()); });
  ServiceRunner prepare_runner("prepare", std::chrono::milliseconds(1),
                               [&] { (void)log.segments().PrepareNext(); });
  // Create and warm the first segment before timing, as a running broker would have.
  {
    auto first = log.segments().GetWritableFile(PhysicalOffset(0));
    if (!first.ok()) std::exit(1);
    (void)log.segments().PrepareNext();
  }
  if (cfg.flush) flush_runner.Start();
  if (cfg.prepare) prepare_runner.Start();

  const std::string body(static_cast<size_t>(body_size), 'x');
  std::atomic<bool> go{false};
  std::atomic<int64_t> total_msgs{0};
  std::atomic<int64_t> total_bytes{0};
  std::vector<Latencies> lat(static_cast<size_t>(threads));
  const int64_t budget_bytes = ByteBudget(cfg);
  std::vector<std::thread> workers;
  int64_t start = 0, deadline = 0;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      format::MessageToStore m = MakeMessage(body, t % 8);
      lat[static_cast<size_t>(t)].Reserve(1 << 20);
      while (!go.load(std::memory_order_acquire)) {
      }
      int64_t n = 0, bytes = 0;
      // Reading the clock costs ~26 ns here, a tenth of a warm put: timing every put
      // would slow the store down by what the raw loop never pays. So a pseudo-random
      // one put in eight is timed (random, so that the sample does not beat with the
      // records-per-page pattern of page faults); percentiles come from the sample.
      uint32_t rng = 0x9E3779B9u * static_cast<uint32_t>(t + 1);
      while (true) {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        const bool timed = (rng & 7) == 0;
        const int64_t t0 = timed ? NowNanos() : 0;
        PutMessageResult r = log.Put(m);
        if (timed) lat[static_cast<size_t>(t)].Add(NowNanos() - t0);
        if (!r.ok()) {
          std::fprintf(stderr, "put: %s %s\n", std::string(PutMessageStatusName(r.status)).c_str(),
                       r.error.c_str());
          std::exit(1);
        }
        ++n;
        bytes += r.total_bytes;
        if ((n & 63) == 0) {
          if (NowNanos() > deadline) break;
          if (total_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes > budget_bytes) {
            bytes = 0;
            break;
          }
          total_msgs.fetch_add(n, std::memory_order_relaxed);
          n = 0;
          bytes = 0;
        }
      }
      total_msgs.fetch_add(n, std::memory_order_relaxed);
      total_bytes.fetch_add(bytes, std::memory_order_relaxed);
    });
  }
  struct rusage ru0;
  getrusage(RUSAGE_SELF, &ru0);
  start = NowNanos();
  deadline = start + static_cast<int64_t>(cfg.seconds * 1e9);
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  const double secs = static_cast<double>(NowNanos() - start) / 1e9;
  struct rusage ru1;
  getrusage(RUSAGE_SELF, &ru1);
  if (std::getenv("BENCH_DEBUG")) {
    std::fprintf(stderr, "minor faults %ld major %ld\n", ru1.ru_minflt - ru0.ru_minflt,
                 ru1.ru_majflt - ru0.ru_majflt);
  }
  prepare_runner.Stop();
  flush_runner.Stop();

  RunResult result;
  result.msgs_per_sec = static_cast<double>(total_msgs.load()) / secs;
  result.bytes_per_sec = static_cast<double>(total_bytes.load()) / secs;
  for (auto& l : lat) result.latencies.Merge(l);
  return result;
}

// The disk under this VM changes speed by 2-3x within seconds (a qd-1 loop measured 200 us
// per sync, then 360 us three seconds later), so a raw loop run before a store case says
// little about the disk the case met. Each store case therefore runs in slices of
// --slice-ms: after every store slice its producers are parked and the append loop, then
// the overwrite loop, run for as long. Store and raw loops see the same disk, and the
// ratio compares code with code. Between slices the store is idle, but its background
// threads may still finish work (zero fill, dispatch); that lands mostly in the append
// slice right after, and the ratio uses the faster loop.
void RunRawSlices(const Config& cfg, RawSyncLoops& raw) {
  raw.RunSlice(/*overwrite=*/false, cfg.slice_nanos);
  raw.RunSlice(/*overwrite=*/true, cfg.slice_nanos);
}

struct SyncResult {
  double msgs_per_sec = 0;
  double msgs_per_fsync = 0;
  int64_t avg_flush_nanos = 0;
  Latencies latencies;
};

std::unique_ptr<MessageStore> OpenSyncStore(const Config& cfg, const std::string& root) {
  StoreOptions o;
  o.root_dir = root;
  o.commit_log_segment_size = cfg.segment_size;
  o.flush_disk_type = FlushDiskType::kSyncFlush;
  o.sync_flush_method = cfg.sync_method;
  o.sync_flush_zero_fill = cfg.zero_fill;
  o.commit_log_resident_window_bytes = cfg.resident_bytes;
  auto store_or = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
  if (!store_or.ok()) {
    std::fprintf(stderr, "open: %s\n", store_or.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*store_or);
}

// The group commit's counters when a timed run starts; Finish() closes the store and turns
// them into the run's result.
class SyncRun {
 public:
  explicit SyncRun(MessageStore& store)
      : store_(store), flushes0_(store.sync_flush_count()), flush_ns0_(store.sync_flush_nanos()) {}

  SyncResult Finish(int64_t messages, double secs, Latencies latencies) {
    SyncResult r;
    const int64_t flushes = store_.sync_flush_count() - flushes0_;
    r.avg_flush_nanos = flushes > 0 ? (store_.sync_flush_nanos() - flush_ns0_) / flushes : 0;
    (void)store_.Close();
    r.msgs_per_sec = static_cast<double>(messages) / secs;
    r.msgs_per_fsync =
        flushes > 0 ? static_cast<double>(messages) / static_cast<double>(flushes) : 0;
    r.latencies = std::move(latencies);
    return r;
  }

 private:
  MessageStore& store_;
  const int64_t flushes0_;
  const int64_t flush_ns0_;
};

// Producers as threads: each calls the blocking PutMessage in a loop while a slice is
// open, then waits for the next slice.
SyncResult RunSyncStore(const Config& cfg, int threads, RawSyncLoops& raw) {
  ScratchDir dir("syncstore");
  std::unique_ptr<MessageStore> owned = OpenSyncStore(cfg, dir.path());
  MessageStore& store = *owned;
  const std::string body(1024, 'x');
  std::mutex mu;
  std::condition_variable cv;
  int64_t slice = 0;  // GUARDED_BY(mu): bumped to open the next slice
  int parked = 0;     // GUARDED_BY(mu): producers done with the current slice
  bool stop = false;  // GUARDED_BY(mu)
  std::atomic<int64_t> deadline{0};
  std::atomic<int64_t> total{0};
  std::vector<Latencies> lat(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      format::MessageToStore m = MakeMessage(body, t % 8);
      int64_t seen = 0;
      while (true) {
        {
          std::unique_lock<std::mutex> l(mu);
          cv.wait(l, [&] { return stop || slice != seen; });
          if (stop) return;
          seen = slice;
        }
        const int64_t until = deadline.load(std::memory_order_acquire);
        int64_t n = 0;
        while (true) {
          const int64_t t0 = NowNanos();
          PutMessageResult r = store.PutMessage(m);
          const int64_t t1 = NowNanos();
          if (!r.ok()) {
            std::fprintf(stderr, "put: %s %s\n",
                         std::string(PutMessageStatusName(r.status)).c_str(), r.error.c_str());
            std::exit(1);
          }
          lat[static_cast<size_t>(t)].Add(t1 - t0);
          ++n;
          if (t1 >= until) break;
        }
        total.fetch_add(n);
        {
          std::lock_guard<std::mutex> l(mu);
          ++parked;
        }
        cv.notify_all();
      }
    });
  }
  SyncRun run(store);
  const int64_t target = static_cast<int64_t>(cfg.seconds * 1e9);
  int64_t store_nanos = 0;
  while (store_nanos < target) {
    const int64_t start = NowNanos();
    {
      std::lock_guard<std::mutex> l(mu);
      parked = 0;
      deadline.store(start + cfg.slice_nanos, std::memory_order_release);
      ++slice;
    }
    cv.notify_all();
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return parked == threads; });
    }
    store_nanos += NowNanos() - start;
    RunRawSlices(cfg, raw);
  }
  {
    std::lock_guard<std::mutex> l(mu);
    stop = true;
  }
  cv.notify_all();
  for (auto& w : workers) w.join();
  Latencies all;
  for (auto& l : lat) all.Merge(l);
  return run.Finish(total.load(), static_cast<double>(store_nanos) / 1e9, std::move(all));
}

// Producers as the broker serves them: each has one put in flight and sends the next when
// the store says the last one is durable (PutMessageAsync); no thread per producer. A
// producer whose answer arrives after the slice's deadline is parked until the next.
SyncResult RunSyncStoreAsync(const Config& cfg, int producers, RawSyncLoops& raw) {
  ScratchDir dir("syncstore");
  std::unique_ptr<MessageStore> owned = OpenSyncStore(cfg, dir.path());
  MessageStore& store = *owned;
  const std::string body(1024, 'x');
  struct Producer {
    format::MessageToStore message;
    int64_t sent_at = 0;
    Latencies latencies;
  };
  std::vector<Producer> prod(static_cast<size_t>(producers));
  std::mutex mu;
  std::condition_variable cv;
  std::vector<size_t> parked;  // GUARDED_BY(mu)
  std::atomic<int64_t> deadline{0};
  std::atomic<int64_t> total{0};
  std::atomic<bool> failed{false};
  std::function<void(size_t)> send = [&](size_t p) {
    prod[p].sent_at = NowNanos();
    store.PutMessageAsync(prod[p].message, true, [&, p](PutMessageResult r) {
      const int64_t now = NowNanos();
      if (!r.ok()) {
        std::fprintf(stderr, "put: %s %s\n", std::string(PutMessageStatusName(r.status)).c_str(),
                     r.error.c_str());
        failed = true;
      }
      prod[p].latencies.Add(now - prod[p].sent_at);
      total.fetch_add(1, std::memory_order_relaxed);
      if (now < deadline.load(std::memory_order_acquire) && !failed.load()) {
        send(p);
        return;
      }
      {
        std::lock_guard<std::mutex> l(mu);
        parked.push_back(p);
      }
      cv.notify_one();
    });
  };
  for (size_t p = 0; p < prod.size(); ++p) {
    prod[p].message = MakeMessage(body, static_cast<int>(p % 8));
    prod[p].latencies.Reserve(1 << 16);
    parked.push_back(p);
  }
  SyncRun run(store);
  const int64_t target = static_cast<int64_t>(cfg.seconds * 1e9);
  int64_t store_nanos = 0;
  while (store_nanos < target && !failed.load()) {
    std::vector<size_t> go;
    {
      std::lock_guard<std::mutex> l(mu);
      go.swap(parked);
    }
    const int64_t start = NowNanos();
    deadline.store(start + cfg.slice_nanos, std::memory_order_release);
    for (size_t p : go) send(p);
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return parked.size() == prod.size(); });
    }
    store_nanos += NowNanos() - start;
    RunRawSlices(cfg, raw);
  }
  if (failed.load()) std::exit(1);
  Latencies all;
  for (auto& p : prod) all.Merge(p.latencies);
  return run.Finish(total.load(), static_cast<double>(store_nanos) / 1e9, std::move(all));
}

// One round: every store case, each interleaved with its own raw loops (RunRawSlices) and
// its ratio taken against the faster of them. Returns (label, (msgs/s, ratio)) per case, in
// the order run.
std::vector<std::pair<std::string, std::pair<double, double>>> RunSyncRound(const Config& cfg) {
  std::vector<std::pair<std::string, std::pair<double, double>>> rates;
  std::printf("%-9s %10s %10s %10s %10s %10s %10s %9s %9s %7s\n", "producers", "msgs/s", "p50",
              "p99", "p99.9", "msgs/fsync", "fsync", "raw app", "raw ovw", "vs raw");
  std::vector<std::string> models;
  if (cfg.sync_producers != "async") models.push_back("threads");
  if (cfg.sync_producers != "threads") models.push_back("async");
  for (const std::string& model : models) {
    for (int t : cfg.sync_threads) {
      Progress pr("sync store x " + std::to_string(t) + " " + model + " producers + raw loops");
      pr.Update(0);
      RawSyncLoops raw;
      SyncResult r = model == "async" ? RunSyncStoreAsync(cfg, t, raw) : RunSyncStore(cfg, t, raw);
      pr.Done();
      const double raw_append = raw.Rate(/*overwrite=*/false);
      const double raw_overwrite = raw.Rate(/*overwrite=*/true);
      const double ratio = r.msgs_per_sec / std::max(raw_append, raw_overwrite);
      const std::string label = std::to_string(t) + (model == "async" ? " async" : " thr");
      std::printf("%-9s %10s %10s %10s %10s %10.1f %10s %9s %9s %7.2f\n", label.c_str(),
                  HumanRate(r.msgs_per_sec).c_str(), HumanNanos(r.latencies.Percentile(50)).c_str(),
                  HumanNanos(r.latencies.Percentile(99)).c_str(),
                  HumanNanos(r.latencies.Percentile(99.9)).c_str(), r.msgs_per_fsync,
                  HumanNanos(r.avg_flush_nanos).c_str(), HumanRate(raw_append).c_str(),
                  HumanRate(raw_overwrite).c_str(), ratio);
      std::fflush(stdout);
      rates.push_back({label, {r.msgs_per_sec, ratio}});
    }
  }
  return rates;
}

// --rounds N repeats every case N times and summarises the ratios (each taken against the
// raw loops interleaved with that run).
void RunSyncMode(const Config& cfg) {
  std::printf(
      "\nSYNC_FLUSH (group commit, %s, zero fill %s), 1 KiB bodies, %.1f s of store per case\n"
      "in slices of %.0f ms, each followed by as long of the raw append and overwrite loops\n",
      cfg.sync_method == FlushMethod::kFdatasync ? "fdatasync" : "msync",
      cfg.zero_fill ? "on" : "off", cfg.seconds, static_cast<double>(cfg.slice_nanos) / 1e6);
  std::map<std::string, std::vector<std::pair<double, double>>> all;
  std::vector<std::string> order;
  for (int round = 1; round <= cfg.rounds; ++round) {
    if (cfg.rounds > 1) std::printf("-- round %d of %d\n", round, cfg.rounds);
    for (const auto& [label, rr] : RunSyncRound(cfg)) {
      if (all.find(label) == all.end()) order.push_back(label);
      all[label].push_back(rr);
    }
  }
  if (cfg.rounds > 1) {
    std::printf("-- %d rounds: median msgs/s, and the ratio to each run's own raw loops\n",
                cfg.rounds);
    std::printf("%-9s %12s %9s %9s %9s\n", "producers", "msgs/s", "median", "min", "max");
    for (const std::string& label : order) {
      std::vector<double> rates, ratios;
      for (const auto& [rate, ratio] : all[label]) {
        rates.push_back(rate);
        ratios.push_back(ratio);
      }
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const size_t n = v.size();
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
      };
      std::printf("%-9s %12s %9.2f %9.2f %9.2f\n", label.c_str(), HumanRate(median(rates)).c_str(),
                  median(ratios), *std::min_element(ratios.begin(), ratios.end()),
                  *std::max_element(ratios.begin(), ratios.end()));
    }
  }
  std::printf(
      "producers: 'thr' = one thread per producer calling the blocking PutMessage;\n"
      "'async' = one put in flight per producer via PutMessageAsync, the next sent from\n"
      "the durability callback (how the broker serves producer connections).\n");
}

}  // namespace
}  // namespace rocketstore::bench

int main(int argc, char** argv) {
  using namespace rocketstore::bench;
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return FlagValue(argc, argv, i); };
    if (a == "--seconds")
      cfg.seconds = std::stod(next());
    else if (a == "--sizes")
      cfg.sizes = ParseList(next());
    else if (a == "--threads")
      cfg.threads = ParseList(next());
    else if (a == "--segment-mib")
      cfg.segment_size = std::stoll(next()) << 20;
    else if (a == "--rounds")
      cfg.rounds = std::max(1, std::stoi(next()));
    else if (a == "--slice-ms")
      cfg.slice_nanos = std::max<int64_t>(1, std::stoll(next())) * 1'000'000;
    else if (a == "--memory")
      cfg.memory = next();
    else if (a == "--no-flush")
      cfg.flush = false;
    else if (a == "--no-prepare")
      cfg.prepare = false;
    else if (a == "--mode")
      cfg.mode = next();
    else if (a == "--sync-threads")
      cfg.sync_threads = ParseList(next());
    else if (a == "--sync-producers")
      cfg.sync_producers = next();
    else if (a == "--no-zero-fill")
      cfg.zero_fill = false;
    else if (a == "--resident-mib")
      cfg.resident_bytes = std::stoll(next()) << 20;
    else if (a == "--sync-method")
      cfg.sync_method = std::string(next()) == "msync" ? rocketstore::FlushMethod::kMsync
                                                       : rocketstore::FlushMethod::kFdatasync;
    else {
      std::fprintf(
          stderr,
          "usage: commitlog_append [--mode async|sync|both] [--seconds S] "
          "[--sizes 128,1024,4096] [--threads 1,4,64] [--sync-threads 1,8,64,256] "
          "[--sync-producers threads|async|both] [--sync-method fdatasync|msync] "
          "[--no-zero-fill] [--segment-mib 1024] [--resident-mib N] [--memory as-is|warm|cold] "
          "[--rounds N] [--slice-ms 250]\n"
          "  --slice-ms: sync mode runs each store case in slices this long, each followed by "
          "as long of the raw append and overwrite fdatasync loops, so both meet the same disk "
          "(its speed drifts 2-3x within seconds on a VM)\n"
          "  --rounds: sync mode runs every case N times and prints the median ratio\n"
          "  --memory: memory state before each raw and store case (async mode): as-is = "
          "what the previous case left; warm = reuse page cache just freed (a busy broker); "
          "cold = wait 10 s so the VM's host reclaims freed memory (a fresh machine)\n"
          "  --resident-mib: commit log page cache kept behind the writer; older "
          "flushed pages are dropped so appends reuse freed memory (0 = keep all; "
          "default: 40 %% of physical memory, RocketMQ's accessMessageInMemoryMaxRatio)\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (cfg.memory != "as-is" && cfg.memory != "warm" && cfg.memory != "cold") {
    std::fprintf(stderr, "--memory must be as-is, warm or cold (got '%s')\n", cfg.memory.c_str());
    return 2;
  }
  if (cfg.mode == "sync") {
    RunSyncMode(cfg);
    return 0;
  }
  std::printf("commitlog_append: ASYNC_FLUSH, %s segments, %.1f s per case, %u cores, memory %s\n",
              HumanBytes(static_cast<double>(cfg.segment_size)).c_str(), cfg.seconds,
              std::thread::hardware_concurrency(), cfg.memory.c_str());
  std::printf("%-6s %-7s %12s %11s %10s %10s %10s %9s\n", "body", "threads", "msgs/s", "MiB/s",
              "p50", "p99", "p99.9", "vs raw");
  for (int size : cfg.sizes) {
    const std::string body(static_cast<size_t>(size), 'x');
    const size_t record_size = rocketstore::format::EncodedRecordSize(MakeMessage(body, 0));
    Progress p("raw bound " + std::to_string(size) + " B");
    p.Update(0);
    PrepareMemory(cfg);
    const double raw = RawBoundMsgsPerSec(cfg, record_size);
    p.Done();
    std::printf("%-6d %-7s %12s %11.0f %10s %10s %10s %9s\n", size, "raw", HumanRate(raw).c_str(),
                raw * static_cast<double>(record_size) / (1 << 20), "-", "-", "-", "1.00");
    for (int t : cfg.threads) {
      Progress pr("store " + std::to_string(size) + " B x " + std::to_string(t) + " threads");
      pr.Update(0);
      PrepareMemory(cfg);
      RunResult r = RunStore(cfg, size, t);
      pr.Done();
      std::printf("%-6d %-7d %12s %11.0f %10s %10s %10s %9.2f\n", size, t,
                  HumanRate(r.msgs_per_sec).c_str(), r.bytes_per_sec / (1 << 20),
                  HumanNanos(r.latencies.Percentile(50)).c_str(),
                  HumanNanos(r.latencies.Percentile(99)).c_str(),
                  HumanNanos(r.latencies.Percentile(99.9)).c_str(), r.msgs_per_sec / raw);
      std::fflush(stdout);
    }
  }
  if (cfg.mode == "both") RunSyncMode(cfg);
  return 0;
}
