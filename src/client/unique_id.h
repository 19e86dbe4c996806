// File: client/unique_id.h
//
// UniqueIdGenerator: the client-side message id (UNIQ_KEY) in the layout of RocketMQ's
// MessageClientIDSetter: 32 upper-case hex characters = local IPv4 (4 bytes) + process id
// (2 bytes) + a per-process random stamp (4 bytes, Java uses a class loader's hash) +
// milliseconds since the start of the current month (4 bytes) + a counter (2 bytes).
// Ids are unique per generator and sortable within a month, as Java's.
//
// Thread-safety: Next() from any thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "base/clock.h"

namespace rocketstore::client {

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
