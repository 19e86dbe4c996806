// Crash-point enumeration, the way LevelDB and SQLite prove their recovery: run a
// workload on the fault-injecting file system, stop it at every I/O operation in turn
// (process crash: the page cache survives; power loss: only synced bytes and synced
// directory entries survive), reboot, reopen the store, and check what survived:
//   * every message acknowledged under SYNC_FLUSH is present byte for byte;
//   * under ASYNC_FLUSH nothing acknowledged is lost in a process crash, and after a
//     power loss what survives is a prefix of what was acknowledged;
//   * the log holds nothing but valid records up to its end (nothing past the first
//     invalid record survives), queue offsets are contiguous per queue;
//   * appending continues, with the next queue offset.
// A second pass crashes again during recovery itself and checks that a second recovery
// reaches the same result. A deliberately broken store (acknowledging before the flush)
// must be caught by the same harness.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::RecordMatches;

constexpr int kMessages = 1000;
constexpr int64_t kSegmentSize = 16 * 1024;  // ~1000 messages of ~120 B roll ~7 times
constexpr int kAsyncFlushEvery = 25;         // ASYNC_FLUSH: a flush step every 25 puts

struct Scenario {
  FlushDiskType flush;
  CrashMode mode;
  bool broken = false;  // ack before flush
  // SYNC_FLUSH through PutMessageAsync, the broker's path: puts in groups of kGroup, then
  // a flush step; a message counts as acknowledged when its callback said PUT_OK.
  bool async_puts = false;
};
constexpr int kGroup = 4;

StoreOptions Options(const Scenario& s) {
  StoreOptions o;
  o.index_hash_slot_num = 256;  // small index files for in-memory tests
  o.index_num = 4096;
  o.consume_queue_units_per_file = 1024;
  o.root_dir = "/store";
  o.commit_log_segment_size = kSegmentSize;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 4096;
  o.flush_disk_type = s.flush;
  o.async_flush.least_pages = 1;
  o.start_background_services = false;
  o.unsafe_ack_before_flush_for_testing = s.broken;
  o.consume_queue_units_per_file = 64;  // CQ files roll during the workload too
  return o;
}

// Runs the workload until it finishes or the file system crashes. Returns how many
// messages were acknowledged (PUT_OK), in order.
int RunWorkload(const Scenario& s, FaultInjectionFileSystem& fs, Clock& clock) {
  auto store = MessageStore::Open(Options(s), fs, clock);
  if (!store.ok()) return 0;
  int acked = 0;
  std::vector<char> ok(kMessages, 0);  // async puts: which callbacks said PUT_OK
  for (int i = 0; i < kMessages; ++i) {
    auto m = MakeTestMessage(i);
    if (s.async_puts) {
      (*store)->PutMessageAsync(m.View(), true, [&ok, i](PutMessageResult r) { ok[i] = r.ok(); });
      if ((i + 1) % kGroup == 0 || i + 1 == kMessages) {
        (void)(*store)->RunFlushStep();  // answers the group (or fails it)
        while (acked < kMessages && ok[acked]) ++acked;
        if (acked != i + 1) break;  // a put failed: later acks are not counted
      }
    } else {
      PutMessageResult r = (*store)->PutMessage(m.View());
      if (r.ok()) {
        if (acked != i) break;  // an earlier put failed: later acks are not counted
        acked = i + 1;
      } else {
        break;
      }
    }
    if (s.flush == FlushDiskType::kAsyncFlush && (i + 1) % kAsyncFlushEvery == 0) {
      if (!(*store)->RunFlushStep().ok()) break;
    }
    if ((i + 1) % 7 == 0 && !(*store)->RunDispatchStep().ok()) break;
    if ((i + 1) % 100 == 0 &&
        !(*store)->RunConsumeQueueFlushStep(/*thorough=*/(i + 1) % 300 == 0).ok()) {
      break;
    }
    if ((i + 1) % 10 == 0 && !(*store)->RunPrepareStep().ok()) break;
  }
  if (!fs.crashed()) (void)(*store)->Close();
  return acked;
}

struct Verdict {
  std::vector<std::string> violations;
  int recovered = 0;  // messages found in the recovered log
  PhysicalOffset end;
  bool index_undone = false;   // the index was cut by undo (page cache intact)
  bool index_rebuilt = false;  // an index file's slot table was rebuilt
};

// Opens the store after a reboot and checks every invariant.
Verdict Verify(const Scenario& s, FaultInjectionFileSystem& fs, Clock& clock, int acked) {
  Verdict v;
  auto store_or = MessageStore::Open(Options(s), fs, clock);
  if (!store_or.ok()) {
    v.violations.push_back("reopen failed: " + store_or.status().ToString());
    return v;
  }
  MessageStore& store = **store_or;
  CommitLog& log = store.commit_log();
  v.index_undone = store.index_recovery_report().files_cut_by_undo > 0;
  v.index_rebuilt = store.index_recovery_report().files_rebuilt > 0;
  // Walk the whole recovered log: valid records only, message i at position i.
  PhysicalOffset pos = log.MinOffset();
  std::map<int, int64_t> next_queue_offset;
  int i = 0;
  while (pos < log.MaxOffset()) {
    auto bytes = log.ReadToSegmentEnd(pos);
    if (!bytes.ok()) {
      v.violations.push_back("read at " + std::to_string(pos.value()) + ": " +
                             bytes.status().ToString());
      break;
    }
    format::DecodeResult d = format::DecodeRecord(bytes->bytes, true);
    if (d.outcome == format::DecodeOutcome::kBlank) {
      pos = log.NextSegmentStart(pos);
      continue;
    }
    if (d.outcome != format::DecodeOutcome::kRecord) {
      v.violations.push_back("invalid record survived at " + std::to_string(pos.value()) + ": " +
                             d.error);
      break;
    }
    std::string why;
    const auto expected = MakeTestMessage(i);
    if (!RecordMatches(bytes->bytes.subspan(0, static_cast<size_t>(d.record.total_size)), expected,
                       &why)) {
      v.violations.push_back("record " + std::to_string(i) + " at " + std::to_string(pos.value()) +
                             ": " + why);
      break;
    }
    int64_t& q = next_queue_offset[expected.queue_id];
    if (d.record.queue_offset != q) {
      v.violations.push_back("queue offset gap in queue " + std::to_string(expected.queue_id));
    }
    ++q;
    pos += d.record.total_size;
    ++i;
  }
  v.recovered = i;
  v.end = log.MaxOffset();
  // Every ConsumeQueue unit points at a record of matching size, queue and queue offset,
  // and every recovered record is reachable through exactly one unit.
  int64_t units = 0;
  for (int q = 0; q < 4; ++q) {
    const QueueOffset max = store.GetMaxOffsetInQueue("TopicTest", q);
    if (max != QueueOffset(next_queue_offset[q])) {
      v.violations.push_back("queue " + std::to_string(q) + " max offset " +
                             std::to_string(max.value()) + " but " +
                             std::to_string(next_queue_offset[q]) + " records");
    }
    auto cq = store.consume_queues().Find("TopicTest", q);
    for (QueueOffset o = store.GetMinOffsetInQueue("TopicTest", q); cq && o < max; o += 1) {
      auto unit = cq->GetUnit(o);
      if (!unit.ok()) {
        v.violations.push_back("CQ unit " + std::to_string(o.value()) + " unreadable");
        break;
      }
      auto rec = log.Read(unit->offset, unit->size);
      format::DecodeResult d =
          rec.ok() ? format::DecodeRecord(rec->bytes, true) : format::DecodeResult{};
      if (!rec.ok() || d.outcome != format::DecodeOutcome::kRecord ||
          d.record.total_size != unit->size || d.record.queue_offset != o.value() ||
          d.record.queue_id != q) {
        v.violations.push_back("CQ " + std::to_string(q) + " unit " + std::to_string(o.value()) +
                               " does not point at its record");
        break;
      }
      ++units;
    }
  }
  if (units != v.recovered) {
    v.violations.push_back(std::to_string(units) + " CQ units for " + std::to_string(v.recovered) +
                           " records");
  }
  // Every recovered key is found through the index, and only its own message.
  for (int k = 0; k < v.recovered; ++k) {
    const auto m = MakeTestMessage(k);
    auto found = store.QueryMessage(m.topic, "k" + std::to_string(k), 32, 0, INT64_MAX);
    if (!found.ok() || found->messages.size() != 1 || found->messages[0].record.body != m.body) {
      v.violations.push_back("key k" + std::to_string(k) + " not found exactly once");
      break;
    }
  }
  const bool must_keep_all =
      s.flush == FlushDiskType::kSyncFlush || s.mode == CrashMode::kProcessCrash;
  if (must_keep_all && v.recovered < acked) {
    v.violations.push_back("lost acknowledged messages: " + std::to_string(acked) +
                           " acknowledged, " + std::to_string(v.recovered) + " recovered");
  }
  if (v.recovered > kMessages) v.violations.push_back("more messages than written");
  // Appending continues with the right queue offset.
  const auto next = MakeTestMessage(v.recovered);
  PutMessageResult r = store.PutMessage(next.View());
  if (!r.ok()) {
    v.violations.push_back("append after recovery failed: " + r.error);
  } else if (r.first.queue_offset.value() != next_queue_offset[next.queue_id]) {
    v.violations.push_back("append after recovery got queue offset " +
                           std::to_string(r.first.queue_offset.value()));
  }
  (void)store.Close();
  return v;
}

struct Summary {
  int crash_points = 0;
  int failing_points = 0;
  int index_undone = 0;   // points whose recovery cut the index by undo
  int index_rebuilt = 0;  // points whose recovery rebuilt an index slot table
  std::string first_failure;
};

// Enumerates every crash point of the scenario's workload.
Summary Enumerate(const Scenario& s, int recovery_crash_stride) {
  FakeClock clock;
  uint64_t total_ops;
  {
    FaultInjectionFileSystem fs(clock);
    RunWorkload(s, fs, clock);
    total_ops = fs.op_count();
  }
  Summary sum;
  // ROCKETSTORE_CRASH_POINT=k replays only crash point k (for debugging a failure).
  uint64_t only = 0;
  if (const char* e = std::getenv("ROCKETSTORE_CRASH_POINT")) only = std::strtoull(e, nullptr, 10);
  for (uint64_t k = 1; k <= total_ops; ++k) {
    if (only != 0 && k != only) continue;
    FaultInjectionFileSystem fs(clock);
    fs.CrashAtOp(k, s.mode);
    const int acked = RunWorkload(s, fs, clock);
    if (!fs.crashed()) continue;  // the workload finished before op k (Close differs)
    ++sum.crash_points;
    if (!fs.Reboot().ok()) {
      ADD_FAILURE() << "reboot failed at crash point " << k;
      continue;
    }
    // Every `recovery_crash_stride`-th point: crash again during recovery, at its middle op.
    if (recovery_crash_stride > 0 && k % static_cast<uint64_t>(recovery_crash_stride) == 0) {
      const uint64_t before = fs.op_count();
      {
        auto probe = MessageStore::Open(Options(s), fs, clock);  // count recovery's ops
        (void)probe;
      }
      const uint64_t recovery_ops = fs.op_count() - before;
      // Undo the probe's effects by rebuilding the same crash state.
      FaultInjectionFileSystem fs2(clock);
      fs2.CrashAtOp(k, s.mode);
      RunWorkload(s, fs2, clock);
      EXPECT_TRUE(fs2.Reboot().ok());
      fs2.CrashAtOp(std::max<uint64_t>(1, recovery_ops / 2), s.mode);
      { auto crashed_recovery = MessageStore::Open(Options(s), fs2, clock); }
      if (fs2.crashed()) {
        EXPECT_TRUE(fs2.Reboot().ok());
      }
      Verdict twice = Verify(s, fs2, clock, acked);
      Verdict once = Verify(s, fs, clock, acked);
      if (only != 0) {
        std::printf("once: %d recovered %s\ntwice: %d recovered %s\n", once.recovered,
                    once.violations.empty() ? "ok" : once.violations[0].c_str(), twice.recovered,
                    twice.violations.empty() ? "ok" : twice.violations[0].c_str());
      }
      if (twice.recovered != once.recovered || twice.end != once.end) {
        twice.violations.push_back("second recovery differs: " + std::to_string(twice.recovered) +
                                   " vs " + std::to_string(once.recovered) + " messages");
      }
      for (auto* verdict : {&once, &twice}) {
        if (!verdict->violations.empty()) {
          ++sum.failing_points;
          if (sum.first_failure.empty()) {
            sum.first_failure = "crash at op " + std::to_string(k) + ": " + verdict->violations[0];
          }
          break;
        }
      }
      continue;
    }
    Verdict v = Verify(s, fs, clock, acked);
    sum.index_undone += v.index_undone;
    sum.index_rebuilt += v.index_rebuilt;
    if (!v.violations.empty()) {
      ++sum.failing_points;
      if (sum.first_failure.empty()) {
        sum.first_failure = "crash at op " + std::to_string(k) + ": " + v.violations[0];
      }
    }
  }
  std::printf(
      "[ crash    ] %s%s / %s%s: %d crash points, %d failing (index recovered by undo at %d, "
      "rebuilt at %d)\n",
      s.flush == FlushDiskType::kSyncFlush ? "SYNC_FLUSH" : "ASYNC_FLUSH",
      s.async_puts ? " (async puts)" : "",
      s.mode == CrashMode::kPowerLoss ? "power loss" : "process crash",
      s.broken ? " (broken: ack before flush)" : "", sum.crash_points, sum.failing_points,
      sum.index_undone, sum.index_rebuilt);
  return sum;
}

TEST(CrashPointsTest, SyncFlushPowerLoss) {
  Summary s = Enumerate({FlushDiskType::kSyncFlush, CrashMode::kPowerLoss}, 50);
  EXPECT_GE(s.crash_points, kMessages);
  EXPECT_EQ(s.failing_points, 0) << s.first_failure;
}

TEST(CrashPointsTest, SyncFlushProcessCrash) {
  Summary s = Enumerate({FlushDiskType::kSyncFlush, CrashMode::kProcessCrash}, 50);
  EXPECT_GE(s.crash_points, kMessages);
  EXPECT_EQ(s.failing_points, 0) << s.first_failure;
}

TEST(CrashPointsTest, AsyncFlushProcessCrashLosesNothing) {
  Summary s = Enumerate({FlushDiskType::kAsyncFlush, CrashMode::kProcessCrash}, 10);
  EXPECT_GT(s.crash_points, 40);
  EXPECT_EQ(s.failing_points, 0) << s.first_failure;
}

TEST(CrashPointsTest, AsyncFlushPowerLossKeepsAValidPrefix) {
  Summary s = Enumerate({FlushDiskType::kAsyncFlush, CrashMode::kPowerLoss}, 10);
  EXPECT_GT(s.crash_points, 40);
  EXPECT_EQ(s.failing_points, 0) << s.first_failure;
}

TEST(CrashPointsTest, SyncFlushAsyncPutsPowerLoss) {
  Scenario sc{FlushDiskType::kSyncFlush, CrashMode::kPowerLoss};
  sc.async_puts = true;
  Summary s = Enumerate(sc, 50);
  EXPECT_GE(s.crash_points, kMessages / kGroup);
  EXPECT_EQ(s.failing_points, 0) << s.first_failure;
}

TEST(CrashPointsTest, HarnessCatchesAckBeforeFlushWithAsyncPuts) {
  Scenario sc{FlushDiskType::kSyncFlush, CrashMode::kPowerLoss, /*broken=*/true};
  sc.async_puts = true;
  Summary s = Enumerate(sc, 0);
  EXPECT_GT(s.failing_points, 0) << "the broken store went unnoticed";
  EXPECT_NE(s.first_failure.find("lost acknowledged"), std::string::npos) << s.first_failure;
}

// The harness must catch a store that acknowledges before its data is durable.
TEST(CrashPointsTest, HarnessCatchesAckBeforeFlush) {
  Summary s = Enumerate({FlushDiskType::kSyncFlush, CrashMode::kPowerLoss, /*broken=*/true}, 0);
  EXPECT_GT(s.failing_points, 0) << "the broken store went unnoticed";
  EXPECT_NE(s.first_failure.find("lost acknowledged"), std::string::npos) << s.first_failure;
}

}  // namespace
}  // namespace rocketstore
