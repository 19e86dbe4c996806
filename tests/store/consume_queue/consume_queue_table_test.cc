#include "store/consume_queue/consume_queue_table.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "store/format/message_record.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

constexpr char kRoot[] = "/store";

ConsumeQueue::Options Tiny() {
  ConsumeQueue::Options o;
  o.units_per_file = 10;
  o.reserve_chunk_bytes = 4096;
  return o;
}

DispatchRequest Request(std::string_view topic, int32_t queue_id, int64_t physical,
                        int64_t queue_offset, int32_t sys_flag = 0) {
  DispatchRequest r;
  r.topic = topic;
  r.queue_id = queue_id;
  r.commit_log_offset = PhysicalOffset(physical);
  r.size = 100;
  r.tags_code = 2598919;
  r.store_timestamp = 1700000000123;
  r.queue_offset = QueueOffset(queue_offset);
  r.sys_flag = sys_flag;
  return r;
}

class ConsumeQueueTableTest : public ::testing::Test {
 protected:
  std::unique_ptr<ConsumeQueueTable> OpenTable() {
    auto t = ConsumeQueueTable::Open(fs_, kRoot, Tiny());
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? std::move(t).value() : nullptr;
  }
  void MakeDir(const std::string& path) { ASSERT_OK(fs_.CreateDirs(path)); }

  FaultInjectionFileSystem fs_;
};

TEST_F(ConsumeQueueTableTest, BadTopicNamesAreRejected) {
  auto table = OpenTable();
  const std::string too_long(128, 'x');
  for (const std::string& topic :
       {std::string(), std::string("."), std::string(".."), std::string("../../etc"),
        std::string("a/b"), std::string("x\0y", 3), too_long}) {
    EXPECT_THAT(table->FindOrCreate(topic, 0), StatusIs(StatusCode::kInvalidArgument))
        << "topic '" << topic << "'";
    EXPECT_THAT(table->Dispatch(Request(topic, 0, 0, 0)), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_EQ(table->Find(topic, 0), nullptr);
  }
  EXPECT_THAT(table->FindOrCreate("T", -1), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(table->size(), 0u);
  ASSERT_OK_AND_ASSIGN(auto names, fs_.ListDir(kRoot));
  EXPECT_EQ(names, std::vector<std::string>{"consumequeue"});
  ASSERT_OK_AND_ASSIGN(names, fs_.ListDir(std::string(kRoot) + "/consumequeue"));
  EXPECT_TRUE(names.empty());
}

TEST_F(ConsumeQueueTableTest, DispatchBuildsQueuesForNonTransactionalAndCommittedRecords) {
  auto table = OpenTable();
  ASSERT_OK(table->Dispatch(Request("T", 0, 0, 0)));
  ASSERT_OK(table->Dispatch(Request("T", 0, 100, 0, format::kTransactionPrepared)));
  ASSERT_OK(table->Dispatch(Request("T", 0, 200, 1, format::kTransactionCommit)));
  ASSERT_OK(table->Dispatch(Request("T", 0, 300, 0, format::kTransactionRollback)));
  ASSERT_OK(table->Dispatch(Request("P", 0, 400, 0, format::kTransactionPrepared)));
  EXPECT_EQ(table->Find("P", 0), nullptr);  // prepared records make no queue
  auto cq = table->Find("T", 0);
  ASSERT_NE(cq, nullptr);
  EXPECT_EQ(cq->MaxOffset(), QueueOffset(2));
  ASSERT_OK_AND_ASSIGN(ConsumeQueue::Unit u, cq->GetUnit(QueueOffset(1)));
  EXPECT_EQ(u, (ConsumeQueue::Unit{PhysicalOffset(200), 100, 2598919}));
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(300));
  // A replayed record is ignored; a gap is reported.
  ASSERT_OK(table->Dispatch(Request("T", 0, 0, 0)));
  EXPECT_THAT(table->Dispatch(Request("T", 0, 500, 5)), StatusIs(StatusCode::kFailedPrecondition));
}

// Dispatch remembers the queues it wrote to: records that alternate topics and queues
// (ids past the memo's range too) each land in their own queue, and a topic removed in
// between is written afresh, not into the removed queue the memo held.
TEST_F(ConsumeQueueTableTest, DispatchLandsInTheRightQueueAcrossTopicsAndAfterARemoval) {
  auto table = OpenTable();
  int64_t physical = 0;
  std::map<std::pair<std::string, int32_t>, int64_t> next;  // the next queue offset
  auto dispatch = [&](const std::string& topic, int32_t id) {
    int64_t& offset = next[{topic, id}];
    ASSERT_OK(table->Dispatch(Request(topic, id, physical, offset)));
    physical += 100;
    ++offset;
  };
  for (int round = 0; round < 3; ++round) {
    for (int32_t id : {0, 1, 2, 1, 5000, 0}) dispatch("T", id);
    dispatch("U", 1);
    dispatch("T", 2);
  }
  for (const auto& [key, offset] : next) {
    auto cq = table->Find(key.first, key.second);
    ASSERT_NE(cq, nullptr) << key.first << "/" << key.second;
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(offset)) << key.first << "/" << key.second;
  }
  auto removed = table->Find("T", 1);
  ASSERT_OK_AND_ASSIGN(int n, table->RemoveTopic("T"));
  EXPECT_EQ(n, 4);
  ASSERT_OK(table->Dispatch(Request("T", 1, physical, 0)));
  auto fresh = table->Find("T", 1);
  ASSERT_NE(fresh, nullptr);
  EXPECT_NE(fresh, removed);
  EXPECT_EQ(fresh->MaxOffset(), QueueOffset(1));
  ASSERT_OK_AND_ASSIGN(ConsumeQueue::Unit u, fresh->GetUnit(QueueOffset(0)));
  EXPECT_EQ(u.offset, PhysicalOffset(physical));
  EXPECT_EQ(table->Find("T", 0), nullptr);  // only what was dispatched since
  ASSERT_NE(table->Find("U", 1), nullptr);
  EXPECT_EQ(table->Find("U", 1)->MaxOffset(), QueueOffset(3));
}

TEST_F(ConsumeQueueTableTest, ReloadFindsQueuesAndIgnoresOtherEntries) {
  {
    auto table = OpenTable();
    for (int64_t i = 0; i < 12; ++i) ASSERT_OK(table->Dispatch(Request("A", 0, i * 100, i)));
    ASSERT_OK(table->Dispatch(Request("A", 3, 1200, 0)));
    ASSERT_OK(table->Dispatch(Request("B", 1, 1300, 0)));
    EXPECT_EQ(table->size(), 3u);
  }
  const std::string base = std::string(kRoot) + "/consumequeue";
  MakeDir(base + "/A/x");   // not a queue id
  MakeDir(base + "/A/07");  // not the canonical form of 7
  MakeDir(base + "/A/-1");
  MakeDir(base + "/A/99999999999");  // past int32
  MakeDir(base + "/C");              // a topic without queues
  OpenOptions oo;
  oo.create = oo.writable = true;
  for (const char* file : {"/a-file", "/B/2"}) {  // files, not directories
    auto f = fs_.OpenFile(base + file, oo);
    ASSERT_OK(f);
  }

  auto table = OpenTable();
  EXPECT_EQ(table->size(), 3u);
  ASSERT_OK(table->RecoverAll());
  auto a0 = table->Find("A", 0);
  ASSERT_NE(a0, nullptr);
  EXPECT_EQ(a0->MaxOffset(), QueueOffset(12));
  EXPECT_EQ(a0->file_count(), 2u);
  ASSERT_NE(table->Find("A", 3), nullptr);
  ASSERT_NE(table->Find("B", 1), nullptr);
  EXPECT_EQ(table->Find("A", 7), nullptr);
  EXPECT_EQ(table->Find("C", 0), nullptr);
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(1400));

  std::vector<std::string> visited;
  ASSERT_OK(table->ForEach([&](ConsumeQueue& cq) {
    visited.push_back(cq.topic() + "-" + std::to_string(cq.queue_id()));
    return Status::OK();
  }));
  EXPECT_EQ(visited, (std::vector<std::string>{"A-0", "A-3", "B-1"}));
  EXPECT_THAT(table->ForEach([](ConsumeQueue&) { return Aborted("stop"); }),
              StatusIs(StatusCode::kAborted));

  // Dispatch continues after the reload.
  ASSERT_OK(table->Dispatch(Request("A", 0, 1400, 12)));
  EXPECT_EQ(a0->MaxOffset(), QueueOffset(13));
}

TEST_F(ConsumeQueueTableTest, AQueueWithABadFileFailsTheOpen) {
  {
    auto table = OpenTable();
    ASSERT_OK(table->Dispatch(Request("A", 0, 0, 0)));
  }
  ASSERT_OK(fs_.TruncateTo(std::string(kRoot) + "/consumequeue/A/0/00000000000000000000", 7));
  EXPECT_THAT(ConsumeQueueTable::Open(fs_, kRoot, Tiny()), StatusIs(StatusCode::kCorruption));
}

TEST_F(ConsumeQueueTableTest, TruncateDirtyAllAndMaxPhysicalEnd) {
  auto table = OpenTable();
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(0));  // nothing dispatched yet
  // Two queues interleaved in one commit log.
  for (int64_t i = 0; i < 30; ++i) {
    ASSERT_OK(table->Dispatch(Request(i % 2 == 0 ? "E" : "O", 0, i * 100, i / 2)));
  }
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(3000));
  ASSERT_OK(table->TruncateDirtyAll(PhysicalOffset(1550)));     // records 0..15 remain
  EXPECT_EQ(table->Find("E", 0)->MaxOffset(), QueueOffset(8));  // 0, 200, ..., 1400
  EXPECT_EQ(table->Find("O", 0)->MaxOffset(), QueueOffset(8));  // 100, ..., 1500
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(1600));
  // Dispatch restarts at 1600 with record 16 (queue E, offset 8).
  ASSERT_OK(table->Dispatch(Request("E", 0, 1600, 8)));
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(1700));
}

TEST_F(ConsumeQueueTableTest, FlushAllMakesEveryQueueDurable) {
  {
    auto table = OpenTable();
    for (int64_t i = 0; i < 6; ++i) ASSERT_OK(table->Dispatch(Request("A", i % 3, i * 100, i / 3)));
    ASSERT_OK(table->FlushAll(0));
    ASSERT_OK(table->Dispatch(Request("A", 0, 600, 2)));  // not flushed
    // With a high page threshold nothing qualifies.
    ASSERT_OK(table->FlushAll(4));
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  auto table = OpenTable();
  ASSERT_OK(table->RecoverAll());
  EXPECT_EQ(table->size(), 3u);
  for (int32_t q = 0; q < 3; ++q) {
    auto cq = table->Find("A", q);
    ASSERT_NE(cq, nullptr) << q;
    EXPECT_EQ(cq->MaxOffset(), QueueOffset(2)) << q;
  }
  EXPECT_EQ(table->MaxPhysicalEnd(), PhysicalOffset(600));
}

TEST_F(ConsumeQueueTableTest, FlushAllReportsAFailureAndFlushesTheRest) {
  auto table = OpenTable();
  ASSERT_OK(table->Dispatch(Request("A", 0, 0, 0)));
  ASSERT_OK(table->Dispatch(Request("B", 0, 100, 0)));
  fs_.FailOpAt(1, EIO);  // the first flush
  EXPECT_THAT(table->FlushAll(0), StatusIs(StatusCode::kIOError));
  EXPECT_TRUE(table->Find("A", 0)->HasDirtyPages(0));
  EXPECT_FALSE(table->Find("B", 0)->HasDirtyPages(0));
}

TEST_F(ConsumeQueueTableTest, ConcurrentFindOrCreateYieldsOneQueue) {
  auto table = OpenTable();
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<ConsumeQueue>> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int q = 0; q < 20; ++q) {
        auto cq = table->FindOrCreate("Shared", q);
        if (!cq.ok()) {
          ADD_FAILURE() << cq.status();
          return;
        }
        if (q == 7) got[i] = *cq;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(table->size(), 20u);
  for (int i = 1; i < kThreads; ++i) EXPECT_EQ(got[i], got[0]);
}

}  // namespace
}  // namespace rocketstore
