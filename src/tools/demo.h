// File: tools/demo.h
//
// `rocketstore demo`: the store explained by doing. Appends a few messages to a
// CommitLog under --store, reads each one back by its physical offset, and prints in
// which segment file and at which position it lies, with its offset message id.
#pragma once

#include <cstdint>
#include <string>

namespace rocketstore::tools {

struct DemoOptions {
  std::string store_dir = "./data";
  int count = 8;
  int64_t segment_size = 1 << 30;
  int queues = 4;
  std::string topic = "DemoTopic";
};

// Returns the process exit code; prints to stdout/stderr.
int RunDemo(const DemoOptions& options);

}  // namespace rocketstore::tools
