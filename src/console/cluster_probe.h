// File: console/cluster_probe.h
//
// ClusterProbe: what the Cluster screen shows of the brokers that are not the console's
// own. A step function, RunOnce(now_ms), run by a ServiceRunner (every few seconds; tests
// call it directly):
//   1. asks the name servers, in order until one answers, for GET_BROKER_CLUSTER_INFO
//      (106), each within `timeout_ms` (on the runner's thread, never an HTTP one);
//   2. sends GET_BROKER_RUNTIME_INFO (28) and GET_BROKER_CONFIG (26) to every broker
//      address listed there except `local_address` (the in-process broker, whose numbers
//      the console reads directly), and asks the name server that answered for the route
//      of each master's own topic (105, the topic named after the broker; also for
//      `local_broker_name`), all asynchronously with `timeout_ms`; each answer lands in the
//      view when it comes. When a broker's last answer is in, its health is judged by
//      client::AssessBrokerHealth, as `rocketstore cluster status` judges it.
// Snapshot() hands the latest view to the HTTP handler without touching the network. A
// broker that cannot be connected to or does not answer in time is kept with the reason
// (state kUnreachable) and its last answer's time; a broker the name server no longer
// lists is dropped at the next round; a round is not started while the previous one still
// has questions out (so a slow broker cannot pile up requests).
//
// Ownership: owns its connections (a client::Transport with one I/O thread, which is
// joined by the destructor; no callback runs after it).
// Thread-safety: RunOnce from one thread at a time; Snapshot from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/broker_health.h"

namespace rocketstore::client {
class Transport;
}

namespace rocketstore::console {

struct BrokerProbe {
  enum class State { kAsking, kAnswered, kUnreachable };
  std::string cluster;
  std::string broker_name;
  int64_t broker_id = 0;
  std::string address;
  State state = State::kAsking;
  std::string error;         // kUnreachable: why (connect failure, timeout, error answer)
  int64_t asked_ms = 0;      // when this round asked (RunOnce's now_ms)
  int64_t answered_ms = -1;  // the round of the last answer (-1: never answered)
  // GET_BROKER_RUNTIME_INFO's table of the last answer (empty while never answered or
  // after a failure: stale numbers are not shown as current).
  std::map<std::string, std::string> runtime;
  // Whether it takes writes, judged from this round's 28, 26 and route answers (valid
  // once the state is no longer kAsking).
  client::BrokerHealth health;
  // This round's answers not yet in (28, 26 and, for a master, its own topic's route).
  int pending = 0;
  // The partial answers of this round, kept until the last one is in.
  std::map<std::string, std::string> config;  // GET_BROKER_CONFIG's properties
  std::string config_error;                   // why 26 failed ("" when it answered)
  int route_perm = -1;                        // its own topic's perm (-1: not known)
};

struct ClusterView {
  int64_t round_ms = -1;             // when the latest round started (-1: none yet)
  std::string namesrv;               // the name server that answered it
  std::string namesrv_error;         // every name server failed ("" when one answered)
  std::vector<BrokerProbe> brokers;  // by cluster, broker name, broker id; not the local one
  // The perm the name server routes the local broker's own topic with (-1: not known, or
  // not asked yet): without the write bit, its writes were wiped (205).
  int local_route_perm = -1;
};

class ClusterProbe {
 public:
  struct Options {
    std::vector<std::string> namesrv_addrs;
    std::string local_address;      // not asked (the console reads the local broker directly)
    int64_t timeout_ms = 2000;      // per name-server question and per broker question
    std::string local_broker_name;  // whose own topic's route is asked ("": not asked)
  };
  explicit ClusterProbe(Options options);
  ~ClusterProbe();
  ClusterProbe(const ClusterProbe&) = delete;
  ClusterProbe& operator=(const ClusterProbe&) = delete;

  void RunOnce(int64_t now_ms);
  ClusterView Snapshot() const;
  // Questions to brokers sent and not yet answered or failed (tests wait for 0).
  size_t outstanding() const;

 private:
  enum class Part { kRuntime, kConfig };
  // One broker's 28 or 26 answer (the table, or why there is none).
  void Answer(const std::string& address, int64_t round, Part part,
              Result<std::map<std::string, std::string>> answer);
  // The route perm of `broker_name`'s own topic (-1 when the question failed).
  void RouteAnswer(const std::string& broker_name, int64_t round, int perm);
  // Under mu_: one of b's answers is in; judges its health when it was the last.
  void PartDone(BrokerProbe& b);

  const Options options_;
  mutable std::mutex mu_;
  ClusterView view_;        // GUARDED_BY(mu_)
  size_t outstanding_ = 0;  // GUARDED_BY(mu_)
  int64_t round_ = 0;       // GUARDED_BY(mu_): answers of older rounds are dropped
  // Last: destroyed first, so its I/O thread (which runs Answer) stops before the state.
  std::unique_ptr<client::Transport> transport_;
};

}  // namespace rocketstore::console
