// The config managers (broker/config/*) on the fault-injecting file system: .bak
// fallback and its report, errors returned and the manager kept dirty, crash durability,
// the generation counter, mutations without I/O, and Java-shaped files keeping every field.
#include "broker/metadata.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "hook_file_system.h"
#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

using ::rocketstore::testing::StatusIs;

constexpr char kTopics[] = "/store/config/topics.json";
constexpr char kOffsets[] = "/store/config/consumerOffset.json";
constexpr char kGroups[] = "/store/config/subscriptionGroup.json";

class MetadataTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_.CreateDirs("/store/config")); }

  void Write(const std::string& path, const std::string& text) {
    ASSERT_OK(WriteFileAtomically(fs_, path, text));
  }
  std::string Read(const std::string& path) {
    auto r = fs_.ReadWholeFile(path);
    return r.ok() ? *r : "<" + r.status().ToString() + ">";
  }
  static TopicConfig Topic(const std::string& name, int32_t queues = 4) {
    TopicConfig t;
    t.name = name;
    t.read_queue_nums = t.write_queue_nums = queues;
    return t;
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
};

// ---- failure paths ----

TEST_F(MetadataTest, CorruptTopicsJsonFallsBackToBakAndSaysSo) {
  {
    TopicConfigManager m(fs_, clock_, kTopics);
    m.Upsert(Topic("Old", 2));
    ASSERT_OK(m.Persist());
    m.Upsert(Topic("New", 3));
    ASSERT_OK(m.Persist());  // topics.json has Old+New, topics.json.bak has Old
  }
  ASSERT_OK(fs_.CorruptByte(kTopics, 0, 0xff));  // not JSON any more
  const std::string bak_before = Read(std::string(kTopics) + ".bak");

  TopicConfigManager m(fs_, clock_, kTopics);
  ASSERT_OK(m.Load());
  ConfigLoadReport r = m.load_report();
  EXPECT_EQ(r.source, ConfigLoadReport::Source::kBackup);
  EXPECT_EQ(r.path, std::string(kTopics) + ".bak");
  EXPECT_NE(r.primary_problem.find("not valid JSON"), std::string::npos) << r.primary_problem;
  EXPECT_NE(r.ToString().find("topics.json.bak"), std::string::npos) << r.ToString();
  EXPECT_TRUE(m.Find("Old").has_value());
  EXPECT_FALSE(m.Find("New").has_value());
  EXPECT_TRUE(m.dirty());  // the file is to be rewritten from the good version

  // Rewriting it does not copy the corrupt file over the good .bak.
  ASSERT_OK(m.Persist());
  EXPECT_EQ(Read(std::string(kTopics) + ".bak"), bak_before);
  TopicConfigManager again(fs_, clock_, kTopics);
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.load_report().source, ConfigLoadReport::Source::kFile);
  EXPECT_TRUE(again.Find("Old").has_value());
}

TEST_F(MetadataTest, MissingOrEmptyFileFallsBackToBak) {
  Write(std::string(kGroups) + ".bak",
        R"({"subscriptionGroupTable":{"G":{"groupName":"G","retryMaxTimes":3}}})");
  SubscriptionGroupManager missing(fs_, clock_, kGroups);
  ASSERT_OK(missing.Load());
  EXPECT_EQ(missing.load_report().source, ConfigLoadReport::Source::kBackup);
  EXPECT_NE(missing.load_report().primary_problem.find("missing"), std::string::npos);
  ASSERT_TRUE(missing.Find("G").has_value());
  EXPECT_EQ(missing.Find("G")->retry_max_times, 3);

  Write(kGroups, "");
  SubscriptionGroupManager empty(fs_, clock_, kGroups);
  ASSERT_OK(empty.Load());
  EXPECT_EQ(empty.load_report().source, ConfigLoadReport::Source::kBackup);
  EXPECT_NE(empty.load_report().primary_problem.find("empty"), std::string::npos);
}

TEST_F(MetadataTest, UndecodableFileIsCorruptToo) {
  Write(kOffsets, R"({"offsetTable":{"T@G":{"zero":5}}})");  // JSON, but not an offset table
  Write(std::string(kOffsets) + ".bak", R"({"offsetTable":{"T@G":{"0":4}}})");
  ConsumerOffsetManager m(fs_, clock_, kOffsets);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.load_report().source, ConfigLoadReport::Source::kBackup);
  EXPECT_EQ(m.Query("G", "T", 0), 4);
}

TEST_F(MetadataTest, NeitherFileUsableIsAnErrorNotAnEmptyStart) {
  Write(kTopics, "{\"topicConfigTable\":");
  Write(std::string(kTopics) + ".bak", "[1,2]");
  TopicConfigManager m(fs_, clock_, kTopics);
  Status s = m.Load();
  EXPECT_THAT(s, StatusIs(StatusCode::kCorruption));
  EXPECT_NE(s.message().find("topics.json.bak is unusable"), std::string::npos) << s;
  EXPECT_TRUE(m.List().empty());
}

TEST_F(MetadataTest, NoFileIsAFreshStart) {
  TopicConfigManager m(fs_, clock_, kTopics);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.load_report().source, ConfigLoadReport::Source::kNone);
  EXPECT_FALSE(m.dirty());
  ASSERT_OK(m.Persist());  // clean: no I/O
  EXPECT_FALSE(fs_.Exists(kTopics));
}

TEST_F(MetadataTest, EioDuringPersistIsReturnedAndTheManagerStaysDirty) {
  TopicConfigManager m(fs_, clock_, kTopics);
  m.Upsert(Topic("A"));
  ASSERT_OK(m.Persist());
  m.Upsert(Topic("B"));
  fs_.FailOpsOfKind(OpKind::kSync, EIO);
  EXPECT_THAT(m.Persist(), StatusIs(StatusCode::kIOError));
  EXPECT_TRUE(m.dirty());
  EXPECT_THAT(m.Persist(), StatusIs(StatusCode::kIOError));  // still failing, still dirty
  EXPECT_TRUE(m.dirty());
  {
    TopicConfigManager on_disk(fs_, clock_, kTopics);  // the old version is intact
    ASSERT_OK(on_disk.Load());
    EXPECT_TRUE(on_disk.Find("A").has_value());
    EXPECT_FALSE(on_disk.Find("B").has_value());
  }
  fs_.ClearFailures();
  ASSERT_OK(m.Persist());
  EXPECT_FALSE(m.dirty());
  TopicConfigManager again(fs_, clock_, kTopics);
  ASSERT_OK(again.Load());
  EXPECT_TRUE(again.Find("B").has_value());
}

TEST_F(MetadataTest, EnospcDuringPersistIsReturnedAndRetried) {
  SubscriptionGroupManager m(fs_, clock_, kGroups);
  m.FindOrCreate("G1");
  ASSERT_OK(m.Persist());
  m.FindOrCreate("G2");
  ASSERT_OK_AND_ASSIGN(DiskUsage du, fs_.GetDiskUsage("/"));
  fs_.SetCapacityBytes(du.total_bytes - du.free_bytes);  // full
  EXPECT_THAT(m.Persist(), StatusIs(StatusCode::kNoSpace));
  EXPECT_TRUE(m.dirty());
  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  ASSERT_OK(m.Persist());
  EXPECT_FALSE(m.dirty());
  SubscriptionGroupManager again(fs_, clock_, kGroups);
  ASSERT_OK(again.Load());
  EXPECT_TRUE(again.Find("G1").has_value());
  EXPECT_TRUE(again.Find("G2").has_value());
}

TEST_F(MetadataTest, PowerLossAfterAnOkPersistKeepsTheData) {
  {
    ConsumerOffsetManager m(fs_, clock_, kOffsets);
    m.Commit("G", "T", 0, 42);
    ASSERT_OK(m.Persist());
    m.Commit("G", "T", 0, 43);  // not persisted: may be lost
  }
  ASSERT_OK(fs_.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs_.Reboot());
  ConsumerOffsetManager m(fs_, clock_, kOffsets);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.load_report().source, ConfigLoadReport::Source::kFile);
  EXPECT_EQ(m.Query("G", "T", 0), 42);
}

TEST_F(MetadataTest, MutationRacingAPersistKeepsTheManagerDirty) {
  testing::HookFileSystem hook(fs_);
  TopicConfigManager m(hook, clock_, kTopics);
  m.Upsert(Topic("First"));
  hook.before_rename = [&] {  // after the encode, before the file is replaced
    hook.before_rename = nullptr;
    m.Upsert(Topic("Racer"));
  };
  ASSERT_OK(m.Persist());
  EXPECT_TRUE(m.dirty());  // "Racer" is not in the file yet
  EXPECT_EQ(Read(kTopics).find("Racer"), std::string::npos);
  ASSERT_OK(m.Persist());
  EXPECT_FALSE(m.dirty());
  EXPECT_NE(Read(kTopics).find("Racer"), std::string::npos);
}

// ---- mutations ----

TEST_F(MetadataTest, MutationsDoNoIoAndMarkDirty) {
  TopicConfigManager topics(fs_, clock_, kTopics);
  ConsumerOffsetManager offsets(fs_, clock_, kOffsets);
  SubscriptionGroupManager groups(fs_, clock_, kGroups);
  TopicConfig tbw = Topic("TBW102", 8);
  tbw.perm = kPermRead | kPermWrite | kPermInherit;
  const uint64_t ops = fs_.op_count();
  EXPECT_TRUE(topics.Upsert(tbw));
  EXPECT_TRUE(topics.CreateFromTemplate("Auto", "TBW102", 4).has_value());
  topics.EnsureSystemTopic("%RETRY%G", 1);
  EXPECT_TRUE(topics.Delete("Auto"));
  offsets.Commit("G", "T", 0, 1);
  groups.FindOrCreate("G");
  EXPECT_EQ(fs_.op_count(), ops);
  EXPECT_TRUE(topics.dirty());
  EXPECT_TRUE(offsets.dirty());
  EXPECT_TRUE(groups.dirty());
  // No change, no mark: the same offset, an existing group, an equal topic.
  ASSERT_OK(offsets.Persist());
  ASSERT_OK(groups.Persist());
  ASSERT_OK(topics.Persist());
  offsets.Commit("G", "T", 0, 1);
  offsets.Commit("G", "T", 1, -1);
  groups.FindOrCreate("G");
  EXPECT_FALSE(topics.Upsert(tbw));
  EXPECT_FALSE(topics.Delete("Auto"));
  EXPECT_FALSE(offsets.dirty());
  EXPECT_FALSE(groups.dirty());
  EXPECT_FALSE(topics.dirty());
}

TEST_F(MetadataTest, DataVersionTimestampsComeFromTheClock) {
  TopicConfigManager m(fs_, clock_, kTopics);
  clock_.SetMillis(1234567);
  m.Upsert(Topic("A"));
  EXPECT_EQ(m.data_version().counter, 1);
  EXPECT_EQ(m.data_version().timestamp, 1234567);
  clock_.AdvanceMillis(10);
  EXPECT_TRUE(m.Delete("A"));
  EXPECT_EQ(m.data_version().counter, 2);
  EXPECT_EQ(m.data_version().timestamp, 1234577);
  SubscriptionGroupManager g(fs_, clock_, kGroups);
  g.FindOrCreate("G");
  EXPECT_EQ(g.data_version().timestamp, 1234577);
}

TEST_F(MetadataTest, TopicsAutoCreateDeleteAndList) {
  TopicConfigManager m(fs_, clock_, kTopics);
  TopicConfig tbw = Topic("TBW102", 8);
  tbw.perm = 7;
  EXPECT_TRUE(m.Upsert(tbw));
  EXPECT_FALSE(m.Upsert(tbw));
  const int64_t v = m.data_version().counter;
  auto created = m.CreateFromTemplate("NewTopic", "TBW102", 16);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->write_queue_nums, 8);  // capped by the template
  EXPECT_EQ(created->perm, 6);
  EXPECT_GT(m.data_version().counter, v);
  EXPECT_EQ(m.CreateFromTemplate("NewTopic", "TBW102", 2)->write_queue_nums, 8);  // existing
  EXPECT_FALSE(m.CreateFromTemplate("X", "NewTopic", 4).has_value());             // no INHERIT
  EXPECT_FALSE(m.CreateFromTemplate("X", "Missing", 4).has_value());
  EXPECT_EQ(m.EnsureSystemTopic("%RETRY%G", 1).read_queue_nums, 1);
  std::vector<TopicConfig> all = m.List();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "%RETRY%G");
  EXPECT_EQ(all[2].name, "TBW102");
  EXPECT_TRUE(m.Delete("NewTopic"));
  ASSERT_OK(m.Persist());
  TopicConfigManager again(fs_, clock_, kTopics);
  ASSERT_OK(again.Load());
  EXPECT_FALSE(again.Find("NewTopic").has_value());
  EXPECT_EQ(again.List().size(), 2u);
  EXPECT_EQ(again.data_version(), m.data_version());
}

// Visit reads a hashed index of the topics kept in step with the ordered table: after
// every kind of change (create, replace, template, system topic, AddMissing, delete, a
// load of the file) it sees exactly what Find sees, for topics present and gone.
TEST_F(MetadataTest, VisitSeesWhatFindSeesAfterEveryChange) {
  TopicConfigManager m(fs_, clock_, kTopics);
  std::vector<std::string> names;
  auto agree = [&](const TopicConfigManager& t, const char* after) {
    for (const std::string& name : names) {
      const std::optional<TopicConfig> found = t.Find(name);
      std::optional<TopicConfig> visited;
      const bool seen = t.Visit(name, [&](const TopicConfig& c) { visited = c; });
      EXPECT_EQ(seen, found.has_value()) << name << " after " << after;
      EXPECT_EQ(visited, found) << name << " after " << after;
    }
  };
  TopicConfig tbw = Topic("TBW102", 8);
  tbw.perm = 7;
  names = {"TBW102", "A", "B", "%RETRY%G", "C", "D", "Missing"};
  ASSERT_TRUE(m.Upsert(tbw));
  ASSERT_TRUE(m.Upsert(Topic("A")));
  agree(m, "create");
  TopicConfig a = Topic("A", 2);
  a.perm = 4;  // read only: a send must see the new perm at once
  ASSERT_TRUE(m.Upsert(a));
  agree(m, "replace");
  ASSERT_TRUE(m.CreateFromTemplate("B", "TBW102", 4).has_value());
  (void)m.EnsureSystemTopic("%RETRY%G", 1);
  agree(m, "template and system topic");
  EXPECT_EQ(m.AddMissing({Topic("C"), Topic("A", 9), Topic("D")}), 2);
  agree(m, "AddMissing");
  ASSERT_TRUE(m.Delete("A"));
  ASSERT_TRUE(m.Delete("C"));
  agree(m, "delete");
  EXPECT_FALSE(m.Visit("A", [](const TopicConfig&) {}));
  ASSERT_TRUE(m.Upsert(Topic("A", 3)));  // back, in a new node
  agree(m, "re-create");
  ASSERT_OK(m.Persist());
  TopicConfigManager again(fs_, clock_, kTopics);
  ASSERT_OK(again.Load());
  agree(again, "load");
  int32_t queues = 0;
  ASSERT_TRUE(again.Visit("A", [&](const TopicConfig& c) { queues = c.write_queue_nums; }));
  EXPECT_EQ(queues, 3);
}

TEST_F(MetadataTest, GroupsUpsertDeleteAndList) {
  SubscriptionGroupManager m(fs_, clock_, kGroups);
  SubscriptionGroupConfig g = m.FindOrCreate("G");
  g.retry_max_times = 3;
  g.consume_broadcast_enable = false;
  EXPECT_TRUE(m.Upsert(g));
  EXPECT_FALSE(m.Upsert(g));
  m.FindOrCreate("H");
  ASSERT_EQ(m.List().size(), 2u);
  EXPECT_TRUE(m.Delete("H"));
  EXPECT_FALSE(m.Delete("H"));
  ASSERT_OK(m.Persist());
  SubscriptionGroupManager again(fs_, clock_, kGroups);
  ASSERT_OK(again.Load());
  ASSERT_EQ(again.List().size(), 1u);
  EXPECT_EQ(again.List()[0], g);
}

TEST_F(MetadataTest, OffsetsRoundTripWithFastjsonBareKeys) {
  Write(kOffsets, R"({"offsetTable":{"T@G":{0:5,1:7},"T2@G":{"3":9}}})");
  ConsumerOffsetManager m(fs_, clock_, kOffsets);
  ASSERT_OK(m.Load());
  EXPECT_EQ(m.Query("G", "T", 0), 5);
  EXPECT_EQ(m.Query("G", "T", 1), 7);
  EXPECT_EQ(m.Query("G", "T2", 3), 9);
  EXPECT_EQ(m.Query("G", "T", 2), -1);
  EXPECT_EQ(m.QueryAll("G", "T"), (std::map<int32_t, int64_t>{{0, 5}, {1, 7}}));
  m.Commit("G", "T", 2, 11);
  m.Commit("G", "T", 0, -1);  // ignored
  ASSERT_OK(m.Persist());
  EXPECT_EQ(Read(kOffsets), R"({"offsetTable":{"T2@G":{"3":9},"T@G":{"0":5,"1":7,"2":11}}})");
  ConsumerOffsetManager again(fs_, clock_, kOffsets);
  ASSERT_OK(again.Load());
  EXPECT_EQ(again.Query("G", "T", 2), 11);
  EXPECT_EQ(Read(std::string(kOffsets) + ".bak"),
            R"({"offsetTable":{"T@G":{0:5,1:7},"T2@G":{"3":9}}})");
}

TEST(TopicNameTest, Validity) {
  EXPECT_TRUE(IsValidTopicName("TopicA-1_x|%"));
  EXPECT_FALSE(IsValidTopicName(""));
  EXPECT_FALSE(IsValidTopicName("bad topic"));
  EXPECT_FALSE(IsValidTopicName(std::string(128, 'a')));
  EXPECT_TRUE(IsValidTopicName("%RETRY%" + std::string(200, 'a')));
}

}  // namespace
}  // namespace rocketstore::broker
