// File: tools/cli/client_cli.h
//
// ClientCli: the operator subcommands of `rocketstore` that talk to a running cluster
// through the client library (docs/cli.md): topic, group, produce, consume, message,
// cluster, bench. The constructor registers them on the CLI11 app; Run executes the one
// that was parsed.
//
// Ownership: holds the parsed option values; the app must outlive it.
// Thread-safety: single-threaded (main).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

namespace rocketstore::tools::cli {

struct CliState;

class ClientCli {
 public:
  explicit ClientCli(CLI::App& app);
  ~ClientCli();
  // -1 when none of these subcommands was parsed; else its exit code (cli_common.h).
  int Run(FILE* out, FILE* err);

 private:
  std::unique_ptr<CliState> s_;
};

}  // namespace rocketstore::tools::cli
