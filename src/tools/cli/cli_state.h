// File: tools/cli/cli_state.h
//
// Internal to tools/cli: the option values of every client subcommand, filled by CLI11,
// and the Run* functions that execute them (one .cc per family).
//
// Thread-safety: single-threaded.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli/cli_common.h"

namespace rocketstore::tools::cli {

struct CliState {
  GlobalOptions g;
  // topic
  CLI::App *topic_create = nullptr, *topic_list = nullptr, *topic_describe = nullptr,
           *topic_delete = nullptr, *topic_alter = nullptr;
  std::string topic, cluster;
  std::vector<std::string> topic_type;  // topic list --type
  int32_t queues = 8, read_queues = -1, write_queues = -1, perm = 6;
  bool order = false;
  // group
  CLI::App *group_list = nullptr, *group_describe = nullptr, *group_seek = nullptr,
           *group_delete = nullptr;
  std::string group;
  int64_t to_offset = -1;
  std::string to_time;
  bool to_earliest = false, to_latest = false, dry_run = false, remove_offset = false;
  int32_t queue_id = -1;
  // produce
  CLI::App* produce = nullptr;
  std::vector<std::string> keys, props, files;
  std::string tag, deliver_at;
  int32_t delay_level = 0;
  int64_t delay_sec = 0;
  bool batch = false;
  // consume
  CLI::App* consume = nullptr;
  int64_t from_offset = -1;
  std::string from_time, expression = "*";
  bool from_beginning = false, from_latest = false, follow = false;
  int64_t count = -1, idle_timeout_ms = 2000;
  // message
  CLI::App *message_get = nullptr, *message_find = nullptr;
  std::string msg_id, key;
  int64_t begin_ms = 0, end_ms = INT64_MAX;
  // --segment-size; 0: each broker's mappedFileSizeCommitLog (GET_BROKER_CONFIG).
  int64_t segment_size = 0;
  int32_t max_num = 32;
  // cluster
  CLI::App* cluster_status = nullptr;
  // bench
  CLI::App *bench_produce = nullptr, *bench_consume = nullptr;
  int64_t bench_count = 10000;
  int32_t bench_size = 1024, bench_inflight = 64;
  bool no_progress = false;
};

int RunTopic(CliState& s, FILE* out, FILE* err);
int RunGroup(CliState& s, FILE* out, FILE* err);
int RunProduce(CliState& s, FILE* in, FILE* out, FILE* err);
int RunConsume(CliState& s, FILE* out, FILE* err);
int RunMessage(CliState& s, FILE* out, FILE* err);
int RunCluster(CliState& s, FILE* out, FILE* err);
int RunBench(CliState& s, FILE* out, FILE* err);

}  // namespace rocketstore::tools::cli
