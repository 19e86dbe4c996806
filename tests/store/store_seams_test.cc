// The seams broker features plug into (StoreOptions): extra dispatch sinks with their own
// recovery, the tags-code policy, arrival and durability listeners.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "base/java_hash.h"
#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::StatusIs;

StoreOptions SeamOptions(FlushDiskType flush = FlushDiskType::kAsyncFlush) {
  StoreOptions o;
  o.root_dir = "/store";
  o.commit_log_segment_size = 64 * 1024;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 0;
  o.consume_queue_units_per_file = 16;
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.flush_disk_type = flush;
  o.async_flush.least_pages = 0;  // RunFlushStep flushes whatever is dirty
  o.start_background_services = false;
  return o;
}

// What the test sink saw; shared with the test so that it outlives a "crashed" store.
struct SinkState {
  std::string root_dir;             // from the SinkContext
  std::vector<int64_t> dispatched;  // commit-log offsets, in dispatch order
  int64_t end = 0;                  // end of the newest record dispatched
  int64_t durable_end = 0;          // `end` at the last FlushForCheckpoint
  int64_t resume_override = -1;     // >= 0: what Recover answers
  std::vector<SinkRecoveryContext> recoveries;
};

// A sink that "persists" what it had at each checkpoint flush and resumes from there.
class TestSink final : public DispatchSink {
 public:
  explicit TestSink(std::shared_ptr<SinkState> state) : state_(std::move(state)) {}
  std::string_view SinkName() const override { return "test sink"; }
  Status Dispatch(const DispatchRequest& r) override {
    state_->dispatched.push_back(r.commit_log_offset.value());
    state_->end = std::max(state_->end, (r.commit_log_offset + r.size).value());
    return Status::OK();
  }
  Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) override {
    state_->recoveries.push_back(ctx);
    if (state_->resume_override >= 0) return PhysicalOffset(state_->resume_override);
    return std::min(PhysicalOffset(state_->durable_end), ctx.commit_log_end);
  }
  Status FlushForCheckpoint() override {
    state_->durable_end = state_->end;
    return Status::OK();
  }

 private:
  std::shared_ptr<SinkState> state_;
};

class StoreSeamsTest : public ::testing::Test {
 protected:
  StoreOptions WithSink(StoreOptions o) {
    o.extra_sinks.push_back(
        [state = state_](const SinkContext& ctx) -> Result<std::unique_ptr<DispatchSink>> {
          state->root_dir = ctx.root_dir;
          return std::unique_ptr<DispatchSink>(new TestSink(state));
        });
    return o;
  }
  // Puts messages from..to-1 and dispatches them; returns their offsets.
  std::vector<int64_t> Put(MessageStore& store, int from, int to) {
    std::vector<int64_t> offsets;
    for (int i = from; i < to; ++i) {
      PutMessageResult r = store.PutMessage(MakeTestMessage(i).View());
      EXPECT_TRUE(r.ok()) << r.error;
      offsets.push_back(r.first.offset.value());
      clock_.AdvanceMillis(1);
    }
    EXPECT_OK(store.RunDispatchStep().status());
    return offsets;
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  std::shared_ptr<SinkState> state_ = std::make_shared<SinkState>();
};

TEST_F(StoreSeamsTest, AFailingSinkFactoryFailsOpen) {
  StoreOptions o = SeamOptions();
  o.extra_sinks.push_back([](const SinkContext&) -> Result<std::unique_ptr<DispatchSink>> {
    return Corruption("sink files damaged");
  });
  EXPECT_THAT(MessageStore::Open(o, fs_, clock_).status(), StatusIs(StatusCode::kCorruption));
  o.extra_sinks = {[](const SinkContext&) -> Result<std::unique_ptr<DispatchSink>> {
    return std::unique_ptr<DispatchSink>();
  }};
  EXPECT_THAT(MessageStore::Open(o, fs_, clock_).status(), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(StoreSeamsTest, ExtraSinkReceivesEveryDispatchedMessage) {
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
  EXPECT_EQ(state_->root_dir, "/store");
  ASSERT_EQ(state_->recoveries.size(), 1u);  // a new store: nothing to resume
  EXPECT_EQ(state_->recoveries[0].commit_log_end, PhysicalOffset(0));
  const std::vector<int64_t> offsets = Put(*store, 0, 12);
  EXPECT_EQ(state_->dispatched, offsets);
  // The checkpoint flush reaches the extra sink too.
  ASSERT_OK(store->RunConsumeQueueFlushStep(/*thorough=*/true));
  EXPECT_EQ(state_->durable_end, store->MaxPhysicalOffset().value());
  ASSERT_OK(store->Close());
}

TEST_F(StoreSeamsTest, CrashReDispatchesTheGapAfterTheSinksCheckpoint) {
  std::vector<int64_t> offsets;
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
    offsets = Put(*store, 0, 10);
    // The checkpoint covers what the commit log has durably: flush it first.
    ASSERT_OK(store->RunFlushStep());
    ASSERT_OK(store->RunConsumeQueueFlushStep(/*thorough=*/true));  // checkpoint after 10
    for (int64_t o : Put(*store, 10, 15)) offsets.push_back(o);
    ASSERT_OK(store->RunFlushStep());
    // Destroyed without Close: a process crash (abort stays, page cache kept).
  }
  ASSERT_EQ(state_->dispatched.size(), 15u);
  state_->dispatched.clear();
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
  ASSERT_EQ(state_->recoveries.size(), 2u);
  const SinkRecoveryContext& ctx = state_->recoveries[1];
  EXPECT_EQ(ctx.last_run, LastRun::kProcessCrash);
  ASSERT_TRUE(ctx.checkpoint_dispatched.has_value());
  EXPECT_EQ(ctx.checkpoint_dispatched->value(), offsets[10]);  // the checkpoint's offset
  EXPECT_EQ(ctx.commit_log_end, store->MaxPhysicalOffset());
  // The sink resumed where its checkpoint left it: exactly the five later messages again.
  EXPECT_EQ(state_->dispatched, std::vector<int64_t>(offsets.begin() + 10, offsets.end()));
  EXPECT_EQ(store->GetMaxOffsetInQueue("TopicTest", 0), QueueOffset(4));  // 0 4 8 12
  ASSERT_OK(store->Close());
}

TEST_F(StoreSeamsTest, TheSmallestResumeOffsetBoundsTheReDispatch) {
  std::vector<int64_t> offsets;
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
    offsets = Put(*store, 0, 10);
    ASSERT_OK(store->Close());
  }
  // Clean shutdown: the sink had everything, but another sink resumes earlier (the index
  // re-adds its last message, whose keys a crash could have cut short): the re-dispatch
  // starts at the smallest resume offset, which the sinks that have the records skip.
  state_->dispatched.clear();
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
    EXPECT_EQ(state_->recoveries.back().last_run, LastRun::kClean);
    const auto& last_indexed = store->index_recovery_report().last_indexed;
    ASSERT_TRUE(last_indexed.has_value());
    const auto from = std::find(offsets.begin(), offsets.end(), last_indexed->value());
    ASSERT_NE(from, offsets.end());
    EXPECT_EQ(state_->dispatched, std::vector<int64_t>(from, offsets.end()));
    EXPECT_LE(state_->dispatched.size(), 2u);
    ASSERT_OK(store->Close());
  }
  // A sink that lost its state says so: everything from its resume offset comes again,
  // and nothing before it.
  state_->dispatched.clear();
  state_->resume_override = offsets[4];
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(WithSink(SeamOptions()), fs_, clock_));
  EXPECT_EQ(state_->dispatched, std::vector<int64_t>(offsets.begin() + 4, offsets.end()));
  // The consume queues ignored what they already had.
  EXPECT_EQ(store->GetMaxOffsetInQueue("TopicTest", 1), QueueOffset(3));  // 1 5 9
  ASSERT_OK(store->Close());
}

TEST_F(StoreSeamsTest, TagsCodePolicyValueLandsInTheConsumeQueueUnit) {
  StoreOptions o = SeamOptions();
  o.tags_code_policy = [](const DispatchRequest& r) -> int64_t {
    if (r.tags == "Tag1") return r.store_timestamp + 5000;  // like a delivery time
    return DefaultTagsCode(r);
  };
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs_, clock_));
  const int64_t t1 = clock_.NowMillis() + 1;  // message 1 is stored 1 ms after message 0
  Put(*store, 0, 3);
  auto q0 = store->consume_queues().Find("TopicTest", 0);
  auto q1 = store->consume_queues().Find("TopicTest", 1);
  ASSERT_TRUE(q0 && q1);
  ASSERT_OK_AND_ASSIGN(auto u0, q0->GetUnit(QueueOffset(0)));
  ASSERT_OK_AND_ASSIGN(auto u1, q1->GetUnit(QueueOffset(0)));
  EXPECT_EQ(u0.tags_code, JavaStringHash("Tag0"));  // the default
  EXPECT_EQ(u1.tags_code, t1 + 5000);               // the policy's
  ASSERT_OK(store->Close());
}

TEST_F(StoreSeamsTest, EveryArrivalListenerHearsEveryQueueAdvance) {
  StoreOptions o = SeamOptions();
  std::vector<std::string> a, b;
  auto record = [](std::vector<std::string>* to) {
    return [to](std::string_view topic, int32_t q, QueueOffset next) {
      to->push_back(std::string(topic) + "-" + std::to_string(q) + "@" +
                    std::to_string(next.value()));
    };
  };
  o.arrival_listeners = {record(&a), record(&b)};
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs_, clock_));
  Put(*store, 0, 5);
  EXPECT_EQ(a, (std::vector<std::string>{"TopicTest-0@1", "TopicTest-1@1", "TopicTest-2@1",
                                         "TopicTest-3@1", "TopicTest-0@2"}));
  EXPECT_EQ(b, a);
  ASSERT_OK(store->Close());
}

TEST_F(StoreSeamsTest, DurabilityListenersHearEachNewDurableOffsetOnce) {
  for (FlushDiskType flush : {FlushDiskType::kAsyncFlush, FlushDiskType::kSyncFlush}) {
    SCOPED_TRACE(flush == FlushDiskType::kSyncFlush ? "SYNC_FLUSH" : "ASYNC_FLUSH");
    FaultInjectionFileSystem fs(clock_);
    StoreOptions o = SeamOptions(flush);
    o.async_flush.least_pages = 0;
    std::vector<int64_t> a, b;
    o.durability_listeners = {[&a](PhysicalOffset d) { a.push_back(d.value()); },
                              [&b](PhysicalOffset d) { b.push_back(d.value()); }};
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock_));
    for (int round = 1; round <= 3; ++round) {
      // SYNC_FLUSH: the put waits and leads the flush itself (no background thread).
      ASSERT_TRUE(store->PutMessage(MakeTestMessage(round).View()).ok());
      clock_.AdvanceMillis(20000);  // past ASYNC_FLUSH's thorough interval
      ASSERT_OK(store->RunFlushStep());
      ASSERT_EQ(a.size(), static_cast<size_t>(round));
      EXPECT_EQ(a.back(), store->MaxPhysicalOffset().value());
    }
    ASSERT_OK(store->RunFlushStep());  // nothing new: no call
    EXPECT_EQ(a.size(), 3u);
    EXPECT_EQ(b, a);
    EXPECT_LT(a[0], a[1]);
    EXPECT_LT(a[1], a[2]);
    ASSERT_OK(store->Close());
    EXPECT_EQ(a.size(), 3u);
  }
}

}  // namespace
}  // namespace rocketstore
