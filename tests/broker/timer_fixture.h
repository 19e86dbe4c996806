// A broker's timer path without sockets: a real MessageStore (with the TimerIndex as its
// extra sink) on the fault-injecting file system, the put pipeline with the TimerHook,
// SendService, Reputter and TimerService, all stepped by hand with a FakeClock.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "broker/hooks/message_check_hook.h"
#include "broker/hooks/timer_hook.h"
#include "broker/metadata.h"
#include "broker/service/reput.h"
#include "broker/service/send_service.h"
#include "broker/service/timer_service.h"
#include "broker/system_topics.h"
#include "broker/transaction/half_message_hook.h"
#include "io/fault_injection_file_system.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "timer/timer_index.h"

namespace rocketstore::broker::testing {

inline constexpr int64_t kT0 = 1700000000000;

class TimerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    TopicConfig t;
    t.name = "T";
    t.read_queue_nums = t.write_queue_nums = 2;
    topics_.Upsert(t);
    ASSERT_NO_FATAL_FAILURE(OpenStore());
  }

  virtual void Configure(StoreOptions& o) {}

  // Opens (or reopens after a crash or close) the store and rebuilds the services.
  void OpenStore() {
    timer_service_.reset();
    reput_.reset();
    send_.reset();
    store_.reset();
    index_ = nullptr;
    StoreOptions o;
    o.root_dir = root_;
    o.commit_log_segment_size = segment_size_;
    o.reserve_chunk_bytes = 4096;
    o.prefault_window_bytes = 0;
    o.consume_queue_units_per_file = 1024;
    o.index_hash_slot_num = 256;
    o.index_num = 4096;
    o.start_background_services = false;
    o.async_flush.least_pages = 0;
    o.extra_sinks.push_back([this](const SinkContext& c) -> Result<std::unique_ptr<DispatchSink>> {
      timer::TimerIndexOptions to;
      to.dir = c.root_dir + "/timer";
      to.topic = std::string(kTimerTopic);
      auto idx = std::make_unique<timer::TimerIndex>(c.fs, c.clock, to);
      index_ = idx.get();
      return std::unique_ptr<DispatchSink>(std::move(idx));
    });
    Configure(o);
    auto s = MessageStore::Open(o, fs_, clock_);
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(s).value();
    ASSERT_NE(index_, nullptr);
    if (pipeline_.size() == 0) {
      pipeline_.Add(std::make_unique<MessageCheckHook>(4 << 20));
      pipeline_.Add(std::make_unique<HalfMessageHook>());
      pipeline_.Add(std::make_unique<TimerHook>(clock_, hook_options_));
    }
    SendService::Options send_options;
    send_options.stats = stats_;
    send_ = std::make_unique<SendService>(send_options, *store_, topics_, pipeline_, [] {});
    reput_ = std::make_unique<Reputter>(*store_, pipeline_);
    TimerServiceOptions so;
    so.roll_check_interval_ms = 60'000;
    so.progress_interval_ms = 300;
    so.stats = stats_;
    so.started_at_offset = store_->MaxPhysicalOffset().value();
    timer_service_ = std::make_unique<TimerService>(
        clock_, *index_, *reput_, [this] { return store_->commit_log().FlushedOffset().value(); },
        roll_below_, so);
  }

  SendResult Send(const std::string& uniq, const std::string& timer_props, int queue = 0) {
    SendRequest r;
    r.producer_group = "P";
    r.topic = "T";
    r.queue_id = queue;
    r.born_timestamp = clock_.NowMillis();
    const std::string props = "UNIQ_KEY\x01" + uniq + "\x02" + timer_props;
    const std::string body = "body-" + uniq;
    const SendEntry entry{0, body, props};
    r.messages = std::span<const SendEntry>(&entry, 1);
    RequestContext ctx;
    auto res = send_->Send(ctx, r, [](SendResult) { ADD_FAILURE() << "answers inline"; });
    EXPECT_TRUE(res.has_value());
    return res ? *res : SendResult{};
  }
  SendResult SendAt(const std::string& uniq, int64_t deliver_ms, int queue = 0) {
    return Send(uniq, "TIMER_DELIVER_MS\x01" + std::to_string(deliver_ms) + "\x02", queue);
  }

  // One round of everything the broker runs in the background, at the clock's time.
  Status Step() {
    RS_RETURN_IF_ERROR(store_->RunDispatchStep().status());
    RS_RETURN_IF_ERROR(timer_service_->RunOnce(clock_.NowMillis()));
    return store_->RunDispatchStep().status();
  }
  void RunFor(int64_t ms, int64_t tick = 100) {
    for (int64_t end = clock_.NowMillis() + ms; clock_.NowMillis() < end;) {
      clock_.AdvanceMillis(tick);
      ASSERT_OK(Step());
      ASSERT_OK(store_->RunFlushStep());
    }
  }

  struct Delivered {
    std::string uniq;
    int32_t queue = 0;
    int64_t store_ms = 0;
    std::string properties;
  };
  // Everything in topic T, in queue order per queue.
  std::vector<Delivered> DeliveredToT() {
    std::vector<Delivered> out;
    for (int q = 0; q < 2; ++q) {
      GetMessageRequest g;
      g.group = "G";
      g.topic = "T";
      g.queue_id = q;
      g.offset = store_->GetMinOffsetInQueue("T", q);
      g.max_msg_nums = 32;
      for (;;) {
        GetMessageResult got = store_->GetMessage(g);
        if (got.messages.empty()) break;
        g.offset = got.next_begin_offset;
        for (const auto& m : got.messages) {
          format::DecodeResult d = format::DecodeRecord(m.bytes, true);
          EXPECT_EQ(d.outcome, format::DecodeOutcome::kRecord);
          Delivered x;
          x.uniq = std::string(format::FindProperty(d.record.properties, "UNIQ_KEY").value_or(""));
          x.queue = d.record.queue_id;
          x.store_ms = d.record.store_timestamp;
          x.properties = std::string(d.record.properties);
          out.push_back(std::move(x));
        }
      }
    }
    return out;
  }
  std::map<std::string, int> DeliveryCounts() {
    std::map<std::string, int> m;
    for (const auto& d : DeliveredToT()) ++m[d.uniq];
    return m;
  }

  FakeClock clock_{kT0};
  FaultInjectionFileSystem fs_{clock_};
  std::string root_ = "/store";
  int64_t segment_size_ = 1 << 20;
  TimerHookOptions hook_options_;
  TimerService::RollBelow roll_below_;
  BrokerStats* stats_ = nullptr;  // counting by SendService and TimerService when set
  TopicConfigManager topics_{fs_, clock_, "/store/config/topics.json"};
  PutPipeline pipeline_;
  std::unique_ptr<MessageStore> store_;
  timer::TimerIndex* index_ = nullptr;
  std::unique_ptr<SendService> send_;
  std::unique_ptr<Reputter> reput_;
  std::unique_ptr<TimerService> timer_service_;
};

}  // namespace rocketstore::broker::testing
