#include "store/flush/offset_waiters.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "testing/status_matchers.h"
#include "testing/xorshift.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::StatusIs;

Status Late(int64_t target) { return DeadlineExceeded("late for " + std::to_string(target)); }

// Records the order of completions as "<name>:<code>".
struct Log {
  std::vector<std::string> events;
  OffsetWaiters::Callback Add(std::string name) {
    return [this, name](Status s) {
      events.push_back(name + ":" + std::string(StatusCodeName(s.code())));
    };
  }
};

TEST(OffsetWaitersTest, FailureIsStickyForWaitersNowAndLater) {
  OffsetWaiters w(Late);
  Log log;
  w.Wait(10, 1000, log.Add("a"));
  w.Wait(20, 1000, log.Add("b"));
  EXPECT_EQ(w.Fail(Unavailable("disk gone")), 2u);
  EXPECT_EQ(log.events, (std::vector<std::string>{"a:Unavailable", "b:Unavailable"}));
  EXPECT_EQ(w.size(), 0u);
  // Later waiters get the first error at once, even below the watermark; Advance and a
  // second Fail change nothing.
  Status later;
  w.Wait(0, 1000, [&](Status s) { later = s; });
  EXPECT_THAT(later, StatusIs(StatusCode::kUnavailable));
  EXPECT_EQ(w.Advance(100), 0u);
  w.Fail(Internal("other"));
  w.Wait(5, 1000, [&](Status s) { later = s; });
  EXPECT_EQ(later.message(), "disk gone");
  // Fail without an error still fails.
  OffsetWaiters v(Late);
  Status got;
  v.Wait(1, 10, [&](Status s) { got = s; });
  v.Fail(Status::OK());
  EXPECT_FALSE(got.ok());
}

TEST(OffsetWaitersTest, ExpiresInDeadlineOrderWithTheTimeoutStatus) {
  FakeClock clock;
  const int64_t t0 = clock.NowMillis();
  OffsetWaiters w(Late);
  Log log;
  Status c_status;
  w.Wait(30, t0 + 30, log.Add("c"));
  w.Wait(10, t0 + 10, log.Add("a"));
  w.Wait(20, t0 + 20, log.Add("b"));
  w.Wait(40, t0 + 10, [&](Status s) { c_status = s; });
  EXPECT_EQ(w.ExpireOverdue(t0 + 10), 0u);  // a deadline is inclusive
  clock.AdvanceMillis(25);
  EXPECT_EQ(w.ExpireOverdue(clock.NowMillis()), 3u);
  EXPECT_EQ(log.events, (std::vector<std::string>{"a:DeadlineExceeded", "b:DeadlineExceeded"}));
  EXPECT_EQ(c_status.message(), "late for 40");
  EXPECT_EQ(w.size(), 1u);
  // An expired waiter is gone: reaching its target later does not run it again.
  EXPECT_EQ(w.Advance(35), 1u);
  EXPECT_EQ(log.events.back(), "c:OK");
  EXPECT_EQ(log.events.size(), 3u);
}

TEST(OffsetWaitersTest, AdvanceReleasesInTargetOrderAndNeverGoesBack) {
  OffsetWaiters w(Late, /*initial_watermark=*/100);
  Log log;
  w.Wait(100, 0, log.Add("at-watermark"));  // already reached: runs at once
  EXPECT_EQ(log.events, (std::vector<std::string>{"at-watermark:OK"}));
  w.Wait(300, 0, log.Add("300"));
  w.Wait(150, 0, log.Add("150"));
  w.Wait(200, 0, log.Add("200"));
  EXPECT_EQ(w.size(), 3u);
  EXPECT_EQ(w.Advance(120), 0u);
  EXPECT_EQ(w.Advance(200), 2u);
  EXPECT_EQ(log.events, (std::vector<std::string>{"at-watermark:OK", "150:OK", "200:OK"}));
  EXPECT_EQ(w.Advance(150), 0u);  // lower: ignored
  EXPECT_EQ(w.watermark(), 200);
  w.Wait(180, 0, log.Add("180"));  // below the watermark: at once
  EXPECT_EQ(log.events.back(), "180:OK");
  EXPECT_EQ(w.Advance(1000), 1u);
  EXPECT_EQ(log.events.back(), "300:OK");
}

TEST(OffsetWaitersTest, ManyWaitersAtOneOffsetRunOnceEachInRegistrationOrder) {
  OffsetWaiters w(Late);
  std::vector<int> order;
  for (int i = 0; i < 1000; ++i) {
    w.Wait(64, 10 + (i % 7), [&order, i](Status s) {
      EXPECT_TRUE(s.ok());
      order.push_back(i);
    });
  }
  EXPECT_EQ(w.size(), 1000u);
  EXPECT_EQ(w.Advance(63), 0u);
  EXPECT_EQ(w.Advance(64), 1000u);
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_EQ(w.ExpireOverdue(1 << 30), 0u);  // none left to expire
}

TEST(OffsetWaitersTest, ACallbackMayWaitAgain) {
  OffsetWaiters w(Late);
  std::vector<int64_t> done;
  std::function<void(int64_t)> chain = [&](int64_t target) {
    w.Wait(target, 0, [&, target](Status s) {
      ASSERT_TRUE(s.ok());
      done.push_back(target);
      if (target < 30) chain(target + 10);  // the producer's next put
    });
  };
  chain(10);
  w.Advance(10);
  EXPECT_EQ(done, (std::vector<int64_t>{10}));
  w.Advance(100);  // runs 20, whose callback waits for 30: already reached, runs at once
  EXPECT_EQ(done, (std::vector<int64_t>{10, 20, 30}));
}

// Random waits (targets mostly rising, some late; deadlines in any order), advances and
// expiries against a model that keeps every waiter in a list: the same waiters run, in
// the same order, with the same outcome.
TEST(OffsetWaitersTest, MatchesAListModelOnRandomOperations) {
  testing::XorShift64 generator(0x9E3779B97F4A7C15ull);
  auto next = [&generator](uint64_t n) { return static_cast<int64_t>(generator() % n); };
  struct ModelWaiter {
    int64_t target, deadline;
    int id;
  };
  for (int run = 0; run < 50; ++run) {
    OffsetWaiters w(Late);
    std::vector<ModelWaiter> model;
    int64_t reached = 0, head = 0;
    std::vector<std::string> got, want;
    for (int op = 0; op < 400; ++op) {
      const int64_t kind = next(10);
      if (kind < 6) {
        head += next(3);
        const int64_t target = next(5) == 0 ? head - next(20) : head;  // some arrive late
        const int64_t deadline = 1000 + next(200);
        const int id = op;
        w.Wait(target, deadline, [&got, id](Status s) {
          got.push_back(std::to_string(id) + ":" + std::string(StatusCodeName(s.code())));
        });
        if (target <= reached) {
          want.push_back(std::to_string(id) + ":OK");
        } else {
          model.push_back({target, deadline, id});
        }
      } else if (kind < 8) {
        const int64_t to = reached + next(10);
        const size_t ran = w.Advance(to);
        size_t expect = 0;
        if (to > reached) {
          reached = to;
          std::stable_sort(model.begin(), model.end(),
                           [](const ModelWaiter& a, const ModelWaiter& b) {
                             return a.target != b.target ? a.target < b.target : a.id < b.id;
                           });
          std::vector<ModelWaiter> rest;
          for (const ModelWaiter& m : model) {
            if (m.target <= to) {
              want.push_back(std::to_string(m.id) + ":OK");
              ++expect;
            } else {
              rest.push_back(m);
            }
          }
          model = rest;
        }
        EXPECT_EQ(ran, expect);
      } else {
        const int64_t now = 1000 + next(220);
        std::stable_sort(model.begin(), model.end(),
                         [](const ModelWaiter& a, const ModelWaiter& b) {
                           return a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id;
                         });
        std::vector<ModelWaiter> rest;
        size_t expect = 0;
        for (const ModelWaiter& m : model) {
          if (m.deadline < now) {
            want.push_back(std::to_string(m.id) + ":DeadlineExceeded");
            ++expect;
          } else {
            rest.push_back(m);
          }
        }
        model = rest;
        EXPECT_EQ(w.ExpireOverdue(now), expect);
      }
      ASSERT_EQ(w.size(), model.size()) << "run " << run << " op " << op;
    }
    EXPECT_EQ(got, want) << "run " << run;
  }
}

}  // namespace
}  // namespace rocketstore
