// The client library against an in-process name server and broker over loopback:
// producer (sync / async / oneway / batch, properties, queue round-robin, errors) and the
// pull consumer (group rebalance, long polling, commit, seek, send back, tag filter).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "client/admin_client.h"
#include "client/producer.h"
#include "client/pull_consumer.h"
#include "client_fixture.h"

namespace rocketstore::client {
namespace {

using testing::ClusterFixture;

class ProducerConsumerTest : public ClusterFixture {
 protected:
  ProducerOptions PO() {
    ProducerOptions o;
    o.group = "pg";
    o.namesrv_addrs = {namesrv_addr()};
    return o;
  }
  PullConsumerOptions CO(const std::string& group) {
    return testing::ManualPullOptions(group, namesrv_addr());
  }
  // The assigned queues of `topic` (the assignment also holds %RETRY%<group>).
  static std::vector<MessageQueue> Of(const PullConsumer& c, const std::string& topic) {
    std::vector<MessageQueue> out;
    for (const auto& q : c.Assignment()) {
      if (q.topic == topic) out.push_back(q);
    }
    return out;
  }
  // Polls until n messages arrived or 10 s passed.
  std::vector<MessageExt> PollN(PullConsumer& c, size_t n) {
    std::vector<MessageExt> all;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (all.size() < n && std::chrono::steady_clock::now() < end) {
      auto r = c.Poll(500);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      for (auto& m : *r) all.push_back(std::move(m));
    }
    return all;
  }
};

TEST_F(ProducerConsumerTest, SendBeforeStartAndBadMessagesAreRefused) {
  Producer p(PO());
  Message m{.topic = "T", .body = "x"};
  auto r = p.Send(m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  ASSERT_OK(p.Start());
  Message empty{.topic = "T", .body = ""};
  EXPECT_EQ(p.Send(empty).status().code(), StatusCode::kInvalidArgument);
  Message both{.topic = "T", .body = "x", .deliver_time_ms = 5, .delay_sec = 5};
  EXPECT_EQ(p.Send(both).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ProducerConsumerTest, NoNameServerIsAnError) {
  ProducerOptions o = PO();
  o.namesrv_addrs = {"127.0.0.1:1"};
  Producer p(o);
  ASSERT_OK(p.Start());
  auto r = p.Send(Message{.topic = "T", .body = "x"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
  EXPECT_NE(r.status().message().find("127.0.0.1:1"), std::string::npos);
}

// A broker's refusal is reported as one: kFailedPrecondition naming the code and the
// broker's remark (not kUnavailable, "check the network"). NO_PERMISSION is one of Java's
// retryResponseCodes: the sync send tries again, then reports the last refusal; an async
// send hands the answer to its callback at once, as Java's sendMessageAsync does.
TEST_F(ProducerConsumerTest, RefusalsNameTheCodeAndRemark) {
  CreateTopic("TopicRO", 2);
  ProducerOptions o = PO();
  o.route_refresh_ms = 3600 * 1000;  // the cached route still says writable
  o.start_runner = false;
  Producer p(o);
  ASSERT_OK(p.Start());
  ASSERT_OK(p.Send(Message{.topic = "TopicRO", .body = "ok"}).status());
  BrokerCall call{&transport_, broker_addr(), 3000};
  ASSERT_OK(call.CreateTopic("TopicRO", 2, 2, 4, false));  // read only now

  auto r = p.Send(Message{.topic = "TopicRO", .body = "refused"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition) << r.status().ToString();
  EXPECT_NE(r.status().message().find("NO_PERMISSION (16)"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("sending is forbidden"), std::string::npos)
      << r.status().ToString();

  ASSERT_OK(call.CreateTopic("TopicRO", 2, 2, 6, false));
  // Freshly looked up, a read-only route offers no queue: said before any send.
  CreateTopic("TopicRO2", 1);
  ASSERT_OK(call.CreateTopic("TopicRO2", 1, 1, 4, false));
  RouteCache routes(transport_, RouteCacheOptions{{namesrv_addr()}, 0, 3000});
  for (int i = 0; i < 200; ++i) {
    auto rt = routes.Refresh("TopicRO2");
    if (rt.ok() && (*rt)->WritableQueues("TopicRO2").empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Producer fresh(PO());
  ASSERT_OK(fresh.Start());
  r = fresh.Send(Message{.topic = "TopicRO2", .body = "x"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition) << r.status().ToString();
  EXPECT_NE(r.status().message().find("broker-a has it with perm 4 (read only)"), std::string::npos)
      << r.status().ToString();
}

TEST_F(ProducerConsumerTest, AsyncRefusalGoesToTheCallbackAtOnce) {
  CreateTopic("TopicROA", 1);
  ProducerOptions o = PO();
  o.route_refresh_ms = 3600 * 1000;
  o.start_runner = false;
  Producer p(o);
  ASSERT_OK(p.Start());
  ASSERT_OK(p.Send(Message{.topic = "TopicROA", .body = "ok"}).status());
  BrokerCall call{&transport_, broker_addr(), 3000};
  ASSERT_OK(call.CreateTopic("TopicROA", 1, 1, 4, false));
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Status> got;
  ASSERT_OK(p.SendAsync(Message{.topic = "TopicROA", .body = "x"}, [&](Result<SendResult> r) {
    std::lock_guard<std::mutex> l(mu);
    got = r.status();
    cv.notify_all();
  }));
  std::unique_lock<std::mutex> l(mu);
  ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(10), [&] { return got.has_value(); }));
  EXPECT_EQ(got->code(), StatusCode::kFailedPrecondition) << got->ToString();
  EXPECT_NE(got->message().find("NO_PERMISSION (16)"), std::string::npos) << got->ToString();
}

// Waits until the name server routes `topic` with `writable` writable queues.
void WaitForWritable(Transport& t, const std::string& namesrv, const std::string& topic,
                     size_t writable) {
  RouteCache routes(t, RouteCacheOptions{{namesrv}, 0, 3000});
  for (int i = 0; i < 300; ++i) {
    auto r = routes.Refresh(topic);
    if (r.ok() && (*r)->WritableQueues(topic).size() == writable) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL() << topic << " never had " << writable << " writable queues on the name server";
}

// A failed send makes the producer ask the name server again (not only every
// route_refresh_ms): after the topic was made read-only (refused, route refetched) and
// then writable with 4 queues, the next sends use all 4, though the route it first
// cached (1 queue) would not expire for an hour.
TEST_F(ProducerConsumerTest, AFailedSendRefreshesTheRoute) {
  CreateTopic("TopicRF", 1);
  ProducerOptions o = PO();
  o.route_refresh_ms = 3600 * 1000;
  o.start_runner = false;
  Producer p(o);
  ASSERT_OK(p.Start());
  ASSERT_OK(p.Send(Message{.topic = "TopicRF", .body = "first"}).status());
  BrokerCall call{&transport_, broker_addr(), 3000};
  ASSERT_OK(call.CreateTopic("TopicRF", 1, 1, 4, false));
  WaitForWritable(transport_, namesrv_addr(), "TopicRF", 0);
  auto refused = p.Send(Message{.topic = "TopicRF", .body = "refused"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition)
      << refused.status().ToString();

  ASSERT_OK(call.CreateTopic("TopicRF", 4, 4, 6, false));
  WaitForWritable(transport_, namesrv_addr(), "TopicRF", 4);
  std::set<int32_t> used;
  for (int i = 0; i < 8; ++i) {
    ASSERT_OK_AND_ASSIGN(SendResult r, p.Send(Message{.topic = "TopicRF", .body = "again"}));
    used.insert(r.queue.queue_id);
  }
  EXPECT_EQ(used.size(), 4u);
}

// With the name server gone, a route the cache holds is still used (as Java keeps its
// route table), even when marked stale by a failure.
TEST_F(ProducerConsumerTest, TheCachedRouteOutlivesTheNameServer) {
  CreateTopic("TopicNS", 2);
  RouteCache routes(transport_, RouteCacheOptions{{namesrv_addr()}, 3600 * 1000, 1000});
  ASSERT_OK_AND_ASSIGN(auto first, routes.Get("TopicNS"));
  ns_->Stop();
  ns_.reset();
  routes.MarkStale("TopicNS");
  ASSERT_OK_AND_ASSIGN(auto after, routes.Get("TopicNS"));
  EXPECT_EQ(after, first);
  EXPECT_EQ(routes.Refresh("TopicNS").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(routes.Get("NeverSeen").status().code(), StatusCode::kUnavailable);
}

TEST_F(ProducerConsumerTest, SyncSendRoundRobinAndConsumeWithProperties) {
  CreateTopic("TopicA", 4);
  Producer p(PO());
  ASSERT_OK(p.Start());
  std::map<std::string, SendResult> sent;  // by msg id
  std::map<int32_t, int> per_queue;
  for (int i = 0; i < 8; ++i) {
    Message m{.topic = "TopicA",
              .body = "body-" + std::to_string(i),
              .tags = "TagA",
              .keys = {"k" + std::to_string(i), "common"}};
    m.properties["color"] = i % 2 ? "red" : "blue";
    ASSERT_OK_AND_ASSIGN(SendResult r, p.Send(m));
    EXPECT_EQ(r.status, SendStatus::kOk);
    EXPECT_EQ(r.msg_id.size(), 32u);
    EXPECT_EQ(r.offset_msg_id.size(), 32u);
    EXPECT_EQ(r.queue.broker_name, "broker-a");
    EXPECT_EQ(r.attempts, 1);
    per_queue[r.queue.queue_id]++;
    sent[r.msg_id] = r;
  }
  ASSERT_EQ(per_queue.size(), 4u);  // round-robin
  for (auto& [q, n] : per_queue) EXPECT_EQ(n, 2) << "queue " << q;

  PullConsumer c(CO("cg1"));
  ASSERT_OK(c.Subscribe("TopicA"));
  ASSERT_OK(c.Start());
  EXPECT_EQ(Of(c, "TopicA").size(), 4u);
  auto got = PollN(c, 8);
  ASSERT_EQ(got.size(), 8u);
  for (const auto& m : got) {
    ASSERT_TRUE(sent.count(m.msg_id)) << m.msg_id;
    const SendResult& r = sent[m.msg_id];
    EXPECT_EQ(m.queue_id, r.queue.queue_id);
    EXPECT_EQ(m.queue_offset, r.queue_offset);
    EXPECT_EQ(m.offset_msg_id, r.offset_msg_id);
    EXPECT_EQ(m.Tags(), "TagA");
    EXPECT_EQ(m.Keys().substr(0, 1), "k");
    EXPECT_NE(m.Keys().find(" common"), std::string::npos);
    EXPECT_TRUE(m.Property("color").has_value());
    EXPECT_EQ(m.body.substr(0, 5), "body-");
  }
  // Nothing more: a long poll that ends empty.
  ASSERT_OK_AND_ASSIGN(auto more, c.Poll(300));
  EXPECT_TRUE(more.empty());
  ASSERT_OK(c.Commit());
  BrokerCall call{&transport_, broker_addr(), 3000};
  for (const auto& q : Of(c, "TopicA")) {
    ASSERT_OK_AND_ASSIGN(int64_t off, call.ConsumerOffset("cg1", q));
    EXPECT_EQ(off, 2) << q.queue_id;
  }
  c.Shutdown();

  // A new consumer of the group resumes at the committed offsets: it sees only new ones.
  ASSERT_OK(p.Send(Message{.topic = "TopicA", .body = "after"}).status());
  PullConsumer c2(CO("cg1"));
  ASSERT_OK(c2.Subscribe("TopicA"));
  ASSERT_OK(c2.Start());
  auto after = PollN(c2, 1);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].body, "after");
}

TEST_F(ProducerConsumerTest, LongPollReturnsAMessageSentWhileWaiting) {
  CreateTopic("TopicLP", 1);
  PullConsumerOptions o = CO("cg-lp");
  o.long_poll_ms = 5000;
  PullConsumer c(o);
  ASSERT_OK(c.Subscribe("TopicLP"));
  ASSERT_OK(c.Start());
  ASSERT_OK_AND_ASSIGN(auto none, c.Poll(200));  // the long poll is now suspended
  EXPECT_TRUE(none.empty());
  Producer p(PO());
  ASSERT_OK(p.Start());
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_TRUE(p.Send(Message{.topic = "TopicLP", .body = "late"}).ok());
  });
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto got, c.Poll(4000));
  const auto waited = std::chrono::steady_clock::now() - t0;
  sender.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "late");
  // Woken by the arrival, not by the end of the 5 s suspend.
  EXPECT_LT(waited, std::chrono::milliseconds(3900));
}

TEST_F(ProducerConsumerTest, AsyncOnewayAndBatch) {
  CreateTopic("TopicB", 2);
  Producer p(PO());
  ASSERT_OK(p.Start());
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::vector<Result<SendResult>> results;
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(p.SendAsync(Message{.topic = "TopicB", .body = "a" + std::to_string(i)},
                          [&](Result<SendResult> r) {
                            std::lock_guard<std::mutex> l(mu);
                            results.push_back(std::move(r));
                            ++done;
                            cv.notify_all();
                          }));
  }
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(5), [&] { return done == 5; }));
  }
  for (auto& r : results) EXPECT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_OK(p.SendOneway(Message{.topic = "TopicB", .body = "oneway"}));
  std::vector<Message> batch;
  for (int i = 0; i < 3; ++i) {
    batch.push_back(Message{
        .topic = "TopicB", .body = "b" + std::to_string(i), .keys = {"bk" + std::to_string(i)}});
  }
  ASSERT_OK_AND_ASSIGN(SendResult br, p.SendBatch(batch));
  EXPECT_EQ(std::count(br.msg_id.begin(), br.msg_id.end(), ','), 2);
  std::vector<Message> mixed = {Message{.topic = "TopicB", .body = "x"},
                                Message{.topic = "Other", .body = "y"}};
  EXPECT_EQ(p.SendBatch(mixed).status().code(), StatusCode::kInvalidArgument);

  PullConsumer c(CO("cg-b"));
  ASSERT_OK(c.Subscribe("TopicB"));
  ASSERT_OK(c.Start());
  auto got = PollN(c, 9);
  ASSERT_EQ(got.size(), 9u);
  std::set<std::string> bodies;
  for (const auto& m : got) bodies.insert(m.body);
  EXPECT_TRUE(bodies.count("oneway"));
  EXPECT_TRUE(bodies.count("b2"));
  EXPECT_TRUE(bodies.count("a4"));
}

TEST_F(ProducerConsumerTest, TwoMembersSplitTheQueuesLikeJava) {
  CreateTopic("TopicR", 4);
  PullConsumerOptions o1 = CO("cg-r");
  o1.instance_name = "a";
  PullConsumerOptions o2 = CO("cg-r");
  o2.instance_name = "b";
  PullConsumer c1(o1), c2(o2);
  ASSERT_OK(c1.Subscribe("TopicR"));
  ASSERT_OK(c2.Subscribe("TopicR"));
  ASSERT_OK(c1.Start());
  ASSERT_OK(c2.Start());
  ASSERT_OK(c1.Rebalance());  // now sees both members
  auto a1 = Of(c1, "TopicR");
  auto a2 = Of(c2, "TopicR");
  ASSERT_EQ(a1.size(), 2u);
  ASSERT_EQ(a2.size(), 2u);
  // Sorted ids "127.0.0.1@a" < "127.0.0.1@b": a gets queues 0,1 and b gets 2,3.
  EXPECT_EQ(a1[0].queue_id, 0);
  EXPECT_EQ(a1[1].queue_id, 1);
  EXPECT_EQ(a2[0].queue_id, 2);
  EXPECT_EQ(a2[1].queue_id, 3);
  c2.Shutdown();  // unregisters: c1 takes everything at its next rebalance
  ASSERT_OK(c1.Rebalance());
  EXPECT_EQ(Of(c1, "TopicR").size(), 4u);
}

TEST_F(ProducerConsumerTest, SeekAndTagFilter) {
  CreateTopic("TopicS", 1);
  Producer p(PO());
  ASSERT_OK(p.Start());
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK(
        p.Send(
             Message{.topic = "TopicS", .body = std::to_string(i), .tags = i % 2 ? "odd" : "even"})
            .status());
  }
  PullConsumer c(CO("cg-s"));
  ASSERT_OK(c.Subscribe("TopicS", "odd"));
  ASSERT_OK(c.Start());
  auto got = PollN(c, 3);
  ASSERT_EQ(got.size(), 3u);
  for (const auto& m : got) EXPECT_EQ(m.Tags(), "odd");
  const MessageQueue q = Of(c, "TopicS").at(0);
  ASSERT_OK(c.Seek(q, 4));
  auto again = PollN(c, 1);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].body, "5");
  ASSERT_OK(c.SeekToBegin(q));
  EXPECT_EQ(c.Position(q).value_or(-1), 0);
  ASSERT_OK(c.SeekToEnd(q));
  EXPECT_EQ(c.Position(q).value_or(-1), 6);
  ASSERT_OK(c.SeekToTime(q, 0));
  EXPECT_EQ(c.Position(q).value_or(-1), 0);
  EXPECT_EQ(c.Seek(MessageQueue{"TopicS", "broker-a", 7}, 0).code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(ProducerConsumerTest, SendBackRedeliversThroughTheRetryTopic) {
  CreateTopic("TopicRetry", 1);
  Producer p(PO());
  ASSERT_OK(p.Start());
  ASSERT_OK_AND_ASSIGN(SendResult sr, p.Send(Message{.topic = "TopicRetry", .body = "again"}));
  PullConsumer c(CO("cg-retry"));
  ASSERT_OK(c.Subscribe("TopicRetry"));
  ASSERT_OK(c.Start());
  auto got = PollN(c, 1);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_OK(c.SendBack(got[0], 1));  // level 1 = 1 s
  // Rebalancing picks up %RETRY%cg-retry once its route is registered: the round the
  // consumer's first heartbeat asked for may still be under way (a Java consumer, too,
  // finds it at a later rebalance).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (true) {
    ASSERT_OK(c.Rebalance());
    if (!Of(c, "%RETRY%cg-retry").empty() || std::chrono::steady_clock::now() > until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(Of(c, "%RETRY%cg-retry").size(), 1u);
  auto retried = PollN(c, 1);
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].topic, "TopicRetry");
  EXPECT_EQ(retried[0].body, "again");
  EXPECT_EQ(retried[0].reconsume_times, 1);
  EXPECT_EQ(retried[0].msg_id, sr.msg_id);
}

// A raw reader (Assign) commits nothing — not at Shutdown, not by auto_commit — so the
// broker records no offsets for its group (GET_ALL_CONSUMER_OFFSET 43 lists none), and no
// tool counts lag for it. Only an explicit Commit writes.
TEST_F(ProducerConsumerTest, AssignModeCommitsOnlyWhenTheApplicationCommits) {
  CreateTopic("TopicRaw", 2);
  Producer p(PO());
  ASSERT_OK(p.Start());
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(p.Send(Message{.topic = "TopicRaw", .body = std::to_string(i)}).status());
  }
  AdminClient admin(AdminOptions{{namesrv_addr()}, 3000});
  auto offsets_of = [&](const std::string& group) {
    auto all = admin.GetAllConsumerOffsets(broker_addr());
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    return all.ok() ? all->offsets.count("TopicRaw@" + group) : size_t{0};
  };
  const std::vector<MessageQueue> queues = {{"TopicRaw", "broker-a", 0},
                                            {"TopicRaw", "broker-a", 1}};
  {
    PullConsumerOptions o = CO("raw-reader");
    ASSERT_TRUE(o.auto_commit);  // the default: it must not apply to Assign mode
    o.auto_commit_interval_ms = 0;
    PullConsumer c(o);
    ASSERT_OK(c.Assign(queues));
    ASSERT_OK(c.Start());
    for (const auto& q : queues) ASSERT_OK(c.SeekToBegin(q));
    ASSERT_EQ(PollN(c, 4).size(), 4u);
    ASSERT_OK(c.RunOnce(1000000));  // a due auto-commit step: nothing in Assign mode
    c.Shutdown();
  }
  EXPECT_EQ(offsets_of("raw-reader"), 0u);

  PullConsumer c(CO("raw-committer"));
  ASSERT_OK(c.Assign(queues));
  ASSERT_OK(c.Start());
  for (const auto& q : queues) ASSERT_OK(c.SeekToBegin(q));
  ASSERT_EQ(PollN(c, 4).size(), 4u);
  ASSERT_OK(c.Commit());
  EXPECT_EQ(offsets_of("raw-committer"), 1u);
}

// The broker's calls to a live client (mqadmin resetOffsetByTime, consumerStatus,
// consumerRunningInfo, consumeMessageDirectly): the pull consumer answers them as
// 4.9.8's ClientRemotingProcessor does.
TEST_F(ProducerConsumerTest, AnswersTheBrokersCallsToAClient) {
  CreateTopic("TopicR", 1);
  Producer p(PO());
  ASSERT_OK(p.Start());
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(p.Send(Message{.topic = "TopicR", .body = std::to_string(i)}).status());
  }
  PullConsumer c(CO("cg-r"));
  ASSERT_OK(c.Subscribe("TopicR"));
  ASSERT_OK(c.Start());
  ASSERT_EQ(PollN(c, 5).size(), 5u);
  ASSERT_OK(c.Commit());
  const MessageQueue q = Of(c, "TopicR").at(0);
  ASSERT_EQ(c.Position(q).value_or(-1), 5);

  AdminClient admin(AdminOptions{{namesrv_addr()}, 3000});
  // 223 → 221: the consumer reports its position.
  auto status = admin.GetConsumerStatus(broker_addr(), "TopicR", "cg-r");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->by_client.count(c.client_id()), 1u);
  ASSERT_EQ(status->by_client.at(c.client_id()).size(), 1u);
  EXPECT_EQ(status->by_client.at(c.client_id())[0].second, 5);

  // 222 → 220: the reset moves the live consumer back; what it consumed comes again,
  // and its next commit writes the reset offset, not the old position.
  auto reset = admin.ResetOffset(broker_addr(), "TopicR", "cg-r", 0, true);
  ASSERT_TRUE(reset.ok()) << reset.status().ToString();
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (c.Position(q).value_or(-1) != 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(c.Position(q).value_or(-1), 0);
  ASSERT_OK(c.Commit());
  status = admin.GetConsumerStatus(broker_addr(), "TopicR", "cg-r");
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->by_client.at(c.client_id())[0].second, 0);
  auto again = PollN(c, 5);
  ASSERT_EQ(again.size(), 5u);
  EXPECT_EQ(again[0].body, "0");
  EXPECT_EQ(again[4].body, "4");

  // 307: running info with the consume type, the subscription and the queue.
  auto info = admin.GetConsumerRunningInfo(broker_addr(), "cg-r", c.client_id());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_NE(info->find("\"PROP_CONSUME_TYPE\":\"CONSUME_ACTIVELY\""), std::string::npos) << *info;
  EXPECT_NE(info->find("\"subString\":\"*\""), std::string::npos) << *info;
  EXPECT_NE(info->find("\"topic\":\"TopicR\"}:{\"cachedMsgCount\""), std::string::npos) << *info;
  // 309: a pull consumer cannot consume on demand: an error, never a fake result.
  auto direct = admin.ConsumeMessageDirectly(broker_addr(), "cg-r", c.client_id(),
                                             again[0].offset_msg_id, "broker-a");
  EXPECT_FALSE(direct.ok());
  EXPECT_NE(direct.status().message().find("pull consumer"), std::string::npos)
      << direct.status().ToString();
}

}  // namespace
}  // namespace rocketstore::client
