// SQL92 subscriptions in the pull service, over a real MessageStore on the in-memory
// fault-injecting file system with a fake clock: refusals first (as 4.9.8 answers them),
// then a consumer receiving exactly the matching messages, PULL_RETRY_IMMEDIATELY for a
// batch that held only filtered-out messages, held pulls, and "compiled once per
// subscription version, not per pull".
#include <gtest/gtest.h>

#include <deque>

#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/service/pull_service.h"
#include "broker/service/send_service.h"
#include "broker/service/sql_filter.h"
#include "fake_channel.h"
#include "io/fault_injection_file_system.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/small_store.h"

namespace rocketstore::broker {
namespace {

using testing::FakeChannel;

class SqlPullTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(PullService::Options{}); }

  void Open(PullService::Options options) {
    pull_.reset();
    send_.reset();
    store_.reset();
    StoreOptions o =
        rocketstore::testing::SteppedStoreOptions("/store" + std::to_string(++opened_));
    o.arrival_listeners.push_back([this](std::string_view t, int32_t q, QueueOffset next) {
      holds_.OnArrival(t, q, next.value());
    });
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    TopicConfig t;
    t.name = "T";
    t.read_queue_nums = t.write_queue_nums = 1;
    topics_.Upsert(t);
    if (pipeline_.size() == 0) pipeline_.Add(std::make_unique<MessageCheckHook>(4096));
    send_ =
        std::make_unique<SendService>(SendService::Options{}, *store_, topics_, pipeline_, [] {});
    pull_ = std::make_unique<PullService>(options, clock_, *store_, topics_, groups_, offsets_,
                                          consumers_, holds_);
    ctx_.channel = channel_;
  }

  // A message with user properties `props` ("a\1" "3\2" ...) and TAGS `tag`.
  void Send(const std::string& body, const std::string& tag, const std::string& props) {
    SendRequest r;
    r.producer_group = "P";
    r.topic = "T";
    r.born_timestamp = clock_.NowMillis();
    const std::string all = props + "TAGS\x01" + tag;
    const SendEntry entry{0, body, all};
    r.messages = std::span<const SendEntry>(&entry, 1);
    auto res = send_->Send(ctx_, r, [](SendResult) { ADD_FAILURE() << "answers inline"; });
    ASSERT_TRUE(res.has_value());
    ASSERT_EQ(res->verdict.outcome, Outcome::kOk) << res->verdict.remark;
    ASSERT_TRUE(store_->RunDispatchStep().ok());
  }
  void SendA(int a) {
    Send("sql " + std::to_string(a), "TagA", "a\x01" + std::to_string(a) + "\x02");
  }

  // The group's heartbeat with one subscription of T.
  void Heartbeat(const std::string& type, const std::string& expression, int64_t version) {
    ConsumerData d;
    d.group = "G";
    SubscriptionData sub;
    sub.topic = "T";
    sub.expression_type = type;
    sub.sub_string = expression;
    sub.sub_version = version;
    d.subscriptions = {sub};
    ClientChannelInfo info;
    info.channel = channel_;
    info.client_id = "c";
    consumers_.Register(d, info, false);
  }

  PullRequest ByGroup(int64_t offset, int64_t version, int32_t sys_flag = 0) {
    PullRequest p;
    p.consumer_group = "G";
    p.topic = "T";
    p.queue_offset = offset;
    p.max_msg_nums = 32;
    p.sys_flag = sys_flag;
    p.suspend_timeout_millis = 15000;
    p.sub_version = version;
    p.expression_type = "SQL92";
    return p;
  }
  PullRequest WithSubscription(int64_t offset, const std::string& expression) {
    PullRequest p = ByGroup(offset, 7, kPullSubscription);
    p.subscription = expression;
    return p;
  }

  PullResult Now(const PullRequest& p) {
    auto r = pull_->Pull(ctx_, p, [](PullResult) { ADD_FAILURE() << "must answer at once"; });
    EXPECT_TRUE(r.has_value());
    return r ? std::move(*r) : PullResult{};
  }

  static std::vector<std::string> Bodies(const PullResult& r) {
    std::vector<std::string> out;
    for (const auto& m : r.messages) {
      auto d = format::DecodeRecord(m.bytes, true);
      EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord);
      out.emplace_back(d.record.body);
    }
    return out;
  }

  void RunTasks() {
    while (!tasks_.empty()) {
      auto t = std::move(tasks_.front());
      tasks_.pop_front();
      t();
    }
  }

  int opened_ = 0;
  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<MessageStore> store_;
  TopicConfigManager topics_{fs_, clock_, "/cfg/topics.json"};
  SubscriptionGroupManager groups_{fs_, clock_, "/cfg/subscriptionGroup.json"};
  ConsumerOffsetManager offsets_{fs_, clock_, "/cfg/consumerOffset.json"};
  ConsumerManager consumers_{clock_, nullptr};
  std::deque<std::function<void()>> tasks_;
  PullHoldService holds_{[this](std::function<void()> fn) { tasks_.push_back(std::move(fn)); }};
  PutPipeline pipeline_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<PullService> pull_;
  std::shared_ptr<FakeChannel> channel_ = std::make_shared<FakeChannel>(1);
  RequestContext ctx_;
};

TEST_F(SqlPullTest, ABadExpressionInThePullIsSubscriptionParseFailed) {
  SendA(1);
  PullResult r = Now(WithSubscription(0, "a >< 5"));
  EXPECT_EQ(r.verdict.outcome, Outcome::kSubscriptionParseFailed);
  EXPECT_NE(r.verdict.remark.find("parse the consumer's subscription failed"), std::string::npos);
  EXPECT_NE(r.verdict.remark.find("line 1, column 4"), std::string::npos);
  PullRequest unknown = WithSubscription(0, "a = 1");
  unknown.expression_type = "GROOVY";
  EXPECT_EQ(Now(unknown).verdict.outcome, Outcome::kSubscriptionParseFailed);
  EXPECT_TRUE(Now(unknown).messages.empty());
}

TEST_F(SqlPullTest, ABadHeartbeatExpressionIsFilterDataNotExist) {
  SendA(1);
  Heartbeat("SQL92", "a BETWEEN 5 AND 3", 10);
  PullResult r = Now(ByGroup(0, 10));
  EXPECT_EQ(r.verdict.outcome, Outcome::kFilterDataNotExist);
  EXPECT_NE(r.verdict.remark.find("Illegal values of between"), std::string::npos);
  Heartbeat("SQL92", "", 11);  // an empty expression registers no filter data either
  EXPECT_EQ(Now(ByGroup(0, 11)).verdict.outcome, Outcome::kFilterDataNotExist);
}

TEST_F(SqlPullTest, PropertyFilterOffRefusesSql92AsJavaDoes) {
  PullService::Options off;
  off.enable_property_filter = false;
  Open(off);
  SendA(4);
  Heartbeat("SQL92", "a > 1", 10);
  for (const PullRequest& p : {ByGroup(0, 10), WithSubscription(0, "a > 1")}) {
    PullResult r = Now(p);
    EXPECT_EQ(r.verdict.outcome, Outcome::kSystemError);
    EXPECT_EQ(r.verdict.remark, "The broker does not support consumer to filter message by SQL92");
  }
  // A bad expression is still reported as such first (parse before the switch, as Java).
  EXPECT_EQ(Now(WithSubscription(0, "a ><")).verdict.outcome, Outcome::kSubscriptionParseFailed);
  Verdict v = pull_->CheckSubscription("G", "T", "SQL92", "a > 1", 10);
  EXPECT_EQ(v.outcome, Outcome::kSystemError);
  EXPECT_TRUE(pull_->CheckSubscription("G", "T", "TAG", "a >< 1", 10).ok());
  // TAG subscriptions are untouched.
  Heartbeat("TAG", "TagA", 12);
  EXPECT_EQ(Bodies(Now(ByGroup(0, 12))), (std::vector<std::string>{"sql 4"}));
}

TEST_F(SqlPullTest, CheckSubscriptionAnswersLikeCheckClientConfig) {
  EXPECT_TRUE(pull_->CheckSubscription("G", "T", "TAG", "*", 1).ok());
  EXPECT_TRUE(pull_->CheckSubscription("G", "T", "", "anything at all", 1).ok());
  EXPECT_TRUE(pull_->CheckSubscription("G", "T", "SQL92", "a BETWEEN 3 AND 5", 1).ok());
  Verdict bad = pull_->CheckSubscription("G", "T", "SQL92", "a >< 5", 2);
  EXPECT_EQ(bad.outcome, Outcome::kSubscriptionParseFailed);
  EXPECT_EQ(bad.remark.rfind("Encountered \"<\" at line 1, column 4.", 0), 0u) << bad.remark;
  EXPECT_EQ(pull_->CheckSubscription("G", "T", "FOO", "a = 1", 3).outcome,
            Outcome::kSubscriptionParseFailed);
}

TEST_F(SqlPullTest, AConsumerReceivesExactlyTheMatchingMessages) {
  for (int a = 0; a < 8; ++a) SendA(a);
  Heartbeat("SQL92", "a BETWEEN 3 AND 5", 10);
  PullResult r = Now(ByGroup(0, 10));
  EXPECT_EQ(r.verdict.outcome, Outcome::kOk);
  EXPECT_EQ(r.status_name, "FOUND");
  EXPECT_EQ(Bodies(r), (std::vector<std::string>{"sql 3", "sql 4", "sql 5"}));
  EXPECT_EQ(r.next_begin_offset, 8);
  EXPECT_EQ(r.max_offset, 8);
  // TAGS is a property like any other; KEYS-less messages make KEYS null.
  Heartbeat("SQL92", "TAGS = 'TagA' AND (a = 1 OR a = 6) AND KEYS IS NULL", 11);
  EXPECT_EQ(Bodies(Now(ByGroup(0, 11))), (std::vector<std::string>{"sql 1", "sql 6"}));
  EXPECT_EQ(Bodies(Now(WithSubscription(0, "a IN ('0', '7') OR a CONTAINS '2'"))),
            (std::vector<std::string>{"sql 0", "sql 2", "sql 7"}));
}

TEST_F(SqlPullTest, OnlyFilteredOutMessagesAnswerPullRetryImmediately) {
  SendA(2);
  SendA(6);
  Heartbeat("SQL92", "a BETWEEN 3 AND 5", 10);
  // With the suspend flag too: Java suspends only PULL_NOT_FOUND.
  PullResult r = Now(ByGroup(0, 10, kPullSuspend));
  EXPECT_EQ(r.verdict.outcome, Outcome::kPullRetryImmediately);
  EXPECT_EQ(r.status_name, "NO_MATCHED_MESSAGE");  // the remark the Java broker sent
  EXPECT_EQ(r.next_begin_offset, 2);               // past them (sql92.json: nextBeginOffset 2)
  EXPECT_TRUE(r.messages.empty());
  EXPECT_EQ(holds_.held_count(), 0u);
}

TEST_F(SqlPullTest, HeldPullWaitsForAMatchingMessage) {
  Heartbeat("SQL92", "a > 4", 10);
  std::vector<PullResult> answers;
  EXPECT_FALSE(pull_->Pull(ctx_, ByGroup(0, 10, kPullSuspend),
                           [&](PullResult r) { answers.push_back(std::move(r)); }));
  SendA(1);
  RunTasks();
  EXPECT_TRUE(answers.empty()) << "a message the expression rejects keeps it held";
  EXPECT_EQ(holds_.held_count(), 1u);
  SendA(9);
  RunTasks();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(Bodies(answers[0]), (std::vector<std::string>{"sql 9"}));
  EXPECT_EQ(answers[0].next_begin_offset, 2);
}

TEST_F(SqlPullTest, CompiledOncePerSubscriptionVersionNotPerPull) {
  for (int a = 0; a < 4; ++a) SendA(a);
  EXPECT_TRUE(pull_->CheckSubscription("G", "T", "SQL92", "a >= 2", 10).ok());
  Heartbeat("SQL92", "a >= 2", 10);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Bodies(Now(ByGroup(0, 10))).size(), 2u);
  EXPECT_EQ(pull_->sql_filters().compilations(), 1) << "CHECK_CLIENT_CONFIG's compile is reused";
  Heartbeat("SQL92", "a >= 3", 11);  // a new version with a new text replaces the filter
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(Bodies(Now(ByGroup(0, 11))), std::vector<std::string>{"sql 3"});
  EXPECT_EQ(pull_->sql_filters().compilations(), 2);
  EXPECT_EQ(pull_->sql_filters().size(), 1u);
  // A bad expression is not re-parsed by every pull either.
  Heartbeat("SQL92", "a >", 12);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Now(ByGroup(0, 12)).verdict.outcome, Outcome::kFilterDataNotExist);
  }
  EXPECT_EQ(pull_->sql_filters().compilations(), 3);
}

TEST(SqlMessageFilterTest, MatchesOnTheRecordsProperties) {
  auto compiled = filter::SqlExpression::Compile("a = 1 AND TAGS = 'x'");
  ASSERT_TRUE(compiled.ok());
  SqlMessageFilter f(std::make_shared<const filter::SqlExpression>(std::move(compiled).value()));
  EXPECT_TRUE(f.MatchesTagsCode(12345)) << "no bloom filter: every unit passes";
  EXPECT_TRUE(
      f.MatchesProperties("a\x01"
                          "1\x02TAGS\x01x"));
  EXPECT_TRUE(
      f.MatchesProperties("a\x01"
                          "0\x02TAGS\x01x\x02"
                          "a\x01"
                          "1"));  // last wins
  EXPECT_FALSE(
      f.MatchesProperties("a\x01"
                          "1"));
  EXPECT_FALSE(f.MatchesProperties(""));
  const uint8_t garbage[16] = {};
  EXPECT_FALSE(f.MatchesRecord(garbage)) << "not a record: no match";
}

TEST(SqlMessageFilterTest, ManyPropertyNames) {
  std::string sql = "p0 = '0'";
  std::string props;
  for (int i = 1; i < 20; ++i)
    sql += " AND p" + std::to_string(i) + " = '" + std::to_string(i) + "'";
  for (int i = 0; i < 20; ++i)
    props += "p" + std::to_string(i) + "\x01" + std::to_string(i) + "\x02";
  auto compiled = filter::SqlExpression::Compile(sql);
  ASSERT_TRUE(compiled.ok());
  SqlMessageFilter f(std::make_shared<const filter::SqlExpression>(std::move(compiled).value()));
  EXPECT_TRUE(f.MatchesProperties(props));
  EXPECT_FALSE(f.MatchesProperties(props.substr(0, props.size() - 4)));
}

}  // namespace
}  // namespace rocketstore::broker
