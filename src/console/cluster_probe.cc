#include "console/cluster_probe.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "client/admin_types.h"
#include "client/route.h"
#include "client/transport.h"
#include "protocol/headers/namesrv_headers.h"
#include "protocol/remoting_command.h"

namespace rocketstore::console {

namespace {

constexpr int32_t kGetBrokerClusterInfo = 106;
constexpr int32_t kGetBrokerRuntimeInfo = 28;
constexpr int32_t kGetBrokerConfig = 26;

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
        p.pending = id == 0 ? 3 : 2;  // 28, 26 and a master's own topic's route
        view_.brokers.push_back(std::move(p));
      }
    }
    std::sort(view_.brokers.begin(), view_.brokers.end(), [](const auto& a, const auto& b) {
      return std::tie(a.cluster, a.broker_name, a.broker_id) <
             std::tie(b.cluster, b.broker_name, b.broker_id);
    });
    asked = view_.brokers;
    outstanding_ = 0;
    for (const BrokerProbe& b : asked) outstanding_ += static_cast<size_t>(b.pending);
    if (!options_.local_broker_name.empty()) ++outstanding_;
  }
  // 2. Each broker's runtime info and config, asynchronously: answers land through Answer().
  auto ask_broker = [&](const std::string& addr, int32_t code, Part part) {
    Status sent = transport_->InvokeAsync(
        addr, protocol::MakeRequest(code),
        [this, addr, round, part](Result<protocol::RemotingCommand> r) {
          using Table = std::map<std::string, std::string>;
          if (!r.ok()) return Answer(addr, round, part, r.status());
          if (r->code != 0) return Answer(addr, round, part, Unavailable(ErrorAnswer(*r)));
          if (part == Part::kConfig) {
            return Answer(addr, round, part, Table(client::ParseJavaProperties(BodyText(*r))));
          }
          auto table = client::KvTable::Decode(BodyText(*r));
          if (!table.ok()) {
            return Answer(addr, round, part,
                          Unavailable("unreadable GET_BROKER_RUNTIME_INFO answer: " +
                                      table.status().message()));
          }
          Answer(addr, round, part, std::move(table->table));
        },
        options_.timeout_ms);
    if (!sent.ok()) Answer(addr, round, part, sent);
    return sent;
  };
  // The route of a broker's own topic from the name server that answered 106: whether
  // its writes were wiped (205).
  auto ask_route = [&](const std::string& name) {
    protocol::RemotingCommand req =
        protocol::MakeRequest(protocol::RequestCode::kGetRouteinfoByTopic);
    protocol::GetRouteInfoRequestHeader h;
    h.topic = name;
    h.EncodeTo(req);
    Status sent = transport_->InvokeAsync(
        answered_by, std::move(req),
        [this, name, round](Result<protocol::RemotingCommand> r) {
          int perm = -1;
          if (r.ok() && r->code == 0) {
            if (auto route = client::TopicRoute::Decode(BodyText(*r)); route.ok()) {
              perm = client::OwnTopicRoutePerm(*route, name);
            }
          }
          RouteAnswer(name, round, perm);
        },
        options_.timeout_ms);
    if (!sent.ok()) RouteAnswer(name, round, -1);
  };
  for (const BrokerProbe& b : asked) {
    // A broker that cannot be connected to is not connected to twice (a silent host would
    // hold this thread for a second connect timeout).
    Status sent = ask_broker(b.address, kGetBrokerRuntimeInfo, Part::kRuntime);
    if (sent.ok()) {
      (void)ask_broker(b.address, kGetBrokerConfig, Part::kConfig);
    } else {
      Answer(b.address, round, Part::kConfig, sent);
    }
    if (b.broker_id == 0) ask_route(b.broker_name);
  }
  if (!options_.local_broker_name.empty()) ask_route(options_.local_broker_name);
}

void ClusterProbe::Answer(const std::string& address, int64_t round, Part part,
                          Result<std::map<std::string, std::string>> answer) {
  std::lock_guard<std::mutex> l(mu_);
  if (round != round_) return;
  if (outstanding_ > 0) --outstanding_;
  for (BrokerProbe& b : view_.brokers) {
    if (b.address != address || b.state != BrokerProbe::State::kAsking) continue;
    if (part == Part::kRuntime) {
      if (answer.ok()) {
        b.error.clear();
        b.runtime = std::move(answer).value();
      } else {
        b.error = answer.status().message();
        b.runtime.clear();
      }
    } else if (answer.ok()) {
      b.config = std::move(answer).value();
      b.config_error.clear();
    } else {
      b.config.clear();
      b.config_error = answer.status().message();
    }
    PartDone(b);
    return;
  }
}

void ClusterProbe::RouteAnswer(const std::string& broker_name, int64_t round, int perm) {
  std::lock_guard<std::mutex> l(mu_);
  if (round != round_) return;
  if (outstanding_ > 0) --outstanding_;
  if (broker_name == options_.local_broker_name) view_.local_route_perm = perm;
  for (BrokerProbe& b : view_.brokers) {
    if (b.broker_name != broker_name || b.broker_id != 0 ||
        b.state != BrokerProbe::State::kAsking) {
      continue;
    }
    b.route_perm = perm;
    PartDone(b);
  }
}

void ClusterProbe::PartDone(BrokerProbe& b) {
  if (--b.pending > 0) return;
  const bool answered = b.error.empty();
  b.state = answered ? BrokerProbe::State::kAnswered : BrokerProbe::State::kUnreachable;
  if (answered) b.answered_ms = b.asked_ms;
  using Table = std::map<std::string, std::string>;
  const Result<Table> runtime = answered ? Result<Table>(b.runtime) : Unavailable(b.error);
  const Result<Table> config =
      b.config_error.empty() ? Result<Table>(b.config) : Result<Table>(Unavailable(b.config_error));
  const int route_perm = client::OwnTopicRouteApplies(b.broker_id, b.config) ? b.route_perm : -1;
  b.health = client::AssessBrokerHealth(b.broker_id, runtime, config, route_perm);
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
