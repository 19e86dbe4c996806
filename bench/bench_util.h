// Small helpers shared by the bench/ programs: latency percentiles, human units, a
// progress line on a terminal, a scratch directory, command-line parsing, and the raw
// fdatasync loops that SYNC_FLUSH figures are compared with.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace rocketstore::bench {

// "1,4,64" -> {1, 4, 64}.
template <typename T = int>
std::vector<T> ParseList(const char* s) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(static_cast<T>(std::stoll(item)));
  return out;
}

// The value of flag argv[i], advancing i past it; exits with a message when it is missing.
inline const char* FlagValue(int argc, char** argv, int& i) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "%s needs a value\n", argv[i]);
    std::exit(2);
  }
  return argv[++i];
}

// The median of `v` (the mean of the two middle values for an even count); 0 when empty.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

inline int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Latencies in nanoseconds; percentiles by sorting (fine for a few million samples).
class Latencies {
 public:
  void Reserve(size_t n) { samples_.reserve(n); }
  void Add(int64_t nanos) { samples_.push_back(nanos); }
  void Merge(const Latencies& o) {
    samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end());
  }
  size_t count() const { return samples_.size(); }
  // p in [0, 100].
  int64_t Percentile(double p) {
    if (samples_.empty()) return 0;
    if (!sorted_) {
      std::sort(samples_.begin(), samples_.end());
      sorted_ = true;
    }
    size_t idx = static_cast<size_t>(p / 100.0 * static_cast<double>(samples_.size() - 1) + 0.5);
    return samples_[std::min(idx, samples_.size() - 1)];
  }

 private:
  std::vector<int64_t> samples_;
  bool sorted_ = false;
};

inline std::string HumanNanos(int64_t ns) {
  char buf[32];
  if (ns < 1000)
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000000)
    std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else if (ns < 1000000000)
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

inline std::string HumanRate(double per_sec) {
  char buf[32];
  if (per_sec >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M", per_sec / 1e6);
  else if (per_sec >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1f k", per_sec / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", per_sec);
  return buf;
}

inline std::string HumanBytes(double bytes) {
  char buf[32];
  if (bytes >= 1 << 30)
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20)
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10)
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / (1 << 10));
  else
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

// "[#####.....] 50% label" on stderr when it is a terminal; nothing otherwise.
class Progress {
 public:
  explicit Progress(std::string label) : label_(std::move(label)), tty_(isatty(2)) {}
  void Update(double fraction) {
    if (!tty_) return;
    int filled = static_cast<int>(fraction * 30);
    std::string bar(static_cast<size_t>(std::clamp(filled, 0, 30)), '#');
    bar.resize(30, '.');
    std::fprintf(stderr, "\r[%s] %3d%% %s", bar.c_str(), static_cast<int>(fraction * 100),
                 label_.c_str());
    std::fflush(stderr);
  }
  void Done() {
    if (tty_) std::fprintf(stderr, "\r%*s\r", 60 + static_cast<int>(label_.size()), "");
  }

 private:
  std::string label_;
  bool tty_;
};

// A scratch directory under $ROCKETSTORE_BENCH_DIR (default ./build/bench-data),
// removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    const char* base = std::getenv("ROCKETSTORE_BENCH_DIR");
    path_ = std::string(base && *base ? base : "./build/bench-data") + "/" + name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The raw bound for SYNC_FLUSH: 4 KiB pwrite + fdatasync at queue depth 1, two ways.
// `append` grows a file (block allocation and a size change at every sync); `overwrite`
// rewrites blocks written and synced beforehand (no metadata per sync: the fastest a
// queue-depth-1 loop gets on this disk). Each loop keeps its file and position between
// calls, so it can run in slices between the slices of a store case.
class RawSyncLoops {
 public:
  RawSyncLoops() : dir_("rawsync") {
    append_.fd = OpenOrDie(dir_.path() + "/append");
    overwrite_.fd = OpenOrDie(dir_.path() + "/overwrite");
    std::vector<uint8_t> zeros(1 << 20, 0);
    for (int i = 0; i < kOverwriteMiB; ++i) {
      if (::pwrite(overwrite_.fd, zeros.data(), zeros.size(), static_cast<off_t>(i) << 20) !=
          static_cast<ssize_t>(zeros.size())) {
        Die("pwrite");
      }
    }
    if (::fdatasync(overwrite_.fd) != 0) Die("fdatasync");
    ::posix_fadvise(overwrite_.fd, 0, 0, POSIX_FADV_DONTNEED);  // no large folios to rewrite
  }
  ~RawSyncLoops() {
    ::close(append_.fd);
    ::close(overwrite_.fd);
  }
  RawSyncLoops(const RawSyncLoops&) = delete;
  RawSyncLoops& operator=(const RawSyncLoops&) = delete;

  // Runs one loop for `nanos` and adds to its totals.
  void RunSlice(bool overwrite, int64_t nanos) {
    Loop& loop = overwrite ? overwrite_ : append_;
    const int64_t start = NowNanos();
    int64_t now = start;
    while (now < start + nanos) {
      const int64_t slot = overwrite ? loop.syncs % kOverwriteSlots : loop.syncs;
      if (::pwrite(loop.fd, page_.data(), page_.size(), static_cast<off_t>(slot * 4096)) != 4096 ||
          ::fdatasync(loop.fd) != 0) {
        Die("raw pwrite/fdatasync");
      }
      ++loop.syncs;
      now = NowNanos();
    }
    loop.nanos += now - start;
  }
  // Syncs per second over every slice so far.
  double Rate(bool overwrite) const {
    const Loop& loop = overwrite ? overwrite_ : append_;
    return loop.nanos > 0 ? static_cast<double>(loop.syncs) * 1e9 / static_cast<double>(loop.nanos)
                          : 0;
  }

 private:
  static constexpr int kOverwriteMiB = 64;
  static constexpr int64_t kOverwriteSlots = int64_t{kOverwriteMiB} << 8;  // 4 KiB slots
  struct Loop {
    int fd = -1;
    int64_t syncs = 0;
    int64_t nanos = 0;
  };
  [[noreturn]] static void Die(const char* what) {
    std::perror(what);
    std::exit(1);
  }
  static int OpenOrDie(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) Die(path.c_str());
    return fd;
  }

  ScratchDir dir_;
  Loop append_;
  Loop overwrite_;
  std::vector<uint8_t> page_ = std::vector<uint8_t>(4096, 0x5A);
};

}  // namespace rocketstore::bench
