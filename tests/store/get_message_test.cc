// The store read the way consumers read it: GetMessage statuses and next-begin offsets
// (spec §9.2), tag filtering, offsets by time, visibility under SYNC_FLUSH, and the §12.3
// example's ConsumeQueue and IndexFile bytes produced end to end through the store.
#include <gtest/gtest.h>

#include "base/coding.h"
#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;
using ::rocketstore::testing::RecordMatches;
using ::rocketstore::testing::StatusIs;

StoreOptions TestOptions(FlushDiskType flush = FlushDiskType::kAsyncFlush) {
  StoreOptions o;
  o.root_dir = "/store";
  o.commit_log_segment_size = 64 * 1024;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 0;
  o.consume_queue_units_per_file = 16;  // small: exercises CQ file rolls
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.flush_disk_type = flush;
  o.start_background_services = false;
  return o;
}

class GetMessageTest : public ::testing::Test {
 protected:
  void Open(FlushDiskType flush = FlushDiskType::kAsyncFlush) {
    auto s = MessageStore::Open(TestOptions(flush), fs_, clock_);
    ASSERT_OK(s.status());
    store_ = std::move(s).value();
  }
  // Puts messages 0..n-1 (queue i % 4), one ms apart, and dispatches them.
  void Put(int n, bool dispatch = true) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(store_->PutMessage(MakeTestMessage(i).View()).ok());
      clock_.AdvanceMillis(1);
    }
    if (dispatch) ASSERT_OK(store_->RunDispatchStep().status());
  }
  GetMessageResult Get(int32_t queue, int64_t offset, int max = 32,
                       const MessageFilter* filter = nullptr,
                       std::string_view topic = "TopicTest") {
    GetMessageRequest r;
    r.group = "G";
    r.topic = topic;
    r.queue_id = queue;
    r.offset = QueueOffset(offset);
    r.max_msg_nums = max;
    r.filter = filter;
    return store_->GetMessage(r);
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<MessageStore> store_;
};

TEST_F(GetMessageTest, EmptyOrUnknownQueueIsNoMessageInQueue) {
  Open();
  GetMessageResult r = Get(0, 5);
  EXPECT_EQ(r.status, GetMessageStatus::kNoMessageInQueue);
  EXPECT_EQ(r.next_begin_offset.value(), 0);
  EXPECT_FALSE(fs_.Exists("/store/consumequeue/TopicTest"));  // reads create nothing
}

TEST_F(GetMessageTest, InvalidQueueIsNoMatchedLogicQueue) {
  Open();
  EXPECT_EQ(Get(-1, 0).status, GetMessageStatus::kNoMatchedLogicQueue);
  EXPECT_EQ(Get(0, 0, 32, nullptr, "../etc").status, GetMessageStatus::kNoMatchedLogicQueue);
}

TEST_F(GetMessageTest, OffsetStatusesAndNextBeginOffsets) {
  Open();
  Put(40);  // 10 per queue
  GetMessageResult over_one = Get(1, 10);
  EXPECT_EQ(over_one.status, GetMessageStatus::kOffsetOverflowOne);
  EXPECT_EQ(over_one.next_begin_offset.value(), 10);
  EXPECT_EQ(over_one.max_offset.value(), 10);
  GetMessageResult over_badly = Get(1, 25);
  EXPECT_EQ(over_badly.status, GetMessageStatus::kOffsetOverflowBadly);
  EXPECT_EQ(over_badly.next_begin_offset.value(), 10);
  GetMessageResult found = Get(1, 3, 4);
  ASSERT_EQ(found.status, GetMessageStatus::kFound);
  ASSERT_EQ(found.messages.size(), 4u);
  EXPECT_EQ(found.next_begin_offset.value(), 7);
  for (int i = 0; i < 4; ++i) {
    std::string why;
    // Queue 1 holds messages 1, 5, 9, ...: offset k is message 4k+1.
    EXPECT_TRUE(RecordMatches(found.messages[static_cast<size_t>(i)].bytes,
                              MakeTestMessage(4 * (3 + i) + 1), &why))
        << why;
    EXPECT_EQ(found.queue_offsets[static_cast<size_t>(i)].value(), 3 + i);
  }
}

TEST_F(GetMessageTest, OffsetTooSmallAfterMinOffsetMoves) {
  Open();
  auto cq_store = &store_->consume_queues();
  // A queue that starts at offset 100 (pre-filled): min = 100.
  ASSERT_OK_AND_ASSIGN(auto cq, cq_store->FindOrCreate("Other", 0));
  ASSERT_OK(cq->InitializeWithOffset(QueueOffset(100)));
  GetMessageResult r = Get(0, 50, 32, nullptr, "Other");
  // An empty queue at 100: max == 100 != 0, offset < min.
  EXPECT_EQ(r.status, GetMessageStatus::kOffsetTooSmall);
  EXPECT_EQ(r.next_begin_offset.value(), 100);
}

TEST_F(GetMessageTest, BatchStopsAtMaxMsgNumsAndCqFileEnd) {
  Open();
  Put(160);  // 40 per queue; CQ files hold 16 units
  GetMessageResult r = Get(2, 10, 32);
  ASSERT_EQ(r.status, GetMessageStatus::kFound);
  // The scan never crosses the end of the CQ file holding the start offset (16 units).
  EXPECT_EQ(r.messages.size(), 6u);
  EXPECT_EQ(r.next_begin_offset.value(), 16);
  GetMessageResult small = Get(2, 16, 3);
  EXPECT_EQ(small.messages.size(), 3u);
  EXPECT_EQ(small.next_begin_offset.value(), 19);
}

TEST_F(GetMessageTest, TagFilterSkipsAndReportsNoMatchedMessage) {
  Open();
  Put(40);  // message i has TAGS Tag<i % 3>
  TagFilter tag1("Tag1");
  GetMessageResult r = Get(0, 0, 32, &tag1);  // queue 0: messages 0,4,8,...,36
  ASSERT_EQ(r.status, GetMessageStatus::kFound);
  for (const auto& m : r.messages) {
    auto d = format::DecodeRecord(m.bytes, true);
    EXPECT_NE(d.record.properties.find("Tag1"), std::string_view::npos);
  }
  EXPECT_EQ(r.messages.size(), 3u);  // 4, 16, 28 (i % 3 == 1)
  EXPECT_EQ(r.next_begin_offset.value(), 10);
  TagFilter none("NoSuchTag || AlsoNot");
  GetMessageResult n = Get(0, 0, 32, &none);
  EXPECT_EQ(n.status, GetMessageStatus::kNoMatchedMessage);
  EXPECT_EQ(n.next_begin_offset.value(), 10);  // skipped units are consumed
  TagFilter all(" * ");
  EXPECT_EQ(Get(0, 0, 32, &all).messages.size(), 10u);
  TagFilter two("Tag0 || Tag2");
  EXPECT_EQ(Get(0, 0, 32, &two).messages.size(), 7u);
}

TEST_F(GetMessageTest, OffsetByTimeAndStoreTimes) {
  Open();
  const int64_t t0 = clock_.NowMillis();
  Put(40);  // message i stored at t0 + i
  // Queue 3 holds messages 3, 7, 11, ... stored at t0+3, t0+7, ... (10 units, one file).
  auto by_time = [&](int64_t ts) {
    Result<QueueOffset> r = store_->GetOffsetInQueueByTime("TopicTest", 3, ts);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->value() : -1;
  };
  // RocketMQ 4.9.8 (ConsumeQueue.getOffsetInQueueByTime):
  EXPECT_EQ(by_time(t0), 0);         // before the first: the first
  EXPECT_EQ(by_time(t0 + 7), 1);     // exact
  EXPECT_EQ(by_time(t0 + 8), 1);     // between t0+7 and t0+11: the closer, before
  EXPECT_EQ(by_time(t0 + 10), 2);    // ... the closer, after
  EXPECT_EQ(by_time(t0 + 9), 1);     // ... a tie: the one before
  EXPECT_EQ(by_time(t0 + 1000), 9);  // after the last: the LAST unit, not max (10)
  EXPECT_EQ(*store_->GetOffsetInQueueByTime("Nope", 3, t0), QueueOffset(0));
  // A queue without a unit (RocketMQ creates it on lookup, without files): 0.
  ASSERT_OK(store_->consume_queues().FindOrCreate("Empty", 0).status());
  EXPECT_EQ(*store_->GetOffsetInQueueByTime("Empty", 0, t0), QueueOffset(0));
  EXPECT_EQ(*store_->GetOffsetInQueueByTime("Empty", 0, t0 + 1000), QueueOffset(0));
  // The lower bound (5.x BoundaryType.LOWER) keeps "first at or after".
  EXPECT_EQ(*store_->GetFirstOffsetInQueueAtOrAfter("TopicTest", 3, t0 + 8), QueueOffset(2));
  EXPECT_EQ(*store_->GetFirstOffsetInQueueAtOrAfter("TopicTest", 3, t0 + 1000), QueueOffset(10));
  EXPECT_EQ(*store_->GetEarliestMessageTime("TopicTest", 3), t0 + 3);
  EXPECT_EQ(*store_->GetMessageStoreTime("TopicTest", 3, QueueOffset(2)), t0 + 11);
  EXPECT_THAT(store_->GetEarliestMessageTime("Nope", 0), StatusIs(StatusCode::kNotFound));
}

// With several consume-queue files 4.9.8 first picks the file (the first one modified at or
// after the time, the last unit's store time standing for the mtime), then searches only it.
TEST_F(GetMessageTest, OffsetByTimeWithSeveralConsumeQueueFiles) {
  Open();
  const int64_t t0 = clock_.NowMillis();
  Put(80);  // queue 3: 20 units, t0+3 .. t0+79; 16 per file: units 0..15, then 16..19
  auto by_time = [&](int64_t ts) {
    Result<QueueOffset> r = store_->GetOffsetInQueueByTime("TopicTest", 3, ts);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->value() : -1;
  };
  EXPECT_EQ(by_time(t0 + 63), 15);  // the first file's last unit, exactly
  EXPECT_EQ(by_time(t0 + 64), 16);  // past the first file: the second's first unit, though
                                    // unit 15 (t0+63) is closer
  EXPECT_EQ(by_time(t0 + 70), 17);  // in the second file: the closer neighbour (t0+71)
  EXPECT_EQ(by_time(t0 + 5000), 19);
  EXPECT_EQ(by_time(0), 0);
}

TEST_F(GetMessageTest, SyncFlushNeverExposesUndurableMessages) {
  Open(FlushDiskType::kSyncFlush);
  // Not waiting for the flush: appended, not durable, so not dispatchable.
  ASSERT_TRUE(store_->PutMessage(MakeTestMessage(0).View(), /*wait_for_flush=*/false).ok());
  ASSERT_OK(store_->RunDispatchStep().status());
  EXPECT_EQ(Get(0, 0).status, GetMessageStatus::kNoMessageInQueue);
  EXPECT_GT(store_->DispatchBehindBytes(), 0);
  ASSERT_OK(store_->RunFlushStep());  // now durable
  ASSERT_OK(store_->RunDispatchStep().status());
  EXPECT_EQ(Get(0, 0).status, GetMessageStatus::kFound);
  EXPECT_EQ(store_->DispatchBehindBytes(), 0);
}

TEST_F(GetMessageTest, ArrivalListenerSeesEveryQueueAdvance) {
  std::map<int32_t, int64_t> next;
  StoreOptions o = TestOptions();
  o.arrival_listeners.push_back(
      [&](std::string_view, int32_t q, QueueOffset n) { next[q] = n.value(); });
  ASSERT_OK_AND_ASSIGN(store_, MessageStore::Open(o, fs_, clock_));
  Put(10);
  EXPECT_EQ(next[0], 3);
  EXPECT_EQ(next[1], 3);
  EXPECT_EQ(next[2], 2);
}

// accessMessageInMemoryMaxRatio decides what counts as in memory: at 0 every message is
// "on disk", and a batch stops at RocketMQ's on-disk limit of 8 messages.
TEST_F(GetMessageTest, InMemoryRatioSetsTheBatchLimit) {
  StoreOptions o = TestOptions();
  o.consume_queue_units_per_file = 64;
  for (int ratio : {40, 0}) {
    FaultInjectionFileSystem fs(clock_);
    o.access_message_in_memory_max_ratio = ratio;
    ASSERT_OK_AND_ASSIGN(store_, MessageStore::Open(o, fs, clock_));
    Put(80);  // 20 per queue
    GetMessageResult r = Get(1, 0, 32);
    ASSERT_EQ(r.status, GetMessageStatus::kFound);
    EXPECT_EQ(r.messages.size(), ratio == 0 ? 8u : 20u) << "ratio " << ratio;
    store_.reset();
  }
}

TEST_F(GetMessageTest, BackgroundDispatchCatchesUpWithoutPolling) {
  StoreOptions o = TestOptions();
  o.start_background_services = true;
  auto s = MessageStore::Open(o, fs_, clock_);
  ASSERT_OK(s.status());
  for (int i = 0; i < 500; ++i) ASSERT_TRUE((*s)->PutMessage(MakeTestMessage(i).View()).ok());
  // The dispatcher is woken by the puts; wait (bounded) for the lag to reach zero.
  for (int spin = 0; spin < 5000 && (*s)->DispatchBehindBytes() > 0; ++spin) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ((*s)->DispatchBehindBytes(), 0);
  EXPECT_EQ((*s)->GetMaxOffsetInQueue("TopicTest", 0).value(), 125);
  EXPECT_OK((*s)->Close());
}

TEST_F(GetMessageTest, StopWhileDispatchIsBehindKeepsTheAbortFile) {
  Open();
  Put(10, /*dispatch=*/false);
  // Building the consume queues fails (disk full for CQ files): Close cannot catch up.
  fs_.FailOpsOfKind(OpKind::kOpen, ENOSPC);
  EXPECT_GT(store_->DispatchBehindBytes(), 0);
  (void)store_->Close();
  fs_.ClearFailures();
  EXPECT_TRUE(fs_.Exists("/store/abort"));
  store_.reset();
  Open();
  EXPECT_TRUE(store_->recovered_abnormally());
  EXPECT_EQ(store_->DispatchBehindBytes(), 0);  // caught up during recovery
  EXPECT_EQ(store_->GetMaxOffsetInQueue("TopicTest", 0).value(), 3);
}

TEST_F(GetMessageTest, RestartRebuildsQueueOffsetsFromConsumeQueues) {
  Open();
  Put(40);
  ASSERT_OK(store_->Close());
  store_.reset();
  Open();
  PutMessageResult r = store_->PutMessage(MakeTestMessage(40).View());
  EXPECT_EQ(r.first.queue_offset.value(), 10);
}

TEST_F(GetMessageTest, QueryByKeyFindsMessagesAcrossRestartsAndCrashes) {
  Open();
  Put(50);
  store_.reset();  // crash: no Close
  Open();
  EXPECT_TRUE(store_->recovered_abnormally());
  for (int i : {0, 17, 49}) {
    auto r = store_->QueryMessage("TopicTest", "k" + std::to_string(i), 32, 0, INT64_MAX);
    ASSERT_OK(r.status());
    ASSERT_EQ(r->messages.size(), 1u) << i;
    EXPECT_EQ(r->messages[0].record.body, MakeTestMessage(i).body);
  }
  auto none = store_->QueryMessage("TopicTest", "k999", 32, 0, INT64_MAX);
  ASSERT_OK(none.status());
  EXPECT_TRUE(none->messages.empty());
}

// Spec §12.3 end to end: 256-byte segments; record A (TAGS=TagA KEYS=k1) and record B
// (KEYS=k1, UNIQ_KEY, CLUSTER, TAGS=TagA) through the store; the CQ units and the index
// (8 slots, 16 entries) come out byte for byte as RocketMQ 4.9.8 wrote them.
TEST(Spec12_3Test, ConsumeQueueAndIndexBytesThroughTheStore) {
  FakeClock clock(1700000000123);
  FaultInjectionFileSystem fs(clock);
  StoreOptions o = TestOptions();
  o.commit_log_segment_size = 256;
  o.index_hash_slot_num = 8;
  o.index_num = 16;
  o.consume_queue_units_per_file = 300000;
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(o, fs, clock));
  format::MessageToStore m;
  m.topic = "TopicTest";
  m.body = "hello";
  m.born_timestamp = 1700000000000;
  m.born_host = format::HostAddress::V4(127, 0, 0, 1, 5555);
  m.store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
  const std::string props_a("KEYS\x01k1\x02TAGS\x01TagA", 17);
  const std::string props_b = std::string("KEYS\x01k1\x02UNIQ_KEY\x01", 17) +
                              "7F00000112340BADCAFE0001E2400001" +
                              std::string(
                                  "\x02"
                                  "CLUSTER\x01",
                                  9) +
                              "DefaultCluster" + std::string("\x02TAGS\x01TagA", 10);
  ASSERT_EQ(props_b.size(), 82u);
  m.properties = props_a;
  ASSERT_EQ(store->PutMessage(m).first.offset.value(), 0);
  m.properties = props_b;
  ASSERT_EQ(store->PutMessage(m).first.offset.value(), 256);
  ASSERT_OK(store->RunDispatchStep().status());
  ASSERT_OK(store->Close());

  ASSERT_OK_AND_ASSIGN(std::string cq,
                       fs.ReadWholeFile("/store/consumequeue/TopicTest/0/00000000000000000000"));
  EXPECT_EQ(HexUpper(cq.data(), 40),
            "00000000000000000000007A000000000027A807"
            "0000000000000100000000BB000000000027A807");
  ASSERT_OK_AND_ASSIGN(auto names, fs.ListDir("/store/index"));
  ASSERT_EQ(names.size(), 1u);
  ASSERT_OK_AND_ASSIGN(std::string idx, fs.ReadWholeFile("/store/index/" + names[0]));
  ASSERT_EQ(idx.size(), 40u + 8 * 4 + 16 * 20);
  // Header: begin/end timestamp, begin/end phy offset, hashSlotCount 2, indexCount 4.
  EXPECT_EQ(HexUpper(idx.data(), 40),
            "0000018BCFE5687B0000018BCFE5687B"
            "00000000000000000000000000000100"
            "0000000200000004");
  auto slot = [&](int i) { return DecodeInt32BE(idx.data() + 40 + 4 * i); };
  EXPECT_EQ(slot(0), 3);  // TopicTest#k1: newest entry 3
  EXPECT_EQ(slot(1), 2);  // TopicTest#7F00...0001
  auto entry = [&](int i) { return HexUpper(idx.data() + 40 + 32 + 20 * i, 20); };
  EXPECT_EQ(entry(1),
            "0029E6A8000000000000000000000000"
            "00000000");
  EXPECT_EQ(entry(3),
            "0029E6A8000000000000010000000000"
            "00000001");
}

}  // namespace
}  // namespace rocketstore
