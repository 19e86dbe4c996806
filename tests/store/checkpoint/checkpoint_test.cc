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
  // Damage anywhere in the extension (magic aside: then there is none) is corruption.
  for (int offset : {4068, 4072, 4087, 4088, 4091, 4092, 4095}) {
    page[offset] ^= 1;
    EXPECT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kCorruptExtension)
        << offset;
    EXPECT_EQ(back, format::CheckpointRecord{}) << offset;
    page[offset] ^= 1;
  }
  // A change of RocketMQ's fields alone makes the extension stale, not corrupt.
  for (int offset : {0, 7, 23, 24, 39}) {
    page[offset] ^= 1;
    EXPECT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kStaleExtension)
        << offset;
    page[offset] ^= 1;
  }
}

// What a RocketMQ 4.9.8 broker does on a store rocketstore wrote: StoreCheckpoint.flush()
// puts physicMsgTimestamp, logicsMsgTimestamp and indexMsgTimestamp at 0, 8, 16 of the
// mapped page and leaves the rest of the 4096 bytes alone.
void RewriteAsRocketMq498(uint8_t* page, int64_t physic, int64_t logics, int64_t index) {
  EncodeFixed64BE(page + 0, static_cast<uint64_t>(physic));
  EncodeFixed64BE(page + 8, static_cast<uint64_t>(logics));
  EncodeFixed64BE(page + 16, static_cast<uint64_t>(index));
}

TEST(CheckpointRecordTest, RocketMqRewriteLeavesAStaleExtensionAndItsOwnValues) {
  format::CheckpointRecord r;
  r.physic_msg_timestamp = 1700000000100;
  r.logics_msg_timestamp = 1700000000090;
  r.index_msg_timestamp = 1700000000050;
  r.durable_commit_log_offset = 8192;
  r.dispatched_commit_log_offset = 4096;
  uint8_t page[format::kCheckpointFileSize];
  format::EncodeCheckpoint(r, page);
  RewriteAsRocketMq498(page, 1700000999100, 1700000999090, 1700000999000);
  format::CheckpointRecord back;
  ASSERT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kStaleExtension);
  EXPECT_EQ(back.physic_msg_timestamp, 1700000999100);
  EXPECT_EQ(back.logics_msg_timestamp, 1700000999090);
  EXPECT_EQ(back.index_msg_timestamp, 1700000999000);
  EXPECT_EQ(back.durable_commit_log_offset, 0);  // describes an older state: not used
  EXPECT_EQ(back.dispatched_commit_log_offset, 0);
  // Rewriting the same values (a RocketMQ run that changed nothing) keeps it current.
  format::EncodeCheckpoint(r, page);
  RewriteAsRocketMq498(page, r.physic_msg_timestamp, r.logics_msg_timestamp, r.index_msg_timestamp);
  ASSERT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kWithExtension);
  EXPECT_EQ(back, r);
}

// Version 1 (one CRC over fields and extension) is still read; a mismatch stays corrupt.
TEST(CheckpointRecordTest, VersionOneExtensionIsStillRead) {
  uint8_t page[format::kCheckpointFileSize] = {};
  EncodeFixed64BE(page, 77);
  uint8_t* ext = page + format::kCheckpointExtensionOffset;
  EncodeFixed32BE(ext, format::kCheckpointExtensionMagic);
  EncodeFixed32BE(ext + 4, format::kCheckpointExtensionVersion1);
  EncodeFixed64BE(ext + 8, 4096);
  EncodeFixed64BE(ext + 16, 2048);
  EncodeFixed32BE(ext + 24, format::CheckpointCrcV1(page));
  format::CheckpointRecord back;
  ASSERT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kWithExtension);
  EXPECT_EQ(back.physic_msg_timestamp, 77);
  EXPECT_EQ(back.durable_commit_log_offset, 4096);
  EXPECT_EQ(back.dispatched_commit_log_offset, 2048);
  page[3] ^= 1;
  EXPECT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kCorruptExtension);
  page[3] ^= 1;
  EncodeFixed32BE(ext + 4, 3);  // a version we do not know
  EXPECT_EQ(format::DecodeCheckpoint(page, &back), format::CheckpointDecode::kCorruptExtension);
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

TEST(CheckpointTest, FileRewrittenByRocketMqLoadsWithRocketMqsValues) {
  FaultInjectionFileSystem fs;
  ASSERT_OK(fs.CreateDirs("/s"));
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(fs, "/s"));
  cp->SetPhysicMsgTimestamp(1700000000100);
  cp->SetLogicsMsgTimestamp(1700000000090);
  cp->SetDurableCommitLogOffset(8192);
  cp->SetDispatchedCommitLogOffset(8192);
  ASSERT_OK(cp->Flush());
  // The Java broker writes its 24 bytes in place.
  uint8_t fields[24];
  RewriteAsRocketMq498(fields, 1700000555100, 1700000555090, 1700000555000);
  {
    ASSERT_OK_AND_ASSIGN(auto f, fs.OpenFile("/s/checkpoint", OpenOptions{.writable = true}));
    ASSERT_OK(f->PWrite(0, fields, sizeof(fields)));
  }
  ASSERT_OK_AND_ASSIGN(auto again, Checkpoint::Open(fs, "/s"));
  EXPECT_EQ(again->load_state(), Checkpoint::LoadState::kStaleExtension);
  EXPECT_NE(again->LoadStateDescription().find("RocketMQ"), std::string::npos);
  const format::CheckpointRecord r = again->Get();
  EXPECT_EQ(r.physic_msg_timestamp, 1700000555100);
  EXPECT_EQ(r.logics_msg_timestamp, 1700000555090);
  EXPECT_EQ(r.index_msg_timestamp, 1700000555000);
  EXPECT_EQ(r.durable_commit_log_offset, 0);
  EXPECT_EQ(r.MinTimestamp(), 1700000555090 - 3000);  // what abnormal recovery starts from
  // Our next flush writes a current extension again.
  again->SetDurableCommitLogOffset(9000);
  ASSERT_OK(again->Flush());
  ASSERT_OK_AND_ASSIGN(auto third, Checkpoint::Open(fs, "/s"));
  EXPECT_EQ(third->load_state(), Checkpoint::LoadState::kVerified);
  EXPECT_EQ(third->Get().physic_msg_timestamp, 1700000555100);
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
