// The send and pull services over a real MessageStore on the fault-injecting (in-memory)
// file system, stepped by hand with a fake clock: no sockets, no Asio, no sleeps. Shows
// that long polling lives entirely in the services (a held pull is a parked completion
// resumed by the store's arrival event or its deadline) and that the put pipeline refuses
// a message before anything is stored.
#include <gtest/gtest.h>

#include <deque>

#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/service/pull_service.h"
#include "broker/service/reput.h"
#include "broker/service/send_service.h"
#include "broker/stats/broker_stats.h"
#include "broker/transaction/half_message_hook.h"
#include "fake_channel.h"
#include "io/fault_injection_file_system.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/small_store.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

using testing::FakeChannel;

class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = rocketstore::testing::SteppedStoreOptions();
    o.max_message_body_bytes = 1024;
    o.arrival_listeners.push_back([this](std::string_view t, int32_t q, QueueOffset next) {
      holds_.OnArrival(t, q, next.value());
    });
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    TopicConfig tbw;
    tbw.name = "TBW102";
    tbw.read_queue_nums = tbw.write_queue_nums = 8;
    tbw.perm = kPermRead | kPermWrite | kPermInherit;
    topics_.Upsert(tbw);
    TopicConfig t;
    t.name = "T";
    t.read_queue_nums = t.write_queue_nums = 2;
    topics_.Upsert(t);
    pipeline_.Add(std::make_unique<MessageCheckHook>(1024));
    pipeline_.Add(std::make_unique<HalfMessageHook>());
    send_ = std::make_unique<SendService>(SendService::Options{}, *store_, topics_, pipeline_,
                                          [this] { ++topics_created_; });
    pull_ = std::make_unique<PullService>(PullService::Options{}, clock_, *store_, topics_, groups_,
                                          offsets_, consumers_, holds_);
    ctx_.channel = channel_;
  }

  SendResult Send(const std::string& topic, int queue, const std::string& body,
                  const std::string& tag, int32_t sys_flag = 0, const std::string& extra = "") {
    SendRequest r;
    r.sys_flag = sys_flag;
    r.producer_group = "P";
    r.topic = topic;
    r.queue_id = queue;
    r.born_timestamp = clock_.NowMillis();
    const std::string props = "TAGS\x01" + tag + "\x02" + extra;
    const SendEntry entry{0, body, props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    auto res =
        send_->Send(ctx_, r, [](SendResult) { ADD_FAILURE() << "ASYNC_FLUSH answers inline"; });
    EXPECT_TRUE(res.has_value());
    EXPECT_TRUE(store_->RunDispatchStep().ok());
    return res ? *res : SendResult{};
  }

  PullRequest Pull(int queue, int64_t offset, const std::string& sub) {
    PullRequest p;
    p.consumer_group = "G";
    p.topic = "T";
    p.queue_id = queue;
    p.queue_offset = offset;
    p.sys_flag = kPullSuspend | kPullSubscription;
    p.suspend_timeout_millis = 15000;
    p.subscription = sub;
    return p;
  }

  void RunTasks() {
    while (!tasks_.empty()) {
      auto t = std::move(tasks_.front());
      tasks_.pop_front();
      t();
    }
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<MessageStore> store_;
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  SubscriptionGroupManager groups_{fs_, clock_, "/store/config/subscriptionGroup.json"};
  ConsumerOffsetManager offsets_{fs_, clock_, "/store/config/consumerOffset.json"};
  ConsumerManager consumers_{clock_, nullptr};
  std::deque<std::function<void()>> tasks_;
  PullHoldService holds_{[this](std::function<void()> fn) { tasks_.push_back(std::move(fn)); }};
  PutPipeline pipeline_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<PullService> pull_;
  std::shared_ptr<FakeChannel> channel_ = std::make_shared<FakeChannel>(1);
  RequestContext ctx_;
  int topics_created_ = 0;
};

// A clock whose monotonic time moves 3 ms at every reading: the pull's serving time
// (GROUP_GET_LATENCY, from the start of the pass to its result) is then measurable.
class TickingClock final : public Clock {
 public:
  explicit TickingClock(Clock& base) : base_(base) {}
  int64_t NowMillis() const override { return base_.NowMillis(); }
  int64_t MonotonicNanos() const override {
    return base_.MonotonicNanos() + ticks_.fetch_add(3'000'000, std::memory_order_relaxed);
  }

 private:
  Clock& base_;
  mutable std::atomic<int64_t> ticks_{0};
};

TEST_F(ServicesTest, PullThatFindsMessagesRecordsItsServingTimePerQueue) {
  BrokerStats stats;
  TickingClock ticking(clock_);
  PullService::Options o;
  o.stats = &stats;
  PullService pull(o, ticking, *store_, topics_, groups_, offsets_, consumers_, holds_);
  ASSERT_TRUE(Send("T", 1, "a", "x").stored());
  ASSERT_TRUE(Send("T", 1, "b", "x").stored());
  PullRequest p = Pull(1, 0, "*");
  p.sys_flag = kPullSubscription;  // no suspend: an empty queue answers at once
  auto got = pull.Pull(ctx_, p, [](PullResult) { ADD_FAILURE() << "not held"; });
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->messages.size(), 2u);
  // Nothing on queue 0: not a FOUND pull, no latency sample (as Java: SUCCESS only).
  PullRequest empty = Pull(0, 0, "*");
  empty.sys_flag = kPullSubscription;
  auto none = pull.Pull(ctx_, empty, [](PullResult) { ADD_FAILURE() << "not held"; });
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->messages.empty());
  StatsSnapshot s = stats.Collect();
  ASSERT_EQ(s.get_latency.size(), 1u);
  const LatencyTotals& t = s.get_latency.at({"T", "G", 1});
  EXPECT_EQ(t.pulls, 1u);
  EXPECT_GE(t.latency_ms, 3u);  // at least one tick between the start and the result
  EXPECT_EQ(s.gets.at({"T", "G"}).messages, 2u);
}

TEST_F(ServicesTest, HeldPullIsResumedByTheArrivalOfAMessage) {
  std::vector<PullResult> answers;
  auto held =
      pull_->Pull(ctx_, Pull(0, 0, "*"), [&](PullResult r) { answers.push_back(std::move(r)); });
  EXPECT_FALSE(held.has_value()) << "nothing to read: the pull parks";
  EXPECT_EQ(holds_.held_count(), 1u);
  EXPECT_EQ(Send("T", 1, "other queue", "a").verdict.outcome, Outcome::kOk);
  RunTasks();
  EXPECT_TRUE(answers.empty()) << "a message for another queue does not wake it";
  EXPECT_EQ(Send("T", 0, "hello", "a").verdict.outcome, Outcome::kOk);
  RunTasks();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kOk);
  ASSERT_EQ(answers[0].messages.size(), 1u);
  EXPECT_EQ(answers[0].next_begin_offset, 1);
  EXPECT_EQ(holds_.held_count(), 0u);
}

TEST_F(ServicesTest, HeldPullAnswersNotFoundAtItsDeadline) {
  std::vector<PullResult> answers;
  EXPECT_FALSE(pull_->Pull(ctx_, Pull(0, 0, "*"), [&](PullResult r) { answers.push_back(r); }));
  clock_.AdvanceMillis(14999);
  EXPECT_EQ(holds_.RunOnce(clock_.MonotonicNanos() / 1000000), 0);
  clock_.AdvanceMillis(1);
  EXPECT_EQ(holds_.RunOnce(clock_.MonotonicNanos() / 1000000), 1);
  RunTasks();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kPullNotFound);
}

// Java checks the tag code before waking a held pull; here a woken pull that finds only
// messages its filter skips parks again from past them and answers with the next match.
TEST_F(ServicesTest, HeldPullSkipsMessagesItsFilterRejects) {
  std::vector<PullResult> answers;
  EXPECT_FALSE(pull_->Pull(ctx_, Pull(0, 0, "TagB"), [&](PullResult r) { answers.push_back(r); }));
  Send("T", 0, "not for me", "TagA");
  RunTasks();
  EXPECT_TRUE(answers.empty());
  EXPECT_EQ(holds_.held_count(), 1u);
  Send("T", 0, "for me", "TagB");
  RunTasks();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kOk);
  ASSERT_EQ(answers[0].messages.size(), 1u);
  format::DecodeResult d = format::DecodeRecord(answers[0].messages[0].bytes, true);
  EXPECT_EQ(d.record.body, "for me");
  EXPECT_EQ(answers[0].next_begin_offset, 2);
}

TEST_F(ServicesTest, PullChecksGroupTopicQueueAndSubscription) {
  auto now = [&](PullRequest p) {
    auto r = pull_->Pull(ctx_, p, [](PullResult) { ADD_FAILURE() << "must answer at once"; });
    EXPECT_TRUE(r.has_value());
    return r ? r->verdict.outcome : Outcome::kOk;
  };
  PullRequest unknown = Pull(0, 0, "*");
  unknown.topic = "Nope";
  EXPECT_EQ(now(unknown), Outcome::kTopicNotExist);
  EXPECT_EQ(now(Pull(2, 0, "*")), Outcome::kSystemError);  // queueId out of range, as Java
  PullRequest sql = Pull(0, 0, "a >< 1");  // SQL92 filters: sql_filter_service_test.cc
  sql.expression_type = "SQL92";
  EXPECT_EQ(now(sql), Outcome::kSubscriptionParseFailed);
  // Without the subscription flag the group's heartbeat subscription is used.
  PullRequest by_group = Pull(0, 0, "");
  by_group.sys_flag = 0;
  by_group.sub_version = 5;
  EXPECT_EQ(now(by_group), Outcome::kSubscriptionNotExist);
  ConsumerData d;
  d.group = "G";
  SubscriptionData sub;
  sub.topic = "T";
  sub.sub_version = 5;
  d.subscriptions = {sub};
  ClientChannelInfo info;
  info.channel = channel_;
  info.client_id = "c";
  consumers_.Register(d, info, false);
  EXPECT_EQ(now(by_group), Outcome::kPullNotFound);  // empty queue at 0, no suspend flag
  by_group.sub_version = 6;
  EXPECT_EQ(now(by_group), Outcome::kSubscriptionNotLatest);
  // A group whose consumeEnable is off may not pull.
  SubscriptionGroupConfig off = groups_.FindOrCreate("G");
  off.consume_enable = false;
  groups_.Upsert(off);
  EXPECT_EQ(now(Pull(0, 0, "*")), Outcome::kNoPermission);
}

TEST_F(ServicesTest, SendRefusesBeforeStoringAnything) {
  const int64_t before = store_->MaxPhysicalOffset().value();
  EXPECT_EQ(Send("TBW102", 0, "x", "a").verdict.outcome, Outcome::kNoPermission);
  EXPECT_EQ(Send("SCHEDULE_TOPIC_XXXX", 0, "x", "a").verdict.outcome, Outcome::kNoPermission);
  EXPECT_EQ(Send("bad topic", 0, "x", "a").verdict.outcome, Outcome::kInvalidArgument);
  EXPECT_EQ(Send("T", 5, "x", "a").verdict.outcome, Outcome::kInvalidArgument);
  SendResult big = Send("T", 0, std::string(1025, 'b'), "a");
  EXPECT_EQ(big.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(big.verdict.remark.find("maxMessageSize"), std::string::npos) << big.verdict.remark;
  EXPECT_EQ(store_->MaxPhysicalOffset().value(), before) << "a refused send stores nothing";
  EXPECT_FALSE(big.stored());
}

TEST_F(ServicesTest, SendAutoCreatesFromTheTemplateAndStampsProperties) {
  SendResult r = Send("NewTopic", -1, "auto", "a");
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk) << r.verdict.remark;
  EXPECT_EQ(topics_created_, 1);
  auto config = topics_.Find("NewTopic");
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->write_queue_nums, 4);   // defaultTopicQueueNums, capped by TBW102's 8
  EXPECT_EQ(r.transaction_id.size(), 32u);  // a generated UNIQ_KEY
  auto rec = store_->ReadRecord(PhysicalOffset(0));
  ASSERT_TRUE(rec.ok());
  format::DecodeResult d = format::DecodeRecord(rec->bytes, true);
  EXPECT_EQ(format::FindProperty(d.record.properties, "UNIQ_KEY").value_or(""), r.transaction_id);
  EXPECT_EQ(format::FindProperty(d.record.properties, "CLUSTER").value_or(""), "DefaultCluster");
  EXPECT_EQ(format::FindProperty(d.record.properties, "TAGS").value_or(""), "a");
}

// WAIT, as 4.9.8's SendMessageProcessor: CLUSTER is put, then WAIT taken out of the map,
// the string built, WAIT put back. A plain record has no WAIT; a half (whose string
// TransactionalMessageBridge builds again from the map) has it, in HashMap order.
TEST_F(ServicesTest, WaitIsLeftOutOfAPlainRecordButAHalfKeepsItAsJava) {
  const std::string uniq = "FD000000000000000000000000000002166230946E09047C14260001";
  // 12 entries with WAIT: Java's map reaches 13 with CLUSTER and grows to 32 buckets before
  // WAIT leaves it; taking WAIT out first would keep 16 and another order.
  std::string client =
      "TAGS\x01"
      "a\x02UNIQ_KEY\x01" +
      uniq + "\x02WAIT\x01true";
  for (const char* k : {"k17", "k72", "k97", "k08", "k32", "k15", "k63", "k57", "k60"}) {
    client += std::string("\x02") + k + "\x01v";
  }
  auto java_plain = format::PropertiesBuilder::FromString(client);
  java_plain.Put("CLUSTER", "DefaultCluster");
  java_plain.Remove("WAIT");
  auto other_order = format::PropertiesBuilder::FromString(client);
  other_order.Remove("WAIT");
  other_order.Put("CLUSTER", "DefaultCluster");
  ASSERT_NE(java_plain.Build(), other_order.Build()) << "the case must tell the orders apart";

  const SendEntry entry{0, "plain", client};
  SendRequest r;
  r.producer_group = "P";
  r.topic = "T";
  r.queue_id = 0;
  r.messages = std::span<const SendEntry>(&entry, 1);
  auto res = send_->Send(ctx_, r, [](SendResult) { ADD_FAILURE(); });
  ASSERT_TRUE(res && res->stored()) << (res ? res->verdict.remark : "");
  auto id = format::DecodeOffsetMsgId(res->msg_id);
  ASSERT_TRUE(id.ok());
  auto rec = store_->ReadRecord(PhysicalOffset(id->physical_offset));
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(format::DecodeRecord(rec->bytes, true).record.properties, java_plain.Build());

  const std::string half_client = client + "\x02TRAN_MSG\x01true\x02PGROUP\x01P";
  auto java_half = format::PropertiesBuilder::FromString(half_client);
  java_half.Put("CLUSTER", "DefaultCluster");
  java_half.Remove("WAIT");
  java_half.Put("WAIT", "true");
  java_half.Put("REAL_TOPIC", "T");
  java_half.Put("REAL_QID", "1");
  const SendEntry half_entry{0, "half", half_client};
  r.queue_id = 1;
  r.messages = std::span<const SendEntry>(&half_entry, 1);
  res = send_->Send(ctx_, r, [](SendResult) { ADD_FAILURE(); });
  ASSERT_TRUE(res && res->stored()) << (res ? res->verdict.remark : "");
  id = format::DecodeOffsetMsgId(res->msg_id);
  ASSERT_TRUE(id.ok());
  rec = store_->ReadRecord(PhysicalOffset(id->physical_offset));
  ASSERT_TRUE(rec.ok());
  const format::DecodeResult half = format::DecodeRecord(rec->bytes, true);
  EXPECT_EQ(half.record.topic, "RMQ_SYS_TRANS_HALF_TOPIC");
  EXPECT_EQ(half.record.properties, java_half.Build());
}

// A PREPARED record without TRAN_MSG would be stored and never delivered: refused with a
// clear error; a half message (TRAN_MSG=true) goes to the half topic (transaction_test.cc).
TEST_F(ServicesTest, PreparedSysFlagWithoutTranMsgIsRefusedNotSilentlyLost) {
  const int64_t before = store_->MaxPhysicalOffset().value();
  SendResult by_flag = Send("T", 0, "half", "a", format::kTransactionPrepared);
  EXPECT_EQ(by_flag.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(by_flag.verdict.remark.find("TRAN_MSG=true"), std::string::npos)
      << by_flag.verdict.remark;
  EXPECT_EQ(store_->MaxPhysicalOffset().value(), before);
  SendResult half = Send("T", 1, "half", "a", 0, "TRAN_MSG\x01true\x02PGROUP\x01P\x02");
  ASSERT_TRUE(half.stored()) << half.verdict.remark;
  EXPECT_EQ(half.queue_id, 1);
  EXPECT_EQ(store_->GetMaxOffsetInQueue("T", 1).value(), 0) << "not in the real topic";
  EXPECT_EQ(store_->GetMaxOffsetInQueue("RMQ_SYS_TRANS_HALF_TOPIC", 0).value(), 1);
  EXPECT_EQ(Send("T", 0, "committed type is fine", "a", format::kTransactionCommit).verdict.outcome,
            Outcome::kOk);
}

// The broker's own re-put: a stored message read back by its offset and put again
// elsewhere, through the pipeline; client-only checks do not apply to it.
TEST_F(ServicesTest, ReputReadsAStoredMessageAndPutsItAgainThroughThePipeline) {
  Reputter reput(*store_, pipeline_);
  EXPECT_EQ(reput.Read(-1).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(reput.Read(store_->MaxPhysicalOffset().value()).status().code(), StatusCode::kNotFound);
  SendResult r = Send("T", 1, "again", "a");
  ASSERT_TRUE(r.stored()) << r.verdict.remark;
  auto id = format::DecodeOffsetMsgId(r.msg_id);
  ASSERT_TRUE(id.ok());
  auto stored = reput.Read(id->physical_offset);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->record.body, "again");
  EXPECT_EQ(stored->record.topic, "T");
  EXPECT_FALSE(reput.Read(id->physical_offset + 1).ok()) << "not the start of a record";

  DraftMessage d = DraftFromRecord(stored->record);
  d.SetTopic("%RETRY%G");
  d.queue_id = 0;
  d.reconsume_times = 1;
  format::PropertiesBuilder b = format::PropertiesBuilder::FromString(stored->record.properties);
  b.Put("TRAN_MSG", "true");  // not a half message when the broker re-puts it
  d.SetProperties(b.Build());
  ReputResult put = reput.Put(PutOrigin::kSendBack, d);
  ASSERT_TRUE(put.stored()) << put.verdict.remark;
  ASSERT_TRUE(store_->RunDispatchStep().ok());
  auto again = reput.Read(put.put.first.offset.value());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->record.topic, "%RETRY%G");
  EXPECT_EQ(again->record.body, "again");
  EXPECT_EQ(again->record.reconsume_times, 1);
  EXPECT_EQ(again->record.born_timestamp, stored->record.born_timestamp);
  EXPECT_EQ(store_->GetMaxOffsetInQueue("%RETRY%G", 0).value(), 1);
}

// SYNC_FLUSH: a send that waits (WAIT absent or true) is answered through `later` once its
// group commit ran; one with WAIT=false is answered at once (AnswersLater is true for
// both: the callback is built, and WAIT=false leaves it unused).
TEST(SendServiceSyncFlushTest, WaitFalseIsAnsweredAtOnceAndAWaitingSendAfterItsFlush) {
  FakeClock clock;
  FaultInjectionFileSystem fs{clock};
  StoreOptions o = rocketstore::testing::SteppedStoreOptions();
  o.flush_disk_type = FlushDiskType::kSyncFlush;
  auto store = MessageStore::Open(o, fs, clock);
  ASSERT_TRUE(store.ok()) << store.status();
  TopicConfigManager topics{fs, clock, "/store/config/topics.json"};
  TopicConfig t;
  t.name = "T";
  topics.Upsert(t);
  PutPipeline pipeline;
  SendService send(SendService::Options{}, **store, topics, pipeline, [] {});
  RequestContext ctx;
  auto request = [](const SendEntry& entry) {
    SendRequest r;
    r.producer_group = "P";
    r.topic = "T";
    r.queue_id = 0;
    r.messages = std::span<const SendEntry>(&entry, 1);
    return r;
  };
  int later_calls = 0;
  std::optional<SendResult> later_result;
  auto later = [&](SendResult r) {
    ++later_calls;
    later_result = std::move(r);
  };

  const SendEntry no_wait{0, "a",
                          "WAIT\x01"
                          "false\x02"};
  EXPECT_TRUE(send.AnswersLater(request(no_wait)));
  auto at_once = send.Send(ctx, request(no_wait), later);
  ASSERT_TRUE(at_once.has_value());
  EXPECT_TRUE(at_once->stored());
  EXPECT_EQ(at_once->queue_offset, 0);

  const SendEntry waits{0, "b", "WAIT\x01true\x02"};
  EXPECT_FALSE(send.Send(ctx, request(waits), later).has_value());
  EXPECT_EQ(later_calls, 0);  // not before its group commit
  ASSERT_TRUE((*store)->RunFlushStep().ok());
  ASSERT_EQ(later_calls, 1);
  EXPECT_TRUE(later_result->stored());
  EXPECT_EQ(later_result->queue_offset, 1);
  EXPECT_EQ(later_calls, 1);  // the first send's callback was never used
}

}  // namespace
}  // namespace rocketstore::broker
