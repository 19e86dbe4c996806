#include "broker/remoting/client_calls.h"

#include <utility>
#include <vector>

namespace rocketstore::broker {

using protocol::RemotingCommand;

ClientCalls::~ClientCalls() {
  std::unordered_map<int32_t, Pending> left;
  {
    std::lock_guard lock(mu_);
    left.swap(pending_);
  }
  for (auto& [opaque, call] : left) call.done(Unavailable("the broker is shutting down"));
}

void ClientCalls::Attach(const net::ConnectionPtr& conn) {
  conn->SetResponseHook(
      [this, id = conn->id()](RemotingCommand response) { OnResponse(id, std::move(response)); });
}

void ClientCalls::Call(const net::ConnectionPtr& conn, RemotingCommand request, Callback done) {
  if (conn->closed()) {
    done(Unavailable("connection to " + conn->remote_address() + " is closed"));
    return;
  }
  int32_t opaque = 0;
  {
    std::lock_guard lock(mu_);
    do {  // positive, and never one still waiting (after a wrap)
      next_opaque_ = next_opaque_ == INT32_MAX ? 1 : next_opaque_ + 1;
    } while (pending_.contains(next_opaque_));
    opaque = next_opaque_;
    pending_.emplace(opaque, Pending{conn->id(), NowMs() + timeout_ms_, std::move(done)});
  }
  request.opaque = opaque;
  conn->Send(std::move(request));
  // Closed meanwhile: its close listener may have run before the call was in the table.
  if (conn->closed()) {
    if (Callback d = Take(opaque, conn->id())) {
      d(Unavailable("connection to " + conn->remote_address() + " is closed"));
    }
  }
}

ClientCalls::Callback ClientCalls::Take(int32_t opaque, uint64_t conn_id) {
  std::lock_guard lock(mu_);
  auto it = pending_.find(opaque);
  if (it == pending_.end() || it->second.conn_id != conn_id) return nullptr;
  Callback done = std::move(it->second.done);
  pending_.erase(it);
  return done;
}

void ClientCalls::OnResponse(uint64_t conn_id, RemotingCommand response) {
  if (Callback done = Take(response.opaque, conn_id)) done(std::move(response));
}

void ClientCalls::OnConnectionClosed(uint64_t conn_id) {
  std::vector<Callback> failed;
  {
    std::lock_guard lock(mu_);
    std::erase_if(pending_, [&](auto& entry) {
      if (entry.second.conn_id != conn_id) return false;
      failed.push_back(std::move(entry.second.done));
      return true;
    });
  }
  for (auto& done : failed) done(Unavailable("the connection closed before the client answered"));
}

int ClientCalls::RunOnce(int64_t now_ms) {
  std::vector<Callback> expired;
  {
    std::lock_guard lock(mu_);
    std::erase_if(pending_, [&](auto& entry) {
      if (entry.second.deadline_ms > now_ms) return false;
      expired.push_back(std::move(entry.second.done));
      return true;
    });
  }
  for (auto& done : expired) {
    done(DeadlineExceeded("no answer from the client within " + std::to_string(timeout_ms_) +
                          " ms"));
  }
  return static_cast<int>(expired.size());
}

size_t ClientCalls::pending() const {
  std::lock_guard lock(mu_);
  return pending_.size();
}

}  // namespace rocketstore::broker
