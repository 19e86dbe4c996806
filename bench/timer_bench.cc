// bench/timer_bench: timer messages (docs/messaging.md, "Timer messages").
//
// 1. Scheduling: puts N timer messages (256-byte bodies) through the put pipeline with the
//    TimerHook (Reputter::Put with origin kClient — the send path without sockets), their
//    times spread uniformly over [now + 1 h, now + 365 days], into a MessageStore on the
//    real file system (ASYNC_FLUSH, background services on). Reports timers scheduled per
//    second (until every one is filed in the timer index).
// 2. Memory per pending timer: bytes of <store>/timer/ per timer (disk) and the growth of
//    anonymous RSS per timer (memory: the index keeps far timers on disk only).
// 3. Lateness: schedules `rate` timers per second due during a `window`-second span
//    starting 5 s ahead, runs the TimerService twice per precision tick on its own thread, and
//    reports store-time-of-delivery - TIMER_OUT_MS at p50 / p99 / p99.9 / max.
//
//   timer_bench [--timers N] [--rate R] [--window S] [--precision MS]
// Full scale (the lead runs it): --timers 10000000 --rate 50000 --window 20.
// Scratch files go to $ROCKETSTORE_BENCH_DIR (default ./build/bench-data).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/service_runner.h"
#include "bench/bench_util.h"
#include "broker/hooks/timer_hook.h"
#include "broker/service/reput.h"
#include "broker/service/timer_service.h"
#include "broker/system_topics.h"
#include "io/posix_file_system.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "timer/timer_index.h"

using namespace rocketstore;
using namespace rocketstore::bench;
using namespace rocketstore::broker;

namespace {

int64_t RssAnonBytes() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stoll(line.substr(8)) * 1024;
  }
  return 0;
}

int64_t DirBytes(const std::string& dir) {
  int64_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file()) n += static_cast<int64_t>(e.file_size());
  }
  return n;
}

bool PutTimer(const Reputter& reput, const std::string& body, int64_t deliver_ms, int64_t i) {
  char props[160];
  std::snprintf(props, sizeof(props), "UNIQ_KEY\x01%032llX\x02TIMER_DELIVER_MS\x01%lld\x02",
                static_cast<unsigned long long>(i), static_cast<long long>(deliver_ms));
  DraftMessage d;
  d.ViewTopic("BenchTimerTopic");
  d.queue_id = static_cast<int32_t>(i % 8);
  d.ViewBody(body);
  d.ViewProperties(props);
  d.born_timestamp = Clock::Real().NowMillis();
  ReputResult r = reput.Put(PutOrigin::kClient, d);
  if (!r.stored()) std::fprintf(stderr, "put: %s\n", r.verdict.remark.c_str());
  return r.stored();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t timers = 1'000'000, rate = 50'000, window_s = 20, precision = 100;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--timers") {
      timers = std::stoll(FlagValue(argc, argv, i));
    } else if (a == "--rate") {
      rate = std::stoll(FlagValue(argc, argv, i));
    } else if (a == "--window") {
      window_s = std::stoll(FlagValue(argc, argv, i));
    } else if (a == "--precision") {
      precision = std::stoll(FlagValue(argc, argv, i));
    } else {
      std::fprintf(stderr,
                   "usage: timer_bench [--timers N] [--rate R] [--window S] "
                   "[--precision MS]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  ScratchDir dir("timer");
  Clock& clock = Clock::Real();
  timer::TimerIndex* index = nullptr;
  StoreOptions o;
  o.root_dir = dir.path();
  o.message_index_enable = false;
  o.extra_sinks.push_back([&](const SinkContext& c) -> Result<std::unique_ptr<DispatchSink>> {
    timer::TimerIndexOptions to;
    to.dir = c.root_dir + "/timer";
    to.topic = std::string(kTimerTopic);
    auto idx = std::make_unique<timer::TimerIndex>(c.fs, c.clock, to);
    index = idx.get();
    return std::unique_ptr<DispatchSink>(std::move(idx));
  });
  auto store_or = MessageStore::Open(o, PosixFileSystem::Default(), clock);
  if (!store_or.ok()) {
    std::fprintf(stderr, "open: %s\n", store_or.status().ToString().c_str());
    return 1;
  }
  MessageStore& store = **store_or;
  PutPipeline pipeline;
  TimerHookOptions ho;
  ho.precision_ms = precision;
  pipeline.Add(std::make_unique<TimerHook>(clock, ho));
  Reputter reput(store, pipeline);
  const std::string body(256, 'x');
  std::printf("timer_bench: %lld far timers, then %lld/s due for %lld s, precision %lld ms\n",
              static_cast<long long>(timers), static_cast<long long>(rate),
              static_cast<long long>(window_s), static_cast<long long>(precision));

  // --- 1 + 2: schedule far timers ---
  const int64_t rss0 = RssAnonBytes();
  const int64_t t0 = NowNanos();
  const int64_t now0 = clock.NowMillis();
  const int64_t span = int64_t{365} * 86400 * 1000 - 3600 * 1000;
  for (int64_t i = 0; i < timers; ++i) {
    if (!PutTimer(reput, body, now0 + 3600 * 1000 + (i * 7919 % timers) * (span / timers), i)) {
      return 1;
    }
  }
  while (store.DispatchBehindBytes() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double secs = static_cast<double>(NowNanos() - t0) / 1e9;
  const int64_t disk = DirBytes(dir.path() + "/timer");
  const int64_t rss = RssAnonBytes() - rss0;
  const timer::TimerIndexStats st = index->Stats();
  std::printf("schedule: %s timers/s (%lld in %.2f s)\n",
              HumanRate(static_cast<double>(timers) / secs).c_str(), static_cast<long long>(timers),
              secs);
  std::printf(
      "pending: %lld timers, %lld bucket files, %s on disk = %.1f B/timer; "
      "anon RSS +%s = %.1f B/timer; %lld entries in memory\n",
      static_cast<long long>(timers), static_cast<long long>(st.bucket_files),
      HumanBytes(static_cast<double>(disk)).c_str(),
      static_cast<double>(disk) / static_cast<double>(timers),
      HumanBytes(static_cast<double>(rss)).c_str(),
      static_cast<double>(rss) / static_cast<double>(timers), static_cast<long long>(st.in_memory));

  // --- 3: lateness while `rate` timers per second fall due ---
  TimerServiceOptions so;
  TimerService service(
      clock, *index, reput, [&store] { return store.commit_log().FlushedOffset().value(); },
      nullptr, so);
  ServiceRunner runner("timer-bench",
                       std::chrono::milliseconds(std::max<int64_t>(1, precision / 2)), [&] {
                         if (Status s = service.RunOnce(clock.NowMillis()); !s.ok()) {
                           std::fprintf(stderr, "timer step: %s\n", s.ToString().c_str());
                         }
                       });
  const int64_t due = rate * window_s;
  const int64_t start = clock.NowMillis() + 5000 + window_s * 1000;  // after scheduling
  for (int64_t i = 0; i < due; ++i) {
    if (!PutTimer(reput, body, start + i * 1000 / rate, timers + i)) return 1;
  }
  if (clock.NowMillis() >= start) {
    std::fprintf(stderr, "scheduling the due timers took longer than their lead time\n");
  }
  runner.Start();
  const int64_t before = service.stats().delivered;
  while (service.stats().delivered - before < due &&
         clock.NowMillis() < start + window_s * 1000 + 30000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  runner.Stop();
  Latencies late;
  for (int q = 0; q < 8; ++q) {
    GetMessageRequest g;
    g.group = "bench";
    g.topic = "BenchTimerTopic";
    g.queue_id = q;
    g.offset = QueueOffset(0);
    for (;;) {
      GetMessageResult got = store.GetMessage(g);
      if (got.messages.empty()) break;
      g.offset = got.next_begin_offset;
      for (const auto& m : got.messages) {
        format::DecodeResult d = format::DecodeRecord(m.bytes, false);
        auto out = format::FindProperty(d.record.properties, "TIMER_OUT_MS");
        if (out) late.Add((d.record.store_timestamp - std::stoll(std::string(*out))) * 1000000);
      }
    }
  }
  std::printf("lateness (%lld of %lld delivered): p50 %s  p99 %s  p99.9 %s  max %s\n",
              static_cast<long long>(late.count()), static_cast<long long>(due),
              HumanNanos(late.Percentile(50)).c_str(), HumanNanos(late.Percentile(99)).c_str(),
              HumanNanos(late.Percentile(99.9)).c_str(), HumanNanos(late.Percentile(100)).c_str());
  Status c = store.Close();
  if (!c.ok()) std::fprintf(stderr, "close: %s\n", c.ToString().c_str());
  return late.count() == static_cast<size_t>(due) ? 0 : 1;
}
