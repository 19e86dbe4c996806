// StoreHealth logs each change of the store's writability once: the reason as a word and
// the full error text (docs/observability.md, "Logs").
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <vector>

#include "io/fault_injection_file_system.h"
#include "log/log.h"
#include "store/common/store_health.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::MakeTestMessage;

StoreOptions SyncStore() {
  StoreOptions o;
  o.root_dir = "/store";
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.consume_queue_units_per_file = 1024;
  o.commit_log_segment_size = 64 * 1024;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 4096;
  o.flush_disk_type = FlushDiskType::kSyncFlush;
  o.start_background_services = false;
  return o;
}

// Sends the process's log to a file for the test and reads back the `store:` lines.
class StoreHealthLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::LogOptions o;
    o.level = log::Level::kDebug;
    o.file = dir_.path() + "/test.log";
    o.also_stderr = false;
    ASSERT_OK(log::InitLogging(o));
  }
  void TearDown() override { ASSERT_OK(log::InitLogging(log::LogOptions{})); }

  std::vector<std::string> StoreLines() {
    log::FlushLogs();
    std::ifstream in(dir_.path() + "/test.log");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (line.find("] store: ") != std::string::npos) lines.push_back(line);
    }
    return lines;
  }

  ::rocketstore::testing::TempDir dir_;
};

bool Has(const std::string& line, const std::string& part) {
  return line.find(part) != std::string::npos;
}

TEST_F(StoreHealthLogTest, StickyEioIsOneErrorLineWithTheFullText) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(SyncStore(), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());
  EXPECT_TRUE(StoreLines().empty());
  fs.FailOpsOfKind(OpKind::kSync, EIO);
  fs.FailOpsOfKind(OpKind::kMapSync, EIO);
  EXPECT_FALSE(store->PutMessage(MakeTestMessage(1).View()).ok());
  // Further refused puts and flushes are consequences: no more lines.
  for (int i = 2; i < 6; ++i) EXPECT_FALSE(store->PutMessage(MakeTestMessage(i).View()).ok());
  (void)store->RunFlushStep();
  std::vector<std::string> lines = StoreLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[0], " error ")) << lines[0];
  EXPECT_TRUE(Has(lines[0], "store: not writable reason=io_error error=\"")) << lines[0];
  EXPECT_TRUE(Has(lines[0], "Input/output error")) << lines[0];
  // The line carries the text Reason() gives, not a summary of it.
  EXPECT_TRUE(Has(lines[0], "error=\"" + store->health().Reason() + "\"")) << lines[0];

  fs.ClearFailures();
  (void)store->Close();
  lines = StoreLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[1], " info ")) << lines[1];
  EXPECT_TRUE(
      Has(lines[1], "store: not writable reason=shut_down error=\"the store is shut down\""))
      << lines[1];
}

TEST_F(StoreHealthLogTest, EnospcOnTheCommitLogWriteIsLoggedWithItsText) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(SyncStore(), fs, clock));
  fs.FailOpsOfKind(OpKind::kWrite, ENOSPC);
  EXPECT_FALSE(store->PutMessage(MakeTestMessage(0).View()).ok());
  EXPECT_FALSE(store->PutMessage(MakeTestMessage(1).View()).ok());
  const std::vector<std::string> lines = StoreLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[0], "reason=io_error")) << lines[0];
  EXPECT_TRUE(Has(lines[0], "No space left on device")) << lines[0];
  EXPECT_TRUE(Has(lines[0], "commit log write failed")) << lines[0];
  fs.ClearFailures();
}

// A full disk (the file system's own numbers, through retention's disk check) is one warn
// line however many rounds re-assert it, and one info line when space is freed.
TEST_F(StoreHealthLogTest, DiskFullIsLoggedOnceAndItsClearingOnce) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(SyncStore(), fs, clock));
  ASSERT_TRUE(store->PutMessage(MakeTestMessage(0).View()).ok());
  ASSERT_OK_AND_ASSIGN(DiskUsage usage, fs.GetDiskUsage("/store"));
  const uint64_t used = usage.total_bytes - usage.free_bytes;
  fs.SetCapacityBytes(used + used / 50);  // ~98 % used
  for (int i = 0; i < 3; ++i) ASSERT_OK(store->RunRetentionStep().status());
  ASSERT_FALSE(store->health().Writable());
  std::vector<std::string> lines = StoreLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[0], " warning ") || Has(lines[0], " warn ")) << lines[0];
  EXPECT_TRUE(Has(lines[0], "store: not writable reason=disk_full error=\"disk usage 9"))
      << lines[0];
  EXPECT_TRUE(Has(lines[0], "diskSpaceWarningLevelRatio 90%")) << lines[0];

  fs.SetCapacityBytes(used * 10);  // 10 % used
  for (int i = 0; i < 3; ++i) ASSERT_OK(store->RunRetentionStep().status());
  ASSERT_TRUE(store->health().Writable());
  lines = StoreLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[1], " info ")) << lines[1];
  EXPECT_TRUE(Has(lines[1], "store: disk full cleared writable=true")) << lines[1];
  ASSERT_OK(store->Close());
}

TEST_F(StoreHealthLogTest, ReadOnlySwitchIsOneWarnLine) {
  StoreHealth health;
  health.SetReadOnly("broker role is SLAVE");
  health.SetReadOnly("broker role is SLAVE");
  health.ClearDiskFull();  // not set: no line
  const std::vector<std::string> lines = StoreLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines[0], "store: not writable reason=read_only error=\"broker role is SLAVE\""))
      << lines[0];
}

}  // namespace
}  // namespace rocketstore
