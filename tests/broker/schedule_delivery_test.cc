// Delay levels end to end inside the broker's services, on a real MessageStore over the
// fault-injecting (in-memory) file system with a FakeClock, stepped by hand (no sleeps):
// a producer's DELAY send is stored in SCHEDULE_TOPIC_XXXX with its deliver time as tags
// code, ScheduleDeliveryService puts it into its real topic when due — in order, at its
// level's time and not before — and its progress in config/delayOffset.json survives
// restarts, process crashes and power losses with duplicates only of the unpersisted part.
#include <gtest/gtest.h>

#include <map>

#include "base/java_hash.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/hooks/delay_level_hook.h"
#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/schedule/schedule_delivery_service.h"
#include "broker/service/reput.h"
#include "broker/service/send_service.h"
#include "broker/system_topics.h"
#include "io/fault_injection_file_system.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/small_store.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

// Refuses the scheduled re-puts while `fail` is set, as a store that is not writable
// answers them (SERVICE_NOT_AVAILABLE).
class RefuseScheduledHook final : public PutHook {
 public:
  explicit RefuseScheduledHook(const bool& fail) : fail_(fail) {}
  std::string_view name() const override { return "refuse-scheduled"; }
  Verdict BeforePut(const PutContext& c, DraftMessage&) override {
    if (fail_ && c.origin == PutOrigin::kScheduled) {
      return Verdict::Error(Outcome::kServiceNotAvailable, "store not writable (test)");
    }
    return Verdict::Ok();
  }

 private:
  const bool& fail_;
};

class ScheduleDeliveryTest : public ::testing::Test {
 protected:
  const std::string kDelayOffsetPath = "/store/config/delayOffset.json";

  void SetUp() override {
    pipeline_.Add(std::make_unique<RefuseScheduledHook>(fail_reputs_));
    pipeline_.Add(std::make_unique<MessageCheckHook>(1024));
    pipeline_.Add(std::make_unique<DelayLevelHook>(levels_));
    Open();
  }
  void TearDown() override {
    if (store_) Close();
  }

  void Open() {
    auto s = MessageStore::Open(StoreOpts(), fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    OpenServices();
  }
  StoreOptions StoreOpts() {
    StoreOptions o = rocketstore::testing::SteppedStoreOptions();
    o.max_message_body_bytes = 1024;
    o.async_flush.least_pages = 0;  // RunFlushStep flushes whatever is dirty
    o.tags_code_policy = [t = levels_](const DispatchRequest& r) { return t.TagsCode(r); };
    return o;
  }
  void OpenServices() {
    TopicConfig t;
    t.name = "T";
    t.read_queue_nums = t.write_queue_nums = 4;
    topics_.Upsert(t);
    send_ =
        std::make_unique<SendService>(SendService::Options{}, *store_, topics_, pipeline_, [] {});
    reput_ = std::make_unique<Reputter>(*store_, pipeline_);
    delay_offsets_ = std::make_unique<DelayOffsetManager>(fs_, clock_, kDelayOffsetPath);
    ASSERT_OK(fs_.CreateDirs("/store/config"));
    ASSERT_OK(delay_offsets_->Load());
    schedule_ = std::make_unique<ScheduleDeliveryService>(levels_, *store_, *reput_,
                                                          *delay_offsets_, clock_);
  }

  // A clean shutdown as the broker does it.
  void Close() {
    schedule_->Stop();
    ASSERT_OK(store_->Close());
    schedule_->CommitAllPending();
    ASSERT_OK(delay_offsets_->Persist());
    Drop();
  }
  void Drop() {
    schedule_.reset();
    send_.reset();
    reput_.reset();
    store_.reset();
    delay_offsets_.reset();
  }
  // The process dies (or the machine loses power) now; then it starts again.
  void CrashAndRestart(CrashMode mode) {
    Drop();
    ASSERT_OK(fs_.CrashNow(mode));
    ASSERT_OK(fs_.Reboot());
    Open();
  }

  SendResult Send(const std::string& body, int delay_level, int queue = 0,
                  const std::string& topic = "T") {
    SendRequest r;
    r.producer_group = "P";
    r.topic = topic;
    r.queue_id = queue;
    r.born_timestamp = clock_.NowMillis();
    const std::string props = "KEYS\x01" + body +
                              "\x02TAGS\x01TagA\x02"
                              "DELAY\x01" +
                              std::to_string(delay_level);
    const SendEntry entry{0, body, props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    auto res = send_->Send(RequestContext{}, r, [](SendResult) { ADD_FAILURE(); });
    EXPECT_TRUE(res.has_value());
    EXPECT_OK(store_->RunDispatchStep().status());
    return res ? *res : SendResult{};
  }

  // One delivery step at the fake clock's time, with the dispatch before and after it.
  int64_t Step() {
    EXPECT_OK(store_->RunDispatchStep().status());
    const int64_t next = schedule_->RunOnce(clock_.NowMillis());
    EXPECT_OK(store_->RunDispatchStep().status());
    return next;
  }
  // A step after an injected crash: errors are expected and ignored.
  void StepIgnoringErrors() {
    (void)store_->RunDispatchStep();
    schedule_->RunOnce(clock_.NowMillis());
    (void)store_->RunDispatchStep();
  }
  // Flush the commit log, then a step (which commits the now durable progress).
  void FlushAndStep() {
    ASSERT_OK(store_->RunFlushStep());
    Step();
  }

  // Bodies in `topic`:`queue`, in queue order.
  std::vector<std::string> Delivered(int queue = 0, const std::string& topic = "T") {
    GetMessageRequest g;
    g.topic = topic;
    g.queue_id = queue;
    g.offset = QueueOffset(0);
    g.max_msg_nums = 1000;
    GetMessageResult r = store_->GetMessage(g);
    std::vector<std::string> out;
    for (const CommitLogBytes& m : r.messages) {
      format::DecodeResult d = format::DecodeRecord(m.bytes, true);
      EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord);
      out.emplace_back(d.record.body);
    }
    return out;
  }
  std::map<std::string, int> DeliveredCounts(int queue = 0) {
    std::map<std::string, int> n;
    for (const std::string& b : Delivered(queue)) ++n[b];
    return n;
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  const DelayLevelTable levels_ = *DelayLevelTable::Parse("1s 5s 10s");
  bool fail_reputs_ = false;
  PutPipeline pipeline_;
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  std::unique_ptr<MessageStore> store_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<Reputter> reput_;
  std::unique_ptr<DelayOffsetManager> delay_offsets_;
  std::unique_ptr<ScheduleDeliveryService> schedule_;
};

TEST_F(ScheduleDeliveryTest, FailedReputIsRetriedLaterNeverSkipped) {
  Send("a", 1);
  Send("b", 1);
  clock_.AdvanceMillis(1000);
  fail_reputs_ = true;
  const int64_t next = Step();
  EXPECT_EQ(next, clock_.NowMillis() + 100) << "tried again after Java's DELAY_FOR_A_WHILE";
  EXPECT_TRUE(Delivered().empty());
  EXPECT_EQ(schedule_->failed_reputs(), 1u) << "the level stops at its first failure";
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 0);
  clock_.AdvanceMillis(100);
  Step();
  EXPECT_EQ(schedule_->failed_reputs(), 2u);
  fail_reputs_ = false;
  clock_.AdvanceMillis(100);
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(schedule_->skipped(), 0u);
}

TEST_F(ScheduleDeliveryTest, StoreThatStoppedWritingDeliversAfterRestart) {
  Send("a", 1);
  ASSERT_OK(store_->RunFlushStep());
  fs_.FailOpsOfKind(OpKind::kMapSync, EIO);
  fs_.FailOpsOfKind(OpKind::kSync, EIO);
  Send("b", 1);
  EXPECT_FALSE(store_->RunFlushStep().ok()) << "a failed flush makes the store refuse writes";
  clock_.AdvanceMillis(1000);
  Step();
  EXPECT_TRUE(Delivered().empty());
  EXPECT_GE(schedule_->failed_reputs(), 1u);
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 0) << "nothing skipped";
  fs_.ClearFailures();
  CrashAndRestart(CrashMode::kProcessCrash);
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(ScheduleDeliveryTest, NothingBeforeItsLevelsDelayEachLevelAtItsTime) {
  const int64_t t0 = clock_.NowMillis();
  ASSERT_TRUE(Send("ten", 3).stored());
  ASSERT_TRUE(Send("one", 1).stored());
  ASSERT_TRUE(Send("five", 2).stored());
  EXPECT_TRUE(Send("now", 0).stored());
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"now"})) << "DELAY=0 is delivered at once";
  EXPECT_EQ(store_->GetMaxOffsetInQueue(kScheduleTopic, 0).value(), 1);
  EXPECT_EQ(store_->GetMaxOffsetInQueue(kScheduleTopic, 1).value(), 1);
  EXPECT_EQ(store_->GetMaxOffsetInQueue(kScheduleTopic, 2).value(), 1);
  // The units' tags codes are the deliver times (RocketMQ's layout).
  for (int level = 1; level <= 3; ++level) {
    ASSERT_OK_AND_ASSIGN(auto units,
                         store_->GetQueueUnits(kScheduleTopic, level - 1, QueueOffset(0), 10));
    ASSERT_EQ(units.size(), 1u);
    EXPECT_EQ(units[0].tags_code, t0 + levels_.DelayMs(level));
  }
  clock_.SetMillis(t0 + 999);
  EXPECT_EQ(Step(), t0 + 1000) << "the earliest due time";
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"now"}));
  clock_.SetMillis(t0 + 1000);
  EXPECT_EQ(Step(), t0 + 5000);
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"now", "one"}));
  clock_.SetMillis(t0 + 4999);
  Step();
  EXPECT_EQ(Delivered().size(), 2u);
  clock_.SetMillis(t0 + 5000);
  EXPECT_EQ(Step(), t0 + 10000);
  clock_.SetMillis(t0 + 10000);
  EXPECT_EQ(Step(), ScheduleDeliveryService::kNothingPending);
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"now", "one", "five", "ten"}));
}

TEST_F(ScheduleDeliveryTest, DeliveredInOrderToTheRealQueueAsJavaReputsIt) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(Send("m" + std::to_string(i), 2, /*queue=*/3).stored());
    clock_.AdvanceMillis(300);
  }
  ASSERT_OK_AND_ASSIGN(auto scheduled, store_->GetQueueUnits(kScheduleTopic, 1, QueueOffset(0), 1));
  ASSERT_EQ(scheduled.size(), 1u);
  ASSERT_OK_AND_ASSIGN(StoredMessage first, reput_->Read(scheduled[0].offset.value()));
  const std::string scheduled_props(first.record.properties);
  EXPECT_EQ(format::FindProperty(scheduled_props, "REAL_QID"), "3");
  clock_.AdvanceMillis(5000);
  Step();
  EXPECT_EQ(Delivered(3), (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4"}));
  GetMessageRequest g;
  g.topic = "T";
  g.queue_id = 3;
  g.offset = QueueOffset(0);
  GetMessageResult r = store_->GetMessage(g);
  ASSERT_EQ(r.messages.size(), 5u);
  format::DecodeResult d = format::DecodeRecord(r.messages[0].bytes, true);
  ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
  EXPECT_EQ(d.record.topic, "T");
  EXPECT_EQ(d.record.queue_id, 3);
  // The properties string is the stored one: DELAY, REAL_TOPIC and REAL_QID stay.
  EXPECT_EQ(d.record.properties, scheduled_props);
  EXPECT_EQ(format::FindProperty(d.record.properties, "DELAY"), "2");
  EXPECT_EQ(format::FindProperty(d.record.properties, "REAL_TOPIC"), "T");
  ASSERT_OK_AND_ASSIGN(auto units, store_->GetQueueUnits("T", 3, QueueOffset(0), 10));
  ASSERT_EQ(units.size(), 5u);
  EXPECT_EQ(units[0].tags_code, static_cast<int64_t>(JavaStringHash("TagA")))
      << "the real topic's unit has the tag hash again";
}

TEST_F(ScheduleDeliveryTest, ClockSetBackIsCorrectedAsJavaDoes) {
  ASSERT_TRUE(Send("a", 3).stored());
  clock_.AdvanceMillis(-3600 * 1000);  // deliver time now > now + 10 s
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a"}));
}

TEST_F(ScheduleDeliveryTest, RecordsWithoutARealTopicAreSkippedTheRestDelivered) {
  format::MessageToStore m;
  m.topic = kScheduleTopic;
  m.queue_id = 0;
  m.body = "orphan";
  m.properties =
      "DELAY\x01"
      "1";
  m.born_host = m.store_host = format::HostAddress::V4(127, 0, 0, 1, 1);
  ASSERT_TRUE(store_->PutMessage(m).ok());
  Send("b", 1);
  clock_.AdvanceMillis(1000);
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"b"}));
  EXPECT_EQ(schedule_->skipped(), 1u);
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 2);
}

TEST_F(ScheduleDeliveryTest, CleanRestartDeliversNothingTwice) {
  Send("a", 1);
  Send("b", 2);
  clock_.AdvanceMillis(1000);
  Step();
  Close();
  ASSERT_OK_AND_ASSIGN(std::string file, fs_.ReadDurableFile(kDelayOffsetPath));
  EXPECT_EQ(file, R"({"offsetTable":{1:1}})");
  Open();
  clock_.AdvanceMillis(4000);
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(ScheduleDeliveryTest, ProgressIsCommittedOnlyOnceTheReputIsDurable) {
  Send("a", 1);
  ASSERT_OK(store_->RunFlushStep());
  clock_.AdvanceMillis(1000);
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a"}));
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 1);
  EXPECT_EQ(delay_offsets_->Query(1), -1) << "the re-put is not on disk yet";
  ASSERT_OK(delay_offsets_->Persist());
  // Power loss: the re-put is lost, and so is nothing else: the schedule record is
  // delivered again from the persisted progress.
  CrashAndRestart(CrashMode::kPowerLoss);
  EXPECT_TRUE(Delivered().empty());
  Step();
  EXPECT_EQ(Delivered(), (std::vector<std::string>{"a"}));
  FlushAndStep();
  EXPECT_EQ(delay_offsets_->Query(1), 1);
}

TEST_F(ScheduleDeliveryTest, ProcessCrashRedeliversOnlyTheUnpersistedPart) {
  for (int i = 0; i < 6; ++i) Send("m" + std::to_string(i), 1);
  ASSERT_OK(store_->RunFlushStep());
  clock_.AdvanceMillis(1000);
  ASSERT_OK(store_->RunDispatchStep().status());
  // Three delivered, durable and persisted ...
  ScheduleDeliveryService::Options small;
  small.max_per_level_step = 3;
  schedule_ = std::make_unique<ScheduleDeliveryService>(levels_, *store_, *reput_, *delay_offsets_,
                                                        clock_, small);
  Step();
  FlushAndStep();
  ASSERT_EQ(delay_offsets_->Query(1), 3);
  ASSERT_OK(delay_offsets_->Persist());
  // ... three more delivered (and even durable), but the file was not written again.
  Step();
  ASSERT_OK(store_->RunFlushStep());
  Step();
  EXPECT_EQ(delay_offsets_->Query(1), 6);
  CrashAndRestart(CrashMode::kProcessCrash);
  EXPECT_EQ(delay_offsets_->Query(1), 3);
  for (int i = 0; i < 3; ++i) Step();
  std::map<std::string, int> n = DeliveredCounts();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(n["m" + std::to_string(i)], 1) << i << ": persisted";
  for (int i = 3; i < 6; ++i) EXPECT_EQ(n["m" + std::to_string(i)], 2) << i << ": unpersisted";
}

// Every crash point of the delayOffset.json write, in both crash modes: the file read
// after the restart is the old or the new progress, never a torn one, and every message is
// delivered — at most twice, and once if it was below the progress last persisted.
TEST_F(ScheduleDeliveryTest, CrashAtEveryStepOfTheDelayOffsetWrite) {
  for (CrashMode mode : {CrashMode::kProcessCrash, CrashMode::kPowerLoss}) {
    for (uint64_t op = 1;; ++op) {
      SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int>(mode) << " op " << op);
      if (store_) Drop();
      fs_.~FaultInjectionFileSystem();
      new (&fs_) FaultInjectionFileSystem(clock_);
      Open();
      Send("a", 1);
      Send("b", 1);
      ASSERT_OK(store_->RunFlushStep());
      clock_.AdvanceMillis(1000);
      Step();
      FlushAndStep();
      ASSERT_EQ(delay_offsets_->Query(1), 2);
      fs_.CrashAtOp(op, mode);
      Status persisted = delay_offsets_->Persist();
      const bool crashed = fs_.crashed();
      if (!crashed) {
        fs_.CrashAtOp(0, mode);
        ASSERT_OK(persisted);
        ASSERT_OK(fs_.CrashNow(mode));
      }
      Drop();
      ASSERT_OK(fs_.Reboot());
      Open();
      const int64_t restored = delay_offsets_->Query(1);
      EXPECT_TRUE(restored == -1 || restored == 2) << restored;
      Step();
      std::map<std::string, int> n = DeliveredCounts();
      for (const char* b : {"a", "b"}) {
        EXPECT_EQ(n[b], restored == 2 ? 1 : 2) << b;
      }
      if (!crashed) break;
    }
  }
}

// Crash points of the re-put itself (the commit-log append and its flush): never a loss.
TEST_F(ScheduleDeliveryTest, CrashAtEveryStepOfTheDeliveryLosesNothing) {
  for (CrashMode mode : {CrashMode::kProcessCrash, CrashMode::kPowerLoss}) {
    for (uint64_t op = 1;; ++op) {
      SCOPED_TRACE(::testing::Message() << "mode " << static_cast<int>(mode) << " op " << op);
      if (store_) Drop();
      fs_.~FaultInjectionFileSystem();
      new (&fs_) FaultInjectionFileSystem(clock_);
      Open();
      Send("a", 1);
      Send("b", 1);
      ASSERT_OK(store_->RunFlushStep());
      ASSERT_OK(delay_offsets_->Persist());
      clock_.AdvanceMillis(1000);
      fs_.CrashAtOp(op, mode);
      StepIgnoringErrors();
      (void)store_->RunFlushStep();
      StepIgnoringErrors();
      (void)delay_offsets_->Persist();
      const bool crashed = fs_.crashed();
      if (!crashed) {
        fs_.CrashAtOp(0, mode);
        ASSERT_OK(fs_.CrashNow(mode));
      }
      Drop();
      ASSERT_OK(fs_.Reboot());
      Open();
      Step();
      std::map<std::string, int> n = DeliveredCounts();
      for (const char* b : {"a", "b"}) {
        EXPECT_GE(n[b], 1) << b;
        EXPECT_LE(n[b], 2) << b;
      }
      if (!crashed) break;
    }
  }
}

TEST_F(ScheduleDeliveryTest, StoredOffsetOutsideTheQueueIsClampedAsJava) {
  Send("a", 1);
  Close();
  EXPECT_EQ(fs_.Stat(kDelayOffsetPath).status().code(), StatusCode::kNotFound)
      << "nothing delivered, nothing to write";
  {
    DelayOffsetManager m(fs_, clock_, kDelayOffsetPath);
    m.Commit(1, 40);
    ASSERT_OK(m.Persist());
  }
  Open();
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 1) << "the queue's max";
}

// Where a level's units are gone under its offset, the level goes on at the queue's min
// offset (DeliverDelayedMessageTimerTask: getIndexBuffer null and min > offset -> min).
// Files leave a consume queue only from its head (retention), so that is the one way a
// level's offset can lose its units while the broker runs.
TEST_F(ScheduleDeliveryTest, QueueHeadGoneUnderALevelContinuesAtTheQueueMinAsJava) {
  for (int i = 0; i < 150; ++i) Send("m" + std::to_string(i), 1);
  EXPECT_GT(Step(), clock_.NowMillis()) << "nothing due yet";
  std::shared_ptr<ConsumeQueue> cq = store_->consume_queues().Find(kScheduleTopic, 0);
  ASSERT_TRUE(cq);
  ASSERT_OK_AND_ASSIGN(auto unit, store_->GetQueueUnits(kScheduleTopic, 0, QueueOffset(100), 1));
  // As retention does once the commit log's head is gone up to unit 100's record.
  ASSERT_OK(cq->DeleteFilesBelow(unit[0].offset));
  ASSERT_EQ(store_->GetMinOffsetInQueue(kScheduleTopic, 0), QueueOffset(100));
  ASSERT_EQ(cq->file_count(), 2u) << "units 0-63 are gone with their file";
  clock_.AdvanceMillis(1000);
  while (Step() <= clock_.NowMillis()) {
  }
  EXPECT_EQ(store_->GetMaxOffsetInQueue("T", 0), QueueOffset(50));
  std::vector<std::string> want;
  for (int i = 100; i < 132; ++i) want.push_back("m" + std::to_string(i));
  EXPECT_EQ(Delivered(), want) << "in order from unit 100 (a pull returns 32)";
  EXPECT_EQ(schedule_->skipped(), 100u);
  EXPECT_EQ(schedule_->Levels()[0].next_offset, 150);
}

// A consume-queue file missing in the middle of SCHEDULE_TOPIC_XXXX (deleted by hand): the
// store refuses to open and names the queue, instead of a broker whose level stalls there
// (4.9.8 starts, and its DeliverDelayedMessageTimerTask retries that offset every 100 ms
// for ever: getIndexBuffer is null and the offset lies within [min, max]).
TEST_F(ScheduleDeliveryTest, ScheduleQueueFileMissingInTheMiddleFailsTheOpenNamingIt) {
  for (int i = 0; i < 150; ++i) Send("m" + std::to_string(i), 1);
  Close();
  const std::string dir = "/store/consumequeue/SCHEDULE_TOPIC_XXXX/0";
  ASSERT_OK(fs_.RemoveFile(dir + "/00000000000000001280"));  // units 64-127
  auto s = MessageStore::Open(StoreOpts(), fs_, clock_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
  EXPECT_NE(s.status().message().find(dir), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find("not contiguous"), std::string::npos) << s.status();
}

TEST_F(ScheduleDeliveryTest, QueueUnitsFacade) {
  EXPECT_EQ(store_->GetQueueUnits("T", 0, QueueOffset(0), 0).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto none, store_->GetQueueUnits("nope", 0, QueueOffset(0), 4));
  EXPECT_TRUE(none.empty());
  for (int i = 0; i < 70; ++i) Send("x" + std::to_string(i), 0);
  ASSERT_OK_AND_ASSIGN(auto first, store_->GetQueueUnits("T", 0, QueueOffset(0), 100));
  EXPECT_EQ(first.size(), 64u) << "never past the consume-queue file";
  ASSERT_OK_AND_ASSIGN(auto rest, store_->GetQueueUnits("T", 0, QueueOffset(64), 100));
  EXPECT_EQ(rest.size(), 6u);
  EXPECT_GT(rest[0].offset, first[63].offset);
  ASSERT_OK_AND_ASSIGN(auto past, store_->GetQueueUnits("T", 0, QueueOffset(70), 4));
  EXPECT_TRUE(past.empty());
}

}  // namespace
}  // namespace rocketstore::broker
