// Retention settings changed at run time through UPDATE_BROKER_CONFIG (25), as mqadmin
// updateBrokerConfig sends them: the broker's next retention round uses them. A real
// broker on a fake clock (its segments' mtimes are the real ones; the fake clock runs two
// hours ahead) with a fake disk-usage source; the retention thread is idle
// (cleanResourceInterval 1 h) and the rounds are run by hand (MessageStore::
// RunRetentionStep), so what each deletes is decided by the settings alone.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <string>
#include <thread>

#include "base/clock.h"
#include "broker/broker.h"
#include "io/posix_file_system.h"
#include "net/remoting_client.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::ToInt;

int64_t RealNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int LocalHourOf(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm local{};
  localtime_r(&t, &local);
  return local.tm_hour;
}

class RetentionConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    broker::BrokerOptions bo;
    bo.server.port = 0;
    bo.broker_name = "broker-r";
    bo.store.root_dir = dir_.path() + "/store";
    bo.store.commit_log_segment_size = 4096;
    bo.store.consume_queue_units_per_file = 10;
    bo.store.index_hash_slot_num = 100;
    bo.store.index_num = 400;
    bo.store.disk_usage = [this](const std::string&) -> Result<double> { return usage_.load(); };
    // The retention thread stays idle: the rounds below are the only ones.
    bo.store.retention_interval_ms = 3600 * 1000;
    bo.config_file_path = dir_.path() + "/broker.conf";
    broker_ = std::make_unique<broker::Broker>(bo, PosixFileSystem::Default(), clock_);
    ASSERT_TRUE(broker_->Start().ok());
    ASSERT_TRUE(client_.Connect("127.0.0.1:" + std::to_string(broker_->port())).ok());
    // Two hours ahead of the files' real mtimes, and never at the default delete hour 04.
    if (LocalHourOf(clock_.NowMillis()) == 4) clock_.AdvanceMillis(3600 * 1000);
    ASSERT_NE(LocalHourOf(clock_.NowMillis()), 4);
  }
  void TearDown() override {
    client_.Close();
    EXPECT_TRUE(broker_->Stop().ok());
  }

  RemotingCommand Update(const std::string& properties) {
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUpdateBrokerConfig);
    req.body.Assign(properties);
    auto r = client_.Invoke(std::move(req), 10000);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(r).value() : RemotingCommand{};
  }
  std::string ConfigText() {
    auto r = client_.Invoke(protocol::MakeRequest(RequestCode::kGetBrokerConfig), 10000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? std::string(r->body.owned_text()) : "";
  }
  // Puts messages until the commit log has at least `segments` segments; dispatched.
  void Fill(size_t segments) {
    broker::TopicConfig t;
    t.name = "RET_T";
    t.read_queue_nums = t.write_queue_nums = 1;
    broker_->topics().Upsert(t);
    MessageStore& store = broker_->store();
    for (int i = 0; store.commit_log().segments().file_count() < segments; ++i) {
      testing::TestMessage m = testing::MakeTestMessage(next_++, 1);
      m.topic = "RET_T";
      ASSERT_TRUE(store.PutMessage(m.View()).ok());
    }
    for (int i = 0; i < 1000 && store.DispatchBehindBytes() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  RetentionReport Step() {
    auto r = broker_->store().RunRetentionStep();
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RetentionReport{};
  }
  std::string HourNow() {
    const int h = LocalHourOf(clock_.NowMillis());
    return (h < 10 ? "0" : "") + std::to_string(h);
  }
  std::string OtherHour() {
    const int h = (LocalHourOf(clock_.NowMillis()) + 12) % 24;
    return (h < 10 ? "0" : "") + std::to_string(h);
  }

  FakeClock clock_{RealNowMillis() + 2 * 3600 * 1000};
  std::atomic<double> usage_{0.50};
  testing::TempDir dir_;
  std::unique_ptr<broker::Broker> broker_;
  net::RemotingClient client_;
  int next_ = 0;
};

TEST_F(RetentionConfigTest, DeleteWhenAndFileReservedTimeTakeEffectAtTheNextRound) {
  Fill(6);
  // Defaults (72 h, 04, 75 %): nothing triggers.
  RetentionReport r = Step();
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "no trigger");

  // The delete hour is now: triggered, but two-hour-old segments are not 72 h old.
  ASSERT_EQ(Update("deleteWhen=" + HourNow() + "\n").code, 0);
  r = Step();
  EXPECT_TRUE(r.time_up);
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "not expired");

  // One hour reserved: the two-hour-old segments go (never the active one).
  ASSERT_EQ(Update("fileReservedTime=1\n").code, 0);
  r = Step();
  EXPECT_GE(r.deleted_segments.size(), 4u);
  EXPECT_GT(broker_->store().MinPhysicalOffset().value(), 0);
  const std::string text = ConfigText();
  EXPECT_NE(text.find("fileReservedTime=1\n"), std::string::npos);
  EXPECT_NE(text.find("deleteWhen=" + HourNow() + "\n"), std::string::npos);
}

TEST_F(RetentionConfigTest, DiskRatiosAndBatchMaxTakeEffectAtTheNextRound) {
  Fill(8);
  ASSERT_EQ(Update("fileReservedTime=1\ndeleteWhen=" + OtherHour() + "\n").code, 0);
  EXPECT_TRUE(Step().deleted_segments.empty());  // 50 % used, ratio 75: no trigger

  // Disk above diskMaxUsedSpaceRatio: expired segments go at any hour, batchMax per round.
  ASSERT_EQ(Update("diskMaxUsedSpaceRatio=40\ndeleteFileBatchMax=2\n").code, 0);
  RetentionReport r = Step();
  EXPECT_TRUE(r.space_full);
  EXPECT_EQ(r.deleted_segments.size(), 2u);
  EXPECT_EQ(r.stop_reason, "batch max");

  // Above the (lowered) forced ratio even fresh segments go, unless cleaning at once is off.
  ASSERT_EQ(Update("fileReservedTime=72\ndiskSpaceCleanForciblyRatio=45\n"
                   "cleanFileForciblyEnable=false\n")
                .code,
            0);
  r = Step();
  EXPECT_TRUE(r.clean_immediately);
  EXPECT_TRUE(r.deleted_segments.empty());
  EXPECT_EQ(r.stop_reason, "not expired");
  ASSERT_EQ(Update("cleanFileForciblyEnable=true\n").code, 0);
  r = Step();
  EXPECT_EQ(r.deleted_segments.size(), 2u);

  // diskSpaceWarningLevelRatio: above it the store refuses writes (DISK_FULL) ...
  ASSERT_EQ(Update("diskSpaceWarningLevelRatio=48\n").code, 0);
  r = Step();
  EXPECT_TRUE(r.disk_full);
  EXPECT_FALSE(broker_->store().health().Writable());
  // ... and takes them again once the ratio is back above the usage.
  ASSERT_EQ(Update("diskSpaceWarningLevelRatio=90\ndiskSpaceCleanForciblyRatio=85\n").code, 0);
  r = Step();
  EXPECT_FALSE(r.disk_full);
  EXPECT_TRUE(broker_->store().health().Writable());
}

TEST_F(RetentionConfigTest, BadValuesAndOtherKeysAreRefusedWithTheKeyNamed) {
  const RetentionOptions before = broker_->store().retention_options();
  for (const char* bad : {"deleteWhen=25", "fileReservedTime=-2", "diskMaxUsedSpaceRatio=99",
                          "deleteFileBatchMax=0", "diskSpaceWarningLevelRatio=20"}) {
    RemotingCommand r = Update(std::string(bad) + "\n");
    EXPECT_EQ(r.code, ToInt(ResponseCode::kInvalidParameter)) << bad;
    const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
    EXPECT_NE(r.remark.value_or("").find(key), std::string::npos) << r.remark.value_or("");
  }
  // A key the store cannot apply live: the whole update is refused, nothing applied.
  RemotingCommand r = Update("fileReservedTime=5\nflushDiskType=SYNC_FLUSH\n");
  EXPECT_EQ(r.code, ToInt(ResponseCode::kNoPermission));
  EXPECT_NE(r.remark.value_or("").find("'flushDiskType'"), std::string::npos);
  const RetentionOptions after = broker_->store().retention_options();
  EXPECT_EQ(after.file_reserved_time_ms, before.file_reserved_time_ms);
  EXPECT_EQ(after.delete_when, before.delete_when);
  EXPECT_EQ(after.disk_max_used_space_ratio, before.disk_max_used_space_ratio);
}

}  // namespace
}  // namespace rocketstore
