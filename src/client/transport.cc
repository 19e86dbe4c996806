#include "client/transport.h"

#include <future>
#include <utility>

#include "base/thread_name.h"

namespace rocketstore::client {

Transport::Transport(ServerRequestHook hook, int64_t connect_timeout_ms)
    : work_(asio::make_work_guard(io_)),
      hook_(std::move(hook)),
      connect_timeout_ms_(connect_timeout_ms) {
  io_thread_ = std::thread([this] {
    SetCurrentThreadName("client-io");
    io_.run();
  });
}

Transport::~Transport() {
  std::map<std::string, std::shared_ptr<net::AsyncRemotingClient>> conns;
  {
    std::lock_guard<std::mutex> l(mu_);
    conns.swap(conns_);
  }
  for (auto& [addr, c] : conns) c->Close();
  conns.clear();
  work_.reset();
  io_.stop();
  if (io_thread_.joinable()) io_thread_.join();
}

Result<std::shared_ptr<net::AsyncRemotingClient>> Transport::Get(const std::string& addr) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = conns_.find(addr);
  if (it != conns_.end() && it->second->connected()) return it->second;
  auto c = std::make_shared<net::AsyncRemotingClient>(io_);
  if (hook_) {
    c->SetServerRequestHook(
        [this, addr](protocol::RemotingCommand cmd) { hook_(addr, std::move(cmd)); });
  }
  Status s = c->Connect(addr, connect_timeout_ms_);
  if (!s.ok()) {
    return Unavailable("cannot connect to " + addr + ": " + s.message() +
                       " (is the server running and the address right?)");
  }
  conns_[addr] = c;
  return c;
}

Result<protocol::RemotingCommand> Transport::Invoke(const std::string& addr,
                                                    protocol::RemotingCommand request,
                                                    int64_t timeout_ms) {
  auto promise = std::make_shared<std::promise<Result<protocol::RemotingCommand>>>();
  auto future = promise->get_future();
  Status s = InvokeAsync(
      addr, std::move(request),
      [promise](Result<protocol::RemotingCommand> r) { promise->set_value(std::move(r)); },
      timeout_ms);
  if (!s.ok()) return s;
  return future.get();
}

Status Transport::InvokeAsync(const std::string& addr, protocol::RemotingCommand request,
                              Callback cb, int64_t timeout_ms) {
  RS_ASSIGN_OR_RETURN(auto c, Get(addr));
  Status s = c->Send(std::move(request), std::move(cb), timeout_ms);
  if (!s.ok()) return s.WithContext("request to " + addr);
  return Status::OK();
}

Status Transport::InvokeOneway(const std::string& addr, protocol::RemotingCommand request) {
  RS_ASSIGN_OR_RETURN(auto c, Get(addr));
  return c->SendOneway(std::move(request));
}

void Transport::Drop(const std::string& addr) {
  std::shared_ptr<net::AsyncRemotingClient> c;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = conns_.find(addr);
    if (it == conns_.end()) return;
    c = it->second;
    conns_.erase(it);
  }
  c->Close();
}

Status Transport::Respond(const std::string& addr, protocol::RemotingCommand response) {
  std::shared_ptr<net::AsyncRemotingClient> c;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = conns_.find(addr);
    if (it != conns_.end()) c = it->second;
  }
  if (!c || !c->connected()) {
    return Unavailable("cannot answer " + addr + ": the connection the request came on has closed");
  }
  return c->SendResponse(std::move(response));
}

}  // namespace rocketstore::client
