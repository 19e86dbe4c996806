// Consumer retry and dead-letter queues over a real MessageStore on the in-memory
// fault-injecting file system: CONSUMER_SEND_MSG_BACK (RetryService::SendBack) and a plain
// send to %RETRY%<group> (RetryTopicHook), with RocketMQ 4.9.8's rules. The expected
// properties and reconsume counts are those of the Java broker's records in
// tests/protocol/vectors/java-4.9.8/send-back.json and dlq.json.
#include "broker/service/retry_service.h"

#include <gtest/gtest.h>

#include "broker/hooks/message_check_hook.h"
#include "broker/hooks/retry_topic_hook.h"
#include "broker/metadata.h"
#include "broker/service/reput.h"
#include "broker/service/send_service.h"
#include "broker/transaction/half_message_hook.h"
#include "io/fault_injection_file_system.h"
#include "protocol/request_code.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/small_store.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

// Refuses the broker's send-back re-puts (a later hook's refusal, e.g. a bad delay level).
class RefuseSendBackHook final : public PutHook {
 public:
  std::string_view name() const override { return "refuse-send-back"; }
  Verdict BeforePut(const PutContext& c, DraftMessage&) override {
    if (c.origin != PutOrigin::kSendBack) return Verdict::Ok();
    ++seen;
    return Verdict::Error(Outcome::kMessageIllegal, "no thanks");
  }
  int seen = 0;
};

struct Stored {
  std::string topic;
  int32_t queue_id = 0;
  int32_t reconsume_times = 0;
  int64_t born_timestamp = 0;
  int64_t physical_offset = 0;
  std::string body;
  std::string properties;
  std::string Prop(std::string_view name) const {
    return std::string(format::FindProperty(properties, name).value_or("<absent>"));
  }
  std::vector<std::string> PropNames() const {
    std::vector<std::string> names;
    for (const auto& [k, v] : format::ParseProperties(properties)) names.emplace_back(k);
    return names;
  }
};

class RetryServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = rocketstore::testing::SteppedStoreOptions();
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    TopicConfig t;
    t.name = "JV_sendback";
    t.read_queue_nums = t.write_queue_nums = 4;
    topics_.Upsert(t);
    SubscriptionGroupConfig g;
    g.name = "CG";
    groups_.Upsert(g);
    ctx_.version = protocol::kVersionV4_9_4;
    Build(RetryService::Options{});
  }

  void Build(RetryService::Options options, bool refuse_send_back = false) {
    pipeline_ = std::make_unique<PutPipeline>();
    reput_ = std::make_unique<Reputter>(*store_, *pipeline_);
    reput_->set_store_host(host_);
    retry_ = std::make_unique<RetryService>(options, groups_, topics_, *reput_,
                                            [this] { ++topics_created_; });
    pipeline_->Add(std::make_unique<MessageCheckHook>(4096));
    pipeline_->Add(std::make_unique<HalfMessageHook>());
    pipeline_->Add(std::make_unique<RetryTopicHook>(*retry_));
    refuse_ = nullptr;
    if (refuse_send_back) {
      auto h = std::make_unique<RefuseSendBackHook>();
      refuse_ = h.get();
      pipeline_->Add(std::move(h));
    }
    SendService::Options so;
    so.cluster_name = "JavaCluster";
    so.store_host = host_;
    so.groups = &groups_;
    send_ = std::make_unique<SendService>(so, *store_, topics_, *pipeline_,
                                          [this] { ++topics_created_; });
  }

  // The message of send-back.json's first send (KEYS k0, its UNIQ_KEY, TAGS TagA).
  SendResult Send(const std::string& topic, int32_t reconsume_times = 0,
                  std::optional<int32_t> max = std::nullopt, int32_t version = -1) {
    SendRequest r;
    r.producer_group = "PG";
    r.topic = topic;
    r.queue_id = -1;
    r.born_timestamp = 1796158334786;
    r.reconsume_times = reconsume_times;
    r.max_reconsume_times = max;
    const std::string props =
        "KEYS\x01k0\x02UNIQ_KEY\x01" + std::string(kUniq) + "\x02WAIT\x01true\x02TAGS\x01TagA";
    const SendEntry entry{0, "sendback body 0", props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    RequestContext c = ctx_;
    if (version >= 0) c.version = version;
    auto res = send_->Send(c, r, [](SendResult) { ADD_FAILURE() << "ASYNC_FLUSH answers inline"; });
    EXPECT_TRUE(res.has_value());
    EXPECT_OK(store_->RunDispatchStep());
    return res ? *res : SendResult{};
  }

  int64_t OffsetOf(const SendResult& r) {
    auto id = format::DecodeOffsetMsgId(r.msg_id);
    EXPECT_TRUE(id.ok()) << r.msg_id;
    return id.ok() ? id->physical_offset : -1;
  }

  SendBackResult SendBack(int64_t offset, int32_t delay_level, std::optional<int32_t> max = 16,
                          const std::string& group = "CG") {
    SendBackRequest req;
    req.offset = offset;
    req.group = group;
    req.delay_level = delay_level;
    req.max_reconsume_times = max;
    SendBackResult r = retry_->SendBack(ctx_, req);
    EXPECT_OK(store_->RunDispatchStep());
    return r;
  }

  // Every message of a queue, decoded.
  std::vector<Stored> Read(const std::string& topic, int32_t queue_id) {
    GetMessageRequest g;
    g.group = "reader";
    g.topic = topic;
    g.queue_id = queue_id;
    g.offset = QueueOffset(0);
    GetMessageResult got = store_->GetMessage(g);
    std::vector<Stored> out;
    for (const auto& m : got.messages) {
      format::DecodeResult d = format::DecodeRecord(m.bytes, true);
      EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord);
      const auto& r = d.record;
      out.push_back(Stored{std::string(r.topic), r.queue_id, r.reconsume_times, r.born_timestamp,
                           r.physical_offset, std::string(r.body), std::string(r.properties)});
    }
    return out;
  }
  size_t CountIn(const std::string& topic) {
    size_t n = 0;
    auto t = topics_.Find(topic);
    if (!t) return 0;
    for (int32_t q = 0; q < t->write_queue_nums; ++q) n += Read(topic, q).size();
    return n;
  }
  Stored OnlyIn(const std::string& topic) {
    std::vector<Stored> all;
    auto t = topics_.Find(topic);
    EXPECT_TRUE(t.has_value()) << topic;
    if (!t) return {};
    for (int32_t q = 0; q < t->write_queue_nums; ++q) {
      for (auto& m : Read(topic, q)) all.push_back(std::move(m));
    }
    EXPECT_EQ(all.size(), 1u) << topic;
    return all.empty() ? Stored{} : all.back();
  }

  static constexpr std::string_view kUniq =
      "FD000000000000000000000000000002116730946E09047A77420000";
  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<MessageStore> store_;
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  SubscriptionGroupManager groups_{fs_, clock_, "/store/config/subscriptionGroup.json"};
  const format::HostAddress host_ = format::HostAddress::V4(127, 0, 0, 1, 20911);
  std::unique_ptr<PutPipeline> pipeline_;
  std::unique_ptr<Reputter> reput_;
  std::unique_ptr<RetryService> retry_;
  std::unique_ptr<SendService> send_;
  RefuseSendBackHook* refuse_ = nullptr;
  RequestContext ctx_;
  int topics_created_ = 0;
};

// ---- refusals first ----

TEST_F(RetryServiceTest, UnknownGroupWithoutAutoCreateIsRefusedAsJavaDoes) {
  groups_.set_auto_create(false);
  Build(RetryService::Options{});
  const int64_t off = OffsetOf(Send("JV_sendback"));
  SendBackResult r = SendBack(off, 0, 16, "Nobody");
  EXPECT_EQ(r.verdict.outcome, Outcome::kSubscriptionGroupNotExist);
  EXPECT_EQ(r.verdict.remark,
            "subscription group not exist, Nobody \nSee http://rocketmq.apache.org/docs/faq/ "
            "for further details.");
  EXPECT_FALSE(topics_.Find("%RETRY%Nobody"));
  EXPECT_FALSE(groups_.Find("Nobody"));
  // A CID_RMQ_SYS_ group is created whatever the setting (MixAll.isSysConsumerGroup).
  EXPECT_EQ(SendBack(off, 0, 16, "CID_RMQ_SYS_X").verdict.outcome, Outcome::kOk);
  EXPECT_TRUE(groups_.Find("CID_RMQ_SYS_X"));
}

TEST_F(RetryServiceTest, UnknownGroupIsAutoCreatedByDefault) {
  const int64_t off = OffsetOf(Send("JV_sendback"));
  EXPECT_EQ(SendBack(off, 0, 16, "NewGroup").verdict.outcome, Outcome::kOk);
  ASSERT_TRUE(groups_.Find("NewGroup"));
  EXPECT_EQ(OnlyIn("%RETRY%NewGroup").reconsume_times, 1);
}

TEST_F(RetryServiceTest, ReadOnlyBrokerRefusesTheSendBack) {
  BrokerPermission read_only(kPermRead);
  read_only.set_host("127.0.0.1");
  RetryService::Options o;
  o.permission = &read_only;
  Build(o);
  const int64_t off = OffsetOf(Send("JV_sendback"));
  SendBackResult r = SendBack(off, 0);
  EXPECT_EQ(r.verdict.outcome, Outcome::kNoPermission);
  EXPECT_EQ(r.verdict.remark, "the broker[127.0.0.1] sending message is forbidden");
  EXPECT_FALSE(topics_.Find("%RETRY%CG"));
}

TEST_F(RetryServiceTest, OffsetNotInTheCommitLogIsASystemErrorWithJavasRemark) {
  Send("JV_sendback");
  for (int64_t bad : {int64_t{-1}, int64_t{999999}}) {
    SendBackResult r = SendBack(bad, 0);
    EXPECT_EQ(r.verdict.outcome, Outcome::kSystemError);
    EXPECT_EQ(r.verdict.remark, "look message by offset failed, " + std::to_string(bad));
  }
  EXPECT_EQ(CountIn("%RETRY%CG"), 0u);
}

TEST_F(RetryServiceTest, NoRetryQueuesAnswersSuccessAndStoresNothing) {
  SubscriptionGroupConfig g = *groups_.Find("CG");
  g.retry_queue_nums = 0;
  groups_.Upsert(g);
  const int64_t off = OffsetOf(Send("JV_sendback"));
  const PhysicalOffset end = store_->MaxPhysicalOffset();
  SendBackResult r = SendBack(off, 0);
  EXPECT_EQ(r.verdict.outcome, Outcome::kOk);
  EXPECT_TRUE(r.topic.empty());
  EXPECT_EQ(store_->MaxPhysicalOffset(), end);
  EXPECT_FALSE(topics_.Find("%RETRY%CG"));
}

TEST_F(RetryServiceTest, ReadOnlyRetryTopicRefusesTheSendBack) {
  TopicConfig t;
  t.name = "%RETRY%CG";
  t.read_queue_nums = t.write_queue_nums = 1;
  t.perm = kPermRead;
  topics_.Upsert(t);
  SendBackResult r = SendBack(OffsetOf(Send("JV_sendback")), 0);
  EXPECT_EQ(r.verdict.outcome, Outcome::kNoPermission);
  EXPECT_EQ(r.verdict.remark, "the topic[%RETRY%CG] sending message is forbidden");
}

TEST_F(RetryServiceTest, AHookRefusingTheRePutIsASystemErrorAndNothingIsStored) {
  Build(RetryService::Options{}, /*refuse_send_back=*/true);
  const int64_t off = OffsetOf(Send("JV_sendback"));
  EXPECT_EQ(refuse_->seen, 0) << "a client's send is not a send-back";
  SendBackResult r = SendBack(off, 0);
  EXPECT_EQ(refuse_->seen, 1);
  EXPECT_EQ(r.verdict.outcome, Outcome::kSystemError);
  EXPECT_NE(r.verdict.remark.find("no thanks"), std::string::npos) << r.verdict.remark;
  EXPECT_EQ(CountIn("%RETRY%CG"), 0u);
}

// ---- the retry path ----

TEST_F(RetryServiceTest, SendBackStoresTheMessageInRetryLikeJava) {
  SubscriptionGroupConfig g = *groups_.Find("CG");
  g.retry_queue_nums = 3;
  groups_.Upsert(g);
  const SendResult sent = Send("JV_sendback");
  const int64_t off = OffsetOf(sent);
  const int created = topics_created_;
  SendBackResult r = SendBack(off, /*delay_level=*/0);
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk) << r.verdict.remark;
  EXPECT_EQ(r.topic, "%RETRY%CG");
  EXPECT_GE(r.queue_id, 0);
  EXPECT_LT(r.queue_id, 3);
  auto topic = topics_.Find("%RETRY%CG");
  ASSERT_TRUE(topic);
  EXPECT_EQ(topic->write_queue_nums, 3) << "the group's retryQueueNums";
  EXPECT_EQ(topic->read_queue_nums, 3);
  EXPECT_EQ(topic->perm, kPermRead | kPermWrite);
  EXPECT_EQ(topics_created_, created + 1) << "a new topic re-registers the broker";

  const Stored m = OnlyIn("%RETRY%CG");
  EXPECT_EQ(m.queue_id, r.queue_id);
  EXPECT_EQ(m.reconsume_times, 1);
  EXPECT_EQ(m.body, "sendback body 0");
  EXPECT_EQ(m.born_timestamp, 1796158334786);
  // send-back.json's retry record, without the REAL_TOPIC / REAL_QID the delay service
  // adds: same members, in the same (HashMap) order.
  EXPECT_EQ(m.Prop("RETRY_TOPIC"), "JV_sendback");
  EXPECT_EQ(m.Prop("ORIGIN_MESSAGE_ID"), format::EncodeOffsetMsgId(host_, off));
  EXPECT_EQ(m.Prop("ORIGIN_MESSAGE_ID"), sent.msg_id);
  EXPECT_EQ(m.Prop("UNIQ_KEY"), kUniq);
  EXPECT_EQ(m.Prop("WAIT"), "false");
  EXPECT_EQ(m.Prop("DELAY"), "3") << "delay level 0 asks for 3 + reconsumeTimes";
  EXPECT_EQ(m.Prop("CLUSTER"), "JavaCluster");
  EXPECT_EQ(m.Prop("RECONSUME_TIME"), "<absent>") << "the record field counts, not a property";
  EXPECT_EQ(m.PropNames(),
            (std::vector<std::string>{"ORIGIN_MESSAGE_ID", "RETRY_TOPIC", "KEYS", "UNIQ_KEY",
                                      "CLUSTER", "WAIT", "DELAY", "TAGS"}));
  // The original is untouched.
  EXPECT_EQ(OnlyIn("JV_sendback").reconsume_times, 0);
}

TEST_F(RetryServiceTest, RequestedDelayLevelIsKept) {
  SendBack(OffsetOf(Send("JV_sendback")), /*delay_level=*/1);
  EXPECT_EQ(OnlyIn("%RETRY%CG").Prop("DELAY"), "1");
}

TEST_F(RetryServiceTest, SecondRetryKeepsOriginAndRetryTopicAndCountsOn) {
  const SendResult sent = Send("JV_sendback");
  ASSERT_EQ(SendBack(OffsetOf(sent), 0).verdict.outcome, Outcome::kOk);
  const Stored first = OnlyIn("%RETRY%CG");
  ASSERT_EQ(SendBack(first.physical_offset, 0).verdict.outcome, Outcome::kOk);
  std::vector<Stored> all = Read("%RETRY%CG", 0);
  ASSERT_EQ(all.size(), 2u);
  const Stored& second = all[1];
  EXPECT_EQ(second.reconsume_times, 2);
  EXPECT_EQ(second.Prop("DELAY"), "4") << "3 + reconsumeTimes (1)";
  EXPECT_EQ(second.Prop("RETRY_TOPIC"), "JV_sendback") << "not the %RETRY% topic";
  EXPECT_EQ(second.Prop("ORIGIN_MESSAGE_ID"), sent.msg_id) << "the first message's id is kept";
}

// ---- the dead-letter queue ----

TEST_F(RetryServiceTest, MaxReachedGoesToTheDlqAsInDlqJson) {
  // dlq.json: maxReconsumeTimes=1, delayLevel 0 twice.
  const SendResult sent = Send("JV_sendback");
  ASSERT_EQ(SendBack(OffsetOf(sent), 0, 1).verdict.outcome, Outcome::kOk);
  const Stored retry = OnlyIn("%RETRY%CG");
  EXPECT_EQ(retry.reconsume_times, 1);
  EXPECT_EQ(retry.Prop("DELAY"), "3");
  SendBackResult r = SendBack(retry.physical_offset, 0, 1);
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk) << r.verdict.remark;
  EXPECT_EQ(r.topic, "%DLQ%CG");
  EXPECT_EQ(r.queue_id, 0);
  auto dlq = topics_.Find("%DLQ%CG");
  ASSERT_TRUE(dlq);
  EXPECT_EQ(dlq->write_queue_nums, 1);
  EXPECT_EQ(dlq->read_queue_nums, 1);
  EXPECT_EQ(dlq->perm, 6) << "the route in dlq.json";
  const Stored m = OnlyIn("%DLQ%CG");
  EXPECT_EQ(m.reconsume_times, 2) << "maxReconsumeTimes + 1";
  EXPECT_EQ(m.Prop("DELAY"), "0");
  EXPECT_EQ(m.Prop("WAIT"), "false");
  EXPECT_EQ(m.Prop("RETRY_TOPIC"), "JV_sendback");
  EXPECT_EQ(m.Prop("ORIGIN_MESSAGE_ID"), sent.msg_id);
  EXPECT_EQ(CountIn("%RETRY%CG"), 1u);
}

TEST_F(RetryServiceTest, GroupsRetryMaxTimesAppliesWithoutTheRequestsOrForOldClients) {
  SubscriptionGroupConfig g = *groups_.Find("CG");
  g.retry_max_times = 0;
  groups_.Upsert(g);
  SendBack(OffsetOf(Send("JV_sendback")), 0, std::nullopt);
  EXPECT_EQ(OnlyIn("%DLQ%CG").reconsume_times, 1) << "0 >= retryMaxTimes 0";
  // A client older than V3_4_9: its maxReconsumeTimes (16) is ignored, the group's (0) used.
  ctx_.version = protocol::kVersionV3_4_9 - 1;
  SendBack(OffsetOf(Send("JV_sendback")), 0, 16);
  EXPECT_EQ(CountIn("%DLQ%CG"), 2u);
  EXPECT_EQ(CountIn("%RETRY%CG"), 0u);
  // From V3_4_9 on the request's max wins.
  ctx_.version = protocol::kVersionV3_4_9;
  SendBack(OffsetOf(Send("JV_sendback")), 0, 16);
  EXPECT_EQ(CountIn("%RETRY%CG"), 1u);
}

TEST_F(RetryServiceTest, NegativeDelayLevelGoesToTheDlqAtOnce) {
  SendBackResult r = SendBack(OffsetOf(Send("JV_sendback")), -1);
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk);
  EXPECT_EQ(r.topic, "%DLQ%CG");
  const Stored m = OnlyIn("%DLQ%CG");
  EXPECT_EQ(m.reconsume_times, 1);
  EXPECT_EQ(m.Prop("DELAY"), "0");
  EXPECT_EQ(CountIn("%RETRY%CG"), 0u);
}

// ---- a client's own send to %RETRY% (its fallback) ----

TEST_F(RetryServiceTest, PlainRetrySendForAnUnknownGroupIsRefused) {
  groups_.set_auto_create(false);
  Build(RetryService::Options{});
  const PhysicalOffset end = store_->MaxPhysicalOffset();
  SendResult r = Send("%RETRY%Nobody", 1, 16);
  EXPECT_EQ(r.verdict.outcome, Outcome::kSubscriptionGroupNotExist);
  EXPECT_EQ(store_->MaxPhysicalOffset(), end) << "nothing stored";
}

TEST_F(RetryServiceTest, PlainRetrySendBelowTheMaxStaysInRetryWithTheGroupsQueues) {
  SubscriptionGroupConfig g = *groups_.Find("CG");
  g.retry_queue_nums = 2;
  groups_.Upsert(g);
  SendResult r = Send("%RETRY%CG", 3, 16);
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk) << r.verdict.remark;
  auto topic = topics_.Find("%RETRY%CG");
  ASSERT_TRUE(topic);
  EXPECT_EQ(topic->write_queue_nums, 2) << "created with the group's retryQueueNums";
  EXPECT_EQ(topic->perm, kPermRead | kPermWrite);
  EXPECT_EQ(OnlyIn("%RETRY%CG").reconsume_times, 3);
}

TEST_F(RetryServiceTest, PlainRetrySendAtTheMaxGoesToTheDlq) {
  SendResult r = Send("%RETRY%CG", /*reconsume_times=*/2, /*max=*/2);
  ASSERT_EQ(r.verdict.outcome, Outcome::kOk) << r.verdict.remark;
  EXPECT_EQ(r.queue_id, 0);
  const Stored m = OnlyIn("%DLQ%CG");
  EXPECT_EQ(m.queue_id, 0);
  EXPECT_EQ(m.reconsume_times, 2);
  EXPECT_EQ(m.Prop("DELAY"), "0");
  EXPECT_EQ(m.Prop("UNIQ_KEY"), kUniq);
  EXPECT_EQ(CountIn("%RETRY%CG"), 0u);
  EXPECT_EQ(topics_.Find("%DLQ%CG")->perm, 6);
  // An old client's max is ignored: the group's 16 applies.
  EXPECT_EQ(Send("%RETRY%CG", 2, 2, protocol::kVersionV3_4_9 - 1).verdict.outcome, Outcome::kOk);
  EXPECT_EQ(CountIn("%RETRY%CG"), 1u);
}

}  // namespace
}  // namespace rocketstore::broker
