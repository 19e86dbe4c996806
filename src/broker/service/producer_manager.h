// File: broker/service/producer_manager.h
//
// ProducerManager: the live producer channels per producer group (RocketMQ's
// ProducerManager), fed by heartbeats. A transaction check-back picks a live
// channel of the half message's group here; the admin protocol lists connections.
// Expiry is a step, RunOnce(now_ms), as in ConsumerManager (120 s of silence).
//
// Thread-safety: every method may be called from any thread (one internal mutex).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "broker/service/consumer_manager.h"

namespace rocketstore::broker {

class ProducerManager {
 public:
  explicit ProducerManager(Clock& clock, int64_t expiry_ms = ConsumerManager::kDefaultExpiryMs)
      : clock_(clock), expiry_ms_(expiry_ms) {}

  void Register(const std::string& group, const ClientChannelInfo& client);
  // Drops the member with this client id (any channel when channel_id is 0).
  bool Unregister(const std::string& group, const std::string& client_id, uint64_t channel_id);
  void OnChannelClosed(uint64_t channel_id);
  int RunOnce(int64_t now_ms);

  std::vector<ClientChannelInfo> Members(const std::string& group) const;
  // A live channel of the group, or null (rotates over the members).
  ChannelPtr AnyLiveChannel(const std::string& group);
  // The live channel of the producer with this client id (the most recently heard from
  // when it has several), or null: where a reply goes (REPLY_TO_CLIENT). A scan of all
  // producers, as replies are rare next to sends.
  ChannelPtr FindChannel(std::string_view client_id) const;
  std::vector<std::string> Groups() const;

 private:
  Clock& clock_;
  const int64_t expiry_ms_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<uint64_t, ClientChannelInfo>> groups_;
  uint64_t rotation_ = 0;
};

}  // namespace rocketstore::broker
