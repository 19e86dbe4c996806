// The Messages screen's searches with results — by offset message id, by time range (epoch
// ms and ISO-8601) — and a DLQ resend that works: a message a live PullConsumer sent back
// to %DLQ%<group> (CONSUMER_SEND_MSG_BACK with delay level -1) is resent by the console to
// its original topic, where it is stored whole and the consumer gets it again.
#include <cctype>
#include <chrono>
#include <set>
#include <thread>

#include "client/pull_consumer.h"
#include "console_fixture.h"

namespace rocketstore::console {
namespace {

using Params = std::map<std::string, std::string>;

TEST_F(ConsoleFixture, FindByMessageIdFindsThatMessage) {
  auto by_key = Json(Call("GET", "/api/messages/by-key", {{"topic", "TopicTest"}, {"key", "k7"}}));
  ASSERT_EQ(by_key["messages"].Size(), 1u);
  const std::string id = by_key["messages"][0]["msgId"].GetString();
  const int64_t offset = by_key["messages"][0]["offset"].GetInt64();
  HttpReply r = Call("GET", "/api/messages/by-id", {{"msgId", id}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  ASSERT_EQ(d["messages"].Size(), 1u);
  EXPECT_EQ(d["messages"][0]["offset"].GetInt64(), offset);
  EXPECT_EQ(d["messages"][0]["keys"].GetString(), std::string("k7"));
  EXPECT_EQ(d["messages"][0]["msgId"].GetString(), id);
  // Lower-case hex names the same message.
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(Json(Call("GET", "/api/messages/by-id", {{"msgId", lower}}))["messages"][0]["offset"]
                .GetInt64(),
            offset);
}

TEST_F(ConsoleFixture, FindByTimeRangeFindsWhatWasStoredThen) {
  // Everything since the epoch (ISO form): the 12 messages, oldest first.
  HttpReply all =
      Call("GET", "/api/messages/by-time", {{"topic", "TopicTest"}, {"begin", "1970-01-01T00:00"}});
  ASSERT_EQ(all.status, 200) << all.body;
  auto d = Json(all);
  ASSERT_EQ(d["messages"].Size(), 12u) << all.body;
  std::set<std::string> keys;
  int64_t prev = 0;
  for (const auto& m : d["messages"].GetArray()) {
    keys.insert(m["keys"].GetString());
    EXPECT_GE(m["storeTimestamp"].GetInt64(), prev);
    prev = m["storeTimestamp"].GetInt64();
  }
  EXPECT_EQ(keys.size(), 12u);
  // A range of exactly one message's store time holds it (and only messages stored then).
  const auto& seventh = d["messages"][6];
  const int64_t t = seventh["storeTimestamp"].GetInt64();
  auto one = Json(
      Call("GET", "/api/messages/by-time",
           {{"topic", "TopicTest"}, {"begin", std::to_string(t)}, {"end", std::to_string(t)}}));
  ASSERT_GE(one["messages"].Size(), 1u);
  bool found = false;
  for (const auto& m : one["messages"].GetArray()) {
    EXPECT_EQ(m["storeTimestamp"].GetInt64(), t);
    found = found || m["offset"].GetInt64() == seventh["offset"].GetInt64();
  }
  EXPECT_TRUE(found);
  // max bounds the answer; a range after everything is empty, not an error.
  auto two = Json(
      Call("GET", "/api/messages/by-time", {{"topic", "TopicTest"}, {"begin", "0"}, {"max", "2"}}));
  EXPECT_EQ(two["messages"].Size(), 2u);
  HttpReply later = Call("GET", "/api/messages/by-time",
                         {{"topic", "TopicTest"}, {"begin", std::to_string(prev + 1)}});
  ASSERT_EQ(later.status, 200) << later.body;
  EXPECT_EQ(Json(later)["messages"].Size(), 0u);
}

// A body that is not UTF-8: as text with U+FFFD for each byte that is not (and how many),
// the hex whole; a UTF-8 body as it is.
TEST_F(ConsoleFixture, BodyThatIsNotUtf8ShowsReplacementCharacters) {
  auto m = testing::MakeTestMessage(99);
  m.body = std::string("caf\xC3\xA9 \xFF\xFE end");
  auto put = broker_->store().PutMessage(m.View());
  ASSERT_TRUE(put.ok()) << put.error;
  HttpReply r = Call("GET", "/api/message", {{"offset", std::to_string(put.first.offset.value())}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto d = Json(r);
  EXPECT_FALSE(d["bodyIsText"].GetBool());
  EXPECT_EQ(d["bodyReplacedBytes"].GetUint64(), 2u);
  EXPECT_EQ(d["bodyText"].GetString(), std::string("caf\xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD end"));
  EXPECT_EQ(d["bodyHex"].GetString(), std::string("636166c3a920fffe20656e64"));
  // A UTF-8 body: as stored.
  auto k1 = Json(Call("GET", "/api/messages/by-key", {{"topic", "TopicTest"}, {"key", "k1"}}));
  auto text = Json(Call("GET", "/api/message",
                        {{"offset", std::to_string(k1["messages"][0]["offset"].GetInt64())}}));
  EXPECT_TRUE(text["bodyIsText"].GetBool());
  EXPECT_EQ(text["bodyReplacedBytes"].GetUint64(), 0u);
  EXPECT_EQ(text["bodyText"].GetString(), testing::MakeTestMessage(1).body);
}

TEST_F(ConsoleFixture, ResendDlqPutsTheMessageBackInItsTopic) {
  ASSERT_TRUE(broker_->RegisterAll().ok());
  client::PullConsumer c(ManualConsumerOptions("DlqGroup"));
  ASSERT_TRUE(c.Subscribe("TopicTest").ok());
  ASSERT_TRUE(c.Start().ok());
  std::vector<client::MessageExt> got;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.size() < 12 && std::chrono::steady_clock::now() < end) {
    auto r = c.Poll(500);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (auto& m : *r) got.push_back(std::move(m));
  }
  ASSERT_EQ(got.size(), 12u);
  const client::MessageExt& dead = got[3];
  ASSERT_TRUE(c.SendBack(dead, -1).ok());  // delay level -1: straight to %DLQ%DlqGroup
  HttpReply in_dlq;
  for (int i = 0; i < 200; ++i) {
    in_dlq = Call("GET", "/api/messages/by-time", {{"topic", "%DLQ%DlqGroup"}, {"begin", "0"}});
    if (in_dlq.status == 200 && Json(in_dlq)["messages"].Size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto dlq = Json(in_dlq);
  ASSERT_EQ(dlq["messages"].Size(), 1u) << in_dlq.body;
  const int64_t dlq_offset = dlq["messages"][0]["offset"].GetInt64();
  auto detail = Json(Call("GET", "/api/message", {{"offset", std::to_string(dlq_offset)}}));
  EXPECT_TRUE(detail["dlq"].GetBool());
  EXPECT_EQ(detail["properties"]["RETRY_TOPIC"].GetString(), std::string("TopicTest"));

  const int64_t max_before = broker_->store().MaxPhysicalOffset().value();
  HttpReply resent =
      Call("POST", "/api/messages/resend-dlq", {{"offset", std::to_string(dlq_offset)}});
  ASSERT_EQ(resent.status, 200) << resent.body;
  auto rd = Json(resent);
  EXPECT_EQ(rd["topic"].GetString(), std::string("TopicTest"));
  const int64_t new_offset = rd["offset"].GetInt64();
  EXPECT_GE(new_offset, max_before);
  // Stored whole in the original topic: same body and keys, reconsume count reset.
  HttpReply copy = Call("GET", "/api/message", {{"offset", std::to_string(new_offset)}});
  ASSERT_EQ(copy.status, 200) << copy.body;
  auto cd = Json(copy);
  EXPECT_EQ(cd["message"]["topic"].GetString(), std::string("TopicTest"));
  EXPECT_EQ(cd["message"]["queueId"].GetInt(), rd["queueId"].GetInt());
  EXPECT_EQ(cd["bodyText"].GetString(), dead.body);
  EXPECT_EQ(cd["message"]["keys"].GetString(), dead.Keys());
  EXPECT_EQ(cd["reconsumeTimes"].GetInt(), 0);
  EXPECT_FALSE(cd["dlq"].GetBool());
  // The consumer, still subscribed, gets it again from TopicTest.
  std::vector<client::MessageExt> again;
  const auto end2 = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (again.empty() && std::chrono::steady_clock::now() < end2) {
    auto r = c.Poll(500);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (auto& m : *r) again.push_back(std::move(m));
  }
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].topic, "TopicTest");
  EXPECT_EQ(again[0].body, dead.body);
  c.Shutdown();
}

}  // namespace
}  // namespace rocketstore::console
