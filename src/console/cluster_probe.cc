#include "console/cluster_probe.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "client/admin_types.h"
#include "client/transport.h"
#include "protocol/remoting_command.h"

namespace rocketstore::console {

namespace {

constexpr int32_t kGetBrokerClusterInfo = 106;
constexpr int32_t kGetBrokerRuntimeInfo = 28;

std::string BodyText(const protocol::RemotingCommand& r) {
  std::vector<uint8_t> b = r.body.Flatten();
  return std::string(b.begin(), b.end());
}

std::string ErrorAnswer(const protocol::RemotingCommand& r) {
  return "answered code " + std::to_string(r.code) + (r.remark ? ": " + *r.remark : "");
}

}  // namespace

ClusterProbe::ClusterProbe(Options options)
    : options_(std::move(options)),
      transport_(std::make_unique<client::Transport>(client::Transport::ServerRequestHook{},
                                                     options_.timeout_ms)) {}

ClusterProbe::~ClusterProbe() { transport_.reset(); }

void ClusterProbe::RunOnce(int64_t now_ms) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (outstanding_ > 0) return;  // the previous round still has questions out
  }
  // 1. The name servers' cluster info, from the first that answers.
  std::string errors, answered_by;
  std::optional<client::ClusterInfo> info;
  for (const std::string& ns : options_.namesrv_addrs) {
    auto r =
        transport_->Invoke(ns, protocol::MakeRequest(kGetBrokerClusterInfo), options_.timeout_ms);
    std::string error;
    if (!r.ok()) {
      error = r.status().message();
    } else if (r->code != 0) {
      error = ErrorAnswer(*r);
    } else if (auto decoded = client::ClusterInfo::Decode(BodyText(*r)); !decoded.ok()) {
      error = "unreadable GET_BROKER_CLUSTER_INFO answer: " + decoded.status().message();
    } else {
      info = std::move(decoded).value();
      answered_by = ns;
      break;
    }
    if (!errors.empty()) errors += "; ";
    errors += ns + ": " + error;
  }
  std::vector<BrokerProbe> asked;
  int64_t round = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    round = ++round_;
    view_.round_ms = now_ms;
    if (!info) {
      // Keep the brokers known from the last round (their state says how old it is).
      view_.namesrv.clear();
      view_.namesrv_error = options_.namesrv_addrs.empty()
                                ? std::string("no name server address configured")
                                : "no name server answered GET_BROKER_CLUSTER_INFO: " + errors;
      return;
    }
    view_.namesrv = answered_by;
    view_.namesrv_error.clear();
    std::map<std::string, BrokerProbe> previous;
    for (auto& b : view_.brokers) previous[b.address] = std::move(b);
    view_.brokers.clear();
    for (const auto& [name, data] : info->brokers) {
      for (const auto& [id, addr] : data.addrs) {
        if (addr == options_.local_address) continue;
        BrokerProbe p;
        if (auto it = previous.find(addr); it != previous.end()) {
          p.answered_ms = it->second.answered_ms;
          p.runtime = std::move(it->second.runtime);  // shown until this round's answer
        }
        p.cluster = data.cluster;
        p.broker_name = name;
        p.broker_id = id;
        p.address = addr;
        p.state = BrokerProbe::State::kAsking;
        p.asked_ms = now_ms;
        view_.brokers.push_back(std::move(p));
      }
    }
    std::sort(view_.brokers.begin(), view_.brokers.end(), [](const auto& a, const auto& b) {
      return std::tie(a.cluster, a.broker_name, a.broker_id) <
             std::tie(b.cluster, b.broker_name, b.broker_id);
    });
    asked = view_.brokers;
    outstanding_ = asked.size();
  }
  // 2. Each broker's runtime info, asynchronously: answers land through Answer().
  for (const BrokerProbe& b : asked) {
    const std::string addr = b.address;
    Status sent = transport_->InvokeAsync(
        addr, protocol::MakeRequest(kGetBrokerRuntimeInfo),
        [this, addr, round](Result<protocol::RemotingCommand> r) {
          if (!r.ok()) return Answer(addr, round, false, r.status().message(), {});
          if (r->code != 0) return Answer(addr, round, false, ErrorAnswer(*r), {});
          auto table = client::KvTable::Decode(BodyText(*r));
          if (!table.ok()) {
            return Answer(addr, round, false,
                          "unreadable GET_BROKER_RUNTIME_INFO answer: " + table.status().message(),
                          {});
          }
          Answer(addr, round, true, "", std::move(table->table));
        },
        options_.timeout_ms);
    if (!sent.ok()) Answer(addr, round, false, sent.message(), {});
  }
}

void ClusterProbe::Answer(const std::string& address, int64_t round, bool ok, std::string error,
                          std::map<std::string, std::string> runtime) {
  std::lock_guard<std::mutex> l(mu_);
  if (round != round_) return;
  if (outstanding_ > 0) --outstanding_;
  for (BrokerProbe& b : view_.brokers) {
    if (b.address != address || b.state != BrokerProbe::State::kAsking) continue;
    if (ok) {
      b.state = BrokerProbe::State::kAnswered;
      b.error.clear();
      b.answered_ms = b.asked_ms;
      b.runtime = std::move(runtime);
    } else {
      b.state = BrokerProbe::State::kUnreachable;
      b.error = std::move(error);
      b.runtime.clear();
    }
    return;
  }
}

ClusterView ClusterProbe::Snapshot() const {
  std::lock_guard<std::mutex> l(mu_);
  return view_;
}

size_t ClusterProbe::outstanding() const {
  std::lock_guard<std::mutex> l(mu_);
  return outstanding_;
}

}  // namespace rocketstore::console
