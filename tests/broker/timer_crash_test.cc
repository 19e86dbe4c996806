// Crash points through the fault-injecting file system: the scenario (timers sent, the
// dispatcher, the timer service, flushes and checkpoints stepped by hand) is cut by a
// process crash or a power loss at every k-th file-system op — so before and after the
// bucket appends and syncs, the `filed` mark, the progress write and the re-puts. After
// the restart every acknowledged timer (under power loss: every one whose record was
// durable) is delivered, and a timer is delivered twice only if its time was after the
// persisted progress.
#include <gtest/gtest.h>

#include "io/atomic_file.h"
#include "timer/timer_format.h"
#include "timer_fixture.h"

namespace rocketstore::broker {
namespace {

using testing::kT0;
using testing::TimerFixture;

constexpr int64_t kFar = 11 * 60 * 1000;  // level 1 at send time

class TimerCrashTest : public TimerFixture, public ::testing::WithParamInterface<CrashMode> {
 protected:
  struct Sent {
    std::string uniq;
    int64_t offset = 0;
  };

  // Runs the scenario; returns the timers acknowledged before the crash.
  std::vector<Sent> Scenario() {
    std::vector<Sent> sent;
    for (int step = 0; step < 30 && !fs_.crashed(); ++step) {
      if (step < 8) {
        const std::string uniq = "m" + std::to_string(step);
        const int64_t at = step == 5 ? kT0 + kFar : clock_.NowMillis() + 300 + step * 170;
        SendResult r = SendAt(uniq, at, step % 2);
        if (r.stored() && !fs_.crashed()) {
          auto id = format::DecodeOffsetMsgId(r.msg_id);
          EXPECT_TRUE(id.ok());
          if (id.ok()) sent.push_back({uniq, id->physical_offset});
        }
      }
      clock_.AdvanceMillis(100);
      Step().IgnoreError();
      if (step % 3 == 2) store_->RunFlushStep().IgnoreError();  // re-puts durable later
      if (step % 4 == 3) store_->RunConsumeQueueFlushStep(true).IgnoreError();  // checkpoint
    }
    return sent;
  }
};

TEST_P(TimerCrashTest, EveryAckedTimerIsDeliveredAfterACrashAtAnyOp) {
  const CrashMode mode = GetParam();
  // Count the scenario's ops once, uncut.
  root_ = "/count";
  clock_.SetMillis(kT0);
  ASSERT_NO_FATAL_FAILURE(OpenStore());
  const uint64_t base = fs_.op_count();
  Scenario();
  const uint64_t total = fs_.op_count() - base;
  ASSERT_GT(total, 50u);
  const uint64_t stride = std::max<uint64_t>(1, total / 60);
  int crashes = 0;
  for (uint64_t n = 1; n <= total + 1; n += stride) {
    SCOPED_TRACE("crash at op " + std::to_string(n) + " of " + std::to_string(total));
    root_ = "/s" + std::to_string(n);
    clock_.SetMillis(kT0);
    ASSERT_NO_FATAL_FAILURE(OpenStore());
    fs_.CrashAtOp(n, mode);
    std::vector<Sent> sent = Scenario();
    if (!fs_.crashed()) ASSERT_OK(fs_.CrashNow(mode));
    ++crashes;
    const int64_t durable = store_->commit_log().FlushedOffset().value();
    ASSERT_OK(fs_.Reboot());
    int64_t persisted_through = INT64_MIN;
    if (auto bytes = ReadWholeFile(fs_, root_ + "/timer/progress"); bytes.ok()) {
      ASSERT_OK_AND_ASSIGN(timer::StateRecord p, timer::DecodeState(*bytes));
      persisted_through = p.a;
    }
    ASSERT_NO_FATAL_FAILURE(OpenStore());
    RunFor(3000);
    clock_.SetMillis(kT0 + kFar - 10000);
    RunFor(12000, 500);
    std::map<std::string, int> counts;
    std::map<std::string, int64_t> out_ms;
    for (const Delivered& d : DeliveredToT()) {
      ++counts[d.uniq];
      out_ms[d.uniq] =
          timer::ParseLong(format::FindProperty(d.properties, "TIMER_OUT_MS").value_or("0"))
              .value_or(0);
    }
    for (const Sent& s : sent) {
      if (mode == CrashMode::kPowerLoss && s.offset >= durable) continue;  // not durable
      EXPECT_GE(counts[s.uniq], 1) << s.uniq << " acknowledged but never delivered";
    }
    for (const auto& [uniq, c] : counts) {
      EXPECT_LE(c, 2) << uniq;
      if (c > 1) {
        EXPECT_GT(out_ms[uniq], persisted_through)
            << uniq << " delivered again although the persisted progress covered it";
      }
    }
  }
  EXPECT_GT(crashes, 30);
}

INSTANTIATE_TEST_SUITE_P(ProcessCrashAndPowerLoss, TimerCrashTest,
                         ::testing::Values(CrashMode::kProcessCrash, CrashMode::kPowerLoss),
                         [](const auto& info) {
                           return info.param == CrashMode::kPowerLoss ? std::string("PowerLoss")
                                                                      : std::string("Process");
                         });

}  // namespace
}  // namespace rocketstore::broker
