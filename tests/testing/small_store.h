// StoreOptions for tests that run a whole broker: a store that is created in milliseconds
// and takes a few MiB (4 MiB commit-log segments, a 1000-slot index of 4000 entries,
// 10000 units per consume-queue file) under `root_dir`; every other option its default.
#pragma once

#include <cstdint>
#include <string>

#include "store/store_options.h"

namespace rocketstore::testing {

inline StoreOptions SmallStoreOptions(std::string root_dir,
                                      int64_t commit_log_segment_size = int64_t{4} << 20) {
  StoreOptions o;
  o.root_dir = std::move(root_dir);
  o.commit_log_segment_size = commit_log_segment_size;
  o.index_hash_slot_num = 1000;
  o.index_num = 4000;
  o.consume_queue_units_per_file = 10000;
  return o;
}

}  // namespace rocketstore::testing
