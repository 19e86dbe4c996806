#include "store/message_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "io/fault_injection_file_system.h"
#include "io/posix_file_system.h"
#include "store/layout/layout.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::StatusIs;
using ::rocketstore::testing::TestMessage;

// A store under `root` with small index and consume-queue files.
StoreOptions SmallFiles(std::string root) {
  StoreOptions o;
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.consume_queue_units_per_file = 1024;
  o.root_dir = std::move(root);
  return o;
}

// In memory (FaultInjectionFileSystem), steps driven by the test.
StoreOptions SmallStore(FlushDiskType type) {
  StoreOptions o = SmallFiles("/store");
  o.commit_log_segment_size = 64 * 1024;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 4096;
  o.flush_disk_type = type;
  o.start_background_services = false;
  return o;
}

// The commit log's resident window: explicit bytes win; by default it is the share of
// physical memory RocketMQ counts as "in memory" (accessMessageInMemoryMaxRatio).
TEST(StoreOptionsTest, ResidentWindowFollowsRocketMqsInMemoryRatio) {
  StoreOptions o;
  EXPECT_EQ(o.ResidentWindowBytes(24'000'000'000), 9'600'000'000);  // 40 %
  o.access_message_in_memory_max_ratio = 25;
  EXPECT_EQ(o.ResidentWindowBytes(1'000'000), 250'000);
  o.access_message_in_memory_max_ratio = 0;
  EXPECT_EQ(o.ResidentWindowBytes(1'000'000), 0);  // keep everything
  o.access_message_in_memory_max_ratio = 101;
  EXPECT_EQ(o.ResidentWindowBytes(1'000'000), 0);
  o.commit_log_resident_window_bytes = 123;
  EXPECT_EQ(o.ResidentWindowBytes(1'000'000), 123);
  o.commit_log_resident_window_bytes = 0;
  EXPECT_EQ(o.ResidentWindowBytes(1'000'000), 0);
}

// mappedFileSizeConsumeQueue: consume-queue files of a non-default size are refused with
// a message that names the setting, and load once the size is configured.
TEST(MessageStoreTest, ConsumeQueueFilesOfAnotherSizeNeedThatSizeConfigured) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStore(FlushDiskType::kAsyncFlush);
  o.consume_queue_units_per_file = 30;  // 600-byte files
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
    ASSERT_OK(store->RunDispatchStep().status());
    ASSERT_OK(store->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto info, fs.Stat("/store/consumequeue/TopicTest/0/00000000000000000000"));
  EXPECT_EQ(info.size, 600u);
  StoreOptions defaults = o;
  defaults.consume_queue_units_per_file = 300000;
  auto refused = MessageStore::Open(defaults, fs, clock);
  ASSERT_THAT(refused.status(), StatusIs(StatusCode::kCorruption));
  EXPECT_NE(refused.status().message().find("mappedFileSizeConsumeQueue"), std::string::npos)
      << refused.status();
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  EXPECT_EQ(store->GetMaxOffsetInQueue("TopicTest", 0), QueueOffset(50));  // 2 files
  GetMessageRequest r;
  r.group = "G";
  r.topic = "TopicTest";
  r.queue_id = 0;
  r.offset = QueueOffset(29);
  r.max_msg_nums = 4;
  GetMessageResult got = store->GetMessage(r);
  EXPECT_EQ(got.status, GetMessageStatus::kFound);
  EXPECT_EQ(got.messages.size(), 1u);  // a batch ends with its file (RocketMQ's rule)
  EXPECT_EQ(got.next_begin_offset, QueueOffset(30));
  r.offset = QueueOffset(30);
  got = store->GetMessage(r);
  ASSERT_EQ(got.messages.size(), 4u);  // the second file
  EXPECT_EQ(got.queue_offsets[0], QueueOffset(30));
  ASSERT_OK(store->Close());
}

TEST(MessageStoreTest, FailedSyncFlushIsStickyAndNeverAcknowledged) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  PutMessageResult r = store->PutMessage(MakeTestMessage(1).View());
  EXPECT_EQ(r.status, PutMessageStatus::kUnknownError);
  EXPECT_NE(r.error.find("Input/output error"), std::string::npos) << r.error;
  EXPECT_FALSE(store->health().Writable());
  // The disk "recovers": the store must still refuse, since the kernel may have dropped
  // the pages it failed to write.
  fs.ClearFailures();
  for (int i = 2; i < 5; ++i) {
    PutMessageResult again = store->PutMessage(MakeTestMessage(i).View());
    EXPECT_EQ(again.status, PutMessageStatus::kServiceNotAvailable);
    EXPECT_NE(again.error.find("sync flush failed"), std::string::npos) << again.error;
  }
  // A store that failed a flush does not claim a clean shutdown.
  EXPECT_FALSE(store->Close().ok() && !fs.Exists("/store/abort"));
  EXPECT_TRUE(fs.Exists("/store/abort"));
}

// After an I/O error the store empties its abort file: the kernel may drop pages it
// failed to write, so the page cache proves nothing, and even a crash in the same boot is
// recovered as after a power loss (index slot tables rebuilt, not undone).
TEST(MessageStoreTest, IoErrorMakesTheNextStartDistrustThePageCache) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  const StoreOptions o = SmallStore(FlushDiskType::kSyncFlush);
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
    ASSERT_OK(store->RunDispatchStep().status());
    ASSERT_OK_AND_ASSIGN(std::string marker, fs.ReadWholeFile("/store/abort"));
    EXPECT_EQ(marker, *fs.BootId());
    fs.FailOpsOfKind(OpKind::kSync, EIO);
    EXPECT_FALSE(store->PutMessage(MakeTestMessage(50).View()).ok());
    EXPECT_FALSE(store->health().Writable());
    fs.ClearFailures();
  }  // dropped without Close
  ASSERT_OK_AND_ASSIGN(std::string marker, fs.ReadWholeFile("/store/abort"));
  EXPECT_EQ(marker, "");
  ASSERT_OK(fs.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs.Reboot());
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  EXPECT_EQ(store->last_exit(), LastExit::kCrash);
  EXPECT_EQ(store->index_recovery_report().files_cut_by_undo, 0);
  EXPECT_GE(store->index_recovery_report().files_rebuilt, 1);
  EXPECT_EQ(store->recovery_report().records, 51);  // the failed put's record is stored
}

// A start after a clean shutdown marks the store running before recovery changes
// anything (it re-dispatches the last message, for one): a crash at any operation of that
// start is recovered as a crash — of this boot, once the marker is written — and loses
// nothing. A start that fails (here: an injected EIO) leaves the next one distrusting the
// page cache.
TEST(MessageStoreTest, CrashOrFailureDuringAStartAfterACleanShutdownIsACrash) {
  const StoreOptions o = SmallStore(FlushDiskType::kSyncFlush);
  auto make_clean_store = [&](FaultInjectionFileSystem& fs, FakeClock& clock) {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
    ASSERT_OK(store->RunDispatchStep().status());
    ASSERT_OK(store->Close());
  };
  int points = 0, as_process_crash = 0;
  bool marked = false;  // a crash point already found the marker written
  for (uint64_t k = 1;; ++k) {
    FakeClock clock;
    FaultInjectionFileSystem fs(clock);
    make_clean_store(fs, clock);
    fs.CrashAtOp(k, CrashMode::kProcessCrash);
    { auto crashed = MessageStore::Open(o, fs, clock); }
    if (!fs.crashed()) break;
    ++points;
    ASSERT_OK(fs.Reboot());
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    // Only the first operations (before the marker exists) leave a clean-looking store.
    if (store->last_exit() != LastExit::kClean) {
      marked = true;
    } else {
      EXPECT_FALSE(marked) << "crash at op " << k << " looks like a clean shutdown";
    }
    as_process_crash += store->last_exit() == LastExit::kProcessCrash;
    for (int i = 0; i < 40; ++i) {
      ASSERT_OK_AND_ASSIGN(
          QueryMessageResult q,
          store->QueryMessage("TopicTest", "k" + std::to_string(i), 32, 0, INT64_MAX));
      ASSERT_EQ(q.messages.size(), 1u) << "crash at op " << k << " key k" << i;
    }
  }
  EXPECT_GT(points, 5);
  EXPECT_GT(as_process_crash, points / 2) << as_process_crash << " of " << points;

  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  make_clean_store(fs, clock);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  EXPECT_FALSE(MessageStore::Open(o, fs, clock).ok());
  fs.ClearFailures();
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  EXPECT_EQ(store->last_exit(), LastExit::kCrash);
}

TEST(MessageStoreTest, FailedAsyncFlushStopsAcknowledgingWrites) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kAsyncFlush), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  clock.AdvanceMillis(10001);  // thorough flush: flushes even a few bytes
  EXPECT_THAT(store->RunFlushStep(), StatusIs(StatusCode::kIOError));
  fs.ClearFailures();
  EXPECT_THAT(store->RunFlushStep(), StatusIs(StatusCode::kIOError));  // sticky
  EXPECT_EQ(store->PutMessage(MakeTestMessage(1).View()).status,
            PutMessageStatus::kServiceNotAvailable);
}

// The segment preparer sleeps until appends cross a prepare step (a quarter of these 64
// KiB segments); it does not poll. With its fallback interval an hour long, only the wake
// from the puts can create the next segment before the writer needs it.
TEST(MessageStoreTest, AppendsWakeThePreparerThatOtherwiseSleeps) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStore(FlushDiskType::kAsyncFlush);
  o.start_background_services = true;
  o.prepare_interval_ms = 3600 * 1000;
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  const std::string dir = layout::CommitLogDir("/store");
  auto segment_files = [&] {
    auto names = fs.ListDir(dir);
    return names.ok() ? names->size() : 0;
  };
  // Past half of the first segment (where the next one is prepared), not into the second.
  for (int i = 0; store->commit_log().MaxOffset().value() < 40 * 1024; ++i) {
    ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
  }
  ASSERT_LT(store->commit_log().MaxOffset().value(), o.commit_log_segment_size);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (segment_files() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(segment_files(), 2u) << "the next segment was not prepared after the appends";
}

TEST(MessageStoreTest, SyncFlushGroupCommitSharesFlushesAcrossProducers) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  constexpr int kThreads = 8, kPer = 200;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPer; ++i) {
        if (store->PutMessage(MakeTestMessage(t * kPer + i).View()).ok()) ok++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), kThreads * kPer);
  EXPECT_EQ(store->sync_wait_count(), kThreads * kPer);
  EXPECT_LE(store->sync_flush_count(), store->sync_wait_count());
  // Everything acknowledged is durable: a power loss now keeps all of it.
  const PhysicalOffset end = store->commit_log().MaxOffset();
  store.reset();
  ASSERT_OK(fs.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs.Reboot());
  ASSERT_OK_AND_ASSIGN(auto again,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  EXPECT_EQ(again->commit_log().MaxOffset(), end);
  EXPECT_EQ(again->recovery_report().records, kThreads * kPer);
}

TEST(MessageStoreTest, SlowFlushAnswersFlushDiskTimeoutNeverOk) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStore(FlushDiskType::kSyncFlush);
  o.sync_flush_timeout_ms = 0;  // every flush is "late"
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  PutMessageResult r = store->PutMessage(MakeTestMessage(0).View());
  EXPECT_EQ(r.status, PutMessageStatus::kFlushDiskTimeout);
  EXPECT_TRUE(IsStored(r.status));
  EXPECT_TRUE(store->health().Writable());  // late is not broken
}

TEST(MessageStoreTest, WaitFalseUnderSyncFlushReturnsWithoutFlushing) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());  // creates the segment
  // No sync on the put path: with every sync failing, the put still succeeds.
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  EXPECT_TRUE(store->PutMessage(MakeTestMessage(1).View(), /*wait_for_flush=*/false).ok());
  EXPECT_TRUE(store->health().Writable());
  fs.ClearFailures();
  const uint64_t ops = fs.op_count();
  EXPECT_OK(store->RunFlushStep());
  EXPECT_GT(fs.op_count(), ops);
}

// ---- PutMessageAsync: producers served without a blocked thread each -------------------

TEST(MessageStoreTest, AsyncPutUnderSyncFlushAnswersOnlyOnceDurable) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  std::vector<PutMessageResult> answers;
  for (int i = 0; i < 3; ++i) {
    store->PutMessageAsync(MakeTestMessage(i, 1).View(), true,
                           [&](PutMessageResult r) { answers.push_back(std::move(r)); });
  }
  EXPECT_TRUE(answers.empty());  // nothing flushed yet: nobody may hear OK
  // A power loss now may lose all three, and that is allowed: none was acknowledged.
  ASSERT_OK(store->RunFlushStep());
  ASSERT_EQ(answers.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(answers[i].status, PutMessageStatus::kPutOk);
    EXPECT_EQ(answers[i].first.queue_offset.value(), i);
  }
  EXPECT_EQ(store->sync_flush_count(), 1);  // one flush answered all three
  const PhysicalOffset end = store->commit_log().MaxOffset();
  store.reset();
  ASSERT_OK(fs.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs.Reboot());
  ASSERT_OK_AND_ASSIGN(auto again,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  EXPECT_EQ(again->commit_log().MaxOffset(), end);
}

TEST(MessageStoreTest, AsyncPutPastTheDeadlineAnswersFlushDiskTimeout) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = SmallStore(FlushDiskType::kSyncFlush);
  o.sync_flush_timeout_ms = 5000;
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  std::vector<PutMessageResult> answers;
  store->PutMessageAsync(MakeTestMessage(0).View(), true,
                         [&](PutMessageResult r) { answers.push_back(std::move(r)); });
  clock.AdvanceMillis(5001);
  ASSERT_OK(store->RunFlushStep());  // the watcher runs first: the answer is late
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, PutMessageStatus::kFlushDiskTimeout);
  EXPECT_NE(answers[0].error.find("not flushed within 5000 ms"), std::string::npos)
      << answers[0].error;
  EXPECT_TRUE(IsStored(answers[0].status));
  EXPECT_TRUE(store->health().Writable());
}

TEST(MessageStoreTest, AsyncPutFailedFlushAnswersEveryWaiterAndEveryLaterPut) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kSyncFlush), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  std::vector<PutMessageResult> answers;
  auto collect = [&](PutMessageResult r) { answers.push_back(std::move(r)); };
  for (int i = 1; i <= 3; ++i) store->PutMessageAsync(MakeTestMessage(i).View(), true, collect);
  EXPECT_THAT(store->RunFlushStep(), StatusIs(StatusCode::kIOError));
  ASSERT_EQ(answers.size(), 3u);
  for (const auto& a : answers) {
    EXPECT_EQ(a.status, PutMessageStatus::kUnknownError);
    EXPECT_NE(a.error.find("Input/output error"), std::string::npos) << a.error;
  }
  fs.ClearFailures();
  store->PutMessageAsync(MakeTestMessage(4).View(), true, collect);  // answered at once
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[3].status, PutMessageStatus::kServiceNotAvailable);
}

TEST(MessageStoreTest, AsyncPutUnderAsyncFlushAnswersAtOnce) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kAsyncFlush), fs, clock));
  std::vector<PutMessageResult> answers;
  auto collect = [&](PutMessageResult r) { answers.push_back(std::move(r)); };
  store->PutMessageAsync(MakeTestMessage(0, 1).View(), true, collect);
  const std::vector<TestMessage> batch = {MakeTestMessage(1, 1), MakeTestMessage(2, 1)};
  std::vector<format::MessageToStore> views = {batch[0].View(), batch[1].View()};
  store->PutMessagesAsync(views, true, collect);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].status, PutMessageStatus::kPutOk);
  EXPECT_EQ(answers[1].status, PutMessageStatus::kPutOk);
  EXPECT_EQ(answers[1].first.queue_offset.value(), 1);
}

// Producers as the broker serves them: each sends its next message from the callback
// that acknowledged the last one. With real threads and files: every put is answered,
// in order per producer, and the flushes are shared.
TEST(MessageStoreTest, AsyncProducersChainingFromCallbacksShareFlushes) {
  testing::TempDir dir;
  StoreOptions o = SmallFiles(dir.path());
  o.commit_log_segment_size = 32 << 10;  // several segment rolls
  o.flush_disk_type = FlushDiskType::kSyncFlush;
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real()));
  constexpr int kProducers = 16, kPer = 40;
  struct Producer {
    int sent = 0;
    int64_t last_offset = -1;
    bool in_order = true;
  };
  std::vector<Producer> prod(kProducers);
  std::atomic<int> done{0}, failures{0};
  std::function<void(int)> send = [&](int p) {
    store->PutMessageAsync(MakeTestMessage(prod[p].sent).View(), true, [&, p](PutMessageResult r) {
      if (!r.ok()) failures++;
      if (r.first.offset.value() <= prod[p].last_offset) prod[p].in_order = false;
      prod[p].last_offset = r.first.offset.value();
      if (++prod[p].sent < kPer) {
        send(p);
      } else {
        done++;
      }
    });
  };
  for (int p = 0; p < kProducers; ++p) send(p);
  for (int i = 0; i < 3000 && done.load() < kProducers; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(done.load(), kProducers);
  EXPECT_EQ(failures.load(), 0);
  for (const auto& p : prod) EXPECT_TRUE(p.in_order);
  EXPECT_LT(store->sync_flush_count(), kProducers * kPer / 2);  // flushes were shared
  EXPECT_GE(store->commit_log().segments().file_count(), 3u);
  EXPECT_OK(store->Close());
}

TEST(MessageStoreTest, SecondStoreOnTheSameDirectoryFails) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(SmallStore(FlushDiskType::kAsyncFlush), fs, clock));
  auto second = MessageStore::Open(SmallStore(FlushDiskType::kAsyncFlush), fs, clock);
  EXPECT_THAT(second, StatusIs(StatusCode::kAlreadyExists));
}

// Two processes on one real store directory: the second fails with a clear message.
TEST(MessageStoreTest, SecondProcessOnTheSameDirectoryFails) {
  testing::TempDir dir;
  StoreOptions o = SmallFiles(dir.path() + "/store");
  o.commit_log_segment_size = 64 * 1024;
  o.start_background_services = false;
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real()));
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    auto second = MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real());
    std::string msg = second.ok() ? "opened" : second.status().ToString();
    (void)!write(pipefd[1], msg.data(), msg.size());
    _exit(second.ok() ? 1 : 0);
  }
  close(pipefd[1]);
  char buf[1024];
  ssize_t n = read(pipefd[0], buf, sizeof(buf));
  int status = 0;
  waitpid(pid, &status, 0);
  std::string msg(buf, n > 0 ? static_cast<size_t>(n) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << msg;
  EXPECT_NE(msg.find("in use by another"), std::string::npos) << msg;
  EXPECT_OK(store->Close());
}

// How the last run ended decides how the index is recovered. After a clean shutdown or a
// process crash (same boot: the page cache survived) every index byte is there and the
// cut of the last message is an undo; after a power loss (another boot), or with an
// abort file without a boot id (RocketMQ's), the slot tables are rebuilt. Every key is
// found afterwards either way.
TEST(MessageStoreTest, LastExitDecidesHowTheIndexIsRecovered) {
  enum Ending { kClose, kProcessCrash, kPowerLoss, kProcessCrashRocketMqAbortFile };
  constexpr int kMessages = 300;
  for (Ending ending : {kClose, kProcessCrash, kPowerLoss, kProcessCrashRocketMqAbortFile}) {
    const std::string context = "ending " + std::to_string(ending);
    FakeClock clock;
    FaultInjectionFileSystem fs(clock);
    const StoreOptions o = SmallStore(FlushDiskType::kSyncFlush);
    {
      ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
      EXPECT_EQ(store->last_exit(), LastExit::kClean);
      for (int i = 0; i < kMessages; ++i) {
        ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
      }
      ASSERT_OK(store->RunDispatchStep().status());
      ASSERT_OK(store->RunConsumeQueueFlushStep(/*thorough=*/true));  // flushes the index too
      if (ending == kClose) ASSERT_OK(store->Close());
    }  // without Close: the files are left as a crash leaves them
    if (ending != kClose) {
      ASSERT_OK(
          fs.CrashNow(ending == kPowerLoss ? CrashMode::kPowerLoss : CrashMode::kProcessCrash));
      ASSERT_OK(fs.Reboot());
    }
    if (ending == kProcessCrashRocketMqAbortFile) {
      ASSERT_OK_AND_ASSIGN(auto abort, fs.OpenFile("/store/abort", OpenOptions{.writable = true}));
      ASSERT_OK(abort->Truncate(0));
    }
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
    const IndexRecoveryReport& ir = store->index_recovery_report();
    switch (ending) {
      case kClose:
        EXPECT_EQ(store->last_exit(), LastExit::kClean);
        break;
      case kProcessCrash:
        EXPECT_EQ(store->last_exit(), LastExit::kProcessCrash);
        break;
      case kPowerLoss:
      case kProcessCrashRocketMqAbortFile:
        EXPECT_EQ(store->last_exit(), LastExit::kCrash);
        break;
    }
    if (ending == kClose || ending == kProcessCrash) {
      EXPECT_GE(ir.files_cut_by_undo, 1) << context;
      EXPECT_EQ(ir.files_rebuilt, 0) << context;
    } else {
      EXPECT_EQ(ir.files_cut_by_undo, 0) << context;
      EXPECT_GE(ir.files_rebuilt, 1) << context;
    }
    EXPECT_GT(ir.entries_dropped, 0) << context;  // the last message's keys, re-added
    for (int i = 0; i < kMessages; ++i) {
      ASSERT_OK_AND_ASSIGN(
          QueryMessageResult q,
          store->QueryMessage("TopicTest", "k" + std::to_string(i), 32, 0, INT64_MAX));
      ASSERT_EQ(q.messages.size(), 1u) << context << " key k" << i;
    }
    ASSERT_OK(store->Close());
  }
}

TEST(MessageStoreTest, BackgroundServicesFlushAndCloseCleanly) {
  testing::TempDir dir;
  StoreOptions o = SmallFiles(dir.path());
  o.commit_log_segment_size = 1 << 20;
  o.async_flush.interval_ms = 5;
  ASSERT_OK_AND_ASSIGN(auto store,
                       MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real()));
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(store->PutMessage(MakeTestMessage(i).View()).ok());
  EXPECT_OK(store->Close());
  EXPECT_FALSE(PosixFileSystem::Default().Exists(dir.path() + "/abort"));
  ASSERT_OK_AND_ASSIGN(auto again,
                       MessageStore::Open(o, PosixFileSystem::Default(), Clock::Real()));
  EXPECT_FALSE(again->recovered_abnormally());
  EXPECT_EQ(again->PutMessage(MakeTestMessage(5000).View()).first.queue_offset.value(), 1250);
  EXPECT_OK(again->Close());
}

}  // namespace
}  // namespace rocketstore
