// File: net/remoting_server.h
//
// RemotingServer: a TCP server speaking RocketMQ's remoting protocol on standalone Asio.
//
// Contract:
//   * Listens on options.host:options.port (127.0.0.1 by default; port 0 = pick one, read
//     it back with port()). Start() binds and spawns options.threads io threads.
//   * Each connection reads frames with protocol::DecodeFrameInto under options.limits. A frame
//     that fails to decode closes that connection only (no answer: there is no trusted
//     opaque). Limits are checked by the codec before anything is allocated.
//   * Requests are dispatched on the io thread to the handler registered for their code.
//     Unknown codes get REQUEST_CODE_NOT_SUPPORTED. A handler returns the response, or
//     nullopt when it will answer later through Connection::SendResponse (long polling);
//     responses may therefore go out of order. Oneway requests are never answered (a
//     returned response is dropped). Frames flagged as responses go to the connection's
//     response hook (server → client requests) or are dropped.
//   * Writes are whole frames, queued per connection. Responses produced while a batch of
//     requests read together is dispatched go out together in one write once the batch is
//     done; while a write is in progress, new frames queue for the next one. A write
//     copies headers and small body parts into one buffer and references large body parts
//     (e.g. commit-log records of a pull) in a gather list without copying them. If the
//     queued bytes exceed options.max_write_queue_bytes the client is too slow: the
//     connection is closed. A connection with no inbound bytes for options.idle_timeout_ms
//     is closed.
//   * Stop() closes the acceptor and every connection and joins the io threads. Close
//     listeners run on an io thread (or in Stop) once per connection.
//
// Errors never throw: every Asio call uses its error_code overload.
// Thread-safety: RegisterHandler/SetCloseListener before Start(). Connection::Send,
// SendResponse and Close from any thread (from the connection's own io thread, e.g. a
// handler answering inline, Send queues at once without a hand-off); SendResponseFrame
// only on that io thread. A handler's request (its body included) is valid during the
// call only: the connection reads into the same buffer afterwards.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "protocol/frame_codec.h"
#include "protocol/remoting_command.h"

namespace rocketstore::net {

// Told of every response the server sends to a request, with the time from the request's
// dispatch to the response being queued (answers given later through SendResponse
// included: the request stub carries RemotingCommand::received_nanos). Called on the
// thread that answers (an io thread, or the one finishing a deferred request); must not
// block, lock or allocate per call.
class RpcObserver {
 public:
  virtual ~RpcObserver() = default;
  virtual void OnRpc(int32_t request_code, int32_t response_code, int64_t latency_nanos) = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  int threads = 1;
  std::string thread_name = "remoting-io";  // the io threads' OS name (15 bytes shown)
  int64_t idle_timeout_ms = 120000;
  size_t max_write_queue_bytes = 64 << 20;
  protocol::Limits limits;
  RpcObserver* rpc_observer = nullptr;  // optional; must outlive the server
};

class RemotingServer;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, RemotingServer* server, uint64_t id);
  ~Connection();

  uint64_t id() const { return id_; }
  const std::string& remote_address() const { return remote_; }  // "ip:port"
  uint32_t remote_ipv4() const { return remote_ipv4_; }          // host order, 0 if v6
  uint16_t remote_port() const { return remote_port_; }
  bool closed() const { return closed_.load(); }

  // Queues a response to `request` (nothing for a oneway request). Any thread.
  void SendResponse(const protocol::RemotingCommand& request, protocol::RemotingCommand response);
  // Queues any command (e.g. a oneway server → client request). Any thread.
  void Send(protocol::RemotingCommand&& command);
  // Queues a response to `request` (nothing for a oneway request) whose whole frame
  // `write(&head)` writes (returning a Status) — the caller encodes it itself, no
  // RemotingCommand is built — with `response_code` for the RPC observer. A frame that
  // cannot be written is dropped and logged, as SendResponse drops one it cannot encode.
  // Only on this connection's io thread (a handler answering inline); elsewhere it does
  // nothing and returns false.
  template <typename Write>
  bool SendResponseFrame(const protocol::RemotingCommand& request, int32_t response_code,
                         Write&& write) {
    if (!strand_.running_in_this_thread()) return false;
    if (request.IsOneway()) return true;
    ObserveRpc(request, response_code);
    if (closed_) return true;
    Pending& p = NewPending();
    if (Status s = write(&p.frame.head); !s.ok()) {
      DropLast(request.code, s);
      return true;
    }
    Queued();
    return true;
  }
  void Close();

  // One object the server's user keeps per connection (e.g. the broker's channel handle).
  // Read and set on the connection's own io thread (handlers run there, one at a time).
  const std::shared_ptr<void>& attachment() const { return attachment_; }
  void set_attachment(std::shared_ptr<void> a) { attachment_ = std::move(a); }

  // Called with frames flagged as responses (replies to our own requests).
  void SetResponseHook(std::function<void(protocol::RemotingCommand)> hook) {
    response_hook_ = std::move(hook);
  }

 private:
  friend class RemotingServer;
  struct Pending {
    protocol::RemotingCommand command;  // owns the bytes frame.body_parts point into
    protocol::EncodedFrame frame;
    // Whether `command` was set (Enqueue): a frame written in place (SendResponseFrame)
    // leaves it as constructed, and Recycle then has nothing of it to clear.
    bool has_command = false;
  };
  void Start();
  void DoRead();
  void OnRead(const asio::error_code& ec, size_t n);
  bool ProcessBuffer();
  void Enqueue(protocol::RemotingCommand&& cmd);
  // Enqueue's parts: a cleared entry (a spare one if any) at the back of queue_; and,
  // once its frame is written, the accounting and the write.
  Pending& NewPending();
  void Queued();
  void DropLast(int32_t request_code, const Status& why);  // the entry NewPending gave
  void ObserveRpc(const protocol::RemotingCommand& request, int32_t response_code) const;
  void Recycle(std::unique_ptr<Pending> p);  // a written (or dropped) entry, into spare_
  // Writes queue_ until it is empty (inline while the socket takes it all) or an
  // asynchronous write is under way (writing_ stays true until it completes).
  void DoWrite();
  size_t GatherBatch();        // the next write of queue_'s head into write_gather_: its bytes
  void SkipWritten(size_t n);  // drops the first n bytes from write_gather_
  void RecycleWritten();       // the write in progress is out: its entries into spare_
  void ArmIdleTimer();
  void CloseOnStrand();

  asio::ip::tcp::socket socket_;
  asio::strand<asio::any_io_executor> strand_;
  asio::steady_timer idle_timer_;
  RemotingServer* server_;
  uint64_t id_;
  std::string remote_;
  uint32_t remote_ipv4_ = 0;
  uint16_t remote_port_ = 0;
  std::vector<uint8_t> buf_;
  size_t buf_begin_ = 0, buf_end_ = 0;
  // Replies waiting to be written, oldest first. Held by pointer, and written-out entries
  // kept in spare_ for the next replies: a Pending is larger than a deque block, so a
  // deque of values would allocate and free a block per reply.
  std::deque<std::unique_ptr<Pending>> queue_;
  std::vector<std::unique_ptr<Pending>> spare_;
  size_t queued_bytes_ = 0;
  bool writing_ = false;
  // ProcessBuffer is dispatching a batch of requests: responses queue up and go out in one
  // write when the batch is done.
  bool in_batch_ = false;
  // The write in progress: queue_[0, writing_frames_) copied into write_buf_ (heads and
  // small bodies) or referenced (large body parts) by write_gather_.
  size_t writing_frames_ = 0;
  struct WritePiece {
    const uint8_t* external;  // nullptr: bytes are write_buf_[offset, offset + size)
    size_t offset;
    size_t size;
  };
  std::vector<WritePiece> write_pieces_;
  std::vector<uint8_t> write_buf_;
  std::vector<asio::const_buffer> write_gather_;
  bool inline_writes_ = true;  // the socket is non-blocking: DoWrite tries write_some first
  std::atomic<bool> closed_{false};
  int64_t last_read_ms_ = 0;
  std::function<void(protocol::RemotingCommand)> response_hook_;
  std::shared_ptr<void> attachment_;
};

using ConnectionPtr = std::shared_ptr<Connection>;

class RemotingServer {
 public:
  // Returns the response, or nullopt when the handler answers later (or never: oneway).
  using Handler = std::function<std::optional<protocol::RemotingCommand>(
      const ConnectionPtr& conn, protocol::RemotingCommand& request)>;
  using CloseListener = std::function<void(const ConnectionPtr&)>;

  explicit RemotingServer(ServerOptions options);
  ~RemotingServer();

  void RegisterHandler(int32_t code, Handler handler);
  void SetCloseListener(CloseListener l) { close_listener_ = std::move(l); }

  // Binds and listens (the port is known from here on, port 0 included) without accepting:
  // a client that connects meanwhile waits in the kernel's backlog, so a server can learn
  // its port, finish starting, and only then serve (no "starting" answers). Optional.
  Status Listen();
  // Listens if Listen() was not called, then accepts and serves on the io threads.
  Status Start();
  void Stop();
  uint16_t port() const { return port_; }
  // For posting work to the io thread(s). Only the server's own threads run it (the
  // outbox's batches rely on that).
  asio::io_context& io_context() { return io_; }
  size_t connection_count() const;
  const ServerOptions& options() const { return options_; }

 private:
  friend class Connection;
  void DoAccept();
  void Dispatch(const ConnectionPtr& conn, protocol::RemotingCommand& cmd);
  void Remove(const ConnectionPtr& conn);
  // Connection::Send from a thread that is not running the connection's strand (e.g. a
  // SYNC_FLUSH answer from the group commit). With one io thread the commands queue in
  // outbox_ and one posted handler (one wake of the io thread) hands a whole batch to
  // their connections, instead of a post, a handler allocation and a strand hand-off per
  // command. With several io threads each goes through its connection's strand. (So no
  // thread but the server's own may run io_context(); posting to it is fine.)
  void SendFromOutside(ConnectionPtr conn, protocol::RemotingCommand command);
  void DrainOutbox();  // on the io thread

  ServerOptions options_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  asio::ip::tcp::acceptor acceptor_;
  std::unordered_map<int32_t, Handler> handlers_;
  CloseListener close_listener_;
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, ConnectionPtr> conns_;
  std::vector<std::thread> threads_;
  using Outgoing = std::pair<ConnectionPtr, protocol::RemotingCommand>;
  std::mutex outbox_mu_;
  std::vector<Outgoing> outbox_;        // guarded by outbox_mu_
  std::vector<Outgoing> outbox_spare_;  // the io thread's: a drained batch's capacity
  std::atomic<uint64_t> next_id_{1};
  uint16_t port_ = 0;
  bool started_ = false;
};

int64_t SteadyNowMillis();
int64_t SteadyNowNanos();

}  // namespace rocketstore::net
