// Test fixture of the operator CLI's tests: a real `rocketstore serve` process for the
// suite, the `rocketstore` binary run as a user would (stdin, stdout, stderr, exit code),
// golden files (tests/tools/cli/golden/) compared after the fields that vary (ids,
// timestamps, ports, offsets that depend on earlier tests) are normalised, and helpers for
// background processes (a consumer kept running while another command looks at it).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "client/fastjson.h"
#include "testing/serve_process.h"
#include "testing/status_matchers.h"
#include "testing/temp_dir.h"

namespace rocketstore::cli_testing {

struct CliRun {
  int code = -1;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    testing::ServeProcess::Options o;
    o.binary = ROCKETSTORE_BINARY;
    o.store_dir = dir_->path() + "/store";
    o.log_file = dir_->path() + "/serve.log";
    // A store geometry of its own, which `message get/find` must learn from the broker:
    // 1 MiB commit-log segments, consume-queue files of 190 bytes (rounded up to 10
    // units, as RocketMQ does), 97 index slots.
    o.config_file = dir_->path() + "/broker.conf";
    std::ofstream(o.config_file) << "mappedFileSizeCommitLog=1048576\n"
                                    "mappedFileSizeConsumeQueue=190\n"
                                    "maxHashSlotNum=97\nmaxIndexNum=4000\n";
    serve_ = new testing::ServeProcess(o);
    ASSERT_OK(serve_->Start());
    // Start returns once the broker port is open; its registration with the name server
    // follows. Commands that ask the name server for brokers (topic create, cluster status)
    // would find none under load until it has.
    ASSERT_TRUE(WaitFor([] {
      return Cli("cluster status --format json").out.find("\"brokers\":[{") != std::string::npos;
    })) << "the broker never registered with the name server";
  }
  static void TearDownTestSuite() {
    serve_->Terminate();
    delete serve_;
    delete dir_;
  }

  // Runs `rocketstore ARGS` with stdin from `input`; the name server from the env var.
  static CliRun Cli(const std::string& args, const std::string& input = "") {
    const std::string in = dir_->path() + "/stdin", out = dir_->path() + "/stdout",
                      err = dir_->path() + "/stderr";
    std::ofstream(in) << input;
    const std::string cmd = "ROCKETSTORE_NAMESRV=" + serve_->namesrv_addr() + " " +
                            ROCKETSTORE_BINARY + " " + args + " <" + in + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream so, se;
    so << std::ifstream(out).rdbuf();
    se << std::ifstream(err).rdbuf();
    r.out = so.str();
    r.err = se.str();
    return r;
  }
  static std::string Golden(const std::string& name) {
    std::stringstream s;
    s << std::ifstream(std::string(CLI_GOLDEN_DIR) + "/" + name).rdbuf();
    return s.str();
  }
  // Replaces the values of fields that differ between runs by "<N>" / "<S>". (A scanner,
  // not std::regex: GCC 12 warns -Wmaybe-uninitialized inside <regex> under -O1 + ASan.)
  static std::string Normalise(const std::string& json) {
    static const char* kNumbers[] = {"lastTimestamp", "lastUpdateTimestamp", "bornTimestamp",
                                     "storeTimestamp", "commitLogOffset"};
    // "location" holds the commit-log offset, which depends on what was stored before.
    static const char* kStrings[] = {"msgId",
                                     "offsetMsgId",
                                     "bornHost",
                                     "storeHost",
                                     "UNIQ_KEY",
                                     "addr",
                                     "location",
                                     "putTps",
                                     "getTps",
                                     "putToday",
                                     "getToday",
                                     "commitLogDiskRatio",
                                     "flushBehindBytes",
                                     "dispatchBehindBytes"};
    static const char* kObjects[] = {"runtime"};  // GET_BROKER_RUNTIME_INFO's whole table
    std::string out;
    size_t i = 0;
    while (i < json.size()) {
      bool replaced = false;
      for (const char* k : kObjects) {
        const std::string key = std::string("\"") + k + "\":{";
        if (json.compare(i, key.size(), key) != 0) continue;
        size_t j = i + key.size();
        int depth = 1;
        bool in_string = false;
        for (; j < json.size() && depth > 0; ++j) {
          if (in_string) {
            if (json[j] == '\\') {
              ++j;
            } else if (json[j] == '"') {
              in_string = false;
            }
          } else if (json[j] == '"') {
            in_string = true;
          } else if (json[j] == '{') {
            ++depth;
          } else if (json[j] == '}') {
            --depth;
          }
        }
        out += std::string("\"") + k + "\":<OBJ>";
        i = j;
        replaced = true;
        break;
      }
      if (replaced) continue;
      if (json[i] == '"') {
        for (const char* k : kNumbers) {
          std::string key = std::string("\"") + k + "\":";
          if (json.compare(i, key.size(), key) == 0 && i + key.size() < json.size() &&
              isdigit(static_cast<unsigned char>(json[i + key.size()]))) {
            size_t j = i + key.size();
            while (j < json.size() && isdigit(static_cast<unsigned char>(json[j]))) ++j;
            out += key + "<N>";
            i = j;
            replaced = true;
            break;
          }
        }
        for (const char* k : kStrings) {
          if (replaced) break;
          std::string key = std::string("\"") + k + "\":\"";
          if (json.compare(i, key.size(), key) == 0) {
            size_t j = json.find('"', i + key.size());
            if (j == std::string::npos) break;
            out += key + "<S>\"";
            i = j + 1;
            replaced = true;
          }
        }
      }
      if (!replaced) out += json[i++];
    }
    return out;
  }
  // The document with the string array `key` cut down to the names starting with prefix
  // (other tests' topics and groups share the server), everything else as printed.
  static std::string KeepOnly(const std::string& json, const std::string& key,
                              const std::string& prefix) {
    return KeepItems(json, "\"" + key + "\":[", ']', prefix);
  }
  // The document with the flat object `key` ({"name":"value",...}) cut down to the names
  // starting with prefix, as KeepOnly does for an array.
  static std::string KeepOnlyMembers(const std::string& json, const std::string& key,
                                     const std::string& prefix) {
    return KeepItems(json, "\"" + key + "\":{", '}', prefix);
  }
  // The comma-separated items between `open` and the next `close` that start with
  // "<prefix; the rest of the document as is.
  static std::string KeepItems(const std::string& json, const std::string& open, char close,
                               const std::string& prefix) {
    const size_t b = json.find(open);
    if (b == std::string::npos) return json;
    const size_t from = b + open.size();
    const size_t e = json.find(close, from);
    if (e == std::string::npos) return json;
    std::string kept;
    std::istringstream items(json.substr(from, e - from));
    for (std::string item; std::getline(items, item, ',');) {
      if (item.rfind("\"" + prefix, 0) != 0) continue;
      kept += (kept.empty() ? "" : ",") + item;
    }
    return json.substr(0, from) + kept + json.substr(e);
  }
  // Starts `rocketstore ARGS` in the background (stdout to `out_file`); its pid.
  static int Background(const std::string& args, const std::string& out_file) {
    const std::string pid_file = dir_->path() + "/bg.pid";
    const std::string cmd = "ROCKETSTORE_NAMESRV=" + serve_->namesrv_addr() + " timeout 120 " +
                            ROCKETSTORE_BINARY + " " + args + " </dev/null >" + out_file + " 2>" +
                            out_file + ".err & echo $! >" + pid_file;
    if (std::system(cmd.c_str()) != 0) return -1;
    std::ifstream f(pid_file);
    int pid = -1;
    f >> pid;
    return pid;
  }
  static std::string Slurp(const std::string& file) {
    std::stringstream s;
    s << std::ifstream(file).rdbuf();
    return s.str();
  }
  // Polls `done` every 100 ms for up to `seconds`.
  template <typename F>
  static bool WaitFor(F done, int seconds = 30) {
    for (int i = 0; i < seconds * 10; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
  }
  // Stops a Background process with SIGTERM (the CLI stops as for Ctrl-C: commits and
  // exits; a shell's background job ignores SIGINT) and waits until it has exited.
  static bool Stop(int pid) {
    if (pid <= 0) return false;
    ::kill(pid, SIGTERM);
    return WaitFor([pid] {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string pid_text, comm, state;
      return !(stat >> pid_text >> comm >> state) || state == "Z";
    });
  }
  static client::FjValue Parse(const std::string& json) {
    auto v = client::ParseFastjson(json);
    EXPECT_TRUE(v.ok()) << v.status().ToString() << "\n" << json;
    return v.ok() ? *v : client::FjValue{};
  }
  // group describe --topic, retried until the broker offsets sum to `messages` (the
  // consume queue is dispatched asynchronously after a send).
  static client::FjValue Describe(const std::string& group, const std::string& topic,
                                  int64_t messages, std::string* text = nullptr) {
    client::FjValue v;
    for (int i = 0; i < 50; ++i) {
      CliRun r = Cli("group describe " + group + " --topic " + topic + " --format json");
      EXPECT_EQ(r.code, 0) << r.err;
      v = Parse(r.out);
      if (text) *text = r.out;
      int64_t sum = 0;
      if (const auto* qs = v.Find("queues")) {
        for (const auto& q : qs->items) sum += q.Int("brokerOffset");
      }
      if (sum == messages) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return v;
  }

  static inline testing::TempDir* dir_ = nullptr;
  static inline testing::ServeProcess* serve_ = nullptr;
};

// Lines of a JSON Lines output.
inline int64_t Lines(const std::string& out) { return std::count(out.begin(), out.end(), '\n'); }

}  // namespace rocketstore::cli_testing
