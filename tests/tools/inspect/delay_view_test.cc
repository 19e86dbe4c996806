// `rocketstore inspect delay` on a store with SCHEDULE_TOPIC_XXXX queues (tags code =
// deliver time, as the broker writes them) and a fastjson delayOffset.json.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "io/atomic_file.h"
#include "io/fault_injection_file_system.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "tools/inspect/inspect.h"

namespace rocketstore::tools::inspect {
namespace {

using ::testing::HasSubstr;

std::pair<int, std::string> RunView(FileSystem& fs, bool json) {
  char* buf = nullptr;
  size_t len = 0;
  char* ebuf = nullptr;
  size_t elen = 0;
  std::FILE* out = open_memstream(&buf, &len);
  std::FILE* err = open_memstream(&ebuf, &elen);
  const InspectOptions o{.store_dir = std::string("/s"), .json = json};
  const int rc = RunDelay(fs, o, out, err);
  std::fclose(out);
  std::fclose(err);
  std::string text(buf, len);
  text += std::string(ebuf, elen);
  std::free(buf);
  std::free(ebuf);
  return {rc, text};
}

class DelayViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o;
    o.root_dir = "/s";
    o.commit_log_segment_size = 1 << 20;
    o.consume_queue_units_per_file = 64;
    o.reserve_chunk_bytes = 4096;
    o.prefault_window_bytes = 0;
    o.index_hash_slot_num = 64;
    o.index_num = 256;
    o.start_background_services = false;
    o.tags_code_policy = [](const DispatchRequest& r) { return r.store_timestamp + 5000; };
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    for (int i = 0; i < 3; ++i) {
      format::MessageToStore m;
      m.topic = "SCHEDULE_TOPIC_XXXX";
      m.queue_id = 1;  // level 2
      m.body = "b";
      m.properties =
          "DELAY\x01"
          "2\x02REAL_TOPIC\x01T\x02REAL_QID\x01"
          "0";
      m.born_host = m.store_host = format::HostAddress::V4(127, 0, 0, 1, 1);
      ASSERT_TRUE((*s)->PutMessage(m).ok());
      clock_.AdvanceMillis(10);
    }
    ASSERT_OK((*s)->RunDispatchStep().status());
    ASSERT_OK((*s)->Close());
  }
  FakeClock clock_{1700000000000};
  FaultInjectionFileSystem fs_{clock_};
};

TEST_F(DelayViewTest, BadDelayOffsetFileIsAnError) {
  ASSERT_OK(fs_.CreateDirs("/s/config"));
  ASSERT_OK(WriteFileAtomically(fs_, "/s/config/delayOffset.json", R"({"offsetTable":{x:1}})"));
  auto [rc, text] = RunView(fs_, false);
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(text, HasSubstr("delayOffset.json"));
}

TEST_F(DelayViewTest, PendingAndNextDueFromTheProgressFile) {
  ASSERT_OK(fs_.CreateDirs("/s/config"));
  ASSERT_OK(
      WriteFileAtomically(fs_, "/s/config/delayOffset.json", "{\"offsetTable\":{2:1,\"5\":0}}"));
  auto [rc, text] = RunView(fs_, true);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_EQ(text,
            "{\"level\":2,\"queue\":1,\"minOffset\":0,\"maxOffset\":3,\"delayOffset\":1,"
            "\"pending\":2,\"nextDueMs\":1700000005010}\n");
  auto [rc2, table] = RunView(fs_, false);
  ASSERT_EQ(rc2, 0);
  EXPECT_THAT(table, HasSubstr("(no queue files)"));
}

TEST_F(DelayViewTest, NoProgressFileMeansEverythingPending) {
  auto [rc, text] = RunView(fs_, true);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_THAT(text, HasSubstr("\"delayOffset\":null,\"pending\":3,\"nextDueMs\":1700000005000"));
}

}  // namespace
}  // namespace rocketstore::tools::inspect
