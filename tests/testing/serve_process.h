// Test helper: a real `rocketstore serve` process (name server + broker) on free loopback
// ports, for kill -9 and restart tests. The binary's path comes from the test's build
// (e.g. a compile definition naming $<TARGET_FILE:rocketstore>).
//
//   ServeProcess p({.binary = ROCKETSTORE_BINARY, .store_dir = dir + "/store",
//                   .config_file = dir + "/broker.conf"});
//   ASSERT_OK(p.Start());            // returns once the broker port accepts connections
//   ... net::RemotingClient c; c.Connect(p.broker_addr()) ...
//   p.Kill9();                       // SIGKILL, reaped: nothing was shut down cleanly
//   ASSERT_OK(p.Start());            // same store, same ports
//   int code = p.Terminate();        // SIGTERM: clean shutdown, its exit code
//
// Thread-safety: one thread. The destructor kills a process still running.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace rocketstore::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
uint16_t FreeLoopbackPort();
// Whether 127.0.0.1:port accepts a connection within timeout_ms (polls every 20 ms).
bool WaitForLoopbackPort(uint16_t port, int64_t timeout_ms);

class ServeProcess {
 public:
  struct Options {
    std::string binary;         // the rocketstore executable
    std::string store_dir;      // --store
    std::string config_file;    // --config (optional)
    uint16_t namesrv_port = 0;  // 0: a free port, chosen once and kept across restarts
    uint16_t broker_port = 0;
    std::string log_file = "-";  // --log-file ("-": stderr, i.e. the test's output)
    // --metrics-port: 0 (default) turns the endpoint off, so parallel tests do not race
    // for 5557; -1 passes no flag (broker.conf or the default decide).
    int metrics_port = 0;
    // --console-listen: "0" (default) turns the web console off, so parallel tests do not
    // race for 8080; empty passes no flag.
    std::string console_listen = "0";
    std::vector<std::string> extra_args;
  };

  explicit ServeProcess(Options options);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Spawns the process and waits (up to start_timeout_ms) for its broker port. An error
  // (the process exited, or the port never opened; the process is then killed) says why.
  Status Start(int64_t start_timeout_ms = 15000);
  // SIGKILL and reap. No-op when not running.
  void Kill9();
  // SIGTERM and wait (up to timeout_ms, then SIGKILL): the exit code, 128 + signal when
  // killed by one, -1 when not running.
  int Terminate(int64_t timeout_ms = 15000);
  bool running() const { return pid_ > 0; }

  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(options_.broker_port); }
  std::string namesrv_addr() const { return "127.0.0.1:" + std::to_string(options_.namesrv_port); }

 private:
  Options options_;
  pid_t pid_ = -1;
};

}  // namespace rocketstore::testing
