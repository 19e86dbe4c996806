// A ClientChannel for service tests: records what the broker sent it.
#pragma once

#include <atomic>
#include <mutex>
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
  std::vector<TransactionCheck> checks() const {
    std::lock_guard lock(mu_);
    return checks_;
  }
  std::vector<std::string> notified() const {
    std::lock_guard lock(mu_);
    return notified_;
  }

 private:
  const uint64_t id_;
  const std::string remote_;
  std::atomic<bool> alive_{true};
  mutable std::mutex mu_;
  std::vector<std::string> notified_;
  std::vector<TransactionCheck> checks_;
};

}  // namespace rocketstore::broker::testing
