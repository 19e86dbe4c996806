// Broker admin codes, part A — groups, offsets and the store: 200, 201, 207, 43, 314,
// 321, 306, 329. Requests as the Java admin client builds them (200 and 201 replayed from
// admin-broker.json), replies decoded as the Java classes read them.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "admin_a_fixture.h"
#include "io/posix_file_system.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"
#include "store/layout/layout.h"

namespace rocketstore::admin_a_test {
namespace {

using protocol::ResponseCode;

// ---- 200 UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 201 GET_ALL_SUBSCRIPTIONGROUP_CONFIG ------

TEST_F(AdminATest, UpdateAndCreateSubscriptionGroupThenGetAllMatchJava) {
  RemotingCommand r = Replay("UPDATE_AND_CREATE_SUBSCRIPTIONGROUP");
  const CapturedFrame& java = JavaReply("UPDATE_AND_CREATE_SUBSCRIPTIONGROUP");
  EXPECT_EQ(r.code, java.command.code);
  EXPECT_EQ(r.remark, java.command.remark);
  auto g = broker_->subscription_groups().Find("CGV_adm_created");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->retry_max_times, 5);
  EXPECT_FALSE(g->consume_broadcast_enable);

  RemotingCommand all = Replay("GET_ALL_SUBSCRIPTIONGROUP_CONFIG");
  const CapturedFrame& jall = JavaReply("GET_ALL_SUBSCRIPTIONGROUP_CONFIG");
  EXPECT_EQ(all.code, jall.command.code);
  rapidjson::Document o = Json(BodyText(all)), j = Json(jall.body_text);
  EXPECT_EQ(Keys(o), Keys(j));
  EXPECT_EQ(Without5xMembers(Keys(o["dataVersion"])), Keys(j["dataVersion"]));
  const rapidjson::Value& og = o["subscriptionGroupTable"]["CGV_adm_created"];
  const rapidjson::Value& jg = j["subscriptionGroupTable"]["CGV_adm_created"];
  EXPECT_EQ(Keys(og), Keys(jg));
  for (const auto& m : jg.GetObject()) {
    EXPECT_TRUE(og[m.name.GetString()] == m.value) << m.name.GetString();
  }
  // The body decodes as the request's class (what the admin client reads back).
  auto body = protocol::SubscriptionGroupConfigBody::Decode(BodyText(
      protocol::testing::FindFrame(frames_, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", false).command));
  ASSERT_TRUE(body.ok());
  const std::vector<uint8_t> again = body->Encode();
  EXPECT_EQ(
      std::string(again.begin(), again.end()),
      BodyText(protocol::testing::FindFrame(frames_, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", false)
                   .command));
}

TEST_F(AdminATest, UpdateAndCreateSubscriptionGroupErrors) {
  RemotingCommand r = Call(Request(RequestCode::kUpdateAndCreateSubscriptionGroup));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("body"), std::string::npos) << Remark(r);
  RemotingCommand bad = Request(RequestCode::kUpdateAndCreateSubscriptionGroup);
  bad.body.Assign(std::string("{\"groupName\":\"G\",\"retryMaxTimes\":\"many\"}"));
  r = Call(std::move(bad));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("retryMaxTimes"), std::string::npos) << Remark(r);
  RemotingCommand badname = Request(RequestCode::kUpdateAndCreateSubscriptionGroup);
  badname.body.Assign(std::string("{\"groupName\":\"a b\"}"));
  r = Call(std::move(badname));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kInvalidParameter));
  EXPECT_FALSE(broker_->subscription_groups().Find("a b"));
  RemotingCommand notjson = Request(RequestCode::kUpdateAndCreateSubscriptionGroup);
  notjson.body.Assign(std::string("groupName=G"));
  EXPECT_EQ(Call(std::move(notjson)).code, ToInt(ResponseCode::kSystemError));
}

// ---- 207 DELETE_SUBSCRIPTIONGROUP ------------------------------------------------------

TEST_F(AdminATest, DeleteSubscriptionGroupKeepsOrRemovesOffsets) {
  broker::SubscriptionGroupConfig c;
  c.name = "GD";
  broker_->subscription_groups().Upsert(c);
  broker_->offsets().Commit("GD", "T1", 0, 9);
  RemotingCommand r = Call(Request(RequestCode::kDeleteSubscriptionGroup, {{"groupName", "GD"}}));
  ASSERT_EQ(r.code, 0);
  EXPECT_FALSE(broker_->subscription_groups().Find("GD"));
  EXPECT_EQ(broker_->offsets().Query("GD", "T1", 0), 9);  // removeOffset defaults to false
  broker_->subscription_groups().Upsert(c);
  r = Call(Request(RequestCode::kDeleteSubscriptionGroup,
                   {{"groupName", "GD"}, {"removeOffset", "true"}}));
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(broker_->offsets().Query("GD", "T1", 0), -1);
  // Unknown group: SUCCESS (Java); no groupName: SYSTEM_ERROR naming the field.
  EXPECT_EQ(Call(Request(RequestCode::kDeleteSubscriptionGroup, {{"groupName", "nope"}})).code, 0);
  r = Call(Request(RequestCode::kDeleteSubscriptionGroup));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("groupName"), std::string::npos) << Remark(r);
}

// ---- 43 GET_ALL_CONSUMER_OFFSET --------------------------------------------------------

TEST_F(AdminATest, GetAllConsumerOffset) {
  broker_->offsets().Commit("G43", "T43", 3, 12);
  RemotingCommand r = Call(Request(RequestCode::kGetAllConsumerOffset));
  ASSERT_EQ(r.code, 0);
  rapidjson::Document d = Json(BodyText(r));
  ASSERT_TRUE(d.HasMember("offsetTable"));
  EXPECT_EQ(d["offsetTable"]["T43@G43"]["3"].GetInt64(), 12);
}

// ---- 314 CLONE_GROUP_OFFSET ------------------------------------------------------------

TEST_F(AdminATest, CloneGroupOffset) {
  CreateTopic("C1", 2);
  CreateTopic("C2", 2);
  broker_->offsets().Commit("SRC", "C1", 0, 4);
  broker_->offsets().Commit("SRC", "C1", 1, 6);
  broker_->offsets().Commit("SRC", "C2", 0, 8);
  broker_->offsets().Commit("SRC", "NoConfig", 0, 1);
  RemotingCommand r = Call(
      Request(RequestCode::kCloneGroupOffset,
              {{"srcGroup", "SRC"}, {"destGroup", "DST"}, {"topic", "C1"}, {"offline", "false"}}));
  ASSERT_EQ(r.code, 0) << Remark(r);
  EXPECT_EQ(broker_->offsets().QueryAll("DST", "C1"), (std::map<int32_t, int64_t>{{0, 4}, {1, 6}}));
  EXPECT_EQ(broker_->offsets().Query("DST", "C2", 0), -1);
  // No topic: every topic of the source that has a config.
  r = Call(Request(RequestCode::kCloneGroupOffset,
                   {{"srcGroup", "SRC"}, {"destGroup", "DST2"}, {"offline", "true"}}));
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(broker_->offsets().Query("DST2", "C1", 1), 6);
  EXPECT_EQ(broker_->offsets().Query("DST2", "C2", 0), 8);
  EXPECT_EQ(broker_->offsets().Query("DST2", "NoConfig", 0), -1);
  r = Call(Request(RequestCode::kCloneGroupOffset, {{"destGroup", "D"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_NE(Remark(r).find("srcGroup"), std::string::npos) << Remark(r);
}

// ---- 321 QUERY_CONSUME_QUEUE -----------------------------------------------------------

TEST_F(AdminATest, QueryConsumeQueue) {
  CreateTopic("QCQ", 2);
  Put("QCQ", 0, 3);
  RemotingCommand r =
      Call(Request(RequestCode::kQueryConsumeQueue, {{"topic", "QCQ"},
                                                     {"queueId", "0"},
                                                     {"index", "1"},
                                                     {"count", "5"},
                                                     {"consumerGroup", "OfflineGroup"}}));
  ASSERT_EQ(r.code, 0) << Remark(r);
  auto body = protocol::QueryConsumeQueueResponseBody::Decode(BodyText(r));
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->min_queue_index, 0);
  EXPECT_EQ(body->max_queue_index, 3);
  EXPECT_EQ(body->filter_data, "OfflineGroup@QCQ is not online!");
  EXPECT_FALSE(body->subscription_data);
  ASSERT_TRUE(body->queue_data);
  ASSERT_EQ(body->queue_data->size(), 2u);  // units 1 and 2
  auto units = broker_->store().GetQueueUnits("QCQ", 0, QueueOffset(1), 2);
  ASSERT_TRUE(units.ok());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*body->queue_data)[i].physic_offset, (*units)[i].offset.value());
    EXPECT_EQ((*body->queue_data)[i].physic_size, (*units)[i].size);
    EXPECT_EQ((*body->queue_data)[i].tags_code, (*units)[i].tags_code);
    EXPECT_FALSE((*body->queue_data)[i].eval);
  }
  // Java's member names, nulls left out.
  rapidjson::Document d = Json(BodyText(r));
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"filterData", "maxQueueIndex", "minQueueIndex",
                                               "queueData"}));
  EXPECT_EQ(Keys(d["queueData"][0]),
            (std::vector<std::string>{"eval", "physicOffset", "physicSize", "tagsCode"}));
  // An index outside the queue: SUCCESS, the remark, no body.
  r = Call(Request(RequestCode::kQueryConsumeQueue,
                   {{"topic", "QCQ"}, {"queueId", "0"}, {"index", "3"}, {"count", "1"}}));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.remark, "Index 3 of 0@QCQ is not exist!");
  EXPECT_TRUE(BodyText(r).empty());
  // An unknown queue: SYSTEM_ERROR; so is one of an unknown topic.
  r = Call(Request(RequestCode::kQueryConsumeQueue,
                   {{"topic", "QCQ"}, {"queueId", "7"}, {"index", "0"}, {"count", "1"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_EQ(r.remark, "7@QCQ is not exist!");
  r = Call(Request(RequestCode::kQueryConsumeQueue,
                   {{"topic", "NoSuchTopic"}, {"queueId", "0"}, {"index", "0"}, {"count", "1"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
  EXPECT_EQ(r.remark, "0@NoSuchTopic is not exist!");
  // A queue of the topic that holds no message yet: as Java's (empty) consume queue of it
  // answers — SUCCESS, the index remark, no body.
  ASSERT_FALSE(broker_->store().consume_queues().Find("QCQ", 1));
  r = Call(Request(RequestCode::kQueryConsumeQueue, {{"topic", "QCQ"},
                                                     {"queueId", "1"},
                                                     {"index", "0"},
                                                     {"count", "1"},
                                                     {"consumerGroup", "OfflineGroup"}}));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.remark, "Index 0 of 1@QCQ is not exist!");
  EXPECT_TRUE(BodyText(r).empty());
  r = Call(Request(RequestCode::kQueryConsumeQueue, {{"topic", "QCQ"}, {"queueId", "x"}}));
  EXPECT_EQ(r.code, ToInt(ResponseCode::kSystemError));
}

// ---- 329 DELETE_EXPIRED_COMMITLOG, 306 CLEAN_EXPIRED_CONSUMEQUEUE ----------------------

// Small segments that expire at once, and a delete hour that is never now: only a manual
// request (or a full disk) deletes anything.
class AdminARetentionTest : public AdminATest {
 protected:
  void Configure(broker::BrokerOptions& bo) override {
    bo.store.commit_log_segment_size = 4096;
    bo.store.consume_queue_units_per_file = 10;
    bo.store.index_num = 40;  // an index file per ~40 messages (one key each)
    bo.store.retention.file_reserved_time_ms = 1;
    bo.store.retention.disk_max_used_space_ratio = 95;
    bo.store.retention.disk_space_clean_forcibly_ratio = 95;
    bo.store.retention.disk_space_warning_level_ratio = 95;
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    bo.store.retention.delete_when = std::to_string((local.tm_hour + 12) % 24);
  }
  bool WaitUntil(const std::function<bool()>& done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }
};

TEST_F(AdminARetentionTest, DeleteExpiredCommitLogDeletesExpiredSegmentsNow) {
  CreateTopic("RET", 1);
  Put("RET", 0, 200);  // ~20 KiB: several 4 KiB segments, 20 consume-queue files
  const std::string log_dir = layout::CommitLogDir(dir_.path() + "/store");
  auto before = PosixFileSystem::Default().ListDir(log_dir);
  ASSERT_TRUE(before.ok());
  ASSERT_GE(before->size(), 3u);
  // No trigger: a round deletes nothing.
  auto report = broker_->store().RunRetentionStep();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->deleted_segments.empty()) << report->stop_reason;
  const int64_t min_before = broker_->store().MinPhysicalOffset().value();

  RemotingCommand r = Call(Request(RequestCode::kDeleteExpiredCommitLog));
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(WaitUntil([&] { return broker_->store().MinPhysicalOffset().value() > min_before; }))
      << "no segment was deleted";
  auto after = PosixFileSystem::Default().ListDir(log_dir);
  ASSERT_TRUE(after.ok());
  EXPECT_LT(after->size(), before->size());
  // The consume queue follows (its files below the new minimum go in the same round).
  EXPECT_TRUE(
      WaitUntil([&] { return broker_->store().GetMinOffsetInQueue("RET", 0).value() > 0; }));
}

// 306 on its own: commit-log segments gone without the retention round that cleans after
// them (as after a crash between the two, or a clean that failed), so consume-queue and
// index files below the commit log's minimum are still there; 306 removes them before it
// answers.
TEST_F(AdminARetentionTest, CleanExpiredConsumeQueueRemovesFilesBelowTheMinimumBeforeAnswering) {
  CreateTopic("CQ306", 1);
  Put("CQ306", 0, 200);  // ~20 KiB: several 4 KiB segments, 20 CQ files, ~5 index files
  MessageStore& store = broker_->store();
  auto segments = store.commit_log().segments().Files();
  ASSERT_GE(segments.size(), 4u);
  // Two segments go behind retention's back (no retention round runs: no trigger).
  auto removed = store.commit_log().segments().RemoveFilesBefore(segments[2]->start_offset());
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_EQ(*removed, 2);
  const int64_t min = store.MinPhysicalOffset().value();
  ASSERT_EQ(min, segments[2]->start_offset().value());

  auto cq = store.consume_queues().Find("CQ306", 0);
  ASSERT_NE(cq, nullptr);
  const size_t cq_files_before = cq->file_count();
  ASSERT_EQ(cq_files_before, 20u);
  ASSERT_EQ(store.GetMinOffsetInQueue("CQ306", 0).value(), 0);  // still pointing below
  ASSERT_NE(store.index(), nullptr);
  ASSERT_GE(store.index()->file_count(), 3u);
  ASSERT_LT(store.index()->Files().front()->end_phy_offset(), min) << "no index file below";

  RemotingCommand r = Call(Request(RequestCode::kCleanExpiredConsumeQueue));
  ASSERT_EQ(r.code, 0) << Remark(r);
  // Checked right after the answer: nothing is polled.
  const int64_t cq_min = store.GetMinOffsetInQueue("CQ306", 0).value();
  EXPECT_GT(cq_min, 0);
  auto first = store.GetQueueUnits("CQ306", 0, QueueOffset(cq_min), 1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_GE(first->front().offset.value(), min);  // the queue's first unit is readable
  if (cq_min > 0) {
    // Every file before the one holding the queue's new minimum is gone, that one stays.
    EXPECT_EQ(cq->file_count(), cq_files_before - static_cast<size_t>(cq_min / 10));
  }
  EXPECT_LT(cq->file_count(), cq_files_before);
  auto index_files = store.index()->Files();
  ASSERT_FALSE(index_files.empty());
  EXPECT_GE(index_files.front()->end_phy_offset(), min) << "an index file below the minimum";
  // And on disk: the files are gone, not only out of the lists.
  auto cq_dir = PosixFileSystem::Default().ListDir(
      layout::ConsumeQueueDir(dir_.path() + "/store", "CQ306", 0));
  ASSERT_TRUE(cq_dir.ok());
  EXPECT_EQ(cq_dir->size(), cq->file_count());
}

}  // namespace
}  // namespace rocketstore::admin_a_test
