#include "net/remoting_server.h"

#include <chrono>

#include "base/sanitizers.h"
#include "base/thread_name.h"
#include "log/log.h"

namespace rocketstore::net {

using protocol::RemotingCommand;

int64_t SteadyNowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t SteadyNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
constexpr size_t kInitialReadBuffer = 64 * 1024;
}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, RemotingServer* server, uint64_t id)
    : socket_(std::move(socket)),
      strand_(asio::make_strand(socket_.get_executor())),
      idle_timer_(strand_),
      server_(server),
      id_(id) {
  asio::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  if (!ec) {
    remote_port_ = ep.port();
    if (ep.address().is_v4()) {
      remote_ipv4_ = ep.address().to_v4().to_uint();
      remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
    } else {
      remote_ = "[" + ep.address().to_string() + "]:" + std::to_string(ep.port());
    }
  }
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  // For DoWrite's inline write_some (asynchronous operations do not depend on it). If the
  // socket cannot be made non-blocking, every write goes by async_write: an inline write
  // could block the io thread.
  ec.clear();
  socket_.non_blocking(true, ec);
  inline_writes_ = !ec;
}

Connection::~Connection() = default;

void Connection::Start() {
  buf_.resize(kInitialReadBuffer);
  last_read_ms_ = SteadyNowMillis();
  asio::dispatch(strand_, [self = shared_from_this()] {
    self->ArmIdleTimer();
    self->DoRead();
  });
}

void Connection::ArmIdleTimer() {
  if (closed_) return;
  const int64_t idle = server_->options_.idle_timeout_ms;
  if (idle <= 0) return;
  const int64_t wait = std::max<int64_t>(1, last_read_ms_ + idle - SteadyNowMillis());
  idle_timer_.expires_after(std::chrono::milliseconds(wait));
  idle_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (ec || self->closed_) return;
    if (SteadyNowMillis() - self->last_read_ms_ >= self->server_->options_.idle_timeout_ms) {
      self->CloseOnStrand();
    } else {
      self->ArmIdleTimer();
    }
  });
}

void Connection::DoRead() {
  if (closed_) return;
  if (buf_end_ == buf_.size()) {
    if (buf_begin_ > 0) {
      std::copy(buf_.begin() + buf_begin_, buf_.begin() + buf_end_, buf_.begin());
      buf_end_ -= buf_begin_;
      buf_begin_ = 0;
    } else {
      buf_.resize(buf_.size() * 2);  // only reached below a validated frame size
    }
  }
  socket_.async_read_some(
      asio::buffer(buf_.data() + buf_end_, buf_.size() - buf_end_),
      asio::bind_executor(strand_, [self = shared_from_this()](const asio::error_code& ec,
                                                               size_t n) { self->OnRead(ec, n); }));
}

void Connection::OnRead(const asio::error_code& ec, size_t n) {
  if (ec) {
    CloseOnStrand();
    return;
  }
  last_read_ms_ = SteadyNowMillis();
  buf_end_ += n;
  if (!ProcessBuffer()) {
    CloseOnStrand();
    return;
  }
  DoRead();
}

bool Connection::ProcessBuffer() {
  in_batch_ = true;
  bool ok = true;
  while (!closed_ && buf_end_ > buf_begin_) {
    std::span<const uint8_t> avail(buf_.data() + buf_begin_, buf_end_ - buf_begin_);
    protocol::FrameDecodeResult decoded;
    Status status = protocol::DecodeFrameInto(avail, server_->options_.limits, &decoded);
#if ROCKETSTORE_ASAN
    // Under AddressSanitizer a whole frame is decoded again from its own heap copy, freed
    // once the command is dispatched: a view of it kept past its request (a borrowed send
    // body, Limits::borrow_send_bodies) is a use-after-free report instead of a silent
    // read of whatever the buffer holds next.
    std::vector<uint8_t> own_copy;
    if (status.ok() && decoded.complete) {
      own_copy.assign(avail.begin(), avail.begin() + static_cast<ptrdiff_t>(decoded.consumed));
      decoded = protocol::FrameDecodeResult();
      status = protocol::DecodeFrameInto(own_copy, server_->options_.limits, &decoded);
    }
#endif
    if (!status.ok()) {
      RS_LOG_WARN("net: closing connection remote={} reason=bad_frame error=\"{}\"", remote_,
                  status.message());
      ok = false;
      break;
    }
    if (!decoded.complete) {
      const size_t need = decoded.frame_size;
      if (need > 0 && need > buf_.size() - buf_begin_) {
        // Make room for the whole (validated) frame.
        std::copy(buf_.begin() + buf_begin_, buf_.begin() + buf_end_, buf_.begin());
        buf_end_ -= buf_begin_;
        buf_begin_ = 0;
        if (need > buf_.size()) buf_.resize(need);
      }
      break;
    }
    buf_begin_ += decoded.consumed;
    RemotingCommand& cmd = decoded.command;
    if (cmd.IsResponse()) {
      if (response_hook_) response_hook_(std::move(cmd));
      continue;
    }
    server_->Dispatch(shared_from_this(), cmd);
  }
  in_batch_ = false;
  if (!ok) return false;
  if (!writing_) DoWrite();  // the batch's responses, in one write
  if (buf_begin_ == buf_end_) {
    buf_begin_ = buf_end_ = 0;
    if (buf_.size() > 4 * kInitialReadBuffer) {
      buf_.resize(kInitialReadBuffer);
      buf_.shrink_to_fit();
    }
  }
  return true;
}

void Connection::ObserveRpc(const RemotingCommand& request, int32_t response_code) const {
  if (RpcObserver* o = server_->options_.rpc_observer; o != nullptr && request.received_nanos) {
    o->OnRpc(request.code, response_code, SteadyNowNanos() - request.received_nanos);
  }
}

void Connection::SendResponse(const RemotingCommand& request, RemotingCommand response) {
  if (request.IsOneway()) return;
  ObserveRpc(request, response.code);
  response.opaque = request.opaque;
  response.MarkResponse();
  Send(std::move(response));
}

void Connection::Send(RemotingCommand&& command) {
  if (closed_) return;
  if (strand_.running_in_this_thread()) {
    // A handler answering inline (the common case): no hand-off, no allocation.
    Enqueue(std::move(command));
    return;
  }
  server_->SendFromOutside(shared_from_this(), std::move(command));
}

Connection::Pending& Connection::NewPending() {
  if (spare_.empty()) {
    queue_.push_back(std::make_unique<Pending>());
  } else {
    queue_.push_back(std::move(spare_.back()));
    spare_.pop_back();
  }
  return *queue_.back();
}

void Connection::Queued() {
  queued_bytes_ += queue_.back()->frame.size();
  if (queued_bytes_ > server_->options_.max_write_queue_bytes) {
    RS_LOG_WARN("net: closing connection remote={} reason=slow_client queued_bytes={}", remote_,
                queued_bytes_);
    CloseOnStrand();
    return;
  }
  if (!writing_ && !in_batch_) DoWrite();
}

void Connection::DropLast(int32_t request_code, const Status& why) {
  RS_LOG_ERROR("net: dropped a reply reason=cannot_encode request_code={} error=\"{}\"",
               request_code, why.message());
  Recycle(std::move(queue_.back()));
  queue_.pop_back();
}

void Connection::Enqueue(RemotingCommand&& cmd) {
  if (closed_) return;
  // Encode in place: the frame's body parts point into the queued command, which a deque
  // never moves.
  Pending& p = NewPending();
  p.command = std::move(cmd);
  p.has_command = true;
  if (Status s = protocol::EncodeFrameInto(p.command, &p.frame); !s.ok()) {
    RS_LOG_ERROR("net: dropped a reply reason=cannot_encode command=\"{}\" error=\"{}\"",
                 p.command.DebugString(), s.message());
    Recycle(std::move(queue_.back()));
    queue_.pop_back();
    return;
  }
  Queued();
}

namespace {
// Body parts up to this size are copied into the write buffer; larger ones are written
// from where they are.
constexpr size_t kCopyPartMax = 4096;
// One write carries at most this many bytes (more stay queued for the next).
constexpr size_t kMaxWriteBytes = 1 << 20;
}  // namespace

void Connection::Recycle(std::unique_ptr<Pending> p) {
  constexpr size_t kMaxSpare = 64;
  if (spare_.size() >= kMaxSpare) return;
  if (p->has_command) {
    p->command = protocol::RemotingCommand();  // its buffers go now, not when reused
    p->has_command = false;
  }
  // The frame's buffers are kept for the next reply (EncodeFrameInto reuses them) unless
  // this one was large.
  constexpr size_t kMaxKeptHead = 4096;
  if (p->frame.head.capacity() > kMaxKeptHead) p->frame = protocol::EncodedFrame();
  p->frame.head.clear();
  p->frame.body_parts.clear();
  spare_.push_back(std::move(p));
}

size_t Connection::GatherBatch() {
  write_pieces_.clear();
  write_buf_.clear();
  auto copy = [&](std::span<const uint8_t> bytes) {
    if (write_pieces_.empty() || write_pieces_.back().external != nullptr) {
      write_pieces_.push_back(WritePiece{nullptr, write_buf_.size(), 0});
    }
    write_buf_.insert(write_buf_.end(), bytes.begin(), bytes.end());
    write_pieces_.back().size += bytes.size();
  };
  size_t frames = 0, bytes = 0;
  for (auto it = queue_.begin(); it != queue_.end() && (frames == 0 || bytes < kMaxWriteBytes);
       ++it, ++frames) {
    copy((*it)->frame.head);
    for (auto part : (*it)->frame.body_parts) {
      if (part.size() <= kCopyPartMax) {
        copy(part);
      } else {
        write_pieces_.push_back(WritePiece{part.data(), 0, part.size()});
      }
    }
    bytes += (*it)->frame.size();
  }
  writing_frames_ = frames;
  // write_buf_ may have moved while it was filled: offsets become addresses only now.
  write_gather_.clear();
  for (const WritePiece& p : write_pieces_) {
    write_gather_.emplace_back(p.external ? p.external : write_buf_.data() + p.offset, p.size);
  }
  return bytes;
}

void Connection::DoWrite() {
  while (!queue_.empty() && !closed_) {
    writing_ = true;
    const size_t total = GatherBatch();
    // Write inline first (the socket is non-blocking): with room in the socket buffer, as
    // nearly always, the batch is out in this one sendmsg, and no asynchronous operation,
    // completion post or strand hand-off is paid for it. What the kernel does not take
    // goes out by async_write once the socket is writable.
    if (inline_writes_) {
      asio::error_code ec;
      const size_t sent = socket_.write_some(write_gather_, ec);
      if (ec && ec != asio::error::would_block && ec != asio::error::try_again &&
          ec != asio::error::interrupted) {
        CloseOnStrand();
        return;
      }
      if (!ec && sent == total) {
        RecycleWritten();
        continue;
      }
      SkipWritten(ec ? 0 : sent);
    }
    asio::async_write(socket_, write_gather_,
                      asio::bind_executor(
                          strand_, [self = shared_from_this()](const asio::error_code& ec, size_t) {
                            if (ec) {
                              self->CloseOnStrand();
                              return;
                            }
                            self->RecycleWritten();
                            self->DoWrite();
                          }));
    return;
  }
  writing_ = false;
}

void Connection::SkipWritten(size_t n) {
  size_t i = 0;
  while (n > 0 && n >= write_gather_[i].size()) n -= write_gather_[i++].size();
  write_gather_.erase(write_gather_.begin(), write_gather_.begin() + i);
  if (n > 0) write_gather_[0] += n;
}

void Connection::RecycleWritten() {
  for (size_t i = 0; i < writing_frames_ && !queue_.empty(); ++i) {
    queued_bytes_ -= queue_.front()->frame.size();
    Recycle(std::move(queue_.front()));
    queue_.pop_front();
  }
  writing_frames_ = 0;
}

void Connection::Close() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->CloseOnStrand(); });
}

void Connection::CloseOnStrand() {
  if (closed_.exchange(true)) return;
  asio::error_code ec;
  idle_timer_.cancel();
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  queue_.clear();
  queued_bytes_ = 0;
  server_->Remove(shared_from_this());
}

RemotingServer::RemotingServer(ServerOptions options)
    : options_(std::move(options)), acceptor_(io_) {}

RemotingServer::~RemotingServer() { Stop(); }

void RemotingServer::RegisterHandler(int32_t code, Handler handler) {
  handlers_[code] = std::move(handler);
}

Status RemotingServer::Listen() {
  if (acceptor_.is_open()) return Status::OK();
  asio::error_code ec;
  auto addr = asio::ip::make_address(options_.host, ec);
  if (ec) return InvalidArgument("bad listen address " + options_.host + ": " + ec.message());
  asio::ip::tcp::endpoint ep(addr, options_.port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Unavailable("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                       ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  return Status::OK();
}

Status RemotingServer::Start() {
  if (started_) return FailedPrecondition("remoting server already started");
  if (Status s = Listen(); !s.ok()) return s;
  work_.emplace(io_.get_executor());
  DoAccept();
  started_ = true;
  for (int i = 0; i < std::max(1, options_.threads); ++i) {
    threads_.emplace_back([this] {
      SetCurrentThreadName(options_.thread_name);
      io_.run();
    });
  }
  return Status::OK();
}

void RemotingServer::DoAccept() {
  acceptor_.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) {
      auto conn = std::make_shared<Connection>(std::move(socket), this, next_id_++);
      {
        std::lock_guard lock(mu_);
        conns_[conn->id()] = conn;
      }
      conn->Start();
    }
    DoAccept();
  });
}

void RemotingServer::Dispatch(const ConnectionPtr& conn, RemotingCommand& cmd) {
  if (options_.rpc_observer != nullptr) cmd.received_nanos = SteadyNowNanos();
  auto it = handlers_.find(cmd.code);
  if (it == handlers_.end()) {
    if (!cmd.IsOneway())
      conn->SendResponse(cmd, protocol::MakeRequestCodeNotSupportedResponse(cmd));
    return;
  }
  std::optional<RemotingCommand> response = it->second(conn, cmd);
  if (response.has_value()) conn->SendResponse(cmd, std::move(*response));
}

void RemotingServer::SendFromOutside(ConnectionPtr conn, RemotingCommand command) {
  if (options_.threads > 1) {
    // Several io threads: the connection's strand serialises it with its other work.
    asio::post(conn->strand_,
               [conn, cmd = std::move(command)]() mutable { conn->Enqueue(std::move(cmd)); });
    return;
  }
  bool first;
  {
    std::lock_guard lock(outbox_mu_);
    first = outbox_.empty();
    outbox_.emplace_back(std::move(conn), std::move(command));
  }
  if (first) asio::post(io_, [this] { DrainOutbox(); });
}

void RemotingServer::DrainOutbox() {
  std::vector<Outgoing> batch = std::move(outbox_spare_);  // empty, with its capacity
  {
    std::lock_guard lock(outbox_mu_);
    batch.swap(outbox_);
  }
  // The one io thread runs this handler: no strand's handler runs meanwhile, so each
  // connection is handed its commands directly, as a batch (in_batch_): one write per
  // connection however many of its answers the batch holds.
  for (auto& [conn, command] : batch) {
    conn->in_batch_ = true;
    conn->Enqueue(std::move(command));
  }
  for (auto& [conn, command] : batch) {
    if (!conn->in_batch_) continue;  // its write is done (a connection may repeat)
    conn->in_batch_ = false;
    if (!conn->writing_) conn->DoWrite();
  }
  batch.clear();
  outbox_spare_ = std::move(batch);
}

void RemotingServer::Remove(const ConnectionPtr& conn) {
  {
    std::lock_guard lock(mu_);
    if (conns_.erase(conn->id()) == 0) return;
  }
  if (close_listener_) close_listener_(conn);
}

size_t RemotingServer::connection_count() const {
  std::lock_guard lock(mu_);
  return conns_.size();
}

void RemotingServer::Stop() {
  if (!started_) {
    asio::error_code ec;
    acceptor_.close(ec);  // listening only (Listen without Start): no io thread to tell
    return;
  }
  started_ = false;
  asio::post(io_, [this] {
    asio::error_code ec;
    acceptor_.close(ec);
  });
  std::vector<ConnectionPtr> conns;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, c] : conns_) conns.push_back(c);
  }
  for (auto& c : conns) c->Close();
  work_.reset();
  // Give queued closes a moment, then stop the loop.
  asio::post(io_, [this] { io_.stop(); });
  for (auto& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard lock(mu_);
    conns_.clear();
  }
  {
    std::lock_guard lock(outbox_mu_);
    outbox_.clear();  // for connections closed above: nothing to write to
  }
}

}  // namespace rocketstore::net
