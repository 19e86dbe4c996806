// File: broker/service/runtime_info_service.h
//
// RuntimeInfoService: GET_BROKER_RUNTIME_INFO (28)'s table — every key Java 4.9.8's
// AdminBrokerProcessor.prepareRuntimeInfo and DefaultMessageStore.getRuntimeInfo fill,
// with this broker's values (docs/protocol.md, "GET_BROKER_RUNTIME_INFO", says where each
// comes from and which ones have no counterpart here and what is answered for them).
// All values are strings, formatted as Java formats them (doubles as Java's
// Double.toString, sizes as MixAll.humanReadableByteCount).
//
// Thread-safety: Collect from any thread. Ownership: every pointer in Sources must
// outlive the service (delay_offsets and stats may be null).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "base/clock.h"
#include "broker/config/delay_offset_manager.h"
#include "io/file_system.h"
#include "store/message_store.h"

namespace rocketstore::broker {

class RuntimeInfoService {
 public:
  using Table = std::map<std::string, std::string>;
  struct Sources {
    MessageStore* store = nullptr;
    FileSystem* fs = nullptr;
    Clock* clock = nullptr;
    DelayOffsetManager* delay_offsets = nullptr;
    std::string root_dir;  // storePathRootDir
    int64_t boot_ms = 0;   // when the broker started (epoch ms)
    // Fills the statistics keys (put/get totals, TPS, latencies); see runtime_stats.h.
    std::function<void(Table&)> stats;
  };
  explicit RuntimeInfoService(Sources s) : s_(std::move(s)) {}

  Table Collect() const;

  // Java's MixAll.humanReadableByteCount(bytes, false): "512 B", "1.5 KiB", "252.0 GiB".
  static std::string HumanReadableBytes(int64_t bytes);
  // Java's Double.toString for the ratios and rates ("0.3", "0.06664445184938353", "0.0").
  static std::string JavaDouble(double v);
  // StoreStatsService.getFormatRuntime: "[ 0 days, 0 hours, 14 minutes, 17 seconds ]".
  static std::string FormatRuntime(int64_t elapsed_ms);

 private:
  Sources s_;
};

}  // namespace rocketstore::broker
