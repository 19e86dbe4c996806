// The put pipeline: hooks run in order over every message, the first refusal stops it,
// rewrites reach the store's view, and the message-check hook enforces RocketMQ's limits.
#include "broker/hooks/put_pipeline.h"

#include <gtest/gtest.h>

#include "broker/hooks/message_check_hook.h"

namespace rocketstore::broker {
namespace {

class RecordingHook final : public PutHook {
 public:
  RecordingHook(std::string name, std::vector<std::string>* log, bool refuse = false)
      : name_(std::move(name)), log_(log), refuse_(refuse) {}
  std::string_view name() const override { return name_; }
  Verdict BeforePut(const PutContext&, DraftMessage& m) override {
    log_->push_back(name_ + ":" + std::string(m.body()));
    if (refuse_) return Verdict::Error(Outcome::kNoPermission, name_ + " refused");
    return Verdict::Ok();
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool refuse_;
};

// A rewriting hook, the shape of the delay-level hook to come.
class RedirectHook final : public PutHook {
 public:
  std::string_view name() const override { return "redirect"; }
  Verdict BeforePut(const PutContext&, DraftMessage& m) override {
    std::string props(m.properties());
    props += "REAL_TOPIC\x01" + std::string(m.topic()) + "\x02";
    m.SetProperties(std::move(props));
    m.SetTopic("SCHEDULE_TOPIC_XXXX");
    m.queue_id = 2;
    return Verdict::Ok();
  }
};

std::vector<DraftMessage> Drafts(std::initializer_list<std::string_view> bodies) {
  std::vector<DraftMessage> out;
  for (auto b : bodies) {
    DraftMessage d;
    d.ViewTopic("T");
    d.ViewBody(b);
    d.ViewProperties(
        "TAGS\x01"
        "a\x02");
    out.push_back(d);
  }
  return out;
}

TEST(PutPipelineTest, HooksRunInOrderAndTheFirstRefusalStops) {
  std::vector<std::string> log;
  PutPipeline p;
  p.Add(std::make_unique<RecordingHook>("one", &log));
  p.Add(std::make_unique<RecordingHook>("two", &log, /*refuse=*/true));
  p.Add(std::make_unique<RecordingHook>("three", &log));
  auto msgs = Drafts({"x", "y"});
  Verdict v = p.Run(PutContext{}, msgs);
  EXPECT_EQ(v.outcome, Outcome::kNoPermission);
  EXPECT_EQ(v.remark, "two refused");
  EXPECT_EQ(log, (std::vector<std::string>{"one:x", "one:y", "two:x"}));
}

TEST(PutPipelineTest, RewritesReachTheStoresViewAndSurviveCopies) {
  PutPipeline p;
  p.Add(std::make_unique<RedirectHook>());
  auto msgs = Drafts({"body"});
  ASSERT_TRUE(p.Run(PutContext{}, msgs).ok());
  std::vector<DraftMessage> copied = msgs;  // e.g. a vector growing
  msgs.clear();
  format::MessageToStore m = copied[0].ToStore(format::HostAddress::V4(127, 0, 0, 1, 10911));
  EXPECT_EQ(m.topic, "SCHEDULE_TOPIC_XXXX");
  EXPECT_EQ(m.queue_id, 2);
  EXPECT_EQ(m.body, "body");
  EXPECT_EQ(m.properties, std::string("TAGS\x01"
                                      "a\x02"
                                      "REAL_TOPIC\x01"
                                      "T\x02"));
}

TEST(MessageCheckHookTest, RefusesOversizedBodiesAndPropertiesAndRetryBatches) {
  MessageCheckHook hook(8);
  PutContext single;
  auto ok = Drafts({"12345678"});
  EXPECT_TRUE(hook.BeforePut(single, ok[0]).ok());
  auto big = Drafts({"123456789"});
  Verdict v = hook.BeforePut(single, big[0]);
  EXPECT_EQ(v.outcome, Outcome::kMessageIllegal);
  EXPECT_NE(v.remark.find("exceeds the maximum 8"), std::string::npos) << v.remark;

  auto props = Drafts({"x"});
  props[0].SetProperties(std::string(32768, 'p'));
  EXPECT_EQ(hook.BeforePut(single, props[0]).outcome, Outcome::kMessageIllegal);
  props[0].SetProperties(std::string(32767, 'p'));
  EXPECT_TRUE(hook.BeforePut(single, props[0]).ok());

  PutContext batch;
  batch.batch = true;
  auto retry = Drafts({"x"});
  retry[0].ViewTopic("%RETRY%G");
  EXPECT_EQ(hook.BeforePut(batch, retry[0]).outcome, Outcome::kMessageIllegal);
  EXPECT_TRUE(hook.BeforePut(single, retry[0]).ok());
}

}  // namespace
}  // namespace rocketstore::broker
