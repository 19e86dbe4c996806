// The WAIT property in stored records, against the records the Java 4.9.8 broker stored
// for the same client frames: SendMessageProcessor leaves the producer's WAIT out of the
// stored properties string but keeps it in the message's map, so a plain record has none
// (order-lock.json) while a delayed one, whose string CommitLog builds again from the map,
// has WAIT=true in HashMap order — in SCHEDULE_TOPIC_XXXX and once delivered (delay.json).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "admin_a_fixture.h"
#include "store/format/message_id.h"
#include "store/format/message_record.h"

namespace rocketstore::admin_a_test {
namespace {

class JavaWaitPropertyTest : public AdminATest {
 protected:
  void Configure(broker::BrokerOptions& bo) override {
    // As the capture's Java broker.
    bo.message_delay_level = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";
  }

  // The properties string of the record in a captured VIEW/PULL body.
  static std::string PropertiesOf(const RemotingCommand& c) {
    const std::vector<uint8_t> body = c.body.Flatten();
    format::DecodeResult d = format::DecodeRecord(body, true);
    EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
    return std::string(d.record.properties);
  }
  // The properties string of our record at the offset msg id `msg_id`.
  std::string StoredProperties(std::string_view msg_id) {
    auto id = format::DecodeOffsetMsgId(msg_id);
    EXPECT_TRUE(id.ok()) << msg_id;
    if (!id.ok()) return "";
    auto bytes = broker_->store().ReadRecord(PhysicalOffset(id->physical_offset));
    EXPECT_TRUE(bytes.ok());
    if (!bytes.ok()) return "";
    format::DecodeResult d = format::DecodeRecord(bytes->bytes, true);
    EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord) << d.error;
    return std::string(d.record.properties);
  }
  // The properties of the records of `topic`:`queue`, waiting up to 30 s for `n` of them.
  std::vector<std::string> QueueProperties(const std::string& topic, int32_t queue, size_t n) {
    std::vector<std::string> out;
    for (int i = 0; i < 3000; ++i) {
      GetMessageRequest g;
      g.topic = topic;
      g.queue_id = queue;
      g.offset = QueueOffset(0);
      g.max_msg_nums = 32;
      GetMessageResult r = broker_->store().GetMessage(g);
      out.clear();
      for (const CommitLogBytes& m : r.messages) {
        out.emplace_back(format::DecodeRecord(m.bytes, true).record.properties);
      }
      if (out.size() >= n) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return out;
  }
};

std::string Printable(std::string s) {
  for (char& c : s) c = c == '\x01' ? '=' : c == '\x02' ? ';' : c;
  return s;
}

TEST_F(JavaWaitPropertyTest, PlainSendIsStoredWithoutWaitAsJavaStoredIt) {
  const auto frames = protocol::testing::LoadFrames("java-4.9.8/order-lock.json");
  const RemotingCommand& send =
      protocol::testing::FindFrame(frames, "SEND_MESSAGE_V2", false).command;
  ASSERT_NE(send.FindField("i").value_or("").find("WAIT\x01true"), std::string::npos);
  CreateTopic("JV_order", 4);
  RemotingCommand r = Call(send);
  ASSERT_EQ(r.code, 0) << Remark(r);
  const std::string java =
      PropertiesOf(protocol::testing::FindFrame(frames, "PULL_MESSAGE", true).command);
  EXPECT_EQ(Printable(StoredProperties(r.FindField("msgId").value_or(""))), Printable(java));
}

TEST_F(JavaWaitPropertyTest, DelayedSendKeepsWaitInTheScheduleRecordAndTheDeliveredOne) {
  const auto frames = protocol::testing::LoadFrames("java-4.9.8/delay.json");
  CreateTopic("JV_delay", 4);
  RemotingCommand r = Call(protocol::testing::FindFrame(frames, "SEND_MESSAGE_V2", false).command);
  ASSERT_EQ(r.code, 0) << Remark(r);
  const std::string java_scheduled =
      PropertiesOf(protocol::testing::FindFrame(frames, "VIEW_MESSAGE_BY_ID", true).command);
  ASSERT_NE(java_scheduled.find("WAIT\x01true"), std::string::npos);
  EXPECT_EQ(Printable(StoredProperties(r.FindField("msgId").value_or(""))),
            Printable(java_scheduled));

  // Delivered (1 s later) to JV_delay queue 2, as the Java consumer pulled it.
  std::string java_delivered;
  for (size_t i = 0; i < 2; ++i) {
    const std::string p =
        PropertiesOf(protocol::testing::FindFrame(frames, "PULL_MESSAGE", true, i).command);
    if (p.find("DELAY") != std::string::npos) java_delivered = p;
  }
  ASSERT_FALSE(java_delivered.empty());
  const std::vector<std::string> ours = QueueProperties("JV_delay", 2, 1);
  ASSERT_EQ(ours.size(), 1u);
  EXPECT_EQ(Printable(ours[0]), Printable(java_delivered));
}

}  // namespace
}  // namespace rocketstore::admin_a_test
