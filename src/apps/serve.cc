#include "apps/serve.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "broker/broker.h"
#include "broker/broker_conf.h"
#include "namesrv/name_server.h"

namespace rocketstore::apps {

using broker::Broker;
using broker::BrokerOptions;
using broker::ApplyBrokerConf;
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
  std::fprintf(stderr, "rocketstore: received %s, shutting down\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
}

void WarnIfNotLoopback(const std::string& host) {
  if (host != "127.0.0.1" && host != "::1" && host != "localhost") {
    std::fprintf(stderr, "rocketstore: WARNING: listening on %s (not loopback)\n", host.c_str());
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
  if (!o.config_file.empty()) {
    std::ifstream in(o.config_file);
    if (!in) return NotFound("cannot read config file " + o.config_file);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::string> ignored;
    RS_RETURN_IF_ERROR(ApplyBrokerConf(text.str(), b, &ignored));
    for (const auto& key : ignored) {
      std::fprintf(stderr, "rocketstore: %s: ignoring unsupported key %s\n", o.config_file.c_str(),
                   key.c_str());
    }
  }
  if (o.host != d.host || b.server.host.empty()) b.server.host = o.host;
  if (o.broker_port != d.broker_port || o.config_file.empty()) b.server.port = o.broker_port;
  if (o.store_dir != d.store_dir) b.store.root_dir = o.store_dir;
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

std::unique_ptr<namesrv::NameServer> StartNamesrv(const RunOptions& o) {
  namesrv::NameServerOptions n;
  n.server.host = o.host;
  n.server.port = o.namesrv_port;
  auto ns = std::make_unique<namesrv::NameServer>(n);
  if (Status s = ns->Start(); !s.ok()) {
    std::fprintf(stderr, "rocketstore: name server failed to start: %s\n", s.message().c_str());
    return nullptr;
  }
  std::fprintf(stderr, "rocketstore: name server listening on %s:%u\n", o.host.c_str(), ns->port());
  return ns;
}

std::unique_ptr<Broker> StartBroker(const BrokerOptions& b) {
  auto broker = std::make_unique<Broker>(b);
  if (Status s = broker->Start(); !s.ok()) {
    std::fprintf(stderr, "rocketstore: broker failed to start (store %s): %s\n",
                 b.store.root_dir.c_str(), s.message().c_str());
    return nullptr;
  }
  std::fprintf(stderr, "rocketstore: broker %s listening on %s, store %s\n", b.broker_name.c_str(),
               broker->address().c_str(), b.store.root_dir.c_str());
  const MessageStore& store = broker->store();
  if (store.last_exit() != LastExit::kClean) {
    const IndexRecoveryReport& ir = store.index_recovery_report();
    std::fprintf(stderr,
                 "rocketstore: the last run did not shut down cleanly (%s); recovered: %s; "
                 "index files cut by undo %d, rebuilt %d\n",
                 LastExitName(store.last_exit()), store.recovery_report().Summary().c_str(),
                 ir.files_cut_by_undo, ir.files_rebuilt);
  }
  return broker;
}

int StopBroker(Broker& b) {
  Status s = b.Stop();
  if (!s.ok()) {
    std::fprintf(stderr, "rocketstore: broker shutdown: %s\n", s.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "rocketstore: broker stopped cleanly\n");
  return 0;
}

}  // namespace

int RunServe(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  WarnIfNotLoopback(options.host);
  auto ns = StartNamesrv(options);
  if (!ns) return 1;
  RunOptions o = options;
  if (o.namesrv_addrs.empty()) o.namesrv_addrs = "127.0.0.1:" + std::to_string(ns->port());
  auto bo = MakeBrokerOptions(o);
  if (!bo.ok()) {
    std::fprintf(stderr, "rocketstore: %s\n", bo.status().message().c_str());
    return 2;
  }
  auto broker = StartBroker(*bo);
  if (!broker) return 1;
  WaitForShutdownSignal(set);
  int rc = StopBroker(*broker);
  ns->Stop();
  return rc;
}

int RunNamesrv(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  WarnIfNotLoopback(options.host);
  auto ns = StartNamesrv(options);
  if (!ns) return 1;
  WaitForShutdownSignal(set);
  ns->Stop();
  return 0;
}

int RunBroker(const RunOptions& options) {
  const sigset_t set = BlockShutdownSignals();
  WarnIfNotLoopback(options.host);
  auto bo = MakeBrokerOptions(options);
  if (!bo.ok()) {
    std::fprintf(stderr, "rocketstore: %s\n", bo.status().message().c_str());
    return 2;
  }
  if (bo->namesrv_addrs.empty()) {
    std::fprintf(stderr,
                 "rocketstore: broker needs --namesrv HOST:PORT[;HOST:PORT] "
                 "(or namesrvAddr in the config file)\n");
    return 2;
  }
  auto broker = StartBroker(*bo);
  if (!broker) return 1;
  WaitForShutdownSignal(set);
  return StopBroker(*broker);
}

}  // namespace rocketstore::apps
