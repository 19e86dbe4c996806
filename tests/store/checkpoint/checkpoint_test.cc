#include "store/checkpoint/checkpoint.h"

#include <gtest/gtest.h>

#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

TEST(CheckpointRecordTest, RocketMqFieldsAtTheirOffsets) {
  format::CheckpointRecord r;
  r.physic_msg_timestamp = 1700000000123;
  r.logics_msg_timestamp = 1700000000100;
  r.index_msg_timestamp = 1700000000000;
  uint8_t page[format::kCheckpointFileSize];
  format::EncodeCheckpoint(r, page);
  EXPECT_EQ(DecodeInt64BE(page + 0), 1700000000123);
  EXPECT_EQ(DecodeInt64BE(page + 8), 1700000000100);
  EXPECT_EQ(DecodeInt64BE(page + 16), 1700000000000);
  for (int i = 40; i < 4064; ++i) ASSERT_EQ(page[i], 0) << i;  // RocketMQ's zero area
  EXPECT_EQ(r.MinTimestamp(), 1700000000100 - 3000);
}

TEST(CheckpointRecordTest, ExtensionCrcDetectsDamage) {
  format::CheckpointRecord r;
  r.physic_msg_timestamp = 5;
  r.durable_commit_log_offset = 4096;
  uint8_t page[format::kCheckpointFileSize];
  format::EncodeCheckpoint(r, page);
  format::CheckpointRecord back;
  ASSERT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kWithExtension);
  EXPECT_EQ(back, r);
  for (int offset : {0, 7, 39, 4072, 4087}) {
    page[offset] ^= 1;
    EXPECT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kCorruptExtension)
        << offset;
    page[offset] ^= 1;
  }
}

TEST(CheckpointRecordTest, FileWithoutExtensionIsRocketMqs) {
  uint8_t page[format::kCheckpointFileSize] = {};
  EncodeFixed64BE(page, 1700000000123);
  format::CheckpointRecord back;
  ASSERT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kRocketMqOnly);
  EXPECT_EQ(back.physic_msg_timestamp, 1700000000123);
  EXPECT_EQ(back.durable_commit_log_offset, 0);
}

TEST(CheckpointTest, FlushIsAtomicAndReloads) {
  FaultInjectionFileSystem fs;
  ASSERT_OK(fs.CreateDirs("/s"));
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(fs, "/s"));
  EXPECT_EQ(cp->load_state(), Checkpoint::LoadState::kMissing);
  cp->SetPhysicMsgTimestamp(11);
  cp->SetDurableCommitLogOffset(4096);
  ASSERT_OK(cp->Flush());
  EXPECT_FALSE(fs.Exists("/s/checkpoint.tmp"));
  ASSERT_OK(fs.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs.Reboot());
  ASSERT_OK_AND_ASSIGN(auto again, Checkpoint::Open(fs, "/s"));
  EXPECT_EQ(again->load_state(), Checkpoint::LoadState::kVerified);
  EXPECT_EQ(again->Get().physic_msg_timestamp, 11);
  EXPECT_EQ(again->Get().durable_commit_log_offset, 4096);
}

TEST(CheckpointTest, CrashAtEveryStepOfFlushLeavesOldOrNew) {
  for (uint64_t k = 1; k <= 8; ++k) {
    FaultInjectionFileSystem fs;
    ASSERT_OK(fs.CreateDirs("/s"));
    ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(fs, "/s"));
    cp->SetPhysicMsgTimestamp(1);
    ASSERT_OK(cp->Flush());
    cp->SetPhysicMsgTimestamp(2);
    fs.CrashAtOp(k, CrashMode::kPowerLoss);
    Status s = cp->Flush();
    if (!fs.crashed()) ASSERT_OK(fs.CrashNow(CrashMode::kPowerLoss));
    ASSERT_OK(fs.Reboot());
    ASSERT_OK_AND_ASSIGN(auto again, Checkpoint::Open(fs, "/s"));
    EXPECT_EQ(again->load_state(), Checkpoint::LoadState::kVerified) << "crash at op " << k;
    const int64_t v = again->Get().physic_msg_timestamp;
    EXPECT_TRUE(v == 1 || v == 2) << v;
  }
}

TEST(CheckpointTest, WrongSizeIsCorruptNotFatal) {
  FaultInjectionFileSystem fs;
  ASSERT_OK(fs.CreateDirs("/s"));
  OpenOptions oo;
  oo.create = oo.writable = true;
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile("/s/checkpoint", oo));
  ASSERT_OK(f->PWrite(0, "short", 5));
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(fs, "/s"));
  EXPECT_EQ(cp->load_state(), Checkpoint::LoadState::kCorrupt);
  EXPECT_EQ(cp->Get().physic_msg_timestamp, 0);
}

TEST(StoreLockTest, SecondLockFailsWithAClearMessage) {
  FaultInjectionFileSystem fs;
  ASSERT_OK(fs.CreateDirs("/s"));
  ASSERT_OK_AND_ASSIGN(auto lock, LockStoreDirectory(fs, "/s"));
  auto second = LockStoreDirectory(fs, "/s");
  EXPECT_THAT(second, StatusIs(StatusCode::kAlreadyExists));
  EXPECT_NE(second.status().message().find("another"), std::string::npos);
  lock.reset();
  EXPECT_OK(LockStoreDirectory(fs, "/s").status());
}

}  // namespace
}  // namespace rocketstore
