// rocketstore: one binary, many subcommands. `rocketstore --help` lists them.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "tools/demo.h"

int main(int argc, char** argv) {
  CLI::App app{
      "rocketstore - a RocketMQ-compatible message store and broker.\n\n"
      "Messages of every topic are appended to the CommitLog, fixed-size segment files\n"
      "named by the offset of their first byte; consumers find them through per-queue\n"
      "ConsumeQueues; keys are found through IndexFiles. The files are byte-compatible\n"
      "with Apache RocketMQ's store.\n\n"
      "Start with `rocketstore demo` to watch messages land in segment files."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rocketstore 0.1.0");

  rocketstore::tools::DemoOptions demo;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "Append a few messages to the CommitLog under --store, read each back by its physical "
      "offset, and show the segment file and position it landed in. Safe to run repeatedly: "
      "each run recovers the log's end and appends after it.");
  demo_cmd
      ->add_option("--store", demo.store_dir, "Store directory (commit log in <store>/commitlog)")
      ->capture_default_str();
  demo_cmd->add_option("--count", demo.count, "How many messages to append")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  demo_cmd
      ->add_option("--segment-size", demo.segment_size,
                   "CommitLog segment size in bytes (RocketMQ: mappedFileSizeCommitLog). "
                   "Must match the existing files of the store.")
      ->check(CLI::Range(int64_t{4096}, int64_t{1} << 31))
      ->capture_default_str();
  demo_cmd->add_option("--topic", demo.topic, "Topic of the demo messages")->capture_default_str();
  demo_cmd->add_option("--queues", demo.queues, "Messages are spread over this many queues")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (demo_cmd->parsed()) return rocketstore::tools::RunDemo(demo);
  return 0;
}
