// File: broker/service/broker_permission.h
//
// BrokerPermission: the broker-wide permission bits (broker.conf `brokerPermission`,
// RocketMQ's PermName: 4 read, 2 write, 1 inherit; 6 by default), changed at run time by
// UPDATE_BROKER_CONFIG (mqadmin updateBrokerConfig -k brokerPermission -v 4 takes a broker
// out of the write routes before it is drained and stopped). What each bit does, as in
// RocketMQ 4.9.8:
//   - registration: while the broker lacks read or write, every topic it registers with
//     the name servers carries the broker's bits as its perm (BrokerController
//     .registerBrokerAll), so clients stop routing sends (or pulls) to it; topics.json and
//     GET_ALL_TOPIC_CONFIG keep the topics' own perms;
//   - without write: CONSUMER_SEND_MSG_BACK and sends to order topics are refused
//     (NO_PERMISSION "the broker[ip] sending message is forbidden"); other sends are still
//     stored, so producers with a stale route lose nothing until they refresh (30 s);
//   - without read: every pull is refused (NO_PERMISSION "the broker[ip] pulling message is
//     forbidden").
//
// Thread-safety: get/set from any thread (relaxed: a request sees the old or the new bits).
// set_host before the broker serves.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "broker/config/topic_config_manager.h"
#include "broker/service/outcome.h"

namespace rocketstore::broker {

class BrokerPermission {
 public:
  explicit BrokerPermission(int32_t bits = kPermRead | kPermWrite) : bits_(bits) {}

  int32_t get() const { return bits_.load(std::memory_order_relaxed); }
  // Returns whether the bits changed.
  bool set(int32_t bits) { return bits_.exchange(bits, std::memory_order_relaxed) != bits; }
  bool readable() const { return (get() & kPermRead) != 0; }
  bool writable() const { return (get() & kPermWrite) != 0; }
  // Both read and write: topics register with their own perms.
  bool full() const { return readable() && writable(); }

  // The IP the refusals name (RocketMQ's brokerIP1). REQUIRES: before the broker serves.
  void set_host(std::string host) { host_ = std::move(host); }
  Verdict SendingForbidden() const {
    return Verdict::Error(Outcome::kNoPermission,
                          "the broker[" + host_ + "] sending message is forbidden");
  }
  Verdict PullingForbidden() const {
    return Verdict::Error(Outcome::kNoPermission,
                          "the broker[" + host_ + "] pulling message is forbidden");
  }

 private:
  std::atomic<int32_t> bits_;
  std::string host_;
};

}  // namespace rocketstore::broker
