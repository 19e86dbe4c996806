// Broker admin codes, part B, through a real in-process broker: connections (203, 204,
// 328), consume stats and lag (208, 317), who consumes (300), time spans (303),
// statistics (315). Requests are built as rocketmq-tools' DefaultMQAdminExt builds them
// (the captured frames of java-4.9.8/admin-broker.json where there is one), and answers
// are read the way the Java classes read them and compared with the Java broker's.
#include "admin_part_b_fixture.h"

namespace rocketstore::broker::testing {
namespace {

using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;

TEST_F(AdminPartBTest, ConsumerConnectionListUnknownGroupIsConsumerNotOnline) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetConsumerConnectionList);
  req.SetField("consumerGroup", "nobody");
  RemotingCommand r = Call(admin_, std::move(req));
  EXPECT_EQ(r.code, 206);
  EXPECT_EQ(r.remark, "the consumer group[nobody] not online");
  // No header field: the decoder's SYSTEM_ERROR.
  r = Call(admin_, protocol::MakeRequest(RequestCode::kGetConsumerConnectionList));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.remark.value_or("").find("consumerGroup"), std::string::npos);
}

TEST_F(AdminPartBTest, ConsumerConnectionListAsJava) {
  const auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  ConsumerHeartbeat(consumer_, "127.0.0.1@adm-consumer", "CGV_adm",
                    {{"JV_adm", 1796159162906}, {"%RETRY%CGV_adm", 1796159162932}});
  RemotingCommand ours =
      Call(admin_, FindFrame(frames, "GET_CONSUMER_CONNECTION_LIST", false).command);
  const auto& java = FindFrame(frames, "GET_CONSUMER_CONNECTION_LIST", true);
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  const std::string body(ours.body.owned_text());
  EXPECT_EQ(Canonical(body, {"clientAddr"}), Canonical(java.body_text, {"clientAddr"}));
  EXPECT_NE(body.find("\"clientAddr\":\"127.0.0.1:"), std::string::npos) << body;
}

TEST_F(AdminPartBTest, ProducerConnectionListAndAllProducerInfoAsJava) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetProducerConnectionList);
  req.SetField("producerGroup", "PGV_adm");
  RemotingCommand r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "the producer group[PGV_adm] not exist");

  protocol::HeartbeatData hb;
  hb.client_id = "127.0.0.1@adm-producer";
  hb.producer_data_set = {{"PGV_adm"}, {"CLIENT_INNER_PRODUCER"}};
  RemotingCommand beat = protocol::MakeRequest(RequestCode::kHeartBeat);
  beat.version = 409;
  beat.language = protocol::LanguageCode::kJava;
  beat.body.Assign(hb.Encode());
  ASSERT_EQ(Call(producer_, std::move(beat)).code, 0);

  const auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  RemotingCommand ours =
      Call(admin_, FindFrame(frames, "GET_PRODUCER_CONNECTION_LIST", false).command);
  const auto& java = FindFrame(frames, "GET_PRODUCER_CONNECTION_LIST", true);
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  EXPECT_EQ(Canonical(ours.body.owned_text(), {"clientAddr"}),
            Canonical(java.body_text, {"clientAddr"}));

  // 328: every producer group with its members (ProducerTableInfo.data).
  RemotingCommand all = Call(admin_, protocol::MakeRequest(RequestCode::kGetAllProducerInfo));
  EXPECT_EQ(all.code, 0);
  EXPECT_EQ(Canonical(all.body.owned_text(), {"remoteIP", "lastUpdateTimestamp"}),
            "{\"data\":{\"CLIENT_INNER_PRODUCER\":[{\"clientId\":\"127.0.0.1@adm-producer\","
            "\"language\":\"JAVA\",\"lastUpdateTimestamp\":\"*\",\"remoteIP\":\"*\","
            "\"version\":409}],\"PGV_adm\":[{\"clientId\":\"127.0.0.1@adm-producer\","
            "\"language\":\"JAVA\",\"lastUpdateTimestamp\":\"*\",\"remoteIP\":\"*\","
            "\"version\":409}]}}");
  EXPECT_NE(all.body.owned_text().find(std::to_string(kStart)), std::string::npos);
}

TEST_F(AdminPartBTest, ConsumeStatsAsJava) {
  const auto frames = LoadFrames("java-4.9.8/admin-broker.json");
  CreateTopic("JV_adm", 4);
  CreateTopic("%RETRY%CGV_adm", 1);
  ConsumerHeartbeat(consumer_, "127.0.0.1@adm-consumer", "CGV_adm",
                    {{"JV_adm", 1796159162906}, {"%RETRY%CGV_adm", 1796159162932}});
  Send("JV_adm", 1, "m0");
  clock_.AdvanceMillis(5);
  const int64_t second_time = clock_.NowMillis();
  Send("JV_adm", 1, "m1");
  EXPECT_EQ(Pull("CGV_adm", "JV_adm", 1, 0, 32), 2);
  for (int q = 0; q < 4; ++q) Commit("CGV_adm", "JV_adm", q, q == 1 ? 2 : 0);
  Commit("CGV_adm", "%RETRY%CGV_adm", 0, 0);

  RemotingCommand ours = Call(admin_, FindFrame(frames, "GET_CONSUME_STATS", false).command);
  const auto& java = FindFrame(frames, "GET_CONSUME_STATS", true);
  EXPECT_EQ(ours.code, java.command.code);
  EXPECT_EQ(ours.remark, java.command.remark);
  auto mine = protocol::ConsumeStatsBody::Decode(ours.body.owned_text());
  auto theirs = protocol::ConsumeStatsBody::Decode(java.body_text);
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  ASSERT_EQ(mine->offset_table.size(), theirs->offset_table.size());
  for (const auto& [q, java_offsets] : theirs->offset_table) {
    ASSERT_TRUE(mine->offset_table.contains(q)) << q.topic << " " << q.queue_id;
    const auto& o = mine->offset_table.at(q);
    EXPECT_EQ(o.broker_offset, java_offsets.broker_offset) << q.topic << q.queue_id;
    EXPECT_EQ(o.consumer_offset, java_offsets.consumer_offset) << q.topic << q.queue_id;
    // The store time of the last consumed message: ours, where Java has one.
    EXPECT_EQ(o.last_timestamp, java_offsets.last_timestamp > 0 ? second_time : 0);
  }
  EXPECT_GE(mine->consume_tps, 0);
  // Bare MessageQueue keys, as fastjson writes them.
  EXPECT_NE(ours.body.owned_text().find(
                "{{\"brokerName\":\"jbroker-a\",\"queueId\":0,\"topic\":\"%RETRY%CGV_adm\"}:"),
            std::string::npos);
}

TEST_F(AdminPartBTest, LagIsProducedMinusConsumedPerQueue) {
  CreateTopic("T_lag", 4);
  ConsumerHeartbeat(consumer_, "127.0.0.1@lag", "G_lag", {{"T_lag", 1}});
  const int produced[4] = {5, 3, 0, 7};
  const int consumed[4] = {2, 3, 0, 1};
  for (int q = 0; q < 4; ++q) {
    for (int i = 0; i < produced[q]; ++i) Send("T_lag", q, "x");
  }
  for (int q = 0; q < 4; ++q) {
    if (consumed[q] > 0) {
      EXPECT_EQ(Pull("G_lag", "T_lag", q, 0, consumed[q]), consumed[q]);
    }
    Commit("G_lag", "T_lag", q, consumed[q]);
  }
  protocol::GetConsumeStatsRequestHeader h{"G_lag", "T_lag"};
  RemotingCommand req = protocol::MakeRequest(RequestCode::kGetConsumeStats);
  h.EncodeTo(req);
  RemotingCommand r = Call(admin_, std::move(req));
  ASSERT_EQ(r.code, 0);
  auto stats = protocol::ConsumeStatsBody::Decode(r.body.owned_text());
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->offset_table.size(), 4u);
  int64_t total = 0;
  for (int q = 0; q < 4; ++q) {
    const auto& o = stats->offset_table.at({"T_lag", "jbroker-a", q});
    EXPECT_EQ(o.broker_offset - o.consumer_offset, produced[q] - consumed[q]) << q;
    EXPECT_EQ(o.last_timestamp, consumed[q] > 0 ? kStart : 0) << q;
    total += o.broker_offset - o.consumer_offset;
  }
  // 317: the same lag in the broker-wide list.
  RemotingCommand all = protocol::MakeRequest(RequestCode::kGetBrokerConsumeStats);
  all.SetBoolField("isOrder", false);
  RemotingCommand a = Call(admin_, std::move(all));
  ASSERT_EQ(a.code, 0);
  const std::string text(a.body.owned_text());
  EXPECT_NE(text.find("\"totalDiff\":" + std::to_string(total) + "}"), std::string::npos) << text;
  EXPECT_NE(text.find("{\"G_lag\":[{\"consumeTps\":"), std::string::npos) << text;
  EXPECT_NE(text.find("\"brokerAddr\":\"" + broker_->address() + "\""), std::string::npos);
  EXPECT_EQ(Canonical(text).substr(0, 1), "{");  // parses (bare keys included)
  // consumeTps: GROUP_GET_NUMS' minute tps, once the sampler (every second, at the fake
  // clock's time) has two samples 10 s apart.
  double tps = 0;
  for (int i = 0; i < 5 && tps <= 0; ++i) {
    clock_.AdvanceMillis(10001);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    RemotingCommand again = protocol::MakeRequest(RequestCode::kGetConsumeStats);
    h.EncodeTo(again);
    auto s2 = protocol::ConsumeStatsBody::Decode(Call(admin_, std::move(again)).body.owned_text());
    ASSERT_TRUE(s2.ok());
    tps = s2->consume_tps;
  }
  EXPECT_GT(tps, 0);
  // isOrder=true: T_lag is not an order topic.
  RemotingCommand ordered = protocol::MakeRequest(RequestCode::kGetBrokerConsumeStats);
  ordered.SetBoolField("isOrder", true);
  a = Call(admin_, std::move(ordered));
  EXPECT_NE(std::string(a.body.owned_text()).find("\"totalDiff\":0}"), std::string::npos);
  // 317 without isOrder: the decoder's error.
  a = Call(admin_, protocol::MakeRequest(RequestCode::kGetBrokerConsumeStats));
  EXPECT_EQ(a.code, 1);
}

TEST_F(AdminPartBTest, TopicConsumeByWhoJoinsLiveGroupsAndOffsetTable) {
  CreateTopic("T_who", 2);
  ConsumerHeartbeat(consumer_, "127.0.0.1@who", "G_live", {{"T_who", 1}});
  Commit("G_offline", "T_who", 0, 0);
  RemotingCommand req = protocol::MakeRequest(RequestCode::kQueryTopicConsumeByWho);
  req.SetField("topic", "T_who");
  RemotingCommand r = Call(admin_, std::move(req));
  ASSERT_EQ(r.code, 0);
  auto list = protocol::GroupListBody::Decode(r.body.owned_text());
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->group_list, (std::vector<std::string>{"G_live", "G_offline"}));
}

TEST_F(AdminPartBTest, ConsumeTimeSpan) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kQueryConsumeTimeSpan);
  req.SetField("topic", "nope");
  req.SetField("group", "G");
  RemotingCommand r = Call(admin_, req);
  EXPECT_EQ(r.code, 17);
  EXPECT_EQ(r.remark, "topic[nope] not exist");

  CreateTopic("T_span", 1);
  Send("T_span", 0, "a");
  clock_.AdvanceMillis(1000);
  Send("T_span", 0, "b");
  clock_.AdvanceMillis(1000);
  Send("T_span", 0, "c");
  Commit("G", "T_span", 0, 1);
  clock_.AdvanceMillis(500);
  req.SetField("topic", "T_span");
  r = Call(admin_, req);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(
      Canonical(r.body.owned_text(), {"consumeTimeStampStr", "maxTimeStampStr", "minTimeStampStr"}),
      "{\"consumeTimeSpanSet\":[{\"consumeTimeStamp\":" + std::to_string(kStart) +
          ",\"consumeTimeStampStr\":\"*\",\"delayTime\":1500,\"maxTimeStamp\":" +
          std::to_string(kStart + 2000) +
          ",\"maxTimeStampStr\":\"*\",\"messageQueue\":{\"brokerName\":\"jbroker-a\","
          "\"queueId\":0,\"topic\":\"T_span\"},\"minTimeStamp\":" +
          std::to_string(kStart) + ",\"minTimeStampStr\":\"*\"}]}");
}

TEST_F(AdminPartBTest, ViewBrokerStatsData) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kViewBrokerStatsData);
  req.SetField("statsName", "TOPIC_PUT_NUMS");
  req.SetField("statsKey", "T_stats");
  RemotingCommand r = Call(admin_, req);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.remark, "The stats <TOPIC_PUT_NUMS> <T_stats> not exist");

  CreateTopic("T_stats", 1);
  for (int i = 0; i < 3; ++i) Send("T_stats", 0, "s");
  // The broker samples every second (real time) at the fake clock's time: a window needs
  // two samples 10 s apart.
  std::string body;
  for (int i = 0; i < 100; ++i) {
    clock_.AdvanceMillis(10001);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    r = Call(admin_, req);
    body = std::string(r.body.owned_text());
    if (r.code == 0 &&
        body.find("\"statsMinute\":{\"avgpt\":1.0,\"sum\":3,") != std::string::npos) {
      break;
    }
    if (i > 4) break;
  }
  EXPECT_EQ(r.code, 0) << r.remark.value_or("");
  EXPECT_NE(body.find("\"statsMinute\":{\"avgpt\":1.0,\"sum\":3,\"tps\":"), std::string::npos)
      << body;
  EXPECT_EQ(Canonical(body, {"avgpt", "sum", "tps"}),
            "{\"statsDay\":{\"avgpt\":\"*\",\"sum\":\"*\",\"tps\":\"*\"},\"statsHour\":{\"avgpt\":"
            "\"*\",\"sum\":\"*\",\"tps\":\"*\"},\"statsMinute\":{\"avgpt\":\"*\",\"sum\":\"*\","
            "\"tps\":\"*\"}}");
}

// 315 for the consumer side, after a real pull, with the keys the tools send:
// rocketmq-exporter and rocketmq-dashboard GROUP_GET_NUMS / GROUP_GET_SIZE with
// topic@group; exporters before 2019-12 GROUP_GET_LATENCY with queueId@topic@group
// (String.format("%d@%s@%s", queueId, topic, group)).
TEST_F(AdminPartBTest, ViewBrokerStatsDataForGetsAfterARealPull) {
  auto view = [&](const std::string& name, const std::string& key) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kViewBrokerStatsData);
    req.SetField("statsName", name);
    req.SetField("statsKey", key);
    return Call(admin_, std::move(req));
  };
  CreateTopic("T_get", 2);
  for (int i = 0; i < 3; ++i) Send("T_get", 1, "m" + std::to_string(i));
  ConsumerHeartbeat(consumer_, "127.0.0.1@get", "G_get", {{"T_get", 1}});
  ASSERT_EQ(Pull("G_get", "T_get", 1, 0, 32), 3);
  // The minute window needs two samples 10 s apart (fake clock; real-time sampler steps).
  RemotingCommand nums;
  for (int i = 0; i < 6; ++i) {
    clock_.AdvanceMillis(10001);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    nums = view("GROUP_GET_NUMS", "T_get@G_get");
    if (nums.code == 0 &&
        std::string(nums.body.owned_text()).find("\"sum\":3,") != std::string::npos) {
      break;
    }
  }
  ASSERT_EQ(nums.code, 0) << nums.remark.value_or("");
  // One pull of three messages: sum 3, avgpt 3 per pull.
  EXPECT_NE(std::string(nums.body.owned_text()).find("\"statsMinute\":{\"avgpt\":3.0,\"sum\":3,"),
            std::string::npos)
      << nums.body.owned_text();
  RemotingCommand size = view("GROUP_GET_SIZE", "T_get@G_get");
  ASSERT_EQ(size.code, 0);
  EXPECT_EQ(std::string(size.body.owned_text()).find("\"sum\":0,"), std::string::npos)
      << size.body.owned_text();

  // The serving time of that pull, per queue (the broker's clock is fake here, so the
  // time is 0 ms; services_test measures it with a moving clock): one pull counted.
  RemotingCommand latency = view("GROUP_GET_LATENCY", "1@T_get@G_get");
  ASSERT_EQ(latency.code, 0) << latency.remark.value_or("");
  EXPECT_EQ(Canonical(latency.body.owned_text(), {"tps"}),
            "{\"statsDay\":{\"avgpt\":0.0,\"sum\":0,\"tps\":\"*\"},\"statsHour\":{\"avgpt\":"
            "0.0,\"sum\":0,\"tps\":\"*\"},\"statsMinute\":{\"avgpt\":0.0,\"sum\":0,"
            "\"tps\":\"*\"}}");
  // Queues nobody pulled, the topic@group shape and Java's never-counted items: as Java.
  for (const auto& [name, key] : std::vector<std::pair<std::string, std::string>>{
           {"GROUP_GET_LATENCY", "0@T_get@G_get"},
           {"GROUP_GET_LATENCY", "T_get@G_get"},
           {"GROUP_GET_FALL_SIZE", "1@T_get@G_get"},
           {"GROUP_GET_FROM_DISK_NUMS", "T_get@G_get"}}) {
    RemotingCommand r = view(name, key);
    EXPECT_EQ(r.code, 1) << name << " " << key;
    EXPECT_EQ(r.remark, "The stats <" + name + "> <" + key + "> not exist");
  }
}

}  // namespace
}  // namespace rocketstore::broker::testing
