// Request-reply (ReplyService, RocketMQ 4.9.8's ReplyMessageProcessor) over a real
// MessageStore on the in-memory fault-injecting file system, with FakeChannel requesters:
// the requester's channel is found by REPLY_TO_CLIENT among the producers, the push carries
// what the Java broker's PUSH_REPLY_MESSAGE_TO_CLIENT carried (request-reply.json), the
// answer waits for the requester's, and the reply is stored whatever the push's outcome.
#include "broker/service/reply_service.h"

#include <gtest/gtest.h>

#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/service/producer_manager.h"
#include "broker/service/send_service.h"
#include "broker/system_topics.h"
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

constexpr std::string_view kRequester = "127.0.0.1@rr-requester";
// The replier's properties of request-reply.json's SEND_REPLY_MESSAGE_V2.
const std::string kReplyProps =
    "MSG_TYPE\x01reply\x02REPLY_TO_CLIENT\x01" + std::string(kRequester) +
    "\x02UNIQ_KEY\x01"
    "FD00000000000000000000000000000216A330946E09047C52B70002\x02TTL\x01"
    "10000\x02"
    "CORRELATION_ID\x01"
    "0d9da193-2932-454c-b6b6-16ad7ab59980";

class ReplyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = rocketstore::testing::SteppedStoreOptions();
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    TopicConfig t;
    t.name = ReplyTopicOf("JavaCluster");
    t.read_queue_nums = t.write_queue_nums = 1;
    topics_.Upsert(t);
    pipeline_.Add(std::make_unique<MessageCheckHook>(4096));
    ctx_.channel = replier_;
    ctx_.born_host = format::HostAddress::V4(127, 0, 0, 1, 45914);
    Build(/*store_reply=*/true, /*auto_create_topic=*/true);
  }

  void Build(bool store_reply, bool auto_create_topic) {
    SendService::Options so;
    so.cluster_name = "JavaCluster";
    so.auto_create_topic = auto_create_topic;
    so.store_host = format::HostAddress::V4(127, 0, 0, 1, 20911);
    send_ = std::make_unique<SendService>(so, *store_, topics_, pipeline_, nullptr);
    reply_ = std::make_unique<ReplyService>(ReplyService::Options{store_reply}, clock_, *send_,
                                            producers_);
    reply_->set_store_host(so.store_host);
  }

  void RegisterRequester(const std::shared_ptr<FakeChannel>& channel,
                         std::string_view client_id = kRequester) {
    ClientChannelInfo info;
    info.channel = channel;
    info.client_id = std::string(client_id);
    producers_.Register("PGV_rr", info);
  }

  // Sends the captured reply (or `props`) and returns the answers given so far.
  std::vector<ReplyResult>& Reply(const std::string& props = kReplyProps, int32_t queue_id = 0,
                                  const std::string& topic = "JavaCluster_REPLY_TOPIC") {
    SendRequest r;
    r.producer_group = "PGV_rr_replier";
    r.topic = topic;
    r.queue_id = queue_id;
    r.born_timestamp = 1796158456503;
    const SendEntry entry{0, "pong:ping", props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    reply_->Reply(ctx_, r, [this](ReplyResult result) { answers_.push_back(std::move(result)); });
    return answers_;
  }

  struct Stored {
    std::string body, properties;
    int64_t offset = 0;
  };
  std::vector<Stored> StoredReplies() {
    EXPECT_OK(store_->RunDispatchStep());
    GetMessageRequest g;
    g.group = "reader";
    g.topic = "JavaCluster_REPLY_TOPIC";
    g.queue_id = 0;
    g.offset = QueueOffset(0);
    std::vector<Stored> out;
    for (const auto& m : store_->GetMessage(g).messages) {
      format::DecodeResult d = format::DecodeRecord(m.bytes, true);
      EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord);
      out.push_back(
          {std::string(d.record.body), std::string(d.record.properties), d.record.physical_offset});
    }
    return out;
  }

  static void ExpectStoredAt(const ReplyResult& r, const Stored& s, int64_t queue_offset) {
    ASSERT_TRUE(r.stored.has_value());
    EXPECT_TRUE(r.stored->stored());
    auto id = format::DecodeOffsetMsgId(r.stored->msg_id);
    ASSERT_TRUE(id.ok()) << r.stored->msg_id;
    EXPECT_EQ(id->physical_offset, s.offset);
    EXPECT_EQ(r.stored->queue_offset, queue_offset);
  }

  FakeClock clock_{1796158456510};
  FaultInjectionFileSystem fs_{clock_};
  std::unique_ptr<MessageStore> store_;
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  ProducerManager producers_{clock_};
  PutPipeline pipeline_;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<ReplyService> reply_;
  std::shared_ptr<FakeChannel> replier_ = std::make_shared<FakeChannel>(1);
  std::shared_ptr<FakeChannel> requester_ = std::make_shared<FakeChannel>(2);
  RequestContext ctx_;
  std::vector<ReplyResult> answers_;
};

TEST_F(ReplyServiceTest, RequesterNotConnectedIsSystemErrorButTheReplyIsStored) {
  const auto& answers = Reply();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kSystemError);
  EXPECT_EQ(answers[0].verdict.remark,
            "push reply message fail, channel of <127.0.0.1@rr-requester> not found.");
  EXPECT_FALSE(answers[0].pushed());
  EXPECT_EQ(answers[0].push_status.code(), StatusCode::kNotFound);
  const auto stored = StoredReplies();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].body, "pong:ping");
  ExpectStoredAt(answers[0], stored[0], 0);
}

TEST_F(ReplyServiceTest, RequesterWhoseConnectionClosedIsNotFound) {
  RegisterRequester(requester_);
  requester_->Close();
  const auto& answers = Reply();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.remark,
            "push reply message fail, channel of <127.0.0.1@rr-requester> not found.");
  EXPECT_TRUE(requester_->pushes().empty());
  // Gone from the producers altogether (connection closed event): the same answer.
  producers_.OnChannelClosed(requester_->id());
  EXPECT_EQ(Reply()[1].verdict.outcome, Outcome::kSystemError);
  EXPECT_EQ(StoredReplies().size(), 2u);
}

TEST_F(ReplyServiceTest, ReplyWithoutReplyToClientIsSystemError) {
  RegisterRequester(requester_);
  const auto& answers = Reply("CORRELATION_ID\x01x\x02MSG_TYPE\x01reply");
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kSystemError);
  EXPECT_EQ(answers[0].verdict.remark, "reply message properties[REPLY_TO_CLIENT] is null");
  EXPECT_TRUE(requester_->pushes().empty());
  EXPECT_EQ(StoredReplies().size(), 1u);
}

TEST_F(ReplyServiceTest, PushThatFailsOrTimesOutAnswersJavasRemark) {
  RegisterRequester(requester_);
  requester_->set_push_answer(Internal("the client answered 1: process reply message fail"));
  const auto& answers = Reply();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].verdict.outcome, Outcome::kSystemError);
  EXPECT_EQ(answers[0].verdict.remark, "push reply message to 127.0.0.1@rr-requesterfail.");
  EXPECT_NE(answers[0].push_status.message().find("process reply message fail"), std::string::npos);
  requester_->set_push_answer(DeadlineExceeded("no answer within 10000 ms"));
  EXPECT_EQ(Reply()[1].verdict.remark, "push reply message to 127.0.0.1@rr-requesterfail.");
  EXPECT_EQ(answers[1].push_status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(StoredReplies().size(), 2u);
}

TEST_F(ReplyServiceTest, RefusedSendIsNeitherPushedNorStored) {
  RegisterRequester(requester_);
  EXPECT_EQ(Reply(kReplyProps, 0, "bad topic!")[0].verdict.outcome, Outcome::kInvalidArgument);
  EXPECT_EQ(Reply(kReplyProps, 0, "TBW102")[1].verdict.outcome, Outcome::kNoPermission);
  EXPECT_EQ(Reply(kReplyProps, 5)[2].verdict.outcome, Outcome::kInvalidArgument);  // 1 queue
  Build(true, /*auto_create_topic=*/false);
  const auto& r = Reply(kReplyProps, 0, "OtherCluster_REPLY_TOPIC")[3];
  EXPECT_EQ(r.verdict.outcome, Outcome::kTopicNotExist);
  for (const auto& a : answers_) EXPECT_FALSE(a.checked);
  EXPECT_TRUE(requester_->pushes().empty());
  EXPECT_TRUE(StoredReplies().empty());
}

TEST_F(ReplyServiceTest, PushCarriesWhatTheJavaBrokerPushedAndTheAnswerWaitsForTheRequester) {
  RegisterRequester(std::make_shared<FakeChannel>(7), "127.0.0.1@someone-else");
  RegisterRequester(requester_);
  requester_->set_push_answer(std::nullopt);  // answers when told
  EXPECT_TRUE(Reply().empty()) << "no answer before the requester's";
  const auto pushes = requester_->pushes();
  ASSERT_EQ(pushes.size(), 1u);
  const ReplyPush& p = pushes[0];
  EXPECT_EQ(p.producer_group, "PGV_rr_replier");
  EXPECT_EQ(p.topic, "JavaCluster_REPLY_TOPIC");
  EXPECT_EQ(p.default_topic, "TBW102");
  EXPECT_EQ(p.default_topic_queue_nums, 4);
  EXPECT_EQ(p.queue_id, 0);
  EXPECT_EQ(p.born_timestamp, 1796158456503);
  EXPECT_EQ(p.reconsume_times, 0);
  EXPECT_EQ(p.born_host, "127.0.0.1:45914");
  EXPECT_EQ(p.store_host, "127.0.0.1:20911");
  EXPECT_EQ(p.store_timestamp, 1796158456510);
  EXPECT_EQ(p.body, "pong:ping");
  EXPECT_EQ(p.properties,
            "PUSH_REPLY_TIME\x01"
            "1796158456510\x02" +
                kReplyProps);

  EXPECT_EQ(requester_->AnswerHeld(Status::OK()), 1u);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_TRUE(answers_[0].verdict.ok());
  EXPECT_TRUE(answers_[0].verdict.remark.empty());
  EXPECT_TRUE(answers_[0].pushed());
  const auto stored = StoredReplies();
  ASSERT_EQ(stored.size(), 1u);
  ExpectStoredAt(answers_[0], stored[0], 0);
  // Stored as the replier sent it: no PUSH_REPLY_TIME.
  EXPECT_FALSE(format::FindProperty(stored[0].properties, "PUSH_REPLY_TIME").has_value());
  EXPECT_EQ(format::FindProperty(stored[0].properties, "CORRELATION_ID"),
            "0d9da193-2932-454c-b6b6-16ad7ab59980");
}

TEST_F(ReplyServiceTest, NegativeQueueIdIsPushedAsSentAndStoredInAPickedQueue) {
  RegisterRequester(requester_);
  const auto& answers = Reply(kReplyProps, -1);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].pushed());
  EXPECT_EQ(answers[0].queue_id, 0);
  EXPECT_EQ(requester_->pushes().at(0).queue_id, -1);
  EXPECT_EQ(StoredReplies().size(), 1u);
}

TEST_F(ReplyServiceTest, WithStoreReplyOffOnlyThePushHappens) {
  Build(/*store_reply=*/false, true);
  RegisterRequester(requester_);
  const auto& answers = Reply();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].pushed());
  EXPECT_FALSE(answers[0].stored.has_value());
  EXPECT_EQ(requester_->pushes().size(), 1u);
  EXPECT_TRUE(StoredReplies().empty());
  // Requester gone and nothing stored: the error alone.
  producers_.OnChannelClosed(requester_->id());
  EXPECT_FALSE(Reply()[1].stored.has_value());
  EXPECT_TRUE(StoredReplies().empty());
}

TEST_F(ReplyServiceTest, StoreRefusalAfterASuccessfulPushKeepsSuccess) {
  RegisterRequester(requester_);
  const std::string big(5000, 'x');  // over the check hook's 4096-byte body limit
  SendRequest r;
  r.producer_group = "PGV_rr_replier";
  r.topic = "JavaCluster_REPLY_TOPIC";
  const SendEntry entry{0, big, kReplyProps};
  r.messages = std::span<const SendEntry>(&entry, 1);
  reply_->Reply(ctx_, r, [this](ReplyResult result) { answers_.push_back(std::move(result)); });
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_TRUE(answers_[0].pushed()) << "as Java: the requester has its reply";
  ASSERT_TRUE(answers_[0].stored.has_value());
  EXPECT_FALSE(answers_[0].stored->stored());
  EXPECT_TRUE(StoredReplies().empty());
}

TEST_F(ReplyServiceTest, FindChannelPrefersTheLatestLiveChannelOfTheClientId) {
  auto old_channel = std::make_shared<FakeChannel>(3);
  RegisterRequester(old_channel);
  clock_.AdvanceMillis(1000);
  ClientChannelInfo info;
  info.channel = requester_;
  info.client_id = std::string(kRequester);
  producers_.Register("OtherGroup", info);
  EXPECT_EQ(producers_.FindChannel(kRequester), requester_);
  requester_->Close();
  EXPECT_EQ(producers_.FindChannel(kRequester), old_channel);
  EXPECT_EQ(producers_.FindChannel("127.0.0.1@nobody"), nullptr);
}

}  // namespace
}  // namespace rocketstore::broker
