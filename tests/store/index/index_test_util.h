// Helpers for the index tests: dispatch requests that own their strings, and an
// IndexService over a FaultInjectionFileSystem with a small geometry.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "io/fault_injection_file_system.h"
#include "store/dispatch/sink.h"
#include "store/index/index_service.h"
#include "testing/status_matchers.h"

namespace rocketstore::testing {

// A record as the dispatcher would describe it; owns the strings the request views.
struct IndexRecord {
  std::string topic = "TopicTest";
  int64_t offset = 0;
  int64_t store_timestamp = 1700000000123;
  std::string keys;
  std::string uniq_key;
  int32_t sys_flag = 0;

  DispatchRequest Request() const {
    DispatchRequest r;
    r.topic = topic;
    r.commit_log_offset = PhysicalOffset(offset);
    r.size = 100;
    r.store_timestamp = store_timestamp;
    r.keys = keys;
    r.uniq_key = uniq_key;
    r.sys_flag = sys_flag;
    return r;
  }
};

inline IndexOptions SmallIndexOptions(int32_t slots = 8, int32_t entries = 16) {
  IndexOptions o;
  o.dir = "/store/index";
  o.max_hash_slot_num = slots;
  o.max_index_num = entries;
  o.reserve_chunk_bytes = 4096;
  return o;
}

inline std::vector<int64_t> OffsetValues(const std::vector<PhysicalOffset>& v) {
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (PhysicalOffset o : v) out.push_back(o.value());
  return out;
}

}  // namespace rocketstore::testing
