// A ClientChannel for service tests: records what the broker sent it.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "broker/service/client_channel.h"

namespace rocketstore::broker::testing {

class FakeChannel final : public ClientChannel {
 public:
  explicit FakeChannel(uint64_t id) : id_(id), remote_("127.0.0.1:" + std::to_string(id)) {}
  uint64_t id() const override { return id_; }
  const std::string& remote_address() const override { return remote_; }
  bool alive() const override { return alive_.load(); }
  void Close() override { alive_.store(false); }
  void NotifyConsumerIdsChanged(std::string_view group) override {
    std::lock_guard lock(mu_);
    notified_.emplace_back(group);
  }
  void CheckTransactionState(const TransactionCheck& check) override {
    std::lock_guard lock(mu_);
    checks_.push_back(check);
  }
  // admin part B: resets are recorded; requests expecting an answer are recorded and
  // answered with answer() (kUnavailable when unset).
  void ResetConsumerOffset(const OffsetResetPush& push) override {
    std::lock_guard lock(mu_);
    resets_.push_back(push);
  }
  void GetConsumerStatus(std::string_view topic, std::string_view group,
                         ConsumerStatusCallback done) override {
    Answer("221 " + std::string(topic) + " " + std::string(group),
           [done = std::move(done)](Result<ClientAnswer> a) {
             if (!a.ok()) return done(a.status());
             done(std::vector<QueueOffsetEntry>{});
           });
  }
  void GetConsumerRunningInfo(ForwardedRequest request, ClientReplyCallback done) override {
    Answer("307", std::move(done));
  }
  void ConsumeMessageDirectly(ForwardedRequest request, ClientReplyCallback done) override {
    Answer("309", std::move(done));
  }
  void set_answer(std::optional<ClientAnswer> a) {
    std::lock_guard lock(mu_);
    answer_ = std::move(a);
  }
  std::vector<OffsetResetPush> resets() const {
    std::lock_guard lock(mu_);
    return resets_;
  }
  std::vector<std::string> asked() const {
    std::lock_guard lock(mu_);
    return asked_;
  }
  std::vector<TransactionCheck> checks() const {
    std::lock_guard lock(mu_);
    return checks_;
  }
  std::vector<std::string> notified() const {
    std::lock_guard lock(mu_);
    return notified_;
  }
  // Records the push; answers it with push_answer() at once, or holds it (nullopt) until
  // AnswerHeld.
  void PushReplyMessage(ReplyPush push, ClientAnswerCallback done) override {
    std::optional<Status> answer;
    {
      std::lock_guard lock(mu_);
      pushes_.push_back(std::move(push));
      answer = push_answer_;
      if (!answer) held_.push_back(std::move(done));
    }
    if (answer) done(*answer);
  }
  void set_push_answer(std::optional<Status> answer) {
    std::lock_guard lock(mu_);
    push_answer_ = std::move(answer);
  }
  // Answers every held push with `answer`; returns how many.
  size_t AnswerHeld(const Status& answer) {
    std::vector<ClientAnswerCallback> held;
    {
      std::lock_guard lock(mu_);
      held.swap(held_);
    }
    for (auto& done : held) done(answer);
    return held.size();
  }
  std::vector<ReplyPush> pushes() const {
    std::lock_guard lock(mu_);
    return pushes_;
  }

 private:
  void Answer(std::string what, ClientReplyCallback done) {
    std::optional<ClientAnswer> a;
    {
      std::lock_guard lock(mu_);
      asked_.push_back(std::move(what));
      a = answer_;
    }
    if (a) {
      done(*a);
    } else {
      done(Unavailable("fake channel has no answer"));
    }
  }

  const uint64_t id_;
  const std::string remote_;
  std::atomic<bool> alive_{true};
  mutable std::mutex mu_;
  std::vector<std::string> notified_;
  std::optional<Status> push_answer_ = Status::OK();
  std::vector<ReplyPush> pushes_;
  std::vector<ClientAnswerCallback> held_;
  std::vector<TransactionCheck> checks_;
  std::vector<OffsetResetPush> resets_;
  std::vector<std::string> asked_;
  std::optional<ClientAnswer> answer_;
};

}  // namespace rocketstore::broker::testing
