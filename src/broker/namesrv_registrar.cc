#include "broker/namesrv_registrar.h"

#include "base/crc32.h"
#include "protocol/headers/namesrv_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;
using protocol::RequestCode;

NamesrvRegistrar::NamesrvRegistrar(Options options, const TopicConfigManager& topics,
                                   const BrokerPermission* permission)
    : options_(std::move(options)), topics_(topics), permission_(permission) {}

void NamesrvRegistrar::RequestNow(Done done) {
  {
    std::lock_guard lock(request_mu_);
    requested_ = true;
    if (done) waiting_.push_back(std::move(done));
  }
  if (wake_) wake_();
}

Status NamesrvRegistrar::RunOnce(int64_t now_ms) {
  // The flag and the waiters are taken together, before the body is built: a request
  // made after this point waits for the next round (and sets the flag for it).
  bool requested = false;
  std::vector<Done> covered;
  {
    std::lock_guard lock(request_mu_);
    requested = requested_;
    requested_ = false;
    covered.swap(waiting_);
  }
  if (!requested && now_ms < next_due_ms_) return last_;
  next_due_ms_ = now_ms + options_.interval_ms;
  last_ = RegisterAll();
  for (Done& d : covered) d(last_);
  return last_;
}

void NamesrvRegistrar::AbandonPending(const Status& why) {
  std::vector<Done> abandoned;
  {
    std::lock_guard lock(request_mu_);
    abandoned.swap(waiting_);
  }
  for (Done& d : abandoned) d(why);
}

size_t NamesrvRegistrar::pending_count() const {
  std::lock_guard lock(request_mu_);
  return waiting_.size();
}

Status NamesrvRegistrar::RegisterAll() {
  if (options_.namesrv_addrs.empty()) return Status::OK();
  const std::string body =
      "{\"filterServerList\":[],\"topicConfigSerializeWrapper\":" +
      (permission_ != nullptr ? topics_.RegistrationJson(permission_->get()) : topics_.ToJson()) +
      "}";
  std::lock_guard lock(mu_);
  Status last = Status::OK();
  int accepted = 0;
  for (const auto& addr : options_.namesrv_addrs) {
    auto& client = clients_[addr];
    if (!client) client = std::make_unique<net::RemotingClient>();
    if (!client->connected()) {
      if (Status s = client->Connect(addr, options_.timeout_ms); !s.ok()) {
        last = s.WithContext("name server " + addr);
        continue;
      }
    }
    RemotingCommand req = protocol::MakeRequest(RequestCode::kRegisterBroker);
    protocol::RegisterBrokerRequestHeader h;
    h.broker_name = options_.broker_name;
    h.broker_addr = options_.broker_addr;
    h.cluster_name = options_.cluster_name;
    h.ha_server_addr = options_.broker_addr;
    h.broker_id = 0;
    h.heartbeat_timeout_millis = 120000;
    h.enable_acting_master = false;
    h.compressed = false;
    h.body_crc32 = static_cast<int32_t>(RocketMqCrc32(body));
    h.EncodeTo(req);
    req.body.Assign(body);
    auto resp = client->Invoke(std::move(req), options_.timeout_ms);
    if (!resp.ok()) {
      last = resp.status().WithContext("name server " + addr);
      client->Close();
    } else if (resp->code != 0) {
      last = Unavailable("name server " + addr +
                         " refused registration: " + resp->remark.value_or(""));
    } else {
      ++accepted;
    }
  }
  return accepted > 0 ? Status::OK() : last;
}

void NamesrvRegistrar::UnregisterAll() {
  std::lock_guard lock(mu_);
  for (auto& [addr, client] : clients_) {
    if (!client->connected()) continue;
    RemotingCommand req = protocol::MakeRequest(RequestCode::kUnregisterBroker);
    protocol::UnregisterBrokerRequestHeader h;
    h.broker_name = options_.broker_name;
    h.broker_addr = options_.broker_addr;
    h.cluster_name = options_.cluster_name;
    h.broker_id = 0;
    h.EncodeTo(req);
    // Best effort: a name server that does not hear this expires the broker in 120 s.
    (void)client->Invoke(std::move(req), 1000);
    client->Close();
  }
  clients_.clear();
}

}  // namespace rocketstore::broker
