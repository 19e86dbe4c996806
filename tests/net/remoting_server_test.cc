// RemotingServer/RemotingClient over loopback: dispatch, unknown codes, oneway, async
// (out-of-order) responses, malformed frames closing only their connection.
#include "net/remoting_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "base/sanitizers.h"
#include "net/remoting_client.h"

namespace rocketstore::net {
namespace {

using protocol::RemotingCommand;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<RemotingServer>(ServerOptions{});
    server_->RegisterHandler(
        1000, [](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
          RemotingCommand resp = protocol::MakeResponse(r, 0);
          resp.SetField("echo", std::string(r.FindField("v").value_or("")));
          resp.body.Assign(r.body.owned_text());
          return resp;
        });
    // Answers later, from another thread.
    server_->RegisterHandler(
        1001, [this](const ConnectionPtr& c, RemotingCommand& r) -> std::optional<RemotingCommand> {
          later_.emplace_back([c, r] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            c->SendResponse(r, protocol::MakeResponse(r, 0, "late"));
          });
          return std::nullopt;
        });
    server_->RegisterHandler(
        1002, [this](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
          oneway_seen_++;
          return protocol::MakeResponse(r, 0);
        });
    // Answered by whoever takes it from deferred_.
    server_->RegisterHandler(
        1004, [this](const ConnectionPtr& c, RemotingCommand& r) -> std::optional<RemotingCommand> {
          std::lock_guard lock(deferred_mu_);
          deferred_.emplace_back(c, r);
          return std::nullopt;
        });
    // A reply of field "n" bytes, each the request's opaque mod 251.
    server_->RegisterHandler(
        1003, [](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
          RemotingCommand resp = protocol::MakeResponse(r, 0);
          const size_t n = std::stoul(std::string(r.FindField("n").value_or("0")));
          resp.body.Assign(std::string(n, static_cast<char>(r.opaque % 251)));
          return resp;
        });
    // Answered through SendResponseFrame: the frame written by the handler itself (here
    // the generic encoding of an answer with remark "framed"); "fail" makes the writer
    // fail, so the answer is dropped.
    server_->RegisterHandler(
        1005, [](const ConnectionPtr& c, RemotingCommand& r) -> std::optional<RemotingCommand> {
          RemotingCommand resp = protocol::MakeResponse(r, 0, "framed");
          resp.opaque = r.opaque;
          resp.MarkResponse();
          const bool fail = r.FindField("fail").has_value();
          const bool sent = c->SendResponseFrame(r, 0, [&](std::vector<uint8_t>* head) {
            if (fail) return Status(InvalidArgument("cannot write this one"));
            protocol::EncodedFrame frame;
            RS_RETURN_IF_ERROR(protocol::EncodeFrameInto(resp, &frame));
            *head = frame.head;
            return Status::OK();
          });
          if (!sent) return protocol::MakeResponse(r, 1, "not on the io thread");
          return std::nullopt;
        });
    ASSERT_TRUE(server_->Start().ok());
    addr_ = "127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override {
    for (auto& t : later_) t.join();
    server_->Stop();
  }
  std::unique_ptr<RemotingServer> server_;
  std::string addr_;
  std::vector<std::thread> later_;
  std::atomic<int> oneway_seen_{0};
  std::mutex deferred_mu_;
  std::vector<std::pair<ConnectionPtr, RemotingCommand>> deferred_;
};

TEST_F(ServerTest, EchoAndUnknownCode) {
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  RemotingCommand req = protocol::MakeRequest(1000);
  req.SetField("v", "hello");
  req.body.Assign("payload");
  auto resp = c.Invoke(req);
  ASSERT_TRUE(resp.ok()) << resp.status().message();
  EXPECT_EQ(resp->code, 0);
  EXPECT_EQ(resp->FindField("echo").value_or(""), "hello");
  EXPECT_EQ(resp->body.owned_text(), "payload");

  auto unknown = c.Invoke(protocol::MakeRequest(4242));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->code, 3);
  EXPECT_EQ(unknown->remark.value_or(""), " request type 4242 not supported");
}

TEST_F(ServerTest, OnewayIsNeverAnswered) {
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  ASSERT_TRUE(c.InvokeOneway(protocol::MakeRequest(1002)).ok());
  ASSERT_TRUE(c.InvokeOneway(protocol::MakeRequest(9999)).ok());  // unknown, oneway
  // The next response must be the one to this request, not to the oneways.
  auto resp = c.Invoke(protocol::MakeRequest(1000));
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->code, 0);
  EXPECT_EQ(oneway_seen_.load(), 1);
  // Nothing else queued: a server request wait times out.
  EXPECT_FALSE(c.WaitServerRequest(200).ok());
}

// SendResponseFrame: the handler's own frame reaches the client; a oneway request gets
// none; a frame the writer cannot write is dropped and the connection goes on; off the
// connection's io thread it refuses (the caller answers the usual way).
TEST_F(ServerTest, AFrameWrittenByTheHandlerIsTheAnswer) {
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  auto framed = c.Invoke(protocol::MakeRequest(1005));
  ASSERT_TRUE(framed.ok()) << framed.status().message();
  EXPECT_EQ(framed->code, 0);
  EXPECT_EQ(framed->remark.value_or(""), "framed");
  ASSERT_TRUE(c.InvokeOneway(protocol::MakeRequest(1005)).ok());
  RemotingCommand failing = protocol::MakeRequest(1005);
  failing.SetField("fail", "1");
  EXPECT_FALSE(c.Invoke(failing, 300).ok());  // dropped: no answer (the client gives up)
  ASSERT_TRUE(c.Connect(addr_).ok());
  auto after = c.Invoke(protocol::MakeRequest(1005));
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->remark.value_or(""), "framed");

  RemotingClient d;
  ASSERT_TRUE(d.Connect(addr_).ok());
  std::thread asker([&] { (void)d.Invoke(protocol::MakeRequest(1004), 2000); });
  std::pair<ConnectionPtr, RemotingCommand> held;
  for (int i = 0; i < 200 && !held.first; ++i) {
    {
      std::lock_guard lock(deferred_mu_);
      for (auto& e : deferred_) {
        if (!e.second.IsOneway()) held = e;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(held.first);
  bool wrote = false;
  EXPECT_FALSE(held.first->SendResponseFrame(held.second, 0, [&](std::vector<uint8_t>*) {
    wrote = true;
    return Status::OK();
  }));
  EXPECT_FALSE(wrote);
  held.first->SendResponse(held.second, protocol::MakeResponse(held.second, 0));
  asker.join();
}

// A handler that keeps a borrowed send body (Limits::borrow_send_bodies) past its request
// breaks the rule; under AddressSanitizer the connection's copy per frame makes the later
// read a use-after-free report instead of a silent read of other bytes.
#if ROCKETSTORE_ASAN
std::string_view g_kept_body;
#endif

TEST(BorrowedBodyGuardTest, AKeptBodyIsAUseAfterFreeUnderAsan) {
#if !ROCKETSTORE_ASAN
  GTEST_SKIP() << "the guard is AddressSanitizer's (the asan preset runs this)";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ServerOptions o;
        o.limits.borrow_send_bodies = true;
        RemotingServer server(o);
        server.RegisterHandler(
            310, [](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
              g_kept_body = r.body.leading_text();  // the mistake
              return protocol::MakeResponse(r, 0);
            });
        server.RegisterHandler(
            1000, [](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
              RemotingCommand resp = protocol::MakeResponse(r, 0);
              resp.remark = std::string(g_kept_body);
              return resp;
            });
        if (!server.Start().ok()) return;
        RemotingClient c;
        if (!c.Connect("127.0.0.1:" + std::to_string(server.port())).ok()) return;
        RemotingCommand send = protocol::MakeRequest(310);
        send.body.Assign("a body kept too long");
        (void)c.Invoke(send);
        (void)c.Invoke(protocol::MakeRequest(1000));
      },
      "heap-use-after-free");
#endif
}

TEST_F(ServerTest, HeldRequestDoesNotBlockLaterOnes) {
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  // Send the slow one raw (we don't wait for it), then a fast one.
  RemotingCommand slow = protocol::MakeRequest(1001);
  slow.opaque = 777;
  auto frame = protocol::EncodeFrame(slow);
  ASSERT_TRUE(frame.ok());
  ASSERT_TRUE(c.SendRaw(frame->Flatten()).ok());
  const int64_t t0 = SteadyNowMillis();
  auto fast = c.Invoke(protocol::MakeRequest(1000));
  ASSERT_TRUE(fast.ok());
  EXPECT_LT(SteadyNowMillis() - t0, 250);
}

TEST_F(ServerTest, MalformedFramesCloseOnlyTheirConnection) {
  RemotingClient good;
  ASSERT_TRUE(good.Connect(addr_).ok());
  const std::vector<std::vector<uint8_t>> bad = {
      {0x7F, 0xFF, 0xFF, 0xFF},                                              // oversized length
      {0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x10, 'x', 'x', 'x', 'x'},  // header > frame
      {0x00, 0x00, 0x00, 0x06, 0x05, 0x00, 0x00, 0x02, '{', '}'},  // unknown serialize type
      {0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x04, '{', 'x', 'y', '}'},  // bad JSON
  };
  for (const auto& bytes : bad) {
    RemotingClient c;
    ASSERT_TRUE(c.Connect(addr_).ok());
    ASSERT_TRUE(c.SendRaw(bytes).ok());
    EXPECT_TRUE(c.WaitPeerClosed(3000));
  }
  {
    // Truncated frame then close.
    RemotingClient c;
    ASSERT_TRUE(c.Connect(addr_).ok());
    ASSERT_TRUE(c.SendRaw(std::vector<uint8_t>{0x00, 0x00, 0x01, 0x00, 0x00}).ok());
    c.Close();
  }
  auto resp = good.Invoke(protocol::MakeRequest(1000));
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->code, 0);
}

TEST_F(ServerTest, BinaryHeaderLengthPastTheEndClosesConnection) {
  RemotingClient good;
  ASSERT_TRUE(good.Connect(addr_).ok());
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  // length 25, type 1 (ROCKETMQ) + header 21: code, lang, version, opaque, flag,
  // remarkLength = INT32_MAX (past the header), extFieldsLength.
  std::vector<uint8_t> bytes = {0, 0, 0, 25, 1, 0, 0,    21,   0,    10,   0, 0, 0, 0, 0,
                                0, 1, 0, 0,  0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  ASSERT_TRUE(c.SendRaw(bytes).ok());
  EXPECT_TRUE(c.WaitPeerClosed(3000));
  ASSERT_TRUE(good.Invoke(protocol::MakeRequest(1000)).ok());
}

TEST_F(ServerTest, ManyIdleConnectionsDoNotStopService) {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, 8192);
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  // Each idle connection costs two descriptors here (client and server side).
  const int n = static_cast<int>(std::min<rlim_t>(1000, (lim.rlim_cur - 64) / 2));
  if (n < 100) GTEST_SKIP() << "RLIMIT_NOFILE too low (" << lim.rlim_cur << ")";
  std::vector<int> fds;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(server_->port());
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
    fds.push_back(fd);
  }
  // Up to 10 s for the accepts: under ThreadSanitizer on a loaded 2-core machine 1000 of
  // them took longer than the 2 s this used to allow.
  for (int i = 0; i < 500 && server_->connection_count() < static_cast<size_t>(n); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server_->connection_count(), static_cast<size_t>(n));
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  auto resp = c.Invoke(protocol::MakeRequest(1000));
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->code, 0);
  for (int fd : fds) ::close(fd);
}

// Answers from other threads (as SYNC_FLUSH answers come from the group commit) reach
// their connections whole and once each, whichever thread sends them and however many
// queue up together before the io thread hands them over.
TEST_F(ServerTest, AnswersFromOtherThreadsReachTheirConnections) {
  std::mutex& mu = deferred_mu_;
  std::vector<std::pair<ConnectionPtr, RemotingCommand>>& pending = deferred_;
  constexpr int kConnections = 6, kPerConnection = 40;
  std::atomic<bool> done{false};
  std::vector<std::thread> answerers;
  for (int t = 0; t < 3; ++t) {
    answerers.emplace_back([&] {
      while (!done) {
        std::vector<std::pair<ConnectionPtr, RemotingCommand>> batch;
        {
          std::lock_guard lock(mu);
          batch.swap(pending);
        }
        for (auto& [c, r] : batch) {
          RemotingCommand resp = protocol::MakeResponse(r, 0);
          resp.SetField("v", std::string(r.FindField("v").value_or("")));
          c->SendResponse(r, std::move(resp));
        }
        std::this_thread::yield();
      }
    });
  }
  std::vector<std::thread> clients;
  std::atomic<int> answered{0};
  for (int i = 0; i < kConnections; ++i) {
    clients.emplace_back([&, i] {
      RemotingClient c;
      if (!c.Connect(addr_).ok()) return;
      for (int k = 0; k < kPerConnection; ++k) {
        RemotingCommand req = protocol::MakeRequest(1004);
        const std::string v = std::to_string(i) + "/" + std::to_string(k);
        req.SetField("v", v);
        auto resp = c.Invoke(req);
        if (resp.ok() && resp->FindField("v") == std::optional<std::string_view>(v)) ++answered;
      }
    });
  }
  for (auto& t : clients) t.join();
  done = true;
  for (auto& t : answerers) t.join();
  EXPECT_EQ(answered.load(), kConnections * kPerConnection);
}

// Answers sent from another thread while the client goes away and the server stops: no
// crash, no hang, nothing used after it is gone (ASan and TSan run this too).
TEST_F(ServerTest, AnswersFromOtherThreadsWhileTheServerStops) {
  std::atomic<bool> stop{false};
  std::thread answerer([&] {
    while (!stop) {
      std::vector<std::pair<ConnectionPtr, RemotingCommand>> batch;
      {
        std::lock_guard lock(deferred_mu_);
        batch.swap(deferred_);
      }
      for (auto& [c, r] : batch) {
        for (int i = 0; i < 20; ++i) c->SendResponse(r, protocol::MakeResponse(r, 0));
      }
      std::this_thread::yield();
    }
  });
  {
    RemotingClient c;
    ASSERT_TRUE(c.Connect(addr_).ok());
    for (int i = 0; i < 50; ++i) {
      RemotingCommand req = protocol::MakeRequest(1004);
      req.opaque = 100 + i;
      ASSERT_TRUE(c.SendRaw(protocol::EncodeFrame(req)->Flatten()).ok());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }  // the client closes with answers still coming
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server_->Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  answerer.join();
}

// Replies are written inline while the socket takes them, and the rest asynchronously once
// it is writable again: a client that reads nothing until the server's socket buffer is
// full gets every reply whole and in order, large bodies (written from where they are)
// and small ones (copied) alike.
TEST_F(ServerTest, RepliesPastAFullSocketBufferArriveWholeAndInOrder) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(server_->port());
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
  constexpr int kRequests = 40;
  auto size_of = [](int i) -> size_t { return i % 3 == 0 ? 1 << 20 : 10 + i; };
  std::vector<uint8_t> requests;
  for (int i = 0; i < kRequests; ++i) {
    RemotingCommand req = protocol::MakeRequest(1003);
    req.opaque = 1000 + i;
    req.SetField("n", std::to_string(size_of(i)));
    auto f = protocol::EncodeFrame(req)->Flatten();
    requests.insert(requests.end(), f.begin(), f.end());
  }
  ASSERT_EQ(::write(fd, requests.data(), requests.size()), static_cast<ssize_t>(requests.size()));
  // 14 MiB of replies, more than loopback's socket buffers hold: the server stalls.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<uint8_t> in;
  size_t begin = 0;
  for (int i = 0; i < kRequests;) {
    auto d = protocol::DecodeFrame(std::span(in).subspan(begin), protocol::Limits{});
    ASSERT_TRUE(d.ok()) << d.status().message();
    if (!d->complete) {
      uint8_t chunk[65536];
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      ASSERT_GT(n, 0) << "the server closed or failed after " << i << " replies";
      in.insert(in.end(), chunk, chunk + n);
      continue;
    }
    begin += d->consumed;
    const RemotingCommand& r = d->command;
    EXPECT_EQ(r.opaque, 1000 + i);
    const std::string body(r.body.owned_text());
    ASSERT_EQ(body.size(), size_of(i)) << "reply " << i;
    EXPECT_EQ(body, std::string(size_of(i), static_cast<char>((1000 + i) % 251))) << i;
    ++i;
  }
  EXPECT_EQ(begin, in.size()) << "bytes after the last reply";
  ::close(fd);
}

TEST_F(ServerTest, SplitAndCoalescedFrames) {
  RemotingClient c;
  ASSERT_TRUE(c.Connect(addr_).ok());
  RemotingCommand a = protocol::MakeRequest(1000);
  a.opaque = 101;
  a.SetField("v", "a");
  RemotingCommand b = a;
  b.opaque = 102;
  std::vector<uint8_t> bytes = protocol::EncodeFrame(a)->Flatten();
  auto fb = protocol::EncodeFrame(b)->Flatten();
  bytes.insert(bytes.end(), fb.begin(), fb.end());
  for (size_t i = 0; i < bytes.size(); i += 7) {
    ASSERT_TRUE(c.SendRaw(std::span(bytes).subspan(i, std::min<size_t>(7, bytes.size() - i))).ok());
  }
  // Both answered; then a normal invoke still works.
  auto r = c.Invoke(protocol::MakeRequest(1000));
  ASSERT_TRUE(r.ok());
}

TEST_F(ServerTest, IdleConnectionsAreClosed) {
  server_->Stop();
  ServerOptions o;
  o.idle_timeout_ms = 200;
  server_ = std::make_unique<RemotingServer>(o);
  ASSERT_TRUE(server_->Start().ok());
  RemotingClient c;
  ASSERT_TRUE(c.Connect("127.0.0.1:" + std::to_string(server_->port())).ok());
  EXPECT_TRUE(c.WaitPeerClosed(3000));
}

}  // namespace
}  // namespace rocketstore::net

namespace rocketstore::net {
namespace {

// Listen() opens the port without serving: a client that connects and sends meanwhile is
// answered once Start() runs, never refused or answered early (the broker listens to learn
// its port and serves only once it is ready).
TEST(ServerListenTest, ClientConnectedBeforeStartIsServedAfterIt) {
  RemotingServer server(ServerOptions{});
  std::atomic<bool> started{false};
  std::atomic<bool> handled_before_start{false};
  server.RegisterHandler(
      1000, [&](const ConnectionPtr&, RemotingCommand& r) -> std::optional<RemotingCommand> {
        if (!started.load()) handled_before_start = true;
        return protocol::MakeResponse(r, 0);
      });
  ASSERT_TRUE(server.Listen().ok());
  ASSERT_NE(server.port(), 0);
  RemotingClient client;
  ASSERT_TRUE(client.Connect("127.0.0.1:" + std::to_string(server.port())).ok());
  std::optional<Result<RemotingCommand>> reply;
  std::thread caller([&] { reply.emplace(client.Invoke(protocol::MakeRequest(1000), 10000)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the request waits
  started = true;
  ASSERT_TRUE(server.Start().ok());
  caller.join();
  ASSERT_TRUE(reply.has_value());
  ASSERT_TRUE(reply->ok()) << reply->status().ToString();
  EXPECT_EQ((*reply)->code, 0);
  EXPECT_FALSE(handled_before_start.load());
  EXPECT_FALSE(server.Start().ok());  // once
  server.Stop();
}

TEST(ServerListenTest, StopWithoutStartClosesThePort) {
  auto server = std::make_unique<RemotingServer>(ServerOptions{});
  ASSERT_TRUE(server->Listen().ok());
  const uint16_t port = server->port();
  server->Stop();
  RemotingClient client;
  EXPECT_FALSE(client.Connect("127.0.0.1:" + std::to_string(port)).ok());
}

}  // namespace
}  // namespace rocketstore::net
