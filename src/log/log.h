// Logging: one line per event, written through spdlog's default logger.
//
//   RS_LOG_INFO("namesrv: dropped brokers reason=connection_closed count={}", n);
//   RS_LOG_WARN("net: closing connection remote={} reason=bad_frame error=\"{}\"", remote, msg);
//
// Style. A message starts with the module ("namesrv:", "net:", "store:"), says what happened
// in a few words, then carries its facts as `key=value` fields (quote values that may hold
// spaces), so a line can be grepped and parsed. One event, one line: no multi-line dumps.
// Log what an operator needs (lifecycle, a peer dropped, a limit hit); an error that is
// handled is returned as a Status, not only logged (the project's rule).
//
// Formats are checked at compile time: the format string goes through fmt::format_string
// (fmt >= 8, C++20 consteval), so a `{}` without an argument does not compile. Arguments
// are evaluated only when the level is enabled.
//
// Defaults. Without InitLogging, events at info and above go to stderr (never stdout, where
// tools print their output). InitLogging replaces that logger: a size-rotating file (flushed after
// every line, so a process crash loses no logged event) and/or stderr.
//
// Thread safety: the RS_LOG_* macros may be called from any thread at any time; the sinks
// are the thread-safe (_mt) ones. InitLogging swaps the process-wide logger and must be
// called before other threads log (at process start); it is not safe
// concurrently with RS_LOG_* calls.
//
// I/O: the log file is written by spdlog's own sink, not through io/FileSystem: logging
// is diagnostics, outside the store's durability model.
#pragma once

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore::log {

enum class Level : uint8_t { kTrace, kDebug, kInfo, kWarn, kError, kOff };

struct LogOptions {
  Level level = Level::kInfo;
  // Log file; empty = stderr only (then `also_stderr` must stay true). Missing parent
  // directories are created. Rotation: when the file would exceed `max_file_bytes`, it is renamed
  // to
  // `<stem>.1<ext>` (older ones shift to .2, ...) and at most `max_files` old files are kept.
  std::string file;
  size_t max_file_bytes = size_t{64} << 20;
  int max_files = 5;
  bool also_stderr = true;
};

// Installs the process-wide logger described by `options`. Returns InvalidArgument for
// options that make no sense (no sink, zero size, negative count) and IOError when the file
// cannot be opened or created; the previous logger stays in place on error.
Status InitLogging(const LogOptions& options);

// "trace", "debug", "info", "warn" (or "warning"), "error", "off"; ASCII case-insensitive.
Result<Level> ParseLogLevel(std::string_view name);

// The lower-case name ParseLogLevel accepts.
std::string_view LevelName(Level level);

// Writes out whatever the current sinks buffer (stderr is unbuffered; files flush per line
// already). For shutdown paths that are about to _exit.
void FlushLogs();

namespace internal {
// The process-wide logger; installs the stderr default on first use (so that spdlog's own
// default, coloured stdout, is never seen).
spdlog::logger* Logger();

constexpr spdlog::level::level_enum ToSpdlog(Level level) {
  switch (level) {
    case Level::kTrace:
      return spdlog::level::trace;
    case Level::kDebug:
      return spdlog::level::debug;
    case Level::kInfo:
      return spdlog::level::info;
    case Level::kWarn:
      return spdlog::level::warn;
    case Level::kError:
      return spdlog::level::err;
    case Level::kOff:
      break;
  }
  return spdlog::level::off;
}
}  // namespace internal

}  // namespace rocketstore::log

#define RS_LOG_AT_(level, ...)                                                          \
  do {                                                                                  \
    ::spdlog::logger* rs_log_logger_ = ::rocketstore::log::internal::Logger();          \
    constexpr auto rs_log_level_ = ::rocketstore::log::internal::ToSpdlog(level);       \
    if (rs_log_logger_->should_log(rs_log_level_)) {                                    \
      rs_log_logger_->log(                                                              \
          ::spdlog::source_loc{__FILE__, __LINE__, static_cast<const char*>(__func__)}, \
          rs_log_level_, __VA_ARGS__);                                                  \
    }                                                                                   \
  } while (0)

#define RS_LOG_TRACE(...) RS_LOG_AT_(::rocketstore::log::Level::kTrace, __VA_ARGS__)
#define RS_LOG_DEBUG(...) RS_LOG_AT_(::rocketstore::log::Level::kDebug, __VA_ARGS__)
#define RS_LOG_INFO(...) RS_LOG_AT_(::rocketstore::log::Level::kInfo, __VA_ARGS__)
#define RS_LOG_WARN(...) RS_LOG_AT_(::rocketstore::log::Level::kWarn, __VA_ARGS__)
#define RS_LOG_ERROR(...) RS_LOG_AT_(::rocketstore::log::Level::kError, __VA_ARGS__)
