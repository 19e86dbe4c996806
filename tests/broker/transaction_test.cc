// Transaction messages inside the broker's services, on a real MessageStore over the
// fault-injecting (in-memory) file system with a FakeClock, stepped by hand (no sleeps):
// the half-message hook, END_TRANSACTION commit / rollback / unknown (repeated, for an
// unknown or settled half), check-backs through a fake producer channel, the move to
// TRANS_CHECK_MAX_TIME_TOPIC, crashes between the commit's steps, and the restart that
// rebuilds the pending table from the half and op topics.
#include <gtest/gtest.h>

#include <map>

#include "broker/broker_conf.h"
#include "broker/hooks/delay_level_hook.h"
#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/service/send_service.h"
#include "broker/system_topics.h"
#include "broker/transaction/half_message_hook.h"
#include "broker/transaction/transaction_service.h"
#include "fake_channel.h"
#include "io/fault_injection_file_system.h"
#include "java_vectors.h"
#include "protocol/headers/send_headers.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/small_store.h"
#include "testing/status_matchers.h"
#include "tools/inspect/inspect.h"

namespace rocketstore::broker {
namespace {

using testing::FakeChannel;

// Refuses the service's own puts to `topic` (tag `tag` for op records, any when empty)
// while armed: a store that stops writing at that point.
class RefuseSystemPutHook final : public PutHook {
 public:
  std::string_view name() const override { return "refuse-system-put"; }
  Verdict BeforePut(const PutContext& c, DraftMessage& m) override {
    if (c.origin != PutOrigin::kSystem || topic.empty() || m.topic() != topic) return Verdict::Ok();
    if (!tag.empty() && format::FindProperty(m.properties(), "TAGS").value_or("") != tag) {
      return Verdict::Ok();
    }
    return Verdict::Error(Outcome::kServiceNotAvailable, "store not writable (test)");
  }
  std::string topic, tag;
};

struct Stored {
  int64_t queue_offset = 0, physical_offset = 0, prepared = 0;
  int32_t queue_id = 0, sys_flag = 0;
  std::string body, properties;
  std::string Prop(std::string_view name) const {
    return std::string(format::FindProperty(properties, name).value_or(""));
  }
};

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto refuse = std::make_unique<RefuseSystemPutHook>();
    refuse_ = refuse.get();
    pipeline_.Add(std::move(refuse));
    pipeline_.Add(std::make_unique<MessageCheckHook>(1024));
    pipeline_.Add(std::make_unique<HalfMessageHook>());
    pipeline_.Add(std::make_unique<DelayLevelHook>(DelayLevelTable::Default()));
    TopicConfig t;
    t.name = "T";
    t.read_queue_nums = t.write_queue_nums = 4;
    topics_.Upsert(t);
    t.name = "JV_tx";  // transaction.json's topic
    topics_.Upsert(t);
    Open();
  }
  void TearDown() override {
    if (store_) Close();
  }

  void Open() {
    StoreOptions o = rocketstore::testing::SteppedStoreOptions();
    o.max_message_body_bytes = 1024;
    o.async_flush.least_pages = 0;
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    send_ =
        std::make_unique<SendService>(SendService::Options{}, *store_, topics_, pipeline_, [] {});
    reput_ = std::make_unique<Reputter>(*store_, pipeline_);
    send_->set_store_host(reput_->store_host());
    tx_ = std::make_unique<TransactionService>(options_, *store_, *reput_, producers_, &topics_,
                                               clock_);
    ASSERT_OK(tx_->Recover());
  }
  void Close() {
    ASSERT_OK(store_->Close());
    Drop();
  }
  void Drop() {
    tx_.reset();
    send_.reset();
    reput_.reset();
    store_.reset();
  }
  void CrashAndRestart(CrashMode mode) {
    Drop();
    ASSERT_OK(fs_.CrashNow(mode));
    ASSERT_OK(fs_.Reboot());
    Open();
  }
  void Dispatch() { EXPECT_OK(store_->RunDispatchStep().status()); }

  SendResult Send(const std::string& body, int queue, int32_t sys_flag, std::string props,
                  bool batch = false) {
    SendRequest r;
    r.producer_group = "PG";
    r.topic = send_topic_;
    r.queue_id = queue;
    r.sys_flag = sys_flag;
    r.batch = batch;
    r.born_timestamp = clock_.NowMillis();
    const SendEntry entry{0, body, props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    auto res = send_->Send(RequestContext{}, r, [](SendResult) { ADD_FAILURE(); });
    EXPECT_TRUE(res.has_value());
    Dispatch();
    return res ? *res : SendResult{};
  }
  static std::string HalfProps(const std::string& key, const std::string& extra = "") {
    return "KEYS\x01" + key + "\x02TRAN_MSG\x01true\x02PGROUP\x01PG\x02TAGS\x01TagA\x02" + extra;
  }
  // A half message sent as the Java client does; returns its request for END_TRANSACTION.
  EndTransactionRequest SendHalf(const std::string& body, int queue = 1,
                                 const std::string& extra = "") {
    SendResult r = Send(body, queue, format::kTransactionPrepared, HalfProps(body, extra));
    EXPECT_TRUE(r.stored()) << r.verdict.remark;
    EndTransactionRequest e;
    e.producer_group = "PG";
    e.tran_state_table_offset = r.queue_offset;
    auto id = format::DecodeOffsetMsgId(r.msg_id);
    EXPECT_TRUE(id.ok());
    e.commit_log_offset = id.ok() ? id->physical_offset : -1;
    return e;
  }
  std::optional<Verdict> End(EndTransactionRequest e, int32_t type) {
    e.commit_or_rollback = type;
    auto v = tx_->EndTransaction(e);
    Dispatch();
    return v;
  }
  std::vector<Stored> Records(std::string_view topic, int32_t queue) {
    Dispatch();
    std::vector<Stored> out;
    auto units = store_->GetQueueUnits(topic, queue, QueueOffset(0), 1000);
    EXPECT_TRUE(units.ok());
    if (!units.ok()) return out;
    int64_t q = store_->GetMinOffsetInQueue(topic, queue).value();
    for (const auto& u : *units) {
      auto m = reput_->Read(u.offset.value());
      EXPECT_TRUE(m.ok()) << m.status();
      if (!m.ok()) continue;
      out.push_back(Stored{q++, m->record.physical_offset, m->record.prepared_transaction_offset,
                           m->record.queue_id, m->record.sys_flag, std::string(m->record.body),
                           std::string(m->record.properties)});
    }
    return out;
  }
  std::vector<std::string> Ops() {
    std::vector<std::string> out;
    for (const Stored& s : Records(kTransOpHalfTopic, 0)) out.push_back(s.Prop("TAGS") + s.body);
    return out;
  }
  std::shared_ptr<FakeChannel> RegisterProducer(uint64_t id = 7) {
    auto ch = std::make_shared<FakeChannel>(id);
    ClientChannelInfo info;
    info.channel = ch;
    info.client_id = "client-" + std::to_string(id);
    producers_.Register("PG", info);
    return ch;
  }
  int Step() {
    Dispatch();
    int n = tx_->RunOnce(clock_.NowMillis());
    Dispatch();
    return n;
  }

  // Pending halves per real topic as Pending() has them: what PendingCountsByTopic (the
  // rocketmq_half_messages scrape) must say without copying the halves.
  std::vector<std::pair<std::string, int64_t>> CountsFromPending() const {
    std::map<std::string, int64_t> by_topic;
    for (const auto& p : tx_->Pending()) ++by_topic[p.real_topic];
    return {by_topic.begin(), by_topic.end()};
  }

  std::string send_topic_ = "T";
  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  PutPipeline pipeline_;
  RefuseSystemPutHook* refuse_ = nullptr;
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  ProducerManager producers_{clock_};
  TransactionService::Options options_;
  std::unique_ptr<MessageStore> store_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<Reputter> reput_;
  std::unique_ptr<TransactionService> tx_;
};

TEST(TransactionConfTest, BrokerConfKeysAndJavasDefaults) {
  BrokerOptions o;
  EXPECT_EQ(o.transaction_timeout_ms, 6000);
  EXPECT_EQ(o.transaction_check_interval_ms, 60000);
  EXPECT_EQ(o.transaction_check_max, 15);
  std::vector<std::string> ignored;
  EXPECT_FALSE(ApplyBrokerConf("transactionCheckInterval=0\n", o, &ignored).ok());
  EXPECT_FALSE(ApplyBrokerConf("transactionCheckMax=many\n", o, &ignored).ok());
  ASSERT_OK(ApplyBrokerConf(
      "transactionTimeOut=3000\ntransactionCheckInterval=5000\ntransactionCheckMax=3\n", o,
      &ignored));
  EXPECT_EQ(o.transaction_timeout_ms, 3000);
  EXPECT_EQ(o.transaction_check_interval_ms, 5000);
  EXPECT_EQ(o.transaction_check_max, 3);
  EXPECT_TRUE(ignored.empty());
}

TEST_F(TransactionTest, ClientSendsThatWouldBeLostAreRefusedAndNothingIsStored) {
  const int64_t before = store_->MaxPhysicalOffset().value();
  SendResult prepared_only = Send("x", 0, format::kTransactionPrepared,
                                  "TAGS\x01"
                                  "a\x02");
  EXPECT_EQ(prepared_only.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(prepared_only.verdict.remark.find("TRAN_MSG"), std::string::npos);
  SendResult batch = Send("x", 0, 0, HalfProps("b"), /*batch=*/true);
  EXPECT_EQ(batch.verdict.outcome, Outcome::kMessageIllegal);
  EXPECT_EQ(store_->MaxPhysicalOffset().value(), before);
}

TEST_F(TransactionTest, CommitAndRollbackTypesSentDirectlyAreStoredAsJavaStoresThem) {
  EXPECT_TRUE(Send("c", 0, format::kTransactionCommit,
                   "TAGS\x01"
                   "a\x02")
                  .stored());
  EXPECT_TRUE(Send("r", 0, format::kTransactionRollback,
                   "TAGS\x01"
                   "a\x02")
                  .stored());
  const auto t = Records("T", 0);
  ASSERT_EQ(t.size(), 1u) << "a ROLLBACK record is stored but never dispatched";
  EXPECT_EQ(t[0].body, "c");
  EXPECT_TRUE(Records(kTransHalfTopic, 0).empty());
}

TEST_F(TransactionTest, HalfMessageGoesToTheHalfTopicAndAnswersItsRealQueue) {
  SendResult r = Send("h", 3, format::kTransactionPrepared,
                      HalfProps("h",
                                "DELAY\x01"
                                "2\x02"));
  ASSERT_TRUE(r.stored()) << r.verdict.remark;
  EXPECT_EQ(r.queue_id, 3) << "Java answers the real queue";
  EXPECT_EQ(r.queue_offset, 0) << "and the half's queue offset";
  const auto half = Records(kTransHalfTopic, 0);
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0].Prop("REAL_TOPIC"), "T");
  EXPECT_EQ(half[0].Prop("REAL_QID"), "3");
  EXPECT_EQ(half[0].Prop("TRAN_MSG"), "true");
  EXPECT_EQ(half[0].sys_flag & format::kSysFlagTransactionMask, format::kTransactionNotType);
  EXPECT_EQ(half[0].queue_id, 0);
  EXPECT_EQ(format::EncodeOffsetMsgId(reput_->store_host(), half[0].physical_offset), r.msg_id);
  EXPECT_TRUE(Records("T", 3).empty());
  EXPECT_TRUE(Records(kScheduleTopic, 1).empty()) << "a half is not delayed";
  ASSERT_EQ(tx_->Pending().size(), 0u) << "learned at the next step";
  Step();
  ASSERT_EQ(tx_->Pending().size(), 1u);
  EXPECT_EQ(tx_->Pending()[0].real_topic, "T");
  EXPECT_EQ(tx_->Pending()[0].producer_group, "PG");
}

TEST_F(TransactionTest, CommitDeliversOnceWithJavasPropertiesAndWritesTheOpRecords) {
  EndTransactionRequest e = SendHalf("hello", 1);
  auto v = End(e, format::kTransactionCommit);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->ok()) << v->remark;
  const auto t = Records("T", 1);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].body, "hello");
  EXPECT_EQ(t[0].sys_flag & format::kSysFlagTransactionMask, format::kTransactionCommit);
  EXPECT_EQ(t[0].prepared, e.commit_log_offset);
  // As a Java broker stores it (transaction.json's pulled messages).
  EXPECT_EQ(t[0].Prop("TRAN_MSG"), "true");
  EXPECT_EQ(t[0].Prop("PGROUP"), "PG");
  EXPECT_EQ(t[0].Prop("REAL_TOPIC"), "T");
  EXPECT_EQ(t[0].Prop("REAL_QID"), "1");
  EXPECT_EQ(Ops(), (std::vector<std::string>{"c0", "d0"}));
  EXPECT_TRUE(tx_->Pending().empty());

  // Repeated (a producer's retry, a late check answer): nothing more is delivered.
  v = End(e, format::kTransactionCommit);
  EXPECT_TRUE(v && v->ok());
  v = End(e, format::kTransactionRollback);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->outcome, Outcome::kSystemError);
  EXPECT_EQ(v->remark, "transaction already committed");
  EXPECT_EQ(Records("T", 1).size(), 1u);
  EXPECT_EQ(tx_->counters().committed, 1u);
}

TEST_F(TransactionTest, RollbackDeliversNothingAndALaterCommitIsRefused) {
  EndTransactionRequest e = SendHalf("no", 2);
  auto v = End(e, format::kTransactionRollback);
  ASSERT_TRUE(v && v->ok());
  EXPECT_EQ(Ops(), (std::vector<std::string>{"d0"}));
  v = End(e, format::kTransactionCommit);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->remark, "transaction already rolled back");
  EXPECT_TRUE(Records("T", 2).empty());
  EXPECT_TRUE(tx_->Pending().empty());
}

TEST_F(TransactionTest, UnknownStateAnswersNothingAndKeepsTheHalfPending) {
  EndTransactionRequest e = SendHalf("later", 1);
  EXPECT_FALSE(End(e, format::kTransactionNotType).has_value()) << "Java returns null";
  Step();
  ASSERT_EQ(tx_->Pending().size(), 1u);
  EXPECT_EQ(tx_->Pending()[0].check_times, 0);
  EXPECT_TRUE(Ops().empty());
}

TEST_F(TransactionTest, EndTransactionForAWrongOrUnknownHalfAnswersAsJava) {
  EndTransactionRequest e = SendHalf("h", 1);
  SendResult plain = Send("plain", 0, 0,
                          "TAGS\x01"
                          "a\x02");
  auto expect = [&](EndTransactionRequest r, std::string remark) {
    auto v = End(r, format::kTransactionCommit);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->outcome, Outcome::kSystemError);
    EXPECT_EQ(v->remark, remark);
  };
  EndTransactionRequest r = e;
  r.commit_log_offset = store_->MaxPhysicalOffset().value() + 100;
  expect(r, "Find prepared transaction message failed");
  r.commit_log_offset = format::DecodeOffsetMsgId(plain.msg_id)->physical_offset;
  expect(r, "Find prepared transaction message failed");  // not a half
  r = e;
  r.producer_group = "other";
  expect(r, "The producer group wrong");
  r = e;
  r.tran_state_table_offset = 5;
  expect(r, "The transaction state table offset wrong");
  EXPECT_TRUE(Records("T", 1).empty());
  EXPECT_EQ(tx_->Pending().size(), 1u) << "still pending";
}

TEST_F(TransactionTest, CheckBackAfterTheTimeoutEveryIntervalThroughTheProducersChannel) {
  auto ch = RegisterProducer();
  const int64_t start = clock_.NowMillis();
  EndTransactionRequest e = SendHalf("ask", 2);
  clock_.AdvanceMillis(5999);
  EXPECT_EQ(Step(), 0) << "younger than transactionTimeOut";
  clock_.AdvanceMillis(1);
  EXPECT_EQ(Step(), 1);
  auto checks = ch->checks();
  ASSERT_EQ(checks.size(), 1u);
  // The renewed copy is named, as Java's putBackHalfMsgQueue + checkProducerTransactionState.
  const auto half = Records(kTransHalfTopic, 0);
  ASSERT_EQ(half.size(), 2u);
  EXPECT_EQ(checks[0].tran_state_table_offset, 1);
  EXPECT_EQ(checks[0].commit_log_offset, half[1].physical_offset);
  EXPECT_EQ(half[1].Prop("TRANSACTION_CHECK_TIMES"), "1");
  EXPECT_EQ(half[1].Prop("TRAN_PREPARED_QUEUE_OFFSET"), "0");
  EXPECT_EQ(checks[0].msg_id, half[0].Prop("UNIQ_KEY"));
  EXPECT_EQ(checks[0].offset_msg_id,
            format::EncodeOffsetMsgId(reput_->store_host(), half[1].physical_offset));
  std::span<const uint8_t> body(reinterpret_cast<const uint8_t*>(checks[0].message.data()),
                                checks[0].message.size());
  format::DecodeResult d = format::DecodeRecord(body, /*check_crc=*/true);
  ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
  EXPECT_EQ(d.record.topic, "T") << "shown with its real topic and queue";
  EXPECT_EQ(d.record.queue_id, 2);
  EXPECT_EQ(d.record.queue_offset, 1);
  EXPECT_EQ(d.record.physical_offset, half[1].physical_offset);
  EXPECT_EQ(d.record.body, "ask");

  clock_.AdvanceMillis(59999);
  EXPECT_EQ(Step(), 0) << "not again within transactionCheckInterval";
  clock_.AdvanceMillis(1);
  EXPECT_EQ(Step(), 1);
  ASSERT_EQ(ch->checks().size(), 2u);
  EXPECT_EQ(tx_->Pending()[0].check_times, 2);
  EXPECT_EQ(tx_->Pending()[0].first_store_ms, start);

  // The producer answers the latest check: delivered once; the older copy names it too.
  EndTransactionRequest answer = e;
  answer.tran_state_table_offset = ch->checks()[1].tran_state_table_offset;
  answer.commit_log_offset = ch->checks()[1].commit_log_offset;
  answer.from_transaction_check = true;
  auto v = End(answer, format::kTransactionCommit);
  ASSERT_TRUE(v && v->ok()) << (v ? v->remark : "");
  v = End(e, format::kTransactionCommit);
  ASSERT_TRUE(v && v->ok());
  const auto t = Records("T", 2);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].Prop("TRANSACTION_CHECK_TIMES"), "2");
  EXPECT_EQ(t[0].prepared, answer.commit_log_offset);
  clock_.AdvanceMillis(600000);
  EXPECT_EQ(Step(), 0);
  EXPECT_EQ(ch->checks().size(), 2u);
}

TEST_F(TransactionTest, ImmunityTimeOfTheMessageReplacesTheTimeout) {
  auto ch = RegisterProducer();
  SendHalf("slow", 0,
           "CHECK_IMMUNITY_TIME_IN_SECONDS\x01"
           "20\x02");
  clock_.AdvanceMillis(19999);
  EXPECT_EQ(Step(), 0);
  clock_.AdvanceMillis(1);
  EXPECT_EQ(Step(), 1);
  EXPECT_EQ(ch->checks().size(), 1u);
}

TEST_F(TransactionTest, GroupWithoutLiveProducerIsSkippedAndCountedNotLost) {
  SendHalf("orphan", 0);
  clock_.AdvanceMillis(6000);
  Step();
  EXPECT_EQ(tx_->counters().skipped_no_producer, 1u);
  ASSERT_EQ(tx_->Pending().size(), 1u);
  EXPECT_EQ(tx_->Pending()[0].check_times, 0) << "no check consumed";
  auto ch = RegisterProducer();
  clock_.AdvanceMillis(1000);
  Step();
  EXPECT_TRUE(ch->checks().empty()) << "tried again an interval later";
  clock_.AdvanceMillis(59000);
  Step();
  EXPECT_EQ(ch->checks().size(), 1u);
  ch->Close();
  clock_.AdvanceMillis(60000);
  Step();
  EXPECT_EQ(tx_->counters().skipped_no_producer, 2u) << "a dead channel is not live";
}

TEST_F(TransactionTest, AfterCheckMaxChecksTheHalfGoesToTransCheckMaxTimeTopic) {
  options_.check_max = 2;
  Drop();
  Open();
  auto ch = RegisterProducer();
  SendHalf("never answered", 1);
  for (int i = 0; i < 2; ++i) {
    clock_.AdvanceMillis(60000);
    Step();
  }
  EXPECT_EQ(ch->checks().size(), 2u);
  EXPECT_TRUE(Records(kTransCheckMaxTimeTopic, 0).empty());
  clock_.AdvanceMillis(60000);
  Step();
  EXPECT_EQ(ch->checks().size(), 2u) << "no third check";
  const auto discarded = Records(kTransCheckMaxTimeTopic, 0);
  ASSERT_EQ(discarded.size(), 1u);
  EXPECT_EQ(discarded[0].body, "never answered");
  EXPECT_EQ(discarded[0].Prop("TRANSACTION_CHECK_TIMES"), "2");
  EXPECT_TRUE(topics_.Find(kTransCheckMaxTimeTopic).has_value());
  EXPECT_TRUE(tx_->Pending().empty());
  EXPECT_TRUE(Records("T", 1).empty());
  EXPECT_EQ(tx_->counters().discarded, 1u);
  Close();
  Open();
  EXPECT_TRUE(tx_->Pending().empty()) << "settled for good";
}

// The crash points of a commit: after the intent, after the re-put (before "d").
TEST_F(TransactionTest, CrashBetweenTheReputAndTheOpRecordDeliversExactlyOnce) {
  for (CrashMode mode : {CrashMode::kProcessCrash, CrashMode::kPowerLoss}) {
    SCOPED_TRACE(mode == CrashMode::kProcessCrash ? "process crash" : "power loss");
    const size_t before = Records("T", 1).size();
    EndTransactionRequest e = SendHalf("once", 1);
    refuse_->topic = std::string(kTransOpHalfTopic);
    refuse_->tag = "d";
    auto v = End(e, format::kTransactionCommit);
    ASSERT_TRUE(v && v->ok()) << "delivered; the lost op record is recovery's";
    ASSERT_EQ(Records("T", 1).size(), before + 1);
    refuse_->topic.clear();
    ASSERT_OK(store_->RunFlushStep());  // the power loss keeps what was flushed
    CrashAndRestart(mode);
    EXPECT_EQ(tx_->counters().recovered_commits, 1u);
    EXPECT_TRUE(tx_->Pending().empty());
    EXPECT_EQ(Records("T", 1).size(), before + 1) << "not re-put again";
    EXPECT_EQ(Ops().back(), "d" + std::to_string(e.tran_state_table_offset));
    Close();
    Open();
    EXPECT_EQ(tx_->counters().recovered_commits, 0u) << "finished for good";
    EXPECT_EQ(Records("T", 1).size(), before + 1);
  }
}

TEST_F(TransactionTest, CrashAfterTheIntentBeforeTheReputCommitsAtRestart) {
  EndTransactionRequest e = SendHalf("intent", 1);
  refuse_->topic = "T";
  auto v = End(e, format::kTransactionCommit);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->outcome, Outcome::kServiceNotAvailable);
  EXPECT_TRUE(Records("T", 1).empty());
  ASSERT_EQ(tx_->Pending().size(), 1u);
  EXPECT_TRUE(tx_->Pending()[0].commit_intent);
  refuse_->topic.clear();
  ASSERT_OK(store_->RunFlushStep());
  CrashAndRestart(CrashMode::kPowerLoss);
  EXPECT_EQ(tx_->counters().recovered_commits, 1u);
  const auto t = Records("T", 1);
  ASSERT_EQ(t.size(), 1u) << "the producer said commit";
  EXPECT_EQ(t[0].body, "intent");
  EXPECT_TRUE(tx_->Pending().empty());
  v = End(e, format::kTransactionCommit);
  EXPECT_TRUE(v && v->ok());
  EXPECT_EQ(Records("T", 1).size(), 1u);
}

TEST_F(TransactionTest, RestartRebuildsThePendingTableWithCheckCounts) {
  auto ch = RegisterProducer();
  EndTransactionRequest committed = SendHalf("committed", 0);
  EndTransactionRequest rolled = SendHalf("rolled", 1);
  EndTransactionRequest open = SendHalf("open", 2);
  ASSERT_TRUE(End(committed, format::kTransactionCommit)->ok());
  ASSERT_TRUE(End(rolled, format::kTransactionRollback)->ok());
  for (int i = 0; i < 2; ++i) {
    clock_.AdvanceMillis(60000);
    Step();
  }
  ASSERT_EQ(ch->checks().size(), 2u);
  Close();
  Open();
  auto pending = tx_->Pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].origin_queue_offset, open.tran_state_table_offset);
  EXPECT_EQ(pending[0].check_times, 2);
  EXPECT_EQ(pending[0].commit_log_offset, ch->checks()[1].commit_log_offset);
  EXPECT_EQ(pending[0].real_queue_id, 2);
  // Settled ones stay settled: a late answer changes nothing.
  EXPECT_EQ(End(rolled, format::kTransactionCommit)->remark, "transaction already rolled back");
  EXPECT_TRUE(End(committed, format::kTransactionCommit)->ok());
  EXPECT_EQ(Records("T", 0).size(), 1u);
  EXPECT_TRUE(Records("T", 1).empty());
  // The open one is checked again where it left off, and committed through its first copy.
  clock_.AdvanceMillis(60000);
  Step();
  EXPECT_EQ(tx_->Pending()[0].check_times, 3);
  ASSERT_TRUE(End(open, format::kTransactionCommit)->ok());
  EXPECT_EQ(Records("T", 2).size(), 1u);
  EXPECT_TRUE(tx_->Pending().empty());
}

// The per-topic counts follow every way a half comes and goes: learned (its renewed
// copies not counted again), committed, rolled back, discarded after check_max, rebuilt
// at restart.
TEST_F(TransactionTest, PendingCountsByTopicFollowTheHalves) {
  using Counts = std::vector<std::pair<std::string, int64_t>>;
  options_.check_max = 2;
  Drop();
  Open();
  TopicConfig u;
  u.name = "U";
  u.read_queue_nums = u.write_queue_nums = 4;
  topics_.Upsert(u);
  auto ch = RegisterProducer();
  EXPECT_TRUE(tx_->PendingCountsByTopic().empty());
  EndTransactionRequest t1 = SendHalf("t1", 0);
  EndTransactionRequest t2 = SendHalf("t2", 1);
  SendHalf("t3", 2);  // never answered: discarded after two checks
  send_topic_ = "U";
  EndTransactionRequest u1 = SendHalf("u1", 0);
  Step();
  EXPECT_EQ(tx_->PendingCountsByTopic(), (Counts{{"T", 3}, {"U", 1}}));
  clock_.AdvanceMillis(60000);
  Step();  // every half checked once: a renewed copy of each, the same counts
  ASSERT_EQ(ch->checks().size(), 4u);
  EXPECT_EQ(tx_->PendingCountsByTopic(), (Counts{{"T", 3}, {"U", 1}}));
  EXPECT_EQ(tx_->PendingCountsByTopic(), CountsFromPending());
  ASSERT_TRUE(End(t1, format::kTransactionCommit)->ok());
  ASSERT_TRUE(End(u1, format::kTransactionRollback)->ok());
  EXPECT_EQ(tx_->PendingCountsByTopic(), (Counts{{"T", 2}}));
  Close();
  Open();
  EXPECT_EQ(tx_->PendingCountsByTopic(), (Counts{{"T", 2}}));
  ASSERT_TRUE(End(t2, format::kTransactionCommit)->ok());
  EXPECT_EQ(tx_->PendingCountsByTopic(), (Counts{{"T", 1}}));
  for (int i = 0; i < 2; ++i) {
    clock_.AdvanceMillis(60000);
    Step();
  }
  EXPECT_EQ(tx_->counters().discarded, 1u);
  EXPECT_TRUE(tx_->PendingCountsByTopic().empty());
  EXPECT_TRUE(CountsFromPending().empty());
}

// `rocketstore inspect transactions` lists what the broker's recovery would rebuild.
TEST_F(TransactionTest, InspectListsThePendingHalvesWithTheirCheckCounts) {
  auto ch = RegisterProducer();
  EndTransactionRequest done = SendHalf("done", 0);
  SendHalf("open", 3);
  SendHalf("intent", 1);
  ASSERT_TRUE(End(done, format::kTransactionCommit)->ok());
  clock_.AdvanceMillis(60000);
  Step();  // "open" and "intent" checked once
  ASSERT_EQ(ch->checks().size(), 2u);
  refuse_->topic = "T";  // the commit of "intent" stops after its intent
  EndTransactionRequest intent;
  intent.producer_group = "PG";
  intent.tran_state_table_offset = ch->checks()[1].tran_state_table_offset;
  intent.commit_log_offset = ch->checks()[1].commit_log_offset;
  EXPECT_FALSE(End(intent, format::kTransactionCommit)->ok());
  refuse_->topic.clear();
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  std::FILE* err = std::fopen("/dev/null", "w");
  tools::inspect::InspectOptions o;
  o.store_dir = "/store";
  o.json = true;
  EXPECT_EQ(tools::inspect::RunTransactions(fs_, o, out, err), 0);
  std::fclose(out);
  std::fclose(err);
  const std::string text(buf, len);
  std::free(buf);
  EXPECT_EQ(text, "{\"originQueueOffset\":1,\"queueOffset\":3,\"commitLogOffset\":" +
                      std::to_string(ch->checks()[0].commit_log_offset) +
                      ",\"checkTimes\":1,\"producerGroup\":\"PG\",\"realTopic\":\"T\","
                      "\"realQueueId\":\"3\",\"uniqKey\":\"" +
                      ch->checks()[0].msg_id +
                      "\",\"firstStoreMs\":" + std::to_string(tx_->Pending()[0].first_store_ms) +
                      ",\"commitIntent\":false}\n"
                      "{\"originQueueOffset\":2,\"queueOffset\":4,\"commitLogOffset\":" +
                      std::to_string(ch->checks()[1].commit_log_offset) +
                      ",\"checkTimes\":1,\"producerGroup\":\"PG\",\"realTopic\":\"T\","
                      "\"realQueueId\":\"1\",\"uniqKey\":\"" +
                      ch->checks()[1].msg_id +
                      "\",\"firstStoreMs\":" + std::to_string(tx_->Pending()[1].first_store_ms) +
                      ",\"commitIntent\":true}\n");
}

std::map<std::string, std::string> PropertyMap(std::string_view props) {
  std::map<std::string, std::string> out;
  while (!props.empty()) {
    const size_t end = std::min(props.find('\x02'), props.size());
    const std::string_view item = props.substr(0, end);
    const size_t eq = item.find('\x01');
    if (eq != std::string_view::npos) out[std::string(item.substr(0, eq))] = item.substr(eq + 1);
    props.remove_prefix(std::min(end + 1, props.size()));
  }
  return out;
}

format::RecordView DecodeBody(const std::vector<uint8_t>& bytes) {
  format::DecodeResult d = format::DecodeRecord(bytes, /*check_crc=*/true);
  EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
  return d.record;
}

// transaction.json replayed through the services: the Java client's half sends, its
// END_TRANSACTION frames (offsets translated to this store's) and its answers to the
// check-backs; our answers, checks and committed messages compared with the Java broker's.
TEST_F(TransactionTest, JavaTransactionVectorsReplayedAnswerAsTheJavaBroker) {
  using protocol::testing::FindFrame;
  const auto frames = protocol::testing::LoadFrames("java-4.9.8/transaction.json");
  auto ch = RegisterProducer();
  ClientChannelInfo info;
  info.channel = ch;
  info.client_id = "127.0.0.1@tx-producer";
  producers_.Register("TPGV_tx", info);
  std::map<int64_t, int64_t> java_to_ours;  // commit-log offsets
  for (size_t i = 0; i < 4; ++i) {
    const auto& req = FindFrame(frames, "SEND_MESSAGE_V2", false, i).command;
    const auto& java = FindFrame(frames, "SEND_MESSAGE_V2", true, i).command;
    auto h = protocol::SendMessageRequestHeader::Decode(req);
    ASSERT_TRUE(h.ok()) << h.status();
    SendRequest r;
    r.producer_group = h->producer_group;
    r.topic = h->topic;
    r.queue_id = h->queue_id;
    r.sys_flag = h->sys_flag;
    r.born_timestamp = h->born_timestamp;
    const std::string body(req.body.owned_text());
    const std::string props = h->properties.value_or("");
    const SendEntry entry{h->flag, body, props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    auto res = send_->Send(RequestContext{}, r, [](SendResult) { ADD_FAILURE(); });
    ASSERT_TRUE(res && res->stored()) << (res ? res->verdict.remark : "");
    Dispatch();
    EXPECT_EQ(std::to_string(res->queue_id), java.FindField("queueId").value_or(""));
    EXPECT_EQ(std::to_string(res->queue_offset), java.FindField("queueOffset").value_or(""));
    java_to_ours[format::DecodeOffsetMsgId(java.FindField("msgId").value_or(""))->physical_offset] =
        format::DecodeOffsetMsgId(res->msg_id)->physical_offset;
  }
  auto end = [&](size_t nth) {
    auto h = protocol::EndTransactionRequestHeader::Decode(
        FindFrame(frames, "END_TRANSACTION", false, nth).command);
    EXPECT_TRUE(h.ok());
    EndTransactionRequest e;
    e.producer_group = h->producer_group;
    e.tran_state_table_offset = h->tran_state_table_offset;
    e.commit_log_offset = java_to_ours.at(h->commit_log_offset);
    e.commit_or_rollback = h->commit_or_rollback;
    e.from_transaction_check = h->from_transaction_check;
    auto v = tx_->EndTransaction(e);
    Dispatch();
    return v;
  };
  EXPECT_TRUE(end(0)->ok());         // commit
  EXPECT_TRUE(end(1)->ok());         // rollback
  EXPECT_FALSE(end(2).has_value());  // UNKNOW: no answer, as Java
  EXPECT_FALSE(end(3).has_value());
  clock_.AdvanceMillis(6000);
  ASSERT_EQ(Step(), 2);
  const auto checks = ch->checks();
  ASSERT_EQ(checks.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& java = FindFrame(frames, "CHECK_TRANSACTION_STATE", false, i).command;
    auto jh = protocol::CheckTransactionStateRequestHeader::Decode(java);
    ASSERT_TRUE(jh.ok());
    EXPECT_EQ(checks[i].tran_state_table_offset, jh->tran_state_table_offset);
    EXPECT_EQ(checks[i].msg_id, jh->msg_id.value_or(""));
    EXPECT_EQ(checks[i].transaction_id, jh->transaction_id.value_or(""));
    java_to_ours[jh->commit_log_offset] = checks[i].commit_log_offset;
    const std::vector<uint8_t> java_body = java.body.Flatten();
    const std::vector<uint8_t> our_body(checks[i].message.begin(), checks[i].message.end());
    const format::RecordView j = DecodeBody(java_body), o = DecodeBody(our_body);
    EXPECT_EQ(o.topic, j.topic);
    EXPECT_EQ(o.queue_id, j.queue_id);
    EXPECT_EQ(o.queue_offset, j.queue_offset);
    EXPECT_EQ(o.sys_flag, j.sys_flag);
    EXPECT_EQ(o.body, j.body);
    auto jp = PropertyMap(j.properties), op = PropertyMap(o.properties);
    for (auto* m : {&jp, &op}) {
      for (const char* k : {"CLUSTER", "TRAN_PREPARED_QUEUE_OFFSET"}) m->erase(k);
    }
    EXPECT_EQ(op, jp);
  }
  EXPECT_TRUE(end(4)->ok());  // the check answered rollback
  EXPECT_TRUE(end(5)->ok());  // the check answered commit
  EXPECT_TRUE(tx_->Pending().empty());
  // The committed messages as the Java consumer pulled them.
  for (size_t i = 0; i < 2; ++i) {
    const auto& java = FindFrame(frames, "PULL_MESSAGE", true, i).command;
    const std::vector<uint8_t> java_body = java.body.Flatten();
    const format::RecordView j = DecodeBody(java_body);
    const auto ours = Records("JV_tx", j.queue_id);
    ASSERT_EQ(ours.size(), 1u) << "queue " << j.queue_id;
    EXPECT_EQ(ours[0].body, j.body);
    EXPECT_EQ(ours[0].sys_flag, j.sys_flag);
    EXPECT_EQ(ours[0].prepared, java_to_ours.at(j.prepared_transaction_offset));
    auto jp = PropertyMap(j.properties), op = PropertyMap(ours[0].properties);
    for (auto* m : {&jp, &op}) {
      for (const char* k : {"CLUSTER", "TRAN_PREPARED_QUEUE_OFFSET"}) m->erase(k);
    }
    EXPECT_EQ(op, jp);
  }
  EXPECT_TRUE(Records("JV_tx", 0).empty()) << "rolled back";
  EXPECT_TRUE(Records("JV_tx", 2).empty()) << "rolled back after the check";
}

}  // namespace
}  // namespace rocketstore::broker
