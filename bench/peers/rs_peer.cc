// bench/peers/rs_peer: the rocketstore side of `make bench-peers` (issue 20). A client of a
// `rocketstore serve` running in another process, so the server's CPU can be read from
// /proc alone (bench/peers/proc_cpu.h) — unlike bench/broker_produce_consume, which runs
// broker and clients in one process.
//
//   rs_peer produce --addr HOST:PORT --shape CxD --seconds S [--size 1024]
//                   [--serialize json|rocketmq] [--server-pid PID] [--count N] [--warmup W]
//       C AsyncRemotingClient connections on one client io thread, each keeping D
//       SEND_MESSAGE_V2 requests in flight (closed loop: each answer sends the next; the
//       properties a Java producer sends: KEYS, a unique UNIQ_KEY, WAIT, TAGS) until
//       S seconds have passed (or, with --count N, until N have been sent: the fixed
//       workload of bench/peers/profile_produce.sh); then waits for the last answers.
//   rs_peer latency --addr HOST:PORT --seconds S [--size 1024] [--server-pid PID]
//       one connection, one SEND_MESSAGE_V2 at a time, each send's round trip timed; in
//       the same run, alternating blocks of 100, the loopback round trip of the same bytes
//       to two echo threads of this process that answer each request with the broker's
//       reply bytes, one on the client's CPU (rtt_*) and one on the other (rtt_cross_*).
//       Every side writes a pre-encoded frame and reads the reply on plain sockets, so the
//       difference is the broker's. Adds a "LATENCY p50_us=.. p99_us=.. rtt_p50_us=..
//       rtt_p99_us=.. rtt_cross_p50_us=.. rtt_cross_p99_us=.." line.
//   rs_peer consume --addr HOST:PORT --seconds S [--server-pid PID]
//       one connection pulling every queue from offset 0, 32 per PULL_MESSAGE, until all
//       is read or S seconds pass.
// Before the window, a warm-up of W (1000) synchronous sends creates the topic (auto-create from
// TBW102) and its queues. Prints one "RESULT ..." line: messages answered with SUCCESS, seconds,
// the server's CPU over the window (all threads, and per thread name).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "bench/peers/proc_cpu.h"
#include "net/async_remoting_client.h"
#include "net/remoting_client.h"
#include "protocol/frame_codec.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/send_headers.h"
#include "protocol/request_code.h"
#include "store/format/message_record.h"

using namespace rocketstore;
using protocol::RemotingCommand;
using protocol::RequestCode;

namespace {

constexpr int kQueues = 8;
const char kTopic[] = "PeerBench";

struct Options {
  std::string addr = "127.0.0.1:10911";
  int connections = 1;
  int depth = 256;
  double seconds = 2;
  int size = 1024;
  int server_pid = 0;
  int64_t count = 0;  // > 0: stop after this many sends instead of after `seconds`
  int warmup = 1000;  // synchronous sends before the window (they create the topic)
  protocol::SerializeType serialize = protocol::SerializeType::kJson;
};

// The properties a RocketMQ 4.9.8 Java producer sends with a message that has a tag and a
// key: KEYS, UNIQ_KEY (MessageClientIDSetter: 32 hex digits, unique per message), WAIT=true
// and TAGS, in the HashMap order messageProperties2String writes them (buckets 7, 12, 13,
// 14 at capacity 16). `seq` makes the UNIQ_KEY unique.
std::string JavaLikeProperties(uint64_t seq) {
  char uniq[33];
  std::snprintf(uniq, sizeof(uniq), "7F000001%04X5A5AC3D2%08X%04X",
                static_cast<unsigned>(getpid() & 0xFFFF), static_cast<unsigned>(seq >> 16),
                static_cast<unsigned>(seq & 0xFFFF));
  std::string p = "KEYS\x01k\x02UNIQ_KEY\x01";
  p.append(uniq, 32);
  p.append("\x02WAIT\x01true\x02TAGS\x01TagA");
  return p;
}

RemotingCommand SendRequest(const Options& o, int queue, const std::string& body) {
  RemotingCommand req = protocol::MakeRequest(RequestCode::kSendMessageV2);
  req.serialize_type = o.serialize;
  protocol::SendMessageRequestHeader h;
  h.producer_group = "PeerBenchProducer";
  h.topic = kTopic;
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = kQueues;
  h.queue_id = queue;
  h.born_timestamp = 1700000000000;
  h.properties = JavaLikeProperties(0);
  h.EncodeTo(req, /*v2=*/true);
  req.body.Assign(body);
  return req;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "rs_peer: %s\n", what.c_str());
  std::exit(1);
}

void WarmUp(const Options& o, const std::string& body) {
  net::RemotingClient c;
  if (Status s = c.Connect(o.addr); !s.ok()) Die("connect " + o.addr + ": " + s.ToString());
  for (int i = 0; i < o.warmup; ++i) {
    auto r = c.Invoke(SendRequest(o, i % kQueues, body), 5000);
    if (!r.ok()) Die("warm-up send: " + r.status().ToString());
    if (r->code != 0)
      Die("warm-up send: code " + std::to_string(r->code) + " " + r->remark.value_or(""));
  }
  c.Close();
}

int Produce(const Options& o) {
  const std::string body(static_cast<size_t>(o.size), 'x');
  WarmUp(o, body);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread io_thread([&io] { io.run(); });
  struct Conn {
    std::unique_ptr<net::AsyncRemotingClient> client;
    std::atomic<int64_t> answered{0};
  };
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < o.connections; ++i) {
    auto c = std::make_unique<Conn>();
    c->client = std::make_unique<net::AsyncRemotingClient>(io);
    if (Status s = c->client->Connect(o.addr); !s.ok()) Die("connect: " + s.ToString());
    conns.push_back(std::move(c));
  }
  std::vector<RemotingCommand> requests;
  for (int q = 0; q < kQueues; ++q) requests.push_back(SendRequest(o, q, body));
  std::mutex mu;
  std::condition_variable cv;
  int slots_left = o.connections * o.depth;
  std::atomic<int64_t> issued{0};
  int64_t deadline = 0;
  // Whether one more send may start: before the deadline, and (--count) below the count.
  auto may_send = [&](int64_t now) {
    if (o.count > 0) return issued.fetch_add(1, std::memory_order_relaxed) < o.count;
    return now < deadline;
  };
  std::atomic<uint64_t> seq{1};
  std::function<void(Conn*, int)> send_one = [&](Conn* c, int queue) {
    RemotingCommand cmd(requests[static_cast<size_t>(queue)]);
    cmd.SetField("i", JavaLikeProperties(seq.fetch_add(1, std::memory_order_relaxed)));
    Status s = c->client->Send(
        std::move(cmd),
        [&, c, queue](Result<RemotingCommand> r) {
          if (!r.ok()) Die("send: " + r.status().ToString());
          if (r->code != 0) {
            Die("send: code " + std::to_string(r->code) + " " + r->remark.value_or(""));
          }
          c->answered.fetch_add(1, std::memory_order_relaxed);
          if (may_send(bench::NowNanos())) {
            send_one(c, (queue + 1) % kQueues);
          } else {
            std::lock_guard lock(mu);
            if (--slots_left == 0) cv.notify_all();
          }
        },
        30000);
    if (!s.ok()) Die("send: " + s.ToString());
  };
  static PeerProcCpu before, after;
  PeerSampleCpu(o.server_pid, &before);
  const int64_t start = bench::NowNanos();
  deadline = start + static_cast<int64_t>(o.seconds * 1e9);
  int started = 0;
  for (int d = 0; d < o.depth; ++d) {
    for (int i = 0; i < o.connections; ++i) {
      if (may_send(start)) {
        send_one(conns[static_cast<size_t>(i)].get(), (i + d) % kQueues);
        ++started;
      }
    }
  }
  {
    std::unique_lock lock(mu);
    slots_left -= o.connections * o.depth - started;  // slots never started (--count)
    cv.wait(lock, [&] { return slots_left <= 0; });
  }
  const double secs = static_cast<double>(bench::NowNanos() - start) / 1e9;
  PeerSampleCpu(o.server_pid, &after);
  int64_t sent = 0;
  for (auto& c : conns) {
    c->client->Close();
    sent += c->answered.load();
  }
  PeerPrintResult("produce", static_cast<long long>(sent), secs, &before, &after);
  conns.clear();
  work.reset();
  io_thread.join();
  return 0;
}

int64_t CountRecords(const RemotingCommand& resp) {
  std::vector<uint8_t> body = resp.body.Flatten();
  std::span<const uint8_t> rest(body);
  int64_t n = 0;
  while (!rest.empty()) {
    auto d = format::DecodeRecord(rest, false);
    if (d.outcome != format::DecodeOutcome::kRecord) break;
    ++n;
    rest = rest.subspan(static_cast<size_t>(d.record.total_size));
  }
  return n;
}

int Consume(const Options& o) {
  net::RemotingClient c;
  if (Status s = c.Connect(o.addr); !s.ok()) Die("connect: " + s.ToString());
  static PeerProcCpu before, after;
  PeerSampleCpu(o.server_pid, &before);
  const int64_t start = bench::NowNanos();
  const int64_t deadline = start + static_cast<int64_t>(o.seconds * 1e9);
  int64_t pulled = 0;
  for (int q = 0; q < kQueues && bench::NowNanos() < deadline; ++q) {
    int64_t offset = 0;
    while (bench::NowNanos() < deadline) {
      RemotingCommand req = protocol::MakeRequest(RequestCode::kPullMessage);
      protocol::PullMessageRequestHeader h;
      h.consumer_group = "PeerBenchGroup";
      h.topic = kTopic;
      h.queue_id = q;
      h.queue_offset = offset;
      h.max_msg_nums = 32;
      h.sys_flag = 4;  // FLAG_SUBSCRIPTION: the subscription is in the request
      h.subscription = "*";
      h.sub_version = 1;
      h.EncodeTo(req);
      auto r = c.Invoke(std::move(req), 5000);
      if (!r.ok()) Die("pull: " + r.status().ToString());
      if (r->code != 0) break;  // PULL_NOT_FOUND / OFFSET_MOVED: this queue is drained
      const int64_t got = CountRecords(*r);
      if (got == 0) break;
      pulled += got;
      auto next = protocol::PullMessageResponseHeader::Decode(*r);
      if (!next.ok()) Die("pull reply: " + next.status().ToString());
      offset = next->next_begin_offset;
    }
  }
  const double secs = static_cast<double>(bench::NowNanos() - start) / 1e9;
  PeerSampleCpu(o.server_pid, &after);
  PeerPrintResult("consume", static_cast<long long>(pulled), secs, &before, &after);
  c.Close();
  return pulled > 0 ? 0 : 1;
}

// ---- latency: blocking sockets, exact byte counts.
void WriteAll(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) Die(std::string("write: ") + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void ReadAll(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      Die(r == 0 ? "read: the peer closed" : std::string("read: ") + std::strerror(errno));
    p += r;
    n -= static_cast<size_t>(r);
  }
}

int ConnectTcp(const std::string& addr) {
  const size_t colon = addr.rfind(':');
  if (colon == std::string::npos) Die("--addr HOST:PORT, got '" + addr + "'");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::stoi(addr.substr(colon + 1))));
  if (::inet_pton(AF_INET, addr.substr(0, colon).c_str(), &sa.sin_addr) != 1) {
    Die("--addr: an IPv4 address, got '" + addr + "'");
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    Die("connect " + addr + ": " + std::strerror(errno));
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

// One reply frame: its 4-byte length, then that many bytes. Returns the whole frame.
std::vector<uint8_t> ReadFrame(int fd) {
  std::vector<uint8_t> frame(4);
  ReadAll(fd, frame.data(), 4);
  const uint32_t len = (uint32_t{frame[0]} << 24) | (uint32_t{frame[1]} << 16) |
                       (uint32_t{frame[2]} << 8) | uint32_t{frame[3]};
  if (len > (64u << 20)) Die("reply frame of " + std::to_string(len) + " bytes");
  frame.resize(4 + len);
  ReadAll(fd, frame.data() + 4, len);
  return frame;
}

void CheckSendReply(const std::vector<uint8_t>& frame) {
  auto d = protocol::DecodeFrame(frame);
  if (!d.ok() || !d->complete) Die("latency: an undecodable reply");
  if (d->command.code != 0) {
    Die("latency send: code " + std::to_string(d->command.code) + " " +
        d->command.remark.value_or(""));
  }
}

void PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::pthread_setaffinity_np(::pthread_self(), sizeof(set), &set) != 0) {
    Die("cannot pin a thread to CPU " + std::to_string(cpu));
  }
}

// A loopback echo on its own thread pinned to `cpu`: reads one request's bytes, writes
// one reply's bytes, until the client closes. Connected on construction.
class Echo {
 public:
  Echo(size_t request_size, const std::vector<uint8_t>& reply, int cpu) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sa_len = sizeof(sa);
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
        ::listen(listener_, 1) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&sa), &sa_len) != 0) {
      Die(std::string("echo listener: ") + std::strerror(errno));
    }
    thread_ = std::thread([this, request_size, &reply, cpu] {
      PinToCpu(cpu);
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) Die(std::string("echo accept: ") + std::strerror(errno));
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      std::vector<uint8_t> in(request_size);
      while (true) {
        size_t got = 0;
        while (got < in.size()) {
          const ssize_t r = ::read(fd, in.data() + got, in.size() - got);
          if (r < 0 && errno == EINTR) continue;
          if (r <= 0) {
            ::close(fd);
            return;
          }
          got += static_cast<size_t>(r);
        }
        WriteAll(fd, reply.data(), reply.size());
      }
    });
    client_fd_ = ConnectTcp("127.0.0.1:" + std::to_string(ntohs(sa.sin_port)));
  }
  ~Echo() {
    ::close(client_fd_);  // the echo thread reads end of file and returns
    thread_.join();
    ::close(listener_);
  }
  int client_fd() const { return client_fd_; }

 private:
  int listener_ = -1;
  int client_fd_ = -1;
  std::thread thread_;
};

int Latency(const Options& o) {
  const std::string body(static_cast<size_t>(o.size), 'x');
  WarmUp(o, body);
  auto encoded = protocol::EncodeFrame(SendRequest(o, 0, body));
  if (!encoded.ok()) Die("encode: " + encoded.status().ToString());
  const std::vector<uint8_t> request = encoded->Flatten();
  const int broker = ConnectTcp(o.addr);
  WriteAll(broker, request.data(), request.size());
  const std::vector<uint8_t> reply = ReadFrame(broker);  // the echo answers with these bytes
  CheckSendReply(reply);

  // The client runs on the first CPU. Two echoes answer the same bytes: one on its CPU,
  // one on the other (on this VM a wake-up across cores costs ~25 us each way, on the same
  // core a few). The broker's threads are left where the kernel puts them.
  // The first two CPUs this process may run on (a cpuset or taskset may exclude 0 and 1).
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof(allowed), &allowed) != 0) Die("sched_getaffinity failed");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.size() < 2) Die("latency needs two CPUs (one for the client, one for the far echo)");
  PinToCpu(cpus[0]);
  Echo near(request.size(), reply, cpus[0]);
  Echo far(request.size(), reply, cpus[1]);

  bench::Latencies rs, rtt_near, rtt_far;
  std::vector<uint8_t> echo_in(reply.size());
  auto echo_round_trip = [&](const Echo& e, bench::Latencies& into) {
    const int64_t t0 = bench::NowNanos();
    WriteAll(e.client_fd(), request.data(), request.size());
    ReadAll(e.client_fd(), echo_in.data(), echo_in.size());
    into.Add(bench::NowNanos() - t0);
  };
  static PeerProcCpu before, after;
  PeerSampleCpu(o.server_pid, &before);
  const int64_t start = bench::NowNanos();
  const int64_t deadline = start + static_cast<int64_t>(o.seconds * 1e9);
  int64_t sent = 0;
  for (int block = 0; bench::NowNanos() < deadline; ++block) {
    for (int i = 0; i < 100; ++i) {
      if (block % 3 == 0) {
        const int64_t t0 = bench::NowNanos();
        WriteAll(broker, request.data(), request.size());
        const std::vector<uint8_t> r = ReadFrame(broker);
        rs.Add(bench::NowNanos() - t0);
        CheckSendReply(r);
        ++sent;
      } else if (block % 3 == 1) {
        echo_round_trip(near, rtt_near);
      } else {
        echo_round_trip(far, rtt_far);
      }
    }
  }
  const double secs = static_cast<double>(bench::NowNanos() - start) / 1e9;
  PeerSampleCpu(o.server_pid, &after);
  ::close(broker);
  PeerPrintResult("latency", static_cast<long long>(sent), secs, &before, &after);
  auto us = [](bench::Latencies& l, double p) {
    return static_cast<double>(l.Percentile(p)) / 1e3;
  };
  std::printf(
      "LATENCY p50_us=%.1f p99_us=%.1f rtt_p50_us=%.1f rtt_p99_us=%.1f rtt_cross_p50_us=%.1f "
      "rtt_cross_p99_us=%.1f\n",
      us(rs, 50), us(rs, 99), us(rtt_near, 50), us(rtt_near, 99), us(rtt_far, 50), us(rtt_far, 99));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(
        stderr,
        "usage: rs_peer produce|consume|latency --addr HOST:PORT [--shape CxD] [--seconds S] "
        "[--size B] [--serialize json|rocketmq] [--server-pid PID] [--count N] "
        "[--warmup W]\n");
    return 2;
  }
  const std::string mode = argv[1];
  Options o;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--addr") {
      o.addr = v;
    } else if (k == "--shape") {
      if (std::sscanf(v.c_str(), "%dx%d", &o.connections, &o.depth) != 2 || o.connections < 1 ||
          o.depth < 1) {
        Die("--shape CONNECTIONSxINFLIGHT, got '" + v + "'");
      }
    } else if (k == "--seconds") {
      o.seconds = std::stod(v);
    } else if (k == "--size") {
      o.size = std::stoi(v);
    } else if (k == "--server-pid") {
      o.server_pid = std::stoi(v);
    } else if (k == "--warmup") {
      o.warmup = std::stoi(v);
    } else if (k == "--count") {
      o.count = std::stoll(v);
    } else if (k == "--serialize") {
      if (v != "json" && v != "rocketmq") Die("--serialize: json or rocketmq");
      o.serialize =
          v == "json" ? protocol::SerializeType::kJson : protocol::SerializeType::kRocketMq;
    } else {
      Die("unknown option '" + k + "'");
    }
  }
  if (mode == "produce") return Produce(o);
  if (mode == "consume") return Consume(o);
  if (mode == "latency") return Latency(o);
  Die("mode must be produce, consume or latency, got '" + mode + "'");
}
