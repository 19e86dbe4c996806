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
  Publish pub;
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

void Producer::HeartbeatNewBrokers(const Publish& pub) {
  if (!started_) return;
  std::vector<std::string> fresh;
  {
    std::lock_guard<std::mutex> l(hb_mu_);
    for (const auto& q : pub.queues) {
      const std::string a = pub.AddrOf(q.broker_name);
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
  using protocol::ResponseCode;
  switch (code) {
    case protocol::ToInt(ResponseCode::kTopicNotExist):
    case protocol::ToInt(ResponseCode::kServiceNotAvailable):
    case protocol::ToInt(ResponseCode::kSystemError):
    case protocol::ToInt(ResponseCode::kNoPermission):
    case protocol::ToInt(ResponseCode::kNoBuyerId):
    case protocol::ToInt(ResponseCode::kNotInCurrentUnit):
      return true;
    default:
      return false;
  }
}

bool Producer::Stored(int32_t code) {
  using protocol::ResponseCode;
  return code == protocol::ToInt(ResponseCode::kSuccess) ||
         code == protocol::ToInt(ResponseCode::kFlushDiskTimeout) ||
         code == protocol::ToInt(ResponseCode::kSlaveNotAvailable) ||
         code == protocol::ToInt(ResponseCode::kFlushSlaveTimeout);
}

std::string Producer::Publish::AddrOf(const std::string& broker_name) const {
  const BrokerData* b = route ? route->FindBroker(broker_name) : nullptr;
  return b == nullptr ? std::string() : b->MasterAddr();
}

namespace {
// Why a route offers no writable queue, broker by broker.
std::string NotWritable(const std::string& topic, const TopicRoute& r) {
  std::string why;
  for (const auto& q : r.queue_datas) {
    if (!why.empty()) why += "; ";
    const BrokerData* b = r.FindBroker(q.broker_name);
    if ((q.perm & kPermWrite) == 0) {
      why += q.broker_name + " has it with perm " + std::to_string(q.perm) +
             ((q.perm & kPermRead) != 0 ? " (read only)" : " (no access)");
    } else if (b == nullptr || b->MasterAddr().empty()) {
      why += q.broker_name + " has no live master";
    } else {
      why += q.broker_name + " has " + std::to_string(q.write_queue_nums) + " write queues";
    }
  }
  if (why.empty()) why = "no broker serves it";
  return "topic " + topic + " has no writable queue: " + why +
         "; a route's perm is the topic's, masked by its broker's brokerPermission";
}
}  // namespace

Result<Producer::Publish> Producer::PublishFor(const std::string& topic) {
  auto route = routes_->Get(topic);
  if (route.ok()) {
    Publish pub{*route, (*route)->WritableQueues(topic)};
    if (pub.queues.empty()) {
      // As Java's tryToFindTopicPublishInfo: a route without a writable queue is asked for
      // again before the send gives up (the topic may have become writable since).
      if (auto fresh = routes_->Refresh(topic); fresh.ok()) {
        pub = Publish{*fresh, (*fresh)->WritableQueues(topic)};
      }
    }
    if (pub.queues.empty()) return FailedPrecondition(NotWritable(topic, *pub.route));
    HeartbeatNewBrokers(pub);
    return pub;
  }
  if (route.status().code() != StatusCode::kNotFound) return route.status();
  // No route: send on the default topic's route so the broker auto-creates the topic.
  auto def = routes_->Get(options_.default_topic);
  if (!def.ok()) return route.status();
  Publish pub{*def, {}};
  std::map<std::string, int32_t> per_broker;
  for (auto& q : (*def)->WritableQueues(topic)) {
    if (per_broker[q.broker_name]++ < options_.default_topic_queue_nums) pub.queues.push_back(q);
  }
  if (pub.queues.empty()) return route.status();
  HeartbeatNewBrokers(pub);
  return pub;
}

Result<std::vector<MessageQueue>> Producer::WritableQueues(const std::string& topic) {
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(topic));
  return pub.queues;
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
    default: {
      // A refusal, for the reason in the remark. Only a busy broker is "try again later"
      // (kUnavailable); a topic it lacks is kNotFound.
      using protocol::ResponseCode;
      const StatusCode code = resp.code == protocol::ToInt(ResponseCode::kSystemBusy)
                                  ? StatusCode::kUnavailable
                              : resp.code == protocol::ToInt(ResponseCode::kTopicNotExist)
                                  ? StatusCode::kNotFound
                                  : StatusCode::kFailedPrecondition;
      const std::string_view name = protocol::ResponseCodeName(resp.code);
      return Status(code, "broker " + q.broker_name + " (" + addr + ") refused the send to " +
                              p.topic + ": " + (name.empty() ? "code" : std::string(name)) + " (" +
                              std::to_string(resp.code) + ")" +
                              (resp.remark ? ": " + *resp.remark : std::string()));
    }
  }
  RS_ASSIGN_OR_RETURN(auto h, protocol::SendMessageResponseHeader::Decode(resp));
  r.msg_id = p.uniq_id;
  r.offset_msg_id = h.msg_id;
  r.queue = {p.topic, q.broker_name, h.queue_id};
  r.queue_offset = h.queue_offset;
  r.broker_addr = addr;
  return r;
}

Result<SendResult> Producer::SendWithRetry(const Prepared& p, Publish pub, int attempts,
                                           bool fixed_queue) {
  std::string last_broker, brokers;
  Status last;
  int tried = 0;
  for (int i = 0; i < attempts; ++i) {
    const MessageQueue q = Select(pub.queues, last_broker);
    const std::string addr = pub.AddrOf(q.broker_name);
    last_broker = q.broker_name;
    ++tried;
    brokers += (brokers.empty() ? "" : ", ") + q.broker_name;
    if (addr.empty()) {
      last = Unavailable("no address for broker " + q.broker_name);
      continue;
    }
    auto resp = transport_->Invoke(addr, BuildRequest(p, q), options_.send_timeout_ms);
    if (!resp.ok()) {
      last = resp.status();
      MarkFailed(q.broker_name);
      transport_->Drop(addr);
    } else if (!Stored(resp->code)) {
      last = Decode(p, q, addr, *resp).status();
      MarkFailed(q.broker_name);
      if (!Retryable(resp->code)) return last;  // as Java: thrown at once
    } else {
      auto r = Decode(p, q, addr, *resp);
      if (r.ok()) r->attempts = i + 1;
      return r;
    }
    // The route may be what failed (a broker gone, a topic moved or made read-only): ask
    // the name server again, for this send's next attempt and the sends after it. Without
    // an answer the route we have stays.
    routes_->MarkStale(p.topic);
    if (i + 1 < attempts && !fixed_queue) {
      auto next = PublishFor(p.topic);
      if (next.ok()) {
        pub = std::move(*next);
      } else if (next.status().code() != StatusCode::kUnavailable) {
        return Status(last.code(), last.message() + "; the route now: " + next.status().message());
      }
    }
  }
  if (tried == 1) return last;
  return Status(last.code() == StatusCode::kOk ? StatusCode::kUnavailable : last.code(),
                "send to " + p.topic + " failed after " + std::to_string(tried) +
                    " attempts (brokers " + brokers + "), the last: " + last.message());
}

Result<SendResult> Producer::Send(const Message& m) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(m.topic));
  return SendWithRetry(p, std::move(pub), 1 + options_.retry_times_when_send_failed);
}

Result<SendResult> Producer::SendToQueue(const Message& m, const MessageQueue& queue) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  if (queue.topic != m.topic) {
    return InvalidArgument("queue topic " + queue.topic + " is not the message's topic " + m.topic);
  }
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(m.topic));  // for the broker addresses
  pub.queues = {queue};
  return SendWithRetry(p, std::move(pub), 1, /*fixed_queue=*/true);
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
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(p.topic));
  return SendWithRetry(p, std::move(pub), 1 + options_.retry_times_when_send_failed);
}

Status Producer::SendOneway(const Message& m) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(m.topic));
  const MessageQueue q = Select(pub.queues, "");
  const std::string addr = pub.AddrOf(q.broker_name);
  if (addr.empty()) return Unavailable("no address for broker " + q.broker_name);
  RemotingCommand req = BuildRequest(p, q);
  req.MarkOneway();
  return transport_->InvokeOneway(addr, std::move(req));
}

Status Producer::SendAsync(const Message& m, SendCallback cb) {
  if (!started_) return FailedPrecondition("producer not started: call Start() first");
  if (!cb) return InvalidArgument("SendAsync needs a callback");
  RS_ASSIGN_OR_RETURN(Prepared p, Prepare(m));
  RS_ASSIGN_OR_RETURN(Publish pub, PublishFor(m.topic));
  auto st = std::make_shared<AsyncState>();
  st->prepared = std::move(p);
  st->pub = std::move(pub);
  st->cb = std::move(cb);
  st->attempts_left = 1 + options_.retry_times_when_send_async_failed;
  AsyncAttempt(std::move(st));
  return Status::OK();
}

// One attempt; after a network failure the next attempt is made from the callback on
// another broker (with the route captured at SendAsync, so the I/O thread never blocks on
// a name server). A broker's answer, refusal or not, goes to the callback (as Java's
// sendMessageAsync: only a failed request is retried).
void Producer::AsyncAttempt(std::shared_ptr<AsyncState> st) {
  while (st->attempts_left > 0) {
    --st->attempts_left;
    ++st->attempt;
    const MessageQueue q = Select(st->pub.queues, st->last_broker);
    st->last_broker = q.broker_name;
    const std::string addr = st->pub.AddrOf(q.broker_name);
    if (addr.empty()) {
      st->last_error = Unavailable("no address for broker " + q.broker_name);
      continue;
    }
    Status s = transport_->InvokeAsync(
        addr, BuildRequest(st->prepared, q),
        [this, st, q, addr](Result<RemotingCommand> resp) {
          if (!resp.ok() && started_) {
            st->last_error = resp.status();
            MarkFailed(q.broker_name);
            routes_->MarkStale(st->prepared.topic);  // the next send asks the name server
            AsyncAttempt(st);
            return;
          }
          if (!resp.ok()) {  // shutting down: no retry
            st->cb(resp.status());
            return;
          }
          if (!Stored(resp->code)) {
            MarkFailed(q.broker_name);
            if (Retryable(resp->code)) routes_->MarkStale(st->prepared.topic);
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
  const StatusCode code = st->last_error.ok() ? StatusCode::kUnavailable : st->last_error.code();
  st->cb(Status(code, "async send to " + st->prepared.topic + " failed after " +
                          std::to_string(st->attempt) +
                          " attempt(s), the last: " + st->last_error.message()));
}

}  // namespace rocketstore::client
