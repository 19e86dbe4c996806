#include "apps/serve.h"

#include <pthread.h>
#include <signal.h>

#include <cctype>
#include <optional>
#include <sstream>
#include <string_view>

#include "broker/broker.h"
#include "broker/broker_conf.h"
#include "console/console.h"
#include "io/atomic_file.h"
#include "io/posix_file_system.h"
#include "log/log.h"
#include "namesrv/name_server.h"

namespace rocketstore::apps {

using broker::ApplyBrokerConf;
using broker::Broker;
using broker::BrokerOptions;
namespace {

sigset_t BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread started later
  return set;
}

void WaitForShutdownSignal(const sigset_t& set) {
  int sig = 0;
  sigwait(&set, &sig);
  RS_LOG_INFO("rocketstore: shutting down signal={}", sig == SIGINT ? "SIGINT" : "SIGTERM");
}

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost";
}

void WarnIfNotLoopback(const std::string& host) {
  if (!IsLoopback(host)) {
    RS_LOG_WARN("rocketstore: listening on a non-loopback address host={}", host);
  }
}

std::vector<std::string> SplitAddrs(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Result<BrokerOptions> MakeBrokerOptions(const RunOptions& o) {
  const RunOptions d;  // defaults: a flag left at its default does not override the file
  BrokerOptions b;
  b.store.root_dir = d.store_dir;
  b.metrics_port = d.metrics_port;  // the process serves /metrics unless told otherwise
  if (!o.config_file.empty()) {
    auto text = ReadWholeFile(PosixFileSystem::Default(), o.config_file);
    if (!text.ok()) return text.status().WithContext("cannot read config file " + o.config_file);
    std::vector<std::string> ignored;
    RS_RETURN_IF_ERROR(ApplyBrokerConf(*text, b, &ignored));
    b.config_file_path = o.config_file;
    for (const auto& key : ignored) {
      if (key == "consoleListen" || key == "consoleReadOnly") continue;  // StartConsole's
      RS_LOG_WARN("rocketstore: ignoring an unsupported config key file={} key={}", o.config_file,
                  key);
    }
  }
  if (o.host != d.host || b.server.host.empty()) b.server.host = o.host;
  if (o.broker_port != d.broker_port || o.config_file.empty()) b.server.port = o.broker_port;
  if (o.store_dir != d.store_dir) b.store.root_dir = o.store_dir;
  if (o.metrics_port != d.metrics_port) b.metrics_port = o.metrics_port;
  if (o.metrics_host != d.metrics_host) b.metrics_host = o.metrics_host;
  if (o.sync_flush) b.store.flush_disk_type = FlushDiskType::kSyncFlush;
  if (!o.namesrv_addrs.empty()) b.namesrv_addrs = SplitAddrs(o.namesrv_addrs);
  if (o.cluster_name != d.cluster_name) b.cluster_name = o.cluster_name;
  if (o.broker_name != d.broker_name) b.broker_name = o.broker_name;
  if (o.auto_create_topic != d.auto_create_topic) b.auto_create_topic = o.auto_create_topic;
  if (!b.advertised_addr.empty() && b.advertised_addr.find(':') == std::string::npos) {
    b.advertised_addr += ":" + std::to_string(b.server.port);  // brokerIP1 is a host
  }
  return b;
}

// The name server's files (kvConfig.json, namesrv.properties) live in <store>/namesrv/.
std::unique_ptr<namesrv::NameServer> StartNamesrv(const RunOptions& o, const std::string& store) {
  namesrv::NameServerOptions n;
  n.server.host = o.host;
  n.server.port = o.namesrv_port;
  n.kv_config_path = store + "/namesrv/kvConfig.json";
  n.config_store_path = store + "/namesrv/namesrv.properties";
  auto ns = std::make_unique<namesrv::NameServer>(n);
  if (Status s = ns->Start(); !s.ok()) {
    RS_LOG_ERROR("rocketstore: name server failed to start error=\"{}\"", s.ToString());
    return nullptr;
  }
  RS_LOG_INFO("rocketstore: name server listening endpoint={}:{}", o.host, ns->port());
  return ns;
}

std::unique_ptr<Broker> StartBroker(const BrokerOptions& b) {
  auto broker = std::make_unique<Broker>(b);
  if (Status s = broker->Start(); !s.ok()) {
    RS_LOG_ERROR("rocketstore: broker failed to start store={} error=\"{}\"", b.store.root_dir,
                 s.ToString());
    return nullptr;
  }
  RS_LOG_INFO("rocketstore: broker listening name={} cluster={} endpoint={} store={}",
              b.broker_name, b.cluster_name, broker->address(), b.store.root_dir);
  if (broker->metrics_port() != 0) {
    RS_LOG_INFO("rocketstore: metrics listening endpoint=http://{}:{}/metrics", b.metrics_host,
                broker->metrics_port());
    if (!IsLoopback(b.metrics_host)) {
      RS_LOG_WARN(
          "rocketstore: the metrics endpoint has no authentication and listens on a "
          "non-loopback address host={}",
          b.metrics_host);
    }
  } else {
    RS_LOG_INFO("rocketstore: metrics off (metricsPromExporterPort=0)");
  }
  MessageStore& store = broker->store();
  RS_LOG_INFO(
      "rocketstore: store state last_exit=\"{}\" commitlog_min={} commitlog_max={} "
      "commitlog_flushed={} segments={} consume_queues={} recovery_ms={} writable={}",
      LastExitName(store.last_exit()), store.MinPhysicalOffset().value(),
      store.MaxPhysicalOffset().value(), store.FlushedPhysicalOffset().value(),
      store.commit_log().segments().file_count(), store.consume_queues().size(),
      store.metrics().recovery_nanos.load() / 1000000, store.health().Writable());
  if (store.last_exit() != LastExit::kClean) {
    const IndexRecoveryReport& ir = store.index_recovery_report();
    RS_LOG_WARN(
        "rocketstore: the last run did not shut down cleanly last_exit=\"{}\" recovered=\"{}\" "
        "index_files_cut_by_undo={} index_files_rebuilt={}",
        LastExitName(store.last_exit()), store.recovery_report().Summary(), ir.files_cut_by_undo,
        ir.files_rebuilt);
  }
  return broker;
}

int StopBroker(Broker& b) {
  Status s = b.Stop();
  if (!s.ok()) {
    RS_LOG_ERROR("rocketstore: broker shutdown failed error=\"{}\"", s.ToString());
    return 1;
  }
  RS_LOG_INFO("rocketstore: broker stopped cleanly");
  return 0;
}

// Logs to stderr, and for a broker also to <store>/logs/rocketstore.log (size-rotated),
// unless --log-file says otherwise ("-" = stderr only).
bool SetUpLogging(const RunOptions& o, const std::string& store_dir) {
  auto level = log::ParseLogLevel(o.log_level);
  if (!level.ok()) {
    RS_LOG_ERROR("rocketstore: bad --log-level error=\"{}\"", level.status().message());
    return false;
  }
  log::LogOptions lo;
  lo.level = *level;
  if (o.log_file == "-") {
    lo.file.clear();
  } else if (!o.log_file.empty()) {
    lo.file = o.log_file;
  } else if (!store_dir.empty()) {
    lo.file = store_dir + "/logs/rocketstore.log";
  }
  if (Status s = log::InitLogging(lo); !s.ok()) {
    RS_LOG_ERROR(
        "rocketstore: cannot open the log file error=\"{}\" (use --log-file - for "
        "stderr only)",
        s.ToString());
    return false;
  }
  if (!lo.file.empty()) RS_LOG_INFO("rocketstore: logging file={} level={}", lo.file, o.log_level);
  return true;
}

// The broker's options (flags over broker.conf), then logging into its store directory;
// nullopt (after saying why) on a usage error.
std::optional<BrokerOptions> PrepareBroker(const RunOptions& options) {
  auto bo = MakeBrokerOptions(options);
  if (!bo.ok()) {
    RS_LOG_ERROR("rocketstore: {}", bo.status().message());
    return std::nullopt;
  }
  if (!SetUpLogging(options, bo->store.root_dir)) return std::nullopt;
  WarnIfNotLoopback(options.host);
  return std::move(bo).value();
}

// A key's value in a broker.conf text (`key=value` or `key: value`, '#'/'!' comments).
std::optional<std::string> ConfValue(std::string_view text, std::string_view key) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  std::optional<std::string> value;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    const size_t sep = line.find_first_of("=:");
    if (sep == std::string_view::npos) continue;
    if (trim(line.substr(0, sep)) == key) value = std::string(trim(line.substr(sep + 1)));
  }
  return value;
}

// The console's settings: broker.conf's consoleListen / consoleReadOnly, then the flags
// that differ from their defaults. Read before anything starts, so a bad value stops
// `serve` at once (a usage error) rather than after the broker is up.
struct ConsoleSettings {
  console::ListenAddress listen;  // port 0 = no console
  bool read_only = false;
};

Result<ConsoleSettings> ReadConsoleSettings(const RunOptions& o) {
  const RunOptions d;
  std::string listen = d.console_listen;
  ConsoleSettings out;
  out.read_only = d.console_read_only;
  if (!o.config_file.empty()) {
    auto text = ReadWholeFile(PosixFileSystem::Default(), o.config_file);
    if (!text.ok()) return text.status().WithContext("cannot read config file " + o.config_file);
    if (auto v = ConfValue(*text, "consoleListen")) listen = *v;
    if (auto v = ConfValue(*text, "consoleReadOnly")) {
      if (*v != "true" && *v != "false") {
        return Status(StatusCode::kInvalidArgument,
                      "consoleReadOnly in " + o.config_file + " must be true or false, not " + *v);
      }
      out.read_only = *v == "true";
    }
  }
  if (o.console_listen != d.console_listen) listen = o.console_listen;
  if (o.console_read_only) out.read_only = true;
  auto addr = console::ParseListenAddress(listen);
  if (!addr.ok()) return addr.status();
  out.listen = *addr;
  return out;
}

// The web console over the in-process broker; nullptr when off (port 0). A console that
// cannot bind is an error (the operator asked for it).
Result<std::unique_ptr<console::Console>> StartConsole(const ConsoleSettings& settings,
                                                       const RunOptions& o, Broker& broker,
                                                       uint16_t namesrv_port) {
  if (settings.listen.port == 0) {
    RS_LOG_INFO("rocketstore: web console off (--console-listen 0)");
    return std::unique_ptr<console::Console>();
  }
  console::ConsoleOptions co;
  co.host = settings.listen.host;
  co.port = settings.listen.port;
  co.read_only = settings.read_only;
  co.version = "rocketstore 0.1.0 (RocketMQ 4.9.8 protocol and store format)";
  co.cluster_name = broker.options().cluster_name;
  co.namesrv_address = o.host + ":" + std::to_string(namesrv_port);
  auto c = std::make_unique<console::Console>(broker, Clock::Real(), co);
  RS_RETURN_IF_ERROR(c->Start());
  if (!console::IsLoopbackHost(co.host)) {
    RS_LOG_WARN(
        "rocketstore: the web console listens on a non-loopback address without "
        "authentication host={} (anyone who reaches it can {}; use --console-read-only or "
        "bind 127.0.0.1)",
        co.host, co.read_only ? "read everything" : "create/delete topics and reset offsets");
  }
  RS_LOG_INFO("rocketstore: web console url={} read_only={}", c->url(), co.read_only);
  return c;
}

}  // namespace

int RunServe(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  auto bo = PrepareBroker(options);
  if (!bo) return 2;
  auto console_settings = ReadConsoleSettings(options);
  if (!console_settings.ok()) {
    RS_LOG_ERROR("rocketstore: {}", console_settings.status().message());
    return 2;
  }
  auto ns = StartNamesrv(options, bo->store.root_dir);
  if (!ns) return 1;
  if (bo->namesrv_addrs.empty()) bo->namesrv_addrs = {"127.0.0.1:" + std::to_string(ns->port())};
  auto broker = StartBroker(*bo);
  if (!broker) return 1;
  auto web = StartConsole(*console_settings, options, *broker, ns->port());
  if (!web.ok()) {
    RS_LOG_ERROR("rocketstore: {}", web.status().message());
    (void)StopBroker(*broker);
    ns->Stop();
    return 1;
  }
  WaitForShutdownSignal(set);
  if (*web) (*web)->Stop();
  int rc = StopBroker(*broker);
  ns->Stop();
  return rc;
}

int RunNamesrv(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  if (!SetUpLogging(options, "")) return 2;
  WarnIfNotLoopback(options.host);
  auto ns = StartNamesrv(options, options.store_dir);
  if (!ns) return 1;
  WaitForShutdownSignal(set);
  ns->Stop();
  return 0;
}

int RunBroker(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  auto bo = PrepareBroker(options);
  if (!bo) return 2;
  if (bo->namesrv_addrs.empty()) {
    RS_LOG_ERROR(
        "rocketstore: broker needs --namesrv HOST:PORT[;HOST:PORT] (or namesrvAddr in the "
        "config file)");
    return 2;
  }
  auto broker = StartBroker(*bo);
  if (!broker) return 1;
  WaitForShutdownSignal(set);
  return StopBroker(*broker);
}

}  // namespace rocketstore::apps
