// SmallStoreOptions: StoreOptions for tests that run a whole broker: a store that is created in
// milliseconds and takes a few MiB (4 MiB commit-log segments, a 1000-slot index of 4000 entries,
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

// StoreOptions for service tests that step the store themselves (no background threads)
// on a fake file system: 1 MiB commit-log segments, reserved in 4 KiB chunks with no
// prefault window, 64 units per consume-queue file, a 256-slot index of 4096 entries,
// under `root_dir`.
inline StoreOptions SteppedStoreOptions(std::string root_dir = "/store") {
  StoreOptions o;
  o.root_dir = std::move(root_dir);
  o.commit_log_segment_size = 1 << 20;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 0;
  o.consume_queue_units_per_file = 64;
  o.index_hash_slot_num = 256;
  o.index_num = 4096;
  o.start_background_services = false;
  return o;
}

}  // namespace rocketstore::testing
