// File: client/unique_id.h
//
// UniqueIdGenerator: the client-side message id (UNIQ_KEY) in the layout of RocketMQ's
// MessageClientIDSetter: 32 upper-case hex characters = local IPv4 (4 bytes) + process id
// (2 bytes) + a per-process random stamp (4 bytes, Java uses a class loader's hash) +
// milliseconds since the start of the current month (4 bytes) + a counter (2 bytes).
// Ids are unique per generator and sortable within a month, as Java's.
//
// LocalClientIp / BuildClientId: the client id of Java's ClientConfig.buildMQClientId,
// "ip@instance", where ip is chosen as RemotingUtil.getLocalAddress does (the first IPv4
// address that is neither loopback nor 192.168.*, else the last 192.168.* one, else
// 127.0.0.1).
//
// Thread-safety: Next() from any thread; the free functions are pure (LocalClientIp reads
// the interface list once per call).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "base/clock.h"

namespace rocketstore::client {

// The local IPv4 address a client announces, as 4 bytes and as text.
std::array<uint8_t, 4> LocalClientIpBytes();
std::string LocalClientIp();
// "ip@instance" (instance "" → "<pid>#<a per-process counter>", as Java's
// changeInstanceNameToPID makes "<pid>#<nanoTime>").
std::string BuildClientId(const std::string& instance_name);

class UniqueIdGenerator {
 public:
  explicit UniqueIdGenerator(Clock& clock = Clock::Real());
  std::string Next();
  // The month start (epoch ms, local UTC) used for `now_ms`.
  static int64_t MonthStartMillis(int64_t now_ms);

 private:
  Clock& clock_;
  std::array<uint8_t, 10> fixed_{};
  std::atomic<uint32_t> counter_{0};
};

}  // namespace rocketstore::client
