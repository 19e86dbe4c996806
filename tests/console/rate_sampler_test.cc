// RateSampler as a step function under a fake clock: counters become rates, gauges are
// kept as they are, vanished names are dropped, the ring and the series count are bounded.
#include "console/rate_sampler.h"

#include <gtest/gtest.h>

#include "base/clock.h"

namespace rocketstore::console {
namespace {

TEST(RateSamplerTest, FirstCounterReadingHasNoRateYet) {
  std::map<std::string, Reading> now = {{"put:T", {100, Reading::Kind::kCounter}}};
  RateSampler s([&] { return now; });
  s.RunOnce(1000);
  EXPECT_TRUE(s.Series("put:T").empty());
  EXPECT_EQ(s.Latest("put:T"), 0);
}

TEST(RateSamplerTest, CounterBecomesRatePerSecond) {
  FakeClock clock(10000);
  std::map<std::string, Reading> now = {{"put:T", {100, Reading::Kind::kCounter}}};
  RateSampler s([&] { return now; });
  s.RunOnce(clock.NowMillis());
  clock.AdvanceMillis(2000);
  now["put:T"].value = 300;  // 200 in 2 s
  s.RunOnce(clock.NowMillis());
  auto series = s.Series("put:T");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].time_ms, 12000);
  EXPECT_DOUBLE_EQ(series[0].value, 100.0);
  // A counter that goes down (topic re-created) restarts at 0/s, never negative.
  clock.AdvanceMillis(1000);
  now["put:T"].value = 5;
  s.RunOnce(clock.NowMillis());
  EXPECT_DOUBLE_EQ(s.Latest("put:T"), 0.0);
  // The same time again adds no sample (no division by zero).
  s.RunOnce(clock.NowMillis());
  EXPECT_EQ(s.Series("put:T").size(), 2u);
}

TEST(RateSamplerTest, GaugeKeepsValuesAndRingIsBounded) {
  int64_t lag = 0;
  RateSampler s(
      [&] {
        return std::map<std::string, Reading>{{"lag:G", {lag, Reading::Kind::kGauge}}};
      },
      /*capacity=*/3);
  for (int i = 0; i < 5; ++i) {
    lag = i * 10;
    s.RunOnce(1000 * (i + 1));
  }
  auto series = s.Series("lag:G");
  ASSERT_EQ(series.size(), 3u);  // the newest three, oldest first
  EXPECT_EQ(series[0].time_ms, 3000);
  EXPECT_DOUBLE_EQ(series[0].value, 20);
  EXPECT_DOUBLE_EQ(series[2].value, 40);
  EXPECT_DOUBLE_EQ(s.Latest("lag:G"), 40);
}

TEST(RateSamplerTest, VanishedNamesDroppedAndSeriesCountCapped) {
  std::map<std::string, Reading> now = {{"a", {1, Reading::Kind::kGauge}},
                                        {"b", {2, Reading::Kind::kGauge}},
                                        {"c", {3, Reading::Kind::kGauge}}};
  RateSampler s([&] { return now; }, 10, /*max_series=*/2);
  s.RunOnce(1000);
  EXPECT_EQ(s.dropped_series(), 1u);
  EXPECT_FALSE(s.Series("a").empty());
  EXPECT_TRUE(s.Series("c").empty());
  now.erase("a");
  s.RunOnce(2000);
  EXPECT_TRUE(s.Series("a").empty());   // gone from the source: dropped
  EXPECT_FALSE(s.Series("c").empty());  // room again
  EXPECT_EQ(s.dropped_series(), 0u);
}

}  // namespace
}  // namespace rocketstore::console
