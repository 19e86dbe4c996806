// File: broker/namesrv_registrar.h
//
// NamesrvRegistrar: keeps the broker registered with every name server (RocketMQ's
// BrokerController.registerBrokerAll, BrokerOuterAPI). REGISTER_BROKER carries the
// topic table (TopicConfigSerializeWrapper); a name server forgets a broker it has not
// heard from for 120 s, so registration repeats every `interval_ms` (30 s) and right
// after a topic change (RequestNow). While the broker's brokerPermission lacks read or
// write, every registered topic carries the broker's bits as its perm
// (broker/service/broker_permission.h).
//
// A step function: RunOnce(now_ms) registers when due or requested, with each name
// server over its own blocking connection (reconnecting when needed), each connect and
// each REGISTER_BROKER bounded by `timeout_ms` (registerBrokerTimeoutMills). It runs on
// the broker's registrar ServiceRunner, never on an io thread. UnregisterAll() at shutdown.
//
// Waiting for a round (as RocketMQ's admin answers wait for registerIncrementBrokerData):
// RequestNow(done) calls `done` with the outcome of the first round that starts after the
// call — that round's topic table includes every change made before the call — once
// every name server accepted, refused or timed out. `done` runs on the registrar's
// thread (it must not block); AbandonPending (shutdown) calls the ones still waiting with
// an error, so no caller waits forever.
//
// Thread-safety: RequestNow and AbandonPending from any thread; RunOnce/RegisterAll/
// UnregisterAll from one thread at a time (internally serialised).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "broker/metadata.h"
#include "broker/service/broker_permission.h"
#include "net/remoting_client.h"

namespace rocketstore::broker {

class NamesrvRegistrar {
 public:
  struct Options {
    std::vector<std::string> namesrv_addrs;  // "host:port"
    std::string cluster_name;
    std::string broker_name;
    std::string broker_addr;  // what clients connect to
    int64_t interval_ms = 30000;
    int64_t timeout_ms = 3000;
  };

  // `permission` may be null (read and write); it must outlive the registrar.
  NamesrvRegistrar(Options options, const TopicConfigManager& topics,
                   const BrokerPermission* permission = nullptr);

  // The address clients connect to, known once the server listens. REQUIRES: before the
  // first RunOnce.
  void set_broker_addr(std::string addr) { options_.broker_addr = std::move(addr); }

  // The outcome of a registration round: OK when at least one name server accepted.
  using Done = std::function<void(const Status&)>;

  // Asks for a registration at the next step; `wake` (the runner's Wake) is called.
  // `done` (may be empty) is called when that round has ended (see the file comment).
  // RequestNow from any thread; SetWake before the first RequestNow.
  void RequestNow(Done done = nullptr);
  void SetWake(std::function<void()> wake) { wake_ = std::move(wake); }
  // Registers if requested or due, then calls the `done`s of the requests it covered.
  // Returns the outcome of the last registration round.
  Status RunOnce(int64_t now_ms);
  // Calls every `done` still waiting with `why` (the runner stopped: no round will come).
  void AbandonPending(const Status& why);
  size_t pending_count() const;
  // OK if at least one name server accepted.
  Status RegisterAll();
  void UnregisterAll();

 private:
  Options options_;
  const TopicConfigManager& topics_;
  const BrokerPermission* const permission_;
  std::function<void()> wake_;
  mutable std::mutex request_mu_;
  bool requested_ = true;      // GUARDED_BY(request_mu_)
  std::vector<Done> waiting_;  // GUARDED_BY(request_mu_)
  int64_t next_due_ms_ = 0;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<net::RemotingClient>> clients_;
  Status last_ = Status::OK();
};

}  // namespace rocketstore::broker
