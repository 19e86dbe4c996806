// ConfigPersister (broker/config/config_persister.h), stepped with a fake clock on the
// fault-injecting file system: prompt and interval persistence, failures kept, returned
// and retried, the change listener's wake-ups.
#include "broker/config/config_persister.h"

#include <gtest/gtest.h>

#include "base/clock.h"
#include "broker/metadata.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

using ::rocketstore::testing::StatusIs;

constexpr int64_t kOffsetInterval = 5000;

class ConfigPersisterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(fs_.CreateDirs("/s/config"));
    persister_.Add(topics_, 0);
    persister_.Add(groups_, 0);
    persister_.Add(offsets_, kOffsetInterval);
  }
  static TopicConfig Topic(const std::string& name) {
    TopicConfig t;
    t.name = name;
    return t;
  }
  int64_t Now() const { return clock_.MonotonicNanos() / 1000000; }
  // A fresh manager loaded from the file system: what a restart would see.
  std::optional<TopicConfig> TopicOnDisk(const std::string& name) {
    TopicConfigManager m(fs_, clock_, "/s/config/topics.json");
    EXPECT_OK(m.Load());
    return m.Find(name);
  }
  int64_t OffsetOnDisk() {
    ConsumerOffsetManager m(fs_, clock_, "/s/config/consumerOffset.json");
    EXPECT_OK(m.Load());
    return m.Query("G", "T", 0);
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
  TopicConfigManager topics_{fs_, clock_, "/s/config/topics.json"};
  SubscriptionGroupManager groups_{fs_, clock_, "/s/config/subscriptionGroup.json"};
  ConsumerOffsetManager offsets_{fs_, clock_, "/s/config/consumerOffset.json"};
  ConfigPersister persister_{clock_};
};

TEST_F(ConfigPersisterTest, EioIsReturnedKeptAndRetriedUntilItSucceeds) {
  topics_.Upsert(Topic("A"));
  fs_.FailOpsOfKind(OpKind::kRename, EIO);
  EXPECT_THAT(persister_.RunOnce(Now()), StatusIs(StatusCode::kIOError));
  EXPECT_THAT(persister_.last_error(), StatusIs(StatusCode::kIOError));
  EXPECT_NE(persister_.last_error().message().find("topics.json"), std::string::npos)
      << persister_.last_error();
  EXPECT_TRUE(topics_.dirty());
  EXPECT_FALSE(TopicOnDisk("A").has_value());
  clock_.AdvanceMillis(1000);
  EXPECT_THAT(persister_.RunOnce(Now()), StatusIs(StatusCode::kIOError));  // retried
  EXPECT_EQ(persister_.failures(), 2u);

  fs_.ClearFailures();
  clock_.AdvanceMillis(1000);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_OK(persister_.last_error());  // healthy again
  EXPECT_FALSE(topics_.dirty());
  EXPECT_TRUE(TopicOnDisk("A").has_value());
  EXPECT_EQ(persister_.writes(), 1u);
}

TEST_F(ConfigPersisterTest, EnospcLikewiseAndOtherManagersStillPersist) {
  topics_.Upsert(Topic("A"));
  ASSERT_OK(persister_.RunOnce(Now()));
  // The disk fills up: the next topic change cannot be written, a group change neither.
  ASSERT_OK_AND_ASSIGN(DiskUsage du, fs_.GetDiskUsage("/"));
  fs_.SetCapacityBytes(du.total_bytes - du.free_bytes);
  topics_.Upsert(Topic("B"));
  groups_.FindOrCreate("G");
  EXPECT_THAT(persister_.RunOnce(Now()), StatusIs(StatusCode::kNoSpace));
  EXPECT_THAT(persister_.last_error(), StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(persister_.failures(), 2u);  // both were tried
  EXPECT_TRUE(topics_.dirty());
  EXPECT_TRUE(groups_.dirty());

  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_OK(persister_.last_error());
  EXPECT_TRUE(TopicOnDisk("B").has_value());
  EXPECT_FALSE(groups_.dirty());
}

TEST_F(ConfigPersisterTest, LastErrorNamesTheManagerStillFailing) {
  topics_.Upsert(Topic("A"));
  groups_.FindOrCreate("G");
  fs_.FailOpAt(1, EIO);  // only the first write (topics) fails
  EXPECT_THAT(persister_.RunOnce(Now()), StatusIs(StatusCode::kIOError));
  EXPECT_NE(persister_.last_error().message().find("topics.json"), std::string::npos);
  EXPECT_FALSE(groups_.dirty());
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_OK(persister_.last_error());
}

TEST_F(ConfigPersisterTest, TopicsAndGroupsAtTheNextStepOffsetsOnTheInterval) {
  ASSERT_OK(persister_.RunOnce(Now()));  // the offsets' interval starts here
  topics_.Upsert(Topic("A"));
  offsets_.Commit("G", "T", 0, 7);
  clock_.AdvanceMillis(100);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_FALSE(topics_.dirty());
  EXPECT_TRUE(offsets_.dirty());  // not due yet
  EXPECT_EQ(OffsetOnDisk(), -1);
  clock_.AdvanceMillis(kOffsetInterval - 100);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_EQ(OffsetOnDisk(), 7);
  // Not again before another interval, however dirty.
  offsets_.Commit("G", "T", 0, 8);
  clock_.AdvanceMillis(kOffsetInterval - 1);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_EQ(OffsetOnDisk(), 7);
  clock_.AdvanceMillis(1);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_EQ(OffsetOnDisk(), 8);
}

TEST_F(ConfigPersisterTest, FailedOffsetWriteIsRetriedAtTheNextStepNotAfterAnInterval) {
  ASSERT_OK(persister_.RunOnce(Now()));
  offsets_.Commit("G", "T", 0, 7);
  clock_.AdvanceMillis(kOffsetInterval);
  fs_.FailOpAt(1, EIO);
  EXPECT_THAT(persister_.RunOnce(Now()), StatusIs(StatusCode::kIOError));
  clock_.AdvanceMillis(1);
  ASSERT_OK(persister_.RunOnce(Now()));
  EXPECT_EQ(OffsetOnDisk(), 7);
}

TEST_F(ConfigPersisterTest, PersistAllWritesEverythingDirtyDueOrNot) {
  ASSERT_OK(persister_.RunOnce(Now()));
  offsets_.Commit("G", "T", 0, 9);
  groups_.FindOrCreate("G");
  ASSERT_OK(persister_.PersistAll());
  EXPECT_EQ(OffsetOnDisk(), 9);
  EXPECT_FALSE(groups_.dirty());
  fs_.FailOpsOfKind(OpKind::kSync, EIO);
  offsets_.Commit("G", "T", 0, 10);
  EXPECT_THAT(persister_.PersistAll(), StatusIs(StatusCode::kIOError));
  EXPECT_TRUE(offsets_.dirty());
}

TEST_F(ConfigPersisterTest, TopicAndGroupChangesAskForAPromptStepOffsetsDoNot) {
  const uint64_t before = persister_.wake_requests();
  topics_.Upsert(Topic("A"));
  EXPECT_EQ(persister_.wake_requests(), before + 1);
  topics_.Upsert(Topic("A"));  // no change
  groups_.FindOrCreate("G");
  groups_.FindOrCreate("G");  // exists
  EXPECT_EQ(persister_.wake_requests(), before + 2);
  offsets_.Commit("G", "T", 0, 1);
  EXPECT_EQ(persister_.wake_requests(), before + 2);
  EXPECT_TRUE(topics_.Delete("A"));
  EXPECT_EQ(persister_.wake_requests(), before + 3);
}

TEST_F(ConfigPersisterTest, CleanManagersCostNoIo) {
  ASSERT_OK(persister_.RunOnce(Now()));
  const uint64_t ops = fs_.op_count();
  clock_.AdvanceMillis(kOffsetInterval * 3);
  ASSERT_OK(persister_.RunOnce(Now()));
  ASSERT_OK(persister_.PersistAll());
  EXPECT_EQ(fs_.op_count(), ops);
  EXPECT_EQ(persister_.writes(), 0u);
}

}  // namespace
}  // namespace rocketstore::broker
