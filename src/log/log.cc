#include "log/log.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rocketstore::log {
namespace {

// 2026-12-01T22:09:37.123 info 4711 name_server.cc:96] namesrv: dropped brokers count=1
constexpr const char* kPattern = "%Y-%m-%dT%H:%M:%S.%e %l %t %s:%#] %v";

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

Status Validate(const LogOptions& o) {
  if (o.file.empty() && !o.also_stderr) {
    return InvalidArgument("logging: no sink (file is empty and also_stderr is false)");
  }
  if (!o.file.empty() && o.max_file_bytes == 0) {
    return InvalidArgument("logging: max_file_bytes must be positive");
  }
  if (o.max_files < 0) {
    return InvalidArgument("logging: max_files must not be negative, got " +
                           std::to_string(o.max_files));
  }
  return Status::OK();
}

// spdlog reports a sink it cannot open by throwing; this is the one place that catches.
// Its message already carries the file name and strerror.
Result<spdlog::sink_ptr> OpenFileSink(const LogOptions& o) {
  try {
    return spdlog::sink_ptr(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
        o.file, o.max_file_bytes, static_cast<size_t>(o.max_files)));
  } catch (const spdlog::spdlog_ex& e) {
    return Status(StatusCode::kIOError,
                  std::string("logging: cannot open the log file: ") + e.what());
  }
}

std::shared_ptr<spdlog::logger> MakeLogger(std::vector<spdlog::sink_ptr> sinks, Level level) {
  auto logger = std::make_shared<spdlog::logger>("rocketstore", sinks.begin(), sinks.end());
  logger->set_pattern(kPattern);
  logger->set_level(internal::ToSpdlog(level));
  logger->flush_on(spdlog::level::trace);  // every line: a process crash loses no logged event
  return logger;
}

}  // namespace

Status InitLogging(const LogOptions& options) {
  RS_RETURN_IF_ERROR(Validate(options));
  std::vector<spdlog::sink_ptr> sinks;
  if (!options.file.empty()) {
    RS_ASSIGN_OR_RETURN(spdlog::sink_ptr file, OpenFileSink(options));
    sinks.push_back(std::move(file));
  }
  if (options.also_stderr) sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  internal::Logger();  // the one-time default must not replace this one later
  spdlog::set_default_logger(MakeLogger(std::move(sinks), options.level));
  return Status::OK();
}

namespace internal {
spdlog::logger* Logger() {
  static const bool kInstalled = [] {
    spdlog::set_default_logger(
        MakeLogger({std::make_shared<spdlog::sinks::stderr_sink_mt>()}, Level::kInfo));
    return true;
  }();
  (void)kInstalled;
  return spdlog::default_logger_raw();
}
}  // namespace internal

Result<Level> ParseLogLevel(std::string_view name) {
  static constexpr std::pair<std::string_view, Level> kNames[] = {
      {"trace", Level::kTrace}, {"debug", Level::kDebug},  {"info", Level::kInfo},
      {"warn", Level::kWarn},   {"warning", Level::kWarn}, {"error", Level::kError},
      {"off", Level::kOff},
  };
  for (const auto& [n, level] : kNames) {
    if (EqualsIgnoreCase(name, n)) return level;
  }
  return InvalidArgument("unknown log level \"" + std::string(name) +
                         "\" (expected trace, debug, info, warn, error or off)");
}

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kTrace:
      return "trace";
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
    case Level::kOff:
      break;
  }
  return "off";
}

void FlushLogs() { internal::Logger()->flush(); }

}  // namespace rocketstore::log
