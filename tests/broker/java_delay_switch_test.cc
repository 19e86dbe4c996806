// The switch from a Java broker with a delayed message pending: a store laid out exactly as
// RocketMQ 4.9.8 leaves it — the SCHEDULE_TOPIC_XXXX record the Java broker wrote (its bytes
// as VIEW_MESSAGE_BY_ID returned them in java-4.9.8/delay.json), the record before it, the
// consume-queue units with Java's tags codes (the deliver time for the schedule queue),
// topics.json and delayOffset.json as fastjson writes them — is opened by rocketstore's
// store and broker services, and the message is delivered to its real topic at its due
// time (FakeClock), not before, as the Java broker delivered it (the pulled copy in the
// same capture).
#include <gtest/gtest.h>

#include "base/coding.h"
#include "base/crc32.h"
#include "base/java_hash.h"
#include "broker/config/delay_offset_manager.h"
#include "broker/hooks/delay_level_hook.h"
#include "broker/hooks/message_check_hook.h"
#include "broker/metadata.h"
#include "broker/schedule/schedule_delivery_service.h"
#include "broker/service/reput.h"
#include "broker/system_topics.h"
#include "broker/transaction/half_message_hook.h"
#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "java_vectors.h"
#include "store/format/consume_queue_unit.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"

namespace rocketstore::broker {
namespace {

using protocol::testing::FindFrame;
using protocol::testing::LoadFrames;

std::vector<uint8_t> BodyOf(const protocol::RemotingCommand& c) {
  std::vector<uint8_t> out;
  for (const auto& part : c.body.Parts()) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// As a 4.9.8 broker persists them (ConfigManager.persist: fastjson, pretty format).
constexpr char kJavaTopics[] = R"({
	"dataVersion":{
		"counter":3,
		"timestamp":1796158390100
	},
	"topicConfigTable":{
		"JV_delay":{
			"order":false,
			"perm":6,
			"readQueueNums":4,
			"topicFilterType":"SINGLE_TAG",
			"topicName":"JV_delay",
			"topicSysFlag":0,
			"writeQueueNums":4
		},
		"SCHEDULE_TOPIC_XXXX":{
			"order":false,
			"perm":6,
			"readQueueNums":18,
			"topicFilterType":"SINGLE_TAG",
			"topicName":"SCHEDULE_TOPIC_XXXX",
			"topicSysFlag":0,
			"writeQueueNums":18
		}
	}
})";
// Level 3 (queue 2) has delivered its unit 0; unit 1 is the pending one.
constexpr char kJavaDelayOffset[] = "{\n\t\"offsetTable\":{3:1\n\t}\n}";

class JavaDelaySwitchTest : public ::testing::Test {
 protected:
  static constexpr int64_t kSegment = 1 << 20;      // mappedFileSizeCommitLog=1048576
  static constexpr int64_t kUnitsPerFile = 300000;  // Java's default consume-queue file

  void SetUp() override {
    auto frames = LoadFrames("java-4.9.8/delay.json");
    scheduled_ = BodyOf(FindFrame(frames, "VIEW_MESSAGE_BY_ID", true).command);
    auto pulls = std::vector<std::vector<uint8_t>>{
        BodyOf(FindFrame(frames, "PULL_MESSAGE", true, 0).command),
        BodyOf(FindFrame(frames, "PULL_MESSAGE", true, 1).command)};
    warmup_ = pulls[0];
    java_delivered_ = pulls[1];
    ASSERT_EQ(scheduled_.size(), 277u);
    ASSERT_EQ(warmup_.size(), 212u);
    LayOutJavaStore();
  }

  void WriteFile(const std::string& path, std::span<const uint8_t> bytes, uint64_t size) {
    auto f = fs_.OpenFile(path, OpenOptions{.writable = true, .create = true});
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_OK((*f)->Truncate(size));
    ASSERT_OK((*f)->PWrite(0, bytes.data(), bytes.size()));
    ASSERT_OK((*f)->Sync());
  }

  // The earlier level-3 message (delivered before the switch) that fills [0, 1896).
  std::vector<uint8_t> EarlierScheduleRecord() {
    const std::string props =
        "REAL_TOPIC\x01JV_other\x02UNIQ_KEY\x01"
        "FD0000\x02"
        "DELAY\x01"
        "3\x02REAL_QID\x01"
        "0";
    format::MessageToStore m;
    m.topic = kScheduleTopic;
    m.queue_id = 2;
    m.properties = props;
    m.born_host = format::HostAddress::V4(127, 0, 0, 1, 46046);
    m.store_host = format::HostAddress::V4(127, 0, 0, 1, 20911);
    m.born_timestamp = 1796158380000;
    body_.assign(1896 - format::EncodedRecordSize(m), 'e');
    m.body = body_;
    std::vector<uint8_t> out(format::EncodedRecordSize(m));
    format::EncodeRecord(m, RocketMqCrc32(m.body), 0, 0, 1796158380001, out.data());
    return out;
  }

  void LayOutJavaStore() {
    ASSERT_OK(fs_.CreateDirs("/s/commitlog"));
    ASSERT_OK(fs_.CreateDirs("/s/config"));
    ASSERT_OK(fs_.CreateDirs("/s/consumequeue/JV_delay/1"));
    ASSERT_OK(fs_.CreateDirs("/s/consumequeue/SCHEDULE_TOPIC_XXXX/2"));
    std::vector<uint8_t> log = EarlierScheduleRecord();
    ASSERT_EQ(log.size(), 1896u);
    log.insert(log.end(), warmup_.begin(), warmup_.end());
    log.insert(log.end(), scheduled_.begin(), scheduled_.end());
    ASSERT_EQ(log.size(), 2385u);
    WriteFile("/s/commitlog/00000000000000000000", log, kSegment);
    auto units = [](std::vector<format::ConsumeQueueUnit> us) {
      std::vector<uint8_t> out(us.size() * format::kConsumeQueueUnitSize);
      for (size_t i = 0; i < us.size(); ++i) {
        format::EncodeConsumeQueueUnit(us[i], out.data() + i * format::kConsumeQueueUnitSize);
      }
      return out;
    };
    // Java's tags codes: jhash("TagA"), and for SCHEDULE_TOPIC_XXXX the deliver time (the
    // Java broker ran with 18 levels of 1s).
    WriteFile("/s/consumequeue/JV_delay/1/00000000000000000000",
              units({{PhysicalOffset(1896), 212, JavaStringHash("TagA")}}),
              kUnitsPerFile * format::kConsumeQueueUnitSize);
    WriteFile("/s/consumequeue/SCHEDULE_TOPIC_XXXX/2/00000000000000000000",
              units({{PhysicalOffset(0), 1896, 1796158380001 + 1000},
                     {PhysicalOffset(2108), 277, kStoreTimestamp + 1000}}),
              kUnitsPerFile * format::kConsumeQueueUnitSize);
    ASSERT_OK(WriteFileAtomically(fs_, "/s/config/topics.json", kJavaTopics));
    ASSERT_OK(WriteFileAtomically(fs_, "/s/config/delayOffset.json", kJavaDelayOffset));
  }

  void OpenWithBrokerServices() {
    StoreOptions o;
    o.root_dir = "/s";
    o.commit_log_segment_size = kSegment;
    o.consume_queue_units_per_file = kUnitsPerFile;
    o.reserve_chunk_bytes = 4096;
    o.prefault_window_bytes = 0;
    o.index_hash_slot_num = 256;
    o.index_num = 4096;
    o.start_background_services = false;
    o.tags_code_policy = [t = levels_](const DispatchRequest& r) { return t.TagsCode(r); };
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    ASSERT_OK(topics_.Load());
    ASSERT_OK(delay_offsets_.Load());
    pipeline_.Add(std::make_unique<MessageCheckHook>(4 << 20));
    pipeline_.Add(std::make_unique<HalfMessageHook>());
    pipeline_.Add(std::make_unique<DelayLevelHook>(levels_));
    reput_ = std::make_unique<Reputter>(*store_, pipeline_);
    reput_->set_store_host(format::HostAddress::V4(127, 0, 0, 1, 20911));
    schedule_ = std::make_unique<ScheduleDeliveryService>(levels_, *store_, *reput_, delay_offsets_,
                                                          clock_);
  }

  void Step() {
    ASSERT_OK(store_->RunDispatchStep().status());
    schedule_->RunOnce(clock_.NowMillis());
    ASSERT_OK(store_->RunDispatchStep().status());
  }

  static constexpr int64_t kStoreTimestamp = 1796158392297;  // of the Java schedule record
  FakeClock clock_{kStoreTimestamp + 200};
  FaultInjectionFileSystem fs_{clock_};
  const DelayLevelTable levels_ =
      *DelayLevelTable::Parse("1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s");
  std::vector<uint8_t> scheduled_, warmup_, java_delivered_;
  std::string body_;
  TopicConfigManager topics_{fs_, clock_, "/s/config/topics.json"};
  DelayOffsetManager delay_offsets_{fs_, clock_, "/s/config/delayOffset.json"};
  PutPipeline pipeline_;
  std::unique_ptr<MessageStore> store_;
  std::unique_ptr<Reputter> reput_;
  std::unique_ptr<ScheduleDeliveryService> schedule_;
};

TEST_F(JavaDelaySwitchTest, PendingJavaDelayIsDeliveredAtItsTimeNotBefore) {
  OpenWithBrokerServices();
  ASSERT_TRUE(topics_.Find("JV_delay").has_value());
  EXPECT_EQ(delay_offsets_.Query(3), 1);
  // The store took Java's files as they are.
  EXPECT_EQ(store_->MaxPhysicalOffset().value(), 2385);
  ASSERT_OK_AND_ASSIGN(auto units, store_->GetQueueUnits(kScheduleTopic, 2, QueueOffset(0), 10));
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[1].offset.value(), 2108);
  EXPECT_EQ(units[1].tags_code, kStoreTimestamp + 1000);
  const auto level3 = schedule_->Levels()[2];
  EXPECT_EQ(level3.next_offset, 1) << "continues where the Java broker stopped";

  clock_.SetMillis(kStoreTimestamp + 999);
  Step();
  EXPECT_EQ(store_->GetMaxOffsetInQueue("JV_delay", 2).value(), 0) << "not before its time";
  EXPECT_EQ(schedule_->Levels()[2].next_due_ms, kStoreTimestamp + 1000);

  clock_.SetMillis(kStoreTimestamp + 1000);
  Step();
  EXPECT_EQ(schedule_->delivered(), 1u);
  EXPECT_EQ(store_->GetMaxOffsetInQueue("JV_delay", 2).value(), 1);
  EXPECT_EQ(store_->GetMaxOffsetInQueue("JV_other", 0).value(), 0) << "unit 0 was delivered";
  GetMessageRequest g;
  g.topic = "JV_delay";
  g.queue_id = 2;
  g.offset = QueueOffset(0);
  GetMessageResult got = store_->GetMessage(g);
  ASSERT_EQ(got.messages.size(), 1u);
  format::DecodeResult ours = format::DecodeRecord(got.messages[0].bytes, true);
  format::DecodeResult java = format::DecodeRecord(java_delivered_, true);
  ASSERT_EQ(ours.outcome, format::DecodeOutcome::kRecord);
  ASSERT_EQ(java.outcome, format::DecodeOutcome::kRecord);
  // As the Java broker delivered it: same topic, queue, queue offset, physical offset
  // (the log ended where Java's did), body, flag, born time and host, and the very same
  // properties string (DELAY, REAL_TOPIC and REAL_QID kept).
  EXPECT_EQ(ours.record.topic, java.record.topic);
  EXPECT_EQ(ours.record.queue_id, java.record.queue_id);
  EXPECT_EQ(ours.record.queue_offset, java.record.queue_offset);
  EXPECT_EQ(ours.record.physical_offset, java.record.physical_offset);
  EXPECT_EQ(ours.record.body, java.record.body);
  EXPECT_EQ(ours.record.properties, java.record.properties);
  EXPECT_EQ(ours.record.born_timestamp, java.record.born_timestamp);
  EXPECT_EQ(ours.record.sys_flag, java.record.sys_flag);
  EXPECT_EQ(ours.record.total_size, java.record.total_size);
  ASSERT_OK_AND_ASSIGN(auto real, store_->GetQueueUnits("JV_delay", 2, QueueOffset(0), 1));
  EXPECT_EQ(real[0].tags_code, JavaStringHash("TagA"));

  ASSERT_OK(store_->RunFlushStep());
  Step();
  EXPECT_EQ(delay_offsets_.Query(3), 2);
  ASSERT_OK(delay_offsets_.Persist());
  ASSERT_OK_AND_ASSIGN(std::string file, fs_.ReadDurableFile("/s/config/delayOffset.json"));
  EXPECT_EQ(file, R"({"offsetTable":{3:2}})");
}

}  // namespace
}  // namespace rocketstore::broker
