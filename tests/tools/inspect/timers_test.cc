// `rocketstore inspect timers` over a timer directory written by TimerIndex.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"
#include "timer/timer_index.h"
#include "tools/inspect/inspect.h"

namespace rocketstore::tools::inspect {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kDay = 86400 * 1000;

std::pair<int, std::string> RunInspectTimers(FileSystem& fs, bool json) {
  char* buf = nullptr;
  size_t len = 0;
  char* ebuf = nullptr;
  size_t elen = 0;
  std::FILE* out = open_memstream(&buf, &len);
  std::FILE* err = open_memstream(&ebuf, &elen);
  InspectOptions o;
  o.store_dir = "/store";
  o.json = json;
  const int rc = RunTimers(fs, o, out, err);
  std::fclose(out);
  std::fclose(err);
  std::string s(buf, len);
  std::free(buf);
  std::free(ebuf);
  return {rc, s};
}

TEST(InspectTimersTest, NoTimerDirectoryIsNotAnError) {
  FakeClock clock(kT0);
  FaultInjectionFileSystem fs(clock);
  EXPECT_EQ(RunInspectTimers(fs, false).first, 0);
}

TEST(InspectTimersTest, CountsNextDueAndPerDayHistogram) {
  FakeClock clock(kT0);
  FaultInjectionFileSystem fs(clock);
  timer::TimerIndexOptions o;
  o.dir = "/store/timer";
  timer::TimerIndex index(fs, clock, o);
  ASSERT_OK(index.PrepareRecovery());
  SinkRecoveryContext ctx;
  ASSERT_OK(index.Recover(ctx).status());
  const int64_t times[] = {kT0 + 5000, kT0 + 2 * kDay, kT0 + 2 * kDay + 1000, kT0 + 300 * kDay};
  int64_t off = 0;
  std::vector<std::string> props;
  for (int64_t t : times) props.push_back("TIMER_OUT_MS\x01" + std::to_string(t) + "\x02");
  for (const std::string& p : props) {
    DispatchRequest r;
    r.topic = "rmq_sys_wheel_timer";
    r.commit_log_offset = PhysicalOffset(off);
    r.size = 100;
    r.properties = p;
    off += 100;
    ASSERT_OK(index.Dispatch(r));
  }
  auto [rc, text] = RunInspectTimers(fs, false);
  EXPECT_EQ(rc, 0);
  EXPECT_THAT(text, HasSubstr("4 pending timer(s)"));
  auto [jrc, json] = RunInspectTimers(fs, true);
  EXPECT_EQ(jrc, 0);
  EXPECT_THAT(json, HasSubstr("\"pending\":4"));
  EXPECT_THAT(json, HasSubstr("\"nextDueMs\":" + std::to_string(kT0 + 5000)));
  const int64_t day2 = (kT0 + 2 * kDay) / kDay * kDay;
  EXPECT_THAT(json, HasSubstr("{\"type\":\"timerDay\",\"dayStartMs\":" + std::to_string(day2) +
                              ",\"pending\":2}"));
  EXPECT_THAT(json, HasSubstr("\"type\":\"timerBucket\",\"level\":2"));
}

}  // namespace
}  // namespace rocketstore::tools::inspect
