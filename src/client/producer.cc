#include "client/producer.h"

#include <chrono>
#include <utility>

#include "client/broker_calls.h"
#include "protocol/bodies/batch_body.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::client {

using protocol::RemotingCommand;

struct Producer::Prepared {
  std::string topic;
  std::string uniq_id;  // comma-joined for a batch
  std::string properties;
  std::string body;
  int32_t flag = 0;
  bool batch = false;
};

struct Producer::AsyncState {
  Prepared prepared;
  std::vector<MessageQueue> queues;
  SendCallback cb;
  int attempts_left = 0;
  int attempt = 0;
  std::string last_broker;
  Status last_error;
};

Producer::Producer(ProducerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : Clock::Real()),
      transport_(std::make_unique<Transport>()),
      routes_(std::make_unique<RouteCache>(
          *transport_,
          RouteCacheOptions{options_.namesrv_addrs, options_.route_refresh_ms,
                            options_.send_timeout_ms},
          clock_)),
      ids_(clock_),
      client_id_(BuildClientId(options_.instance_name)) {}

Producer::~Producer() {
  Shutdown();
  // Close the connections while the route cache is alive: pending async callbacks run
  // now (with kUnavailable) and must not find a half-destroyed producer.
  transport_.reset();
}

Status Producer::Start() {
  if (options_.group.empty()) return InvalidArgument("producer group is empty");
  if (options_.namesrv_addrs.empty()) {
    return InvalidArgument("no name server address: set --namesrv or ROCKETSTORE_NAMESRV");
  }
  started_ = true;
  if (options_.start_runner) {
    runner_ = std::make_unique<ServiceRunner>(
        "producer-" + options_.group, std::chrono::milliseconds(1000),
        [this] { RunOnce(clock_.MonotonicNanos() / 1000000).IgnoreError(); });
    runner_->Start();
  }
  return Status::OK();
}

void Producer::Shutdown() {
  if (!started_.exchange(false)) return;
  if (runner_) runner_->Stop();
  runner_.reset();
  std::set<std::string> addrs;
  {
    std::lock_guard<std::mutex> l(hb_mu_);
    addrs.swap(heartbeated_);
  }
  for (const auto& a : addrs) {
    RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kUnregisterClient);
    protocol::UnregisterClientRequestHeader h;
    h.client_id = client_id_;
    h.producer_group = options_.group;
    h.EncodeTo(req);
    transport_->Invoke(a, std::move(req), options_.send_timeout_ms).status().IgnoreError();
  }
}

std::vector<uint8_t> Producer::HeartbeatBody() const {
  protocol::HeartbeatData hb;
  hb.client_id = client_id_;
  hb.producer_data_set.push_back(protocol::ProducerData{options_.group});
  return hb.Encode();
}

void Producer::HeartbeatNewBrokers(const std::vector<MessageQueue>& queues) {
  if (!started_) return;
  std::vector<std::string> fresh;
  {
    std::lock_guard<std::mutex> l(hb_mu_);
    for (const auto& q : queues) {
      const std::string a = routes_->BrokerAddr(q.broker_name);
      if (!a.empty() && heartbeated_.insert(a).second) fresh.push_back(a);
    }
  }
  for (const auto& a : fresh) {
    RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kHeartBeat);
    req.body.Assign(HeartbeatBody());
    Status st = transport_->InvokeAsync(
        a, std::move(req),
        [this, a](Result<RemotingCommand> r) {
          if (r.ok() && r->code == 0) return;
          std::lock_guard<std::mutex> l(hb_mu_);  // not delivered: retried by the next one
          heartbeated_.erase(a);
        },
        options_.send_timeout_ms);
    if (!st.ok()) {
      std::lock_guard<std::mutex> l(hb_mu_);
      heartbeated_.erase(a);
    }
  }
}

Status Producer::RunOnce(int64_t now_ms) {
  std::set<std::string> addrs;
  {
    std::lock_guard<std::mutex> l(hb_mu_);
    if (last_heartbeat_ms_ >= 0 && now_ms - last_heartbeat_ms_ < options_.heartbeat_interval_ms) {
      return Status::OK();
    }
    last_heartbeat_ms_ = now_ms;
  }
  for (const auto& a : routes_->MasterAddrs()) addrs.insert(a);
  Status first;
  const std::vector<uint8_t> body = HeartbeatBody();
  for (const auto& a : addrs) {
    Status st = BrokerCall{transport_.get(), a, options_.send_timeout_ms}.Heartbeat(body);
    std::lock_guard<std::mutex> l(hb_mu_);
    if (st.ok()) {
      heartbeated_.insert(a);
    } else if (first.ok()) {
      first = st;
    }
  }
  return first;
}

bool Producer::Retryable(int32_t code) {
  switch (code) {
    case 17:   // TOPIC_NOT_EXIST
    case 14:   // SERVICE_NOT_AVAILABLE
    case 1:    // SYSTEM_ERROR
    case 16:   // NO_PERMISSION
    case 204:  // NO_BUYER_ID
    case 205:  // NOT_IN_CURRENT_UNIT
      return true;
    default:
      return false;
  }
}

Result<std::vector<MessageQueue>> Producer::QueuesFor(const std::string& topic) {
  auto route = routes_->Get(topic);
  if (route.ok()) {
    auto qs = (*route)->WritableQueues(topic);
    if (!qs.empty()) {
      HeartbeatNewBrokers(qs);
      return qs;
    }
    return Unavailable("topic " + topic + " has no writable queue on a live master broker");
  }
  if (route.status().code() != StatusCode::kNotFound) return route.status();
  // No route: send on the default topic's route so the broker auto-creates the topic.
  auto def = routes_->Get(options_.default_topic);
  if (!def.ok()) return route.status();
  auto qs = (*def)->WritableQueues(topic);
  std::vector<MessageQueue> out;
  std::map<std::string, int32_t> per_broker;
  for (auto& q : qs) {
    if (per_broker[q.broker_name]++ < options_.default_topic_queue_nums) out.push_back(q);
  }
  if (out.empty()) return route.status();
  HeartbeatNewBrokers(out);
  return out;
}

Result<std::vector<MessageQueue>> Producer::WritableQueues(const std::string& topic) {
  return QueuesFor(topic);
}

MessageQueue Producer::Select(const std::vector<MessageQueue>& queues,
                              const std::string& last_broker) {
  const int64_t now = clock_.MonotonicNanos() / 1000000;
  const size_t n = queues.size();
  for (size_t tries = 0; tries < n; ++tries) {
    const MessageQueue& q = queues[next_queue_.fetch_add(1, std::memory_order_relaxed) % n];
    if (!last_broker.empty() && q.broker_name == last_broker) continue;
    bool isolated = false;
    {
      std::lock_guard<std::mutex> l(fault_mu_);
      auto it = isolated_until_ms_.find(q.broker_name);
      isolated = it != isolated_until_ms_.end() && it->second > now;
    }
    if (!isolated) return q;
  }
  // Every queue is on the failed or an isolated broker: use the next one anyway.
  return queues[next_queue_.fetch_add(1, std::memory_order_relaxed) % n];
}

void Producer::MarkFailed(const std::string& broker) {
  std::lock_guard<std::mutex> l(fault_mu_);
  isolated_until_ms_[broker] = clock_.MonotonicNanos() / 1000000 + options_.isolate_ms;
}

Result<Producer::Prepared> Producer::Prepare(const Message& m) {
  if (m.body.empty()) return InvalidArgument("message body is empty: send at least one byte");
  if (m.body.size() > 4 * 1024 * 1024) {
    return InvalidArgument("message body is " + std::to_string(m.body.size()) +
                           " bytes, over maxMessageSize (4 MiB)");
  }
  Prepared p;
  p.topic = m.topic;
  p.uniq_id = ids_.Next();
  RS_ASSIGN_OR_RETURN(p.properties, BuildProperties(m, p.uniq_id));
  p.body = m.body;
  p.flag = m.flag;
  return p;
}

RemotingCommand Producer::BuildRequest(const Prepared& p, const MessageQueue& q) const {
  RemotingCommand req = protocol::MakeRequest(p.batch ? protocol::RequestCode::kSendBatchMessage
                                                      : protocol::RequestCode::kSendMessageV2);
  protocol::SendMessageRequestHeader h;
  h.producer_group = options_.group;
  h.topic = p.topic;
  h.default_topic = options_.default_topic;
  h.default_topic_queue_nums = options_.default_topic_queue_nums;
  h.queue_id = q.queue_id;
  h.sys_flag = 0;
  h.born_timestamp = clock_.NowMillis();
  h.flag = p.flag;
  h.properties = p.properties;
  h.reconsume_times = 0;
  h.unit_mode = false;
  h.batch = p.batch;
  h.EncodeTo(req, /*v2=*/true);
  req.body.Assign(std::string_view(p.body));
  return req;
}

Result<SendResult> Producer::Decode(const Prepared& p, const MessageQueue& q,
                                    const std::string& addr, const RemotingCommand& resp) const {
  SendResult r;
  switch (resp.code) {
    case 0:
      r.status = SendStatus::kOk;
      break;
    case 10:
      r.status = SendStatus::kFlushDiskTimeout;
      break;
    case 12:
      r.status = SendStatus::kFlushSlaveTimeout;
      break;
    case 11:
      r.status = SendStatus::kSlaveNotAvailable;
      break;
    default:
      return Status(StatusCode::kUnavailable,
                    "broker " + q.broker_name + " (" + addr + ") refused the send of " + p.topic +
                        ": code " + std::to_string(resp.code) + " " + resp.remark.value_or(""));
  }
  RS_ASSIGN_OR_RETURN(auto h, protocol::SendMessageResponseHeader::Decode(resp));
  r.msg_id = p.uniq_id;
  r.offset_msg_id = h.msg_id;
  r.queue = {p.topic, q.broker_name, h.queue_id};
  r.queue_offset = h.queue_offset;
  r.broker_addr = addr;
  return r;
}

Result<SendResult> Producer::SendWithRetry(const Prepared& p,
                                           const std::vector<MessageQueue>& queues, int attempts) {
  std::string last_broker;
  Status last;
  // A refusal makes the route suspect; it is dropped (re-fetched by the next send) only
  // once this send is over: the remaining attempts still look their brokers up in it.
  bool route_suspect = false;
  struct DropRouteAfter {
    RouteCache& routes;
    const std::string& topic;
    const bool& suspect;
    ~DropRouteAfter() {
      if (suspect) routes.Invalidate(topic);
    }
  } drop_after{*routes_, p.topic, route_suspect};
  for (int i = 0; i < attempts; ++i) {
    const MessageQueue q = Select(queues, last_broker);
    const std::string addr = routes_->BrokerAddr(q.broker_name);
    last_broker = q.broker_name;
    if (addr.empty()) {
      last = Unavailable("no address for broker " + q.broker_name);
      continue;
    }
    auto resp = transport_->Invoke(addr, BuildRequest(p, q), options_.send_timeout_ms);
    if (!resp.ok()) {
      last = resp.status();
      MarkFailed(q.broker_name);
      transport_->Drop(addr);
      continue;
    }
    if (resp->code != 0 && resp->code != 10 && resp->code != 11 && resp->code != 12 &&
        Retryable(resp->code)) {
      last = Decode(p, q, addr, *resp).status();
      MarkFailed(q.broker_name);
      route_suspect = true;
      continue;
    }
    auto r = Decode(p, q, addr, *resp);
    if (r.ok()) r->attempts = i + 1;
    return r;
  }
  return Status(last.code() == StatusCode::kOk ? StatusCode::kUnavailable : last.code(),
                "send to " + p.topic + " failed after " + std::to_string(attempts) +
                    " attempt(s): " + last.message());
}

Result<SendResult> Producer::Send(const Message& m) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(auto queues, QueuesFor(m.topic));
  return SendWithRetry(p, queues, 1 + options_.retry_times_when_send_failed);
}

Result<SendResult> Producer::SendToQueue(const Message& m, const MessageQueue& queue) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  if (queue.topic != m.topic) {
    return InvalidArgument("queue topic " + queue.topic + " is not the message's topic " + m.topic);
  }
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(auto queues, QueuesFor(m.topic));  // fills the broker addresses
  (void)queues;
  return SendWithRetry(p, {queue}, 1);
}

Result<SendResult> Producer::SendBatch(const std::vector<Message>& messages) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  if (messages.empty()) return InvalidArgument("batch is empty");
  Prepared p;
  p.topic = messages.front().topic;
  p.batch = true;
  std::vector<uint8_t> body;
  for (const Message& m : messages) {
    if (m.topic != p.topic) {
      return InvalidArgument("a batch holds one topic: " + m.topic + " != " + p.topic);
    }
    if (m.delay_level > 0) return InvalidArgument("a batch cannot carry delay levels");
    if (m.body.empty()) return InvalidArgument("a message of the batch has an empty body");
    const std::string id = ids_.Next();
    RS_ASSIGN_OR_RETURN(std::string props, BuildProperties(m, id));
    if (!p.uniq_id.empty()) p.uniq_id += ',';
    p.uniq_id += id;
    protocol::AppendBatchRecord(
        m.flag,
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(m.body.data()), m.body.size()),
        props, &body);
  }
  if (body.size() > 4 * 1024 * 1024) {
    return InvalidArgument("batch body is " + std::to_string(body.size()) +
                           " bytes, over 4 MiB: split it");
  }
  p.body.assign(body.begin(), body.end());
  p.properties = "WAIT\x01true";
  RS_ASSIGN_OR_RETURN(auto queues, QueuesFor(p.topic));
  return SendWithRetry(p, queues, 1 + options_.retry_times_when_send_failed);
}

Status Producer::SendOneway(const Message& m) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(auto queues, QueuesFor(m.topic));
  const MessageQueue q = Select(queues, "");
  const std::string addr = routes_->BrokerAddr(q.broker_name);
  if (addr.empty()) return Unavailable("no address for broker " + q.broker_name);
  RemotingCommand req = BuildRequest(p, q);
  req.MarkOneway();
  return transport_->InvokeOneway(addr, std::move(req));
}

Status Producer::SendAsync(const Message& m, SendCallback cb) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  if (!cb) return InvalidArgument("SendAsync needs a callback");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(auto queues, QueuesFor(m.topic));
  auto st = std::make_shared<AsyncState>();
  st->prepared = std::move(p);
  st->queues = std::move(queues);
  st->cb = std::move(cb);
  st->attempts_left = 1 + options_.retry_times_when_send_async_failed;
  AsyncAttempt(std::move(st));
  return Status::OK();
}

// One attempt; on a retryable failure the next attempt is made from the callback (with
// the route captured at SendAsync, so the I/O thread never blocks on a name server).
void Producer::AsyncAttempt(std::shared_ptr<AsyncState> st) {
  while (st->attempts_left > 0) {
    --st->attempts_left;
    ++st->attempt;
    const MessageQueue q = Select(st->queues, st->last_broker);
    st->last_broker = q.broker_name;
    const std::string addr = routes_->BrokerAddr(q.broker_name);
    if (addr.empty()) {
      st->last_error = Unavailable("no address for broker " + q.broker_name);
      continue;
    }
    Status s = transport_->InvokeAsync(
        addr, BuildRequest(st->prepared, q),
        [this, st, q, addr](Result<RemotingCommand> resp) {
          if (!started_) {  // shutting down: no retry
            st->cb(resp.ok() ? Decode(st->prepared, q, addr, *resp)
                             : Result<SendResult>(resp.status()));
            return;
          }
          if (!resp.ok()) {
            st->last_error = resp.status();
            MarkFailed(q.broker_name);
            AsyncAttempt(st);
            return;
          }
          if (resp->code != 0 && Retryable(resp->code)) {
            st->last_error = Decode(st->prepared, q, addr, *resp).status();
            MarkFailed(q.broker_name);
            AsyncAttempt(st);
            return;
          }
          auto r = Decode(st->prepared, q, addr, *resp);
          if (r.ok()) r->attempts = st->attempt;
          st->cb(std::move(r));
        },
        options_.send_timeout_ms);
    if (s.ok()) return;
    st->last_error = s;
    MarkFailed(q.broker_name);
  }
  st->cb(Status(StatusCode::kUnavailable, "async send to " + st->prepared.topic + " failed after " +
                                              std::to_string(st->attempt) +
                                              " attempt(s): " + st->last_error.message()));
}

}  // namespace rocketstore::client
