// bench/consume_read: how fast can consumers read through the ConsumeQueue, and does the
// dispatcher keep up with producers?
//
// 1. Appends N x 1 KiB messages over 8 queues at full speed through MessageStore
//    (ASYNC_FLUSH, background services on), sampling the dispatcher's lag every 1 ms.
//    Reports the append rate, the dispatcher's units/s and its maximum lag.
// 2. Reads everything back, warm (the data is in the page cache), one thread, in batches
//    of 32 via GetMessage, queue after queue. Reports msgs/s, MiB/s and GetMessage
//    p50/p99/p99.9.
// 3. Dispatch alone: closes the store, reopens it twice (the second open's time is T1),
//    closes it, deletes the
//    consume queues, the index and the checkpoint, and reopens it again (T2): that open
//    re-dispatches the whole log before it returns, with nothing else running.
//    Reports messages / (T2 - T1) — how fast the consume queues and the index are rebuilt.
// 4. Restart after a crash (with the index): opens the store and drops it without Close —
//    `abort` stays, holding this boot's id — and times the next open (a process crash:
//    the index is cut by undo); then the same with the abort file emptied, as RocketMQ
//    leaves it (treated as a power loss: the last index file's slot table is rebuilt).
//
//   consume_read [--messages N] [--queues Q] [--batch B] [--no-index]
// Scratch files go to $ROCKETSTORE_BENCH_DIR (default ./build/bench-data).
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "base/clock.h"
#include "bench/bench_util.h"
#include "io/posix_file_system.h"
#include "store/message_store.h"

using namespace rocketstore;
using namespace rocketstore::bench;

int main(int argc, char** argv) {
  int64_t messages = int64_t{4} << 20;
  int queues = 8;
  int batch = 32;
  bool index = true;  // --no-index: measure the append rate without the IndexFile sink
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--messages" && i + 1 < argc) {
      messages = std::stoll(argv[++i]);
    } else if (a == "--queues" && i + 1 < argc) {
      queues = std::stoi(argv[++i]);
    } else if (a == "--no-index") {
      index = false;
    } else if (a == "--batch" && i + 1 < argc) {
      batch = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: consume_read [--messages N] [--queues Q] [--batch B] [--no-index]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  ScratchDir dir("consume");
  StoreOptions o;
  o.root_dir = dir.path();
  o.message_index_enable = index;
  auto store_or = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
  if (!store_or.ok()) {
    std::fprintf(stderr, "open: %s\n", store_or.status().ToString().c_str());
    return 1;
  }
  MessageStore& store = **store_or;
  std::printf("consume_read: %lld x 1 KiB messages over %d queues, batches of %d, %u cores\n",
              static_cast<long long>(messages), queues, batch, std::thread::hardware_concurrency());

  // --- 1. append at full speed while sampling the dispatcher's lag ---
  const std::string body(1024, 'x');
  // Properties as clients send them: a tag, a business key and a unique UNIQ_KEY (the Java
  // client's 32-hex-digit message id), so the index gets two distinct keys per message.
  char props[128];
  std::atomic<bool> producing{true};
  std::atomic<int64_t> max_lag{0};
  std::thread sampler([&] {
    while (producing.load()) {
      const int64_t lag = store.DispatchBehindBytes();
      if (lag > max_lag.load()) max_lag.store(lag);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  Progress progress("appending");
  const int64_t t0 = NowNanos();
  for (int64_t i = 0; i < messages; ++i) {
    format::MessageToStore m;
    m.topic = "BenchTopic";
    m.queue_id = static_cast<int32_t>(i % queues);
    m.body = body;
    const int props_len = std::snprintf(
        props, sizeof(props), "TAGS\x01TagA\x02KEYS\x01order-%lld\x02UNIQ_KEY\x01%016llX%016llX",
        static_cast<long long>(i), 0x7F0000012A9F0000ULL, static_cast<unsigned long long>(i));
    m.properties = std::string_view(props, static_cast<size_t>(props_len));
    m.born_timestamp = 1700000000000;
    m.born_host = format::HostAddress::V4(127, 0, 0, 1, 50000);
    m.store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
    PutMessageResult r = store.PutMessage(m);
    if (!r.ok()) {
      std::fprintf(stderr, "put: %s\n", r.error.c_str());
      return 1;
    }
    if ((i & 0xFFFF) == 0) progress.Update(static_cast<double>(i) / static_cast<double>(messages));
  }
  const int64_t t_appended = NowNanos();
  while (store.DispatchBehindBytes() > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  const int64_t t_dispatched = NowNanos();
  producing.store(false);
  sampler.join();
  progress.Done();
  const double append_s = static_cast<double>(t_appended - t0) / 1e9;
  const double dispatch_s = static_cast<double>(t_dispatched - t0) / 1e9;
  std::printf("append        %10s msgs/s  %8.0f MiB/s\n",
              HumanRate(static_cast<double>(messages) / append_s).c_str(),
              static_cast<double>(messages) * 1024 / append_s / (1 << 20));
  std::printf("dispatch      %10s units/s  max lag %s, caught up %s after the last put\n",
              HumanRate(static_cast<double>(messages) / dispatch_s).c_str(),
              HumanBytes(static_cast<double>(max_lag.load())).c_str(),
              HumanNanos(t_dispatched - t_appended).c_str());

  // --- 2. read everything back through the consume queues, warm ---
  Latencies lat;
  lat.Reserve(static_cast<size_t>(messages / batch + queues * 2));
  int64_t read = 0, bytes = 0;
  Progress reading("reading");
  const int64_t r0 = NowNanos();
  for (int q = 0; q < queues; ++q) {
    GetMessageRequest req;
    req.group = "BenchGroup";
    req.topic = "BenchTopic";
    req.queue_id = q;
    req.max_msg_nums = batch;
    QueueOffset offset(0);
    while (true) {
      req.offset = offset;
      const int64_t a = NowNanos();
      GetMessageResult r = store.GetMessage(req);
      lat.Add(NowNanos() - a);
      if (r.status != GetMessageStatus::kFound) break;
      read += static_cast<int64_t>(r.messages.size());
      bytes += r.total_bytes;
      offset = r.next_begin_offset;
    }
    reading.Update(static_cast<double>(q + 1) / queues);
  }
  const double read_s = static_cast<double>(NowNanos() - r0) / 1e9;
  reading.Done();
  if (read != messages) {
    std::fprintf(stderr, "read %lld messages, expected %lld\n", static_cast<long long>(read),
                 static_cast<long long>(messages));
    return 1;
  }
  std::printf("read (warm)   %10s msgs/s  %8.0f MiB/s  GetMessage p50 %s p99 %s p99.9 %s\n",
              HumanRate(static_cast<double>(read) / read_s).c_str(),
              static_cast<double>(bytes) / read_s / (1 << 20),
              HumanNanos(lat.Percentile(50)).c_str(), HumanNanos(lat.Percentile(99)).c_str(),
              HumanNanos(lat.Percentile(99.9)).c_str());
  (void)store.Close();
  (*store_or).reset();  // unmaps everything and releases the store lock

  // --- 3. dispatch alone: rebuild the consume queues and the index from the log ---
  Progress rebuilding("rebuilding consume queues and index");
  rebuilding.Update(0);
  auto timed_open = [&]() -> int64_t {
    const int64_t t = NowNanos();
    auto reopened = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
    const int64_t took = NowNanos() - t;
    if (!reopened.ok()) {
      std::fprintf(stderr, "reopen: %s\n", reopened.status().ToString().c_str());
      std::exit(1);
    }
    (void)(*reopened)->Close();
    return took;
  };
  (void)timed_open();  // the first reopen also finishes writing back what the run left dirty
  const int64_t plain_open = timed_open();
  rebuilding.Update(0.5);
  std::filesystem::remove_all(dir.path() + "/" + kConsumeQueueDirName);
  std::filesystem::remove_all(dir.path() + "/index");
  std::filesystem::remove(dir.path() + "/checkpoint");
  const int64_t rebuild_open = timed_open();
  rebuilding.Done();
  const double rebuild_s =
      static_cast<double>(std::max<int64_t>(1, rebuild_open - plain_open)) / 1e9;
  std::printf(
      "rebuild       %10s units/s  (dispatch alone%s: reopen %s, with consume queues%s "
      "removed %s)\n",
      HumanRate(static_cast<double>(messages) / rebuild_s).c_str(),
      index ? " into consume queues + index" : "", HumanNanos(plain_open).c_str(),
      index ? ", index" : "", HumanNanos(rebuild_open).c_str());

  // --- 4. restart after a crash: the index cut by undo, or its slot table rebuilt ---
  if (index) {
    for (bool as_power_loss : {false, true}) {
      {
        auto crashing = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
        if (!crashing.ok()) {
          std::fprintf(stderr, "open: %s\n", crashing.status().ToString().c_str());
          return 1;
        }
      }  // dropped without Close: `abort` stays, as after a crash
      if (as_power_loss) std::filesystem::resize_file(dir.path() + "/abort", 0);
      const int64_t t = NowNanos();
      auto reopened = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
      const int64_t took = NowNanos() - t;
      if (!reopened.ok()) {
        std::fprintf(stderr, "reopen: %s\n", reopened.status().ToString().c_str());
        return 1;
      }
      const IndexRecoveryReport& ir = (*reopened)->index_recovery_report();
      std::printf("crash restart %10s  (%s; index files cut by undo %d, rebuilt %d)\n",
                  HumanNanos(took).c_str(), LastExitName((*reopened)->last_exit()),
                  ir.files_cut_by_undo, ir.files_rebuilt);
      (void)(*reopened)->Close();
    }
  }
  return 0;
}
