#include "store/dispatch/dispatcher.h"

#include <gtest/gtest.h>

#include "base/java_hash.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::StatusIs;

struct Seen {
  std::string topic;
  int32_t queue_id;
  int64_t offset;
  int32_t size;
  int64_t tags_code;
  int64_t queue_offset;
  std::string keys;
  std::string uniq;
};

class RecordingSink : public DispatchSink {
 public:
  std::string_view SinkName() const override { return "recording"; }
  Result<PhysicalOffset> Recover(const SinkRecoveryContext& ctx) override {
    return ctx.commit_log_end;
  }
  Status FlushForCheckpoint() override { return Status::OK(); }
  Status Dispatch(const DispatchRequest& r) override {
    if (fail_at_ >= 0 && static_cast<int>(seen.size()) == fail_at_) return Internal("sink full");
    seen.push_back({std::string(r.topic), r.queue_id, r.commit_log_offset.value(), r.size,
                    r.tags_code, r.queue_offset.value(), std::string(r.keys),
                    std::string(r.uniq_key)});
    return Status::OK();
  }
  std::vector<Seen> seen;
  int fail_at_ = -1;
};

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CommitLogOptions o;
    o.dir = "/s/commitlog";
    o.segment_size = 1024;
    o.reserve_chunk_bytes = 1024;
    o.prefault_window_bytes = 0;
    auto log = CommitLog::Open(fs_, o, clock_, health_);
    ASSERT_OK(log.status());
    log_ = std::move(log).value();
  }
  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  StoreHealth health_;
  std::unique_ptr<CommitLog> log_;
};

TEST_F(DispatcherTest, DispatchesEveryRecordAcrossSegmentsInOrder) {
  std::vector<PutMessageResult> puts;
  for (int i = 0; i < 40; ++i) puts.push_back(log_->Put(MakeTestMessage(i).View()));
  RecordingSink sink;
  std::vector<std::pair<int32_t, int64_t>> arrivals;
  Dispatcher::Options options;
  options.arrival_listeners.push_back([&](std::string_view, int32_t q, QueueOffset next) {
    arrivals.emplace_back(q, next.value());
  });
  Dispatcher d(*log_, {&sink}, options);
  ASSERT_OK_AND_ASSIGN(int64_t n, d.RunOnce(log_->MaxOffset()));
  EXPECT_EQ(n, 40);
  ASSERT_EQ(sink.seen.size(), 40u);
  for (int i = 0; i < 40; ++i) {
    const Seen& s = sink.seen[static_cast<size_t>(i)];
    EXPECT_EQ(s.offset, puts[static_cast<size_t>(i)].first.offset.value());
    EXPECT_EQ(s.size, puts[static_cast<size_t>(i)].first.size);
    EXPECT_EQ(s.queue_offset, puts[static_cast<size_t>(i)].first.queue_offset.value());
    EXPECT_EQ(s.keys, "k" + std::to_string(i));
    EXPECT_EQ(s.tags_code, JavaStringHash("Tag" + std::to_string(i % 3)));
  }
  EXPECT_EQ(d.dispatched_offset(), log_->MaxOffset());
  EXPECT_EQ(d.BehindBytes(log_->MaxOffset()), 0);
  EXPECT_EQ(arrivals.size(), 40u);
  EXPECT_GT(log_->segments().file_count(), 3u);  // crossed BLANKs
}

TEST_F(DispatcherTest, StopsAtTheLimitAndResumes) {
  auto a = log_->Put(MakeTestMessage(0).View());
  auto b = log_->Put(MakeTestMessage(1).View());
  RecordingSink sink;
  Dispatcher d(*log_, {&sink});
  ASSERT_OK_AND_ASSIGN(int64_t n, d.RunOnce(b.first.offset));  // e.g. flushed up to A only
  EXPECT_EQ(n, 1);
  EXPECT_EQ(d.dispatched_offset(), b.first.offset);
  ASSERT_OK_AND_ASSIGN(n, d.RunOnce(b.first.offset + 10));  // limit mid-record: nothing
  EXPECT_EQ(n, 0);
  ASSERT_OK_AND_ASSIGN(n, d.RunOnce(log_->MaxOffset()));
  EXPECT_EQ(n, 1);
}

TEST_F(DispatcherTest, SinkErrorStopsAndIsRetriedFromTheSameRecord) {
  for (int i = 0; i < 5; ++i) (void)log_->Put(MakeTestMessage(i).View());
  RecordingSink sink;
  sink.fail_at_ = 2;
  Dispatcher d(*log_, {&sink});
  EXPECT_THAT(d.RunOnce(log_->MaxOffset()), StatusIs(StatusCode::kInternal));
  EXPECT_EQ(sink.seen.size(), 2u);
  sink.fail_at_ = -1;
  ASSERT_OK_AND_ASSIGN(int64_t n, d.RunOnce(log_->MaxOffset()));
  EXPECT_EQ(n, 3);
  EXPECT_EQ(sink.seen.size(), 5u);
}

TEST_F(DispatcherTest, PreparedAndRollbackAreDispatchedButDoNotSignalArrival) {
  auto m = MakeTestMessage(0);
  auto v = m.View();
  v.sys_flag = format::kTransactionPrepared;
  (void)log_->Put(v);
  RecordingSink sink;
  int arrivals = 0;
  Dispatcher::Options options;
  options.arrival_listeners.push_back([&](std::string_view, int32_t, QueueOffset) { ++arrivals; });
  Dispatcher d(*log_, {&sink}, options);
  ASSERT_OK(d.RunOnce(log_->MaxOffset()).status());
  EXPECT_EQ(sink.seen.size(), 1u);  // the index still wants it; the CQ sink filters
  EXPECT_EQ(arrivals, 0);
}

TEST_F(DispatcherTest, SinkErrorNamesTheSink) {
  (void)log_->Put(MakeTestMessage(0).View());
  RecordingSink sink;
  sink.fail_at_ = 0;
  Dispatcher d(*log_, {&sink});
  Result<int64_t> r = d.RunOnce(log_->MaxOffset());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("recording: dispatching commit log offset 0"),
            std::string::npos)
      << r.status();
}

TEST_F(DispatcherTest, EveryArrivalListenerHearsEveryAdvance) {
  for (int i = 0; i < 6; ++i) (void)log_->Put(MakeTestMessage(i).View());
  RecordingSink sink;
  std::vector<std::string> first, second;
  Dispatcher::Options options;
  options.arrival_listeners.push_back([&](std::string_view, int32_t q, QueueOffset next) {
    first.push_back(std::to_string(q) + "@" + std::to_string(next.value()));
  });
  options.arrival_listeners.push_back([&](std::string_view, int32_t q, QueueOffset next) {
    second.push_back(std::to_string(q) + "@" + std::to_string(next.value()));
  });
  Dispatcher d(*log_, {&sink}, options);
  ASSERT_OK(d.RunOnce(log_->MaxOffset()).status());
  // MakeTestMessage spreads messages over queues i % 4 (see store_messages.h).
  ASSERT_EQ(first.size(), 6u);
  EXPECT_EQ(first, second);
}

TEST_F(DispatcherTest, TagsCodePolicyDecidesTheTagsCode) {
  for (int i = 0; i < 3; ++i) (void)log_->Put(MakeTestMessage(i).View());
  RecordingSink sink;
  Dispatcher::Options options;
  // The policy sees the request (tags, properties, store time) before the sinks do.
  options.tags_code_policy = [](const DispatchRequest& r) {
    return r.tags == "Tag1" ? r.store_timestamp + 1000 : DefaultTagsCode(r);
  };
  Dispatcher d(*log_, {&sink}, options);
  ASSERT_OK(d.RunOnce(log_->MaxOffset()).status());
  ASSERT_EQ(sink.seen.size(), 3u);
  EXPECT_EQ(sink.seen[0].tags_code, JavaStringHash("Tag0"));
  EXPECT_NE(sink.seen[1].tags_code, JavaStringHash("Tag1"));
  EXPECT_GT(sink.seen[1].tags_code, 1000);
  EXPECT_EQ(sink.seen[2].tags_code, JavaStringHash("Tag2"));
}

}  // namespace
}  // namespace rocketstore
