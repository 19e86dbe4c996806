#include "net/async_remoting_client.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/remoting_server.h"  // SteadyNowMillis
#include "net/tcp_connect.h"

namespace rocketstore::net {

using protocol::RemotingCommand;

namespace {
constexpr size_t kInitialReadBuffer = 64 * 1024;
}  // namespace

class AsyncRemotingClient::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::io_context& io, AsyncClientOptions options)
      : options_(std::move(options)),
        strand_(asio::make_strand(io)),
        socket_(strand_),
        timer_(strand_) {}

  Status Connect(const std::string& address, int64_t timeout_ms);
  Status Submit(RemotingCommand request, Callback callback, int64_t timeout_ms,
                bool keep_opaque = false);
  void Fail(Status reason);
  bool connected() const {
    std::lock_guard lock(mu_);
    return state_ == State::kOpen;
  }
  size_t pending() const {
    std::lock_guard lock(mu_);
    return pending_.size();
  }

  std::function<void(RemotingCommand)> server_request_hook_;
  std::string address_;

 private:
  enum class State { kIdle, kOpen, kClosed };
  struct Call {
    Callback callback;
    int64_t deadline_ms;
    int64_t timeout_ms;
  };

  // All below run on strand_.
  void DoRead();
  void OnRead(const asio::error_code& ec, size_t n);
  void Deliver(RemotingCommand command);
  void WriteQueued();
  void ArmTimer();
  void ExpireTimedOut();

  const AsyncClientOptions options_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::ip::tcp::socket socket_;
  asio::steady_timer timer_;
  std::atomic<int32_t> next_opaque_{1};

  mutable std::mutex mu_;
  State state_ = State::kIdle;                 // guarded by mu_
  Status close_reason_;                        // guarded by mu_
  std::unordered_map<int32_t, Call> pending_;  // guarded by mu_
  std::vector<uint8_t> out_;                   // frames not yet handed to a write; guarded by mu_
  bool writing_ = false;                       // a write is in progress or posted; guarded by mu_

  std::vector<uint8_t> writing_buf_;  // bytes of the write in progress (strand only)
  std::vector<uint8_t> read_buf_;     // strand only
  size_t read_begin_ = 0, read_end_ = 0;
};

Status AsyncRemotingClient::Impl::Connect(const std::string& address, int64_t timeout_ms) {
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kIdle) return FailedPrecondition("Connect may be called only once");
  }
  // Nothing else touches the socket until the state is kOpen, so a blocking-style connect
  // from this thread is safe.
  RS_RETURN_IF_ERROR(ConnectTcp(socket_, address, timeout_ms));
  asio::error_code ec;
  address_ = address;
  read_buf_.resize(kInitialReadBuffer);
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kIdle) {  // Close() raced with Connect
      socket_.close(ec);
      return close_reason_;
    }
    state_ = State::kOpen;
  }
  asio::dispatch(strand_, [self = shared_from_this()] {
    self->ArmTimer();
    self->DoRead();
  });
  return Status::OK();
}

Status AsyncRemotingClient::Impl::Submit(RemotingCommand request, Callback callback,
                                         int64_t timeout_ms, bool keep_opaque) {
  if (!keep_opaque) request.opaque = next_opaque_.fetch_add(1, std::memory_order_relaxed);
  auto frame = protocol::EncodeFrame(request, options_.limits);
  if (!frame.ok()) return frame.status();
  if (timeout_ms < 0) timeout_ms = options_.default_timeout_ms;
  bool start_write = false;
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kOpen) {
      return state_ == State::kIdle ? Unavailable("not connected") : close_reason_;
    }
    if (callback) {
      auto [it, inserted] = pending_.try_emplace(
          request.opaque, Call{std::move(callback), SteadyNowMillis() + timeout_ms, timeout_ms});
      if (!inserted) return ResourceExhausted("opaque space exhausted: too many requests pending");
    }
    out_.insert(out_.end(), frame->head.begin(), frame->head.end());
    for (auto part : frame->body_parts) out_.insert(out_.end(), part.begin(), part.end());
    start_write = !writing_;
    writing_ = true;
  }
  // Posted (never run inline) so that Sends made from callbacks of one read batch are
  // coalesced into one write.
  if (start_write) asio::post(strand_, [self = shared_from_this()] { self->WriteQueued(); });
  return Status::OK();
}

void AsyncRemotingClient::Impl::WriteQueued() {
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kOpen || out_.empty()) {
      writing_ = false;
      return;
    }
    writing_buf_.clear();
    writing_buf_.swap(out_);  // out_ keeps the old buffer's capacity: no steady-state allocation
  }
  asio::async_write(socket_, asio::buffer(writing_buf_),
                    [self = shared_from_this()](const asio::error_code& ec, size_t) {
                      if (ec) {
                        self->Fail(Unavailable("write to " + self->address_ + ": " + ec.message()));
                        return;
                      }
                      self->WriteQueued();
                    });
}

void AsyncRemotingClient::Impl::DoRead() {
  if (!connected()) return;
  if (read_end_ == read_buf_.size()) {
    if (read_begin_ > 0) {
      std::copy(read_buf_.begin() + static_cast<ptrdiff_t>(read_begin_),
                read_buf_.begin() + static_cast<ptrdiff_t>(read_end_), read_buf_.begin());
      read_end_ -= read_begin_;
      read_begin_ = 0;
    } else {
      read_buf_.resize(read_buf_.size() * 2);  // only below a validated frame size
    }
  }
  socket_.async_read_some(
      asio::buffer(read_buf_.data() + read_end_, read_buf_.size() - read_end_),
      [self = shared_from_this()](const asio::error_code& ec, size_t n) { self->OnRead(ec, n); });
}

void AsyncRemotingClient::Impl::OnRead(const asio::error_code& ec, size_t n) {
  if (ec) {
    Fail(Unavailable(ec == asio::error::eof ? "connection to " + address_ + " closed by the peer"
                                            : "read from " + address_ + ": " + ec.message()));
    return;
  }
  read_end_ += n;
  while (read_end_ > read_begin_) {
    std::span<const uint8_t> avail(read_buf_.data() + read_begin_, read_end_ - read_begin_);
    auto decoded = protocol::DecodeFrame(avail, options_.limits);
    if (!decoded.ok()) {
      Fail(Unavailable("bad frame from " + address_ + ": " + decoded.status().message()));
      return;
    }
    if (!decoded->complete) {
      const size_t need = decoded->frame_size;
      if (need > read_buf_.size() - read_begin_) {
        std::copy(read_buf_.begin() + static_cast<ptrdiff_t>(read_begin_),
                  read_buf_.begin() + static_cast<ptrdiff_t>(read_end_), read_buf_.begin());
        read_end_ -= read_begin_;
        read_begin_ = 0;
        if (need > read_buf_.size()) read_buf_.resize(need);
      }
      break;
    }
    read_begin_ += decoded->consumed;
    Deliver(std::move(decoded->command));
  }
  if (read_begin_ == read_end_) {
    read_begin_ = read_end_ = 0;
    if (read_buf_.size() > 4 * kInitialReadBuffer) {
      read_buf_.resize(kInitialReadBuffer);
      read_buf_.shrink_to_fit();
    }
  }
  DoRead();
}

void AsyncRemotingClient::Impl::Deliver(RemotingCommand command) {
  if (!command.IsResponse()) {
    if (server_request_hook_) server_request_hook_(std::move(command));
    return;
  }
  Callback callback;
  {
    std::lock_guard lock(mu_);
    auto it = pending_.find(command.opaque);
    if (it == pending_.end()) return;  // timed out already, or not ours
    callback = std::move(it->second.callback);
    pending_.erase(it);
  }
  callback(std::move(command));
}

void AsyncRemotingClient::Impl::ArmTimer() {
  if (!connected()) return;
  timer_.expires_after(
      std::chrono::milliseconds(std::max<int64_t>(1, options_.timeout_check_interval_ms)));
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (ec) return;
    self->ExpireTimedOut();
    self->ArmTimer();
  });
}

void AsyncRemotingClient::Impl::ExpireTimedOut() {
  const int64_t now = SteadyNowMillis();
  std::vector<std::pair<int32_t, Call>> expired;
  {
    std::lock_guard lock(mu_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline_ms <= now) {
        expired.emplace_back(it->first, std::move(it->second));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [opaque, call] : expired) {
    call.callback(DeadlineExceeded("no response from " + address_ +
                                   " to request opaque=" + std::to_string(opaque) + " within " +
                                   std::to_string(call.timeout_ms) + " ms"));
  }
}

void AsyncRemotingClient::Impl::Fail(Status reason) {
  std::unordered_map<int32_t, Call> calls;
  {
    std::lock_guard lock(mu_);
    if (state_ == State::kClosed) return;
    const bool was_open = state_ == State::kOpen;
    state_ = State::kClosed;
    close_reason_ = reason;
    calls.swap(pending_);
    out_.clear();
    if (!was_open) return;
  }
  // Inline when on the strand (I/O errors), posted from other threads (Close()).
  asio::dispatch(strand_, [self = shared_from_this()] {
    asio::error_code ec;
    self->timer_.cancel();
    self->socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    self->socket_.close(ec);
  });
  for (auto& [opaque, call] : calls) call.callback(reason);
}

// ---------------------------------------------------------------- public API

AsyncRemotingClient::AsyncRemotingClient(asio::io_context& io, AsyncClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(options))) {}

AsyncRemotingClient::~AsyncRemotingClient() { Close(); }

Status AsyncRemotingClient::Connect(const std::string& address, int64_t timeout_ms) {
  return impl_->Connect(address, timeout_ms);
}

void AsyncRemotingClient::SetServerRequestHook(std::function<void(RemotingCommand)> hook) {
  impl_->server_request_hook_ = std::move(hook);
}

Status AsyncRemotingClient::Send(RemotingCommand request, Callback callback, int64_t timeout_ms) {
  if (!callback) return InvalidArgument("Send needs a callback (use SendOneway)");
  request.flag &= ~(protocol::kFlagOneway | protocol::kFlagResponse);
  return impl_->Submit(std::move(request), std::move(callback), timeout_ms);
}

Status AsyncRemotingClient::SendOneway(RemotingCommand request) {
  request.flag &= ~protocol::kFlagResponse;
  request.MarkOneway();
  return impl_->Submit(std::move(request), nullptr, 0);
}

Status AsyncRemotingClient::SendResponse(RemotingCommand response) {
  response.flag &= ~protocol::kFlagOneway;
  response.MarkResponse();
  return impl_->Submit(std::move(response), nullptr, 0, /*keep_opaque=*/true);
}

void AsyncRemotingClient::Close() {
  impl_->Fail(Unavailable("connection to " +
                          (impl_->address_.empty() ? std::string("(none)") : impl_->address_) +
                          " closed by the client"));
}

bool AsyncRemotingClient::connected() const { return impl_->connected(); }
size_t AsyncRemotingClient::pending() const { return impl_->pending(); }

}  // namespace rocketstore::net
