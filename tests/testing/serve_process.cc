#include "testing/serve_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace rocketstore::testing {

namespace {
sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The exit code of a reaped status.
int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}
}  // namespace

uint16_t FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a = Loopback(0);
  uint16_t port = 0;
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

bool WaitForLoopbackPort(uint16_t port, int64_t timeout_ms) {
  const int64_t deadline = NowMs() + timeout_ms;
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
      sockaddr_in a = Loopback(port);
      const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
      ::close(fd);
      if (ok) return true;
    }
    if (NowMs() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServeProcess::ServeProcess(Options options) : options_(std::move(options)) {
  if (options_.namesrv_port == 0) options_.namesrv_port = FreeLoopbackPort();
  if (options_.broker_port == 0) {
    do {
      options_.broker_port = FreeLoopbackPort();
    } while (options_.broker_port == options_.namesrv_port);
  }
}

ServeProcess::~ServeProcess() { Kill9(); }

Status ServeProcess::Start(int64_t start_timeout_ms) {
  if (pid_ > 0) return FailedPrecondition("already running (pid " + std::to_string(pid_) + ")");
  std::vector<std::string> args = {options_.binary,  "serve",
                                   "--namesrv-port", std::to_string(options_.namesrv_port),
                                   "--broker-port",  std::to_string(options_.broker_port),
                                   "--store",        options_.store_dir,
                                   "--log-file",     options_.log_file};
  if (!options_.config_file.empty()) {
    args.push_back("--config");
    args.push_back(options_.config_file);
  }
  if (options_.metrics_port >= 0) {
    args.push_back("--metrics-port");
    args.push_back(std::to_string(options_.metrics_port));
  }
  if (!options_.console_listen.empty()) {
    args.push_back("--console-listen");
    args.push_back(options_.console_listen);
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return Unavailable("fork failed");
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  const int64_t deadline = NowMs() + start_timeout_ms;
  while (NowMs() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Unavailable(options_.binary + " serve exited with code " +
                         std::to_string(ExitCodeOf(status)) + " before listening");
    }
    if (WaitForLoopbackPort(options_.broker_port, 50)) return Status::OK();
  }
  Kill9();
  return DeadlineExceeded("broker port " + std::to_string(options_.broker_port) +
                          " did not open within " + std::to_string(start_timeout_ms) + " ms");
}

void ServeProcess::Kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

int ServeProcess::Terminate(int64_t timeout_ms) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  const int64_t deadline = NowMs() + timeout_ms;
  int status = 0;
  while (NowMs() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return ExitCodeOf(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return ExitCodeOf(status);
}

}  // namespace rocketstore::testing
