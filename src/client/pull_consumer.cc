#include "client/pull_consumer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>

#include "base/java_hash.h"
#include "client/allocate.h"
#include "client/fastjson.h"
#include "client/unique_id.h"
#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "protocol/headers/consumer_headers.h"

namespace rocketstore::client {

using protocol::RemotingCommand;

namespace {
constexpr int32_t kPullFlagSuspend = 0x2;
constexpr int32_t kPullFlagSubscription = 0x4;

std::vector<std::string> ParseTags(const std::string& expression) {
  std::vector<std::string> out;
  if (expression.empty() || expression == "*") return out;
  size_t pos = 0;
  while (pos <= expression.size()) {
    size_t bar = expression.find("||", pos);
    std::string t =
        expression.substr(pos, bar == std::string::npos ? std::string::npos : bar - pos);
    const size_t b = t.find_first_not_of(' ');
    const size_t e = t.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(t.substr(b, e - b + 1));
    if (bar == std::string::npos) break;
    pos = bar + 2;
  }
  return out;
}

std::string ConsumeFromName(ConsumeFrom c) {
  switch (c) {
    case ConsumeFrom::kFirst:
      return "CONSUME_FROM_FIRST_OFFSET";
    case ConsumeFrom::kTimestamp:
      return "CONSUME_FROM_TIMESTAMP";
    case ConsumeFrom::kLast:
      break;
  }
  return "CONSUME_FROM_LAST_OFFSET";
}
}  // namespace

PullConsumer::PullConsumer(PullConsumerOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : Clock::Real()) {
  client_id_ = BuildClientId(options_.instance_name);
  start_ms_ = clock_.NowMillis();
  transport_ = std::make_unique<Transport>([this](const std::string& addr, RemotingCommand cmd) {
    OnServerRequest(addr, std::move(cmd));
  });
  routes_ = std::make_unique<RouteCache>(
      *transport_, RouteCacheOptions{options_.namesrv_addrs, 30000, options_.request_timeout_ms},
      clock_);
}

PullConsumer::~PullConsumer() {
  Shutdown();
  // Close the connections first: in-flight pulls are failed now, while the queue table
  // their callbacks touch still exists.
  transport_.reset();
}

Status PullConsumer::Subscribe(const std::string& topic, const std::string& expression) {
  if (started_) return FailedPrecondition("Subscribe after Start");
  if (manual_) return FailedPrecondition("Subscribe and Assign cannot be mixed");
  if (topic.empty()) return InvalidArgument("subscribe: topic is empty");
  Sub s{topic, expression.empty() ? "*" : expression, ParseTags(expression), clock_.NowMillis()};
  subs_.push_back(std::move(s));
  return Status::OK();
}

Status PullConsumer::Assign(std::vector<MessageQueue> queues, const std::string& expression) {
  if (started_) return FailedPrecondition("Assign after Start");
  if (!subs_.empty()) return FailedPrecondition("Subscribe and Assign cannot be mixed");
  manual_ = true;
  std::set<std::string> topics;
  for (const auto& q : queues) topics.insert(q.topic);
  const std::string expr = expression.empty() ? "*" : expression;
  for (const auto& t : topics) {
    subs_.push_back(Sub{t, expr, ParseTags(expr), clock_.NowMillis()});
  }
  SetAssignment(queues);
  return Status::OK();
}

Status PullConsumer::Start() {
  if (options_.group.empty()) return InvalidArgument("consumer group is empty: name a group");
  if (options_.namesrv_addrs.empty()) {
    return InvalidArgument("no name server address: set --namesrv or ROCKETSTORE_NAMESRV");
  }
  if (subs_.empty()) return FailedPrecondition("nothing to consume: Subscribe or Assign first");
  for (const auto& s : subs_) {
    auto r = routes_->Get(s.topic);
    if (!r.ok()) return r.status();
  }
  if (!manual_ && options_.subscribe_retry) {
    subs_.push_back(Sub{"%RETRY%" + options_.group, "*", {}, clock_.NowMillis(), true});
  }
  started_ = true;
  if (!manual_) {
    RS_RETURN_IF_ERROR(SendHeartbeat());
    RS_RETURN_IF_ERROR(Rebalance());
    const int64_t now = clock_.MonotonicNanos() / 1000000;
    last_heartbeat_ms_ = last_rebalance_ms_ = last_commit_ms_ = now;
  }
  if (options_.start_runner && !manual_) {
    runner_ = std::make_unique<ServiceRunner>(
        "consumer-" + options_.group, std::chrono::milliseconds(1000),
        [this] { RunOnce(clock_.MonotonicNanos() / 1000000).IgnoreError(); });
    runner_->Start();
  }
  return Status::OK();
}

void PullConsumer::Shutdown() {
  if (!started_) return;
  if (runner_) runner_->Stop();
  runner_.reset();
  // Assign mode commits only when the application calls Commit (see the header).
  if (!manual_) {
    Commit().IgnoreError();
    std::set<std::string> addrs;
    for (const auto& s : subs_) {
      auto r = routes_->Get(s.topic);
      if (!r.ok()) continue;
      for (const auto& b : (*r)->broker_datas) addrs.insert(b.MasterAddr());
    }
    for (const auto& a : addrs) {
      if (a.empty()) continue;
      RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kUnregisterClient);
      protocol::UnregisterClientRequestHeader h;
      h.client_id = client_id_;
      h.consumer_group = options_.group;
      h.EncodeTo(req);
      transport_->Invoke(a, std::move(req), options_.request_timeout_ms).status().IgnoreError();
    }
  }
  started_ = false;
}

std::string PullConsumer::Key(const MessageQueue& q) const {
  return q.topic + "/" + q.broker_name + "/" + std::to_string(q.queue_id);
}

std::string PullConsumer::AddrOf(const std::string& broker_name) {
  std::string a = routes_->BrokerAddr(broker_name);
  if (a.empty()) {
    for (const auto& s : subs_) routes_->Refresh(s.topic).status().IgnoreError();
    a = routes_->BrokerAddr(broker_name);
  }
  return a;
}

BrokerCall PullConsumer::Broker(const std::string& broker_name) {
  return BrokerCall{transport_.get(), AddrOf(broker_name), options_.request_timeout_ms};
}

std::vector<protocol::SubscriptionData> PullConsumer::Subscriptions() const {
  std::vector<protocol::SubscriptionData> out;
  for (const auto& s : subs_) {
    protocol::SubscriptionData sd;
    sd.topic = s.topic;
    sd.sub_string = s.expression;
    sd.tags_set = s.tags;
    for (const auto& t : s.tags) sd.code_set.push_back(JavaStringHash(t));
    sd.sub_version = s.version;
    out.push_back(std::move(sd));
  }
  return out;
}

// Requests the broker sends to a client (ClientRemotingProcessor in 4.9.8). Runs on the
// transport's I/O thread: nothing here may block on a broker call.
void PullConsumer::OnServerRequest(const std::string& addr, RemotingCommand cmd) {
  using protocol::RequestCode;
  using protocol::ResponseCode;
  auto respond = [&](RemotingCommand resp) {
    if (!cmd.IsOneway()) transport_->Respond(addr, std::move(resp)).IgnoreError();
  };
  if (cmd.code == protocol::ToInt(RequestCode::kNotifyConsumerIdsChanged)) {
    // Rebalance at the next step, now.
    {
      std::lock_guard<std::mutex> l(mu_);
      last_rebalance_ms_ = -1;
    }
    if (runner_) runner_->Wake();
    return;
  }
  if (cmd.code == protocol::ToInt(RequestCode::kResetConsumerClientOffset)) {
    // An admin's reset (222 → 220): every listed queue of ours moves to its new offset,
    // buffered and in-flight pulls are dropped, and the next Commit writes the new offset
    // (Java answers nothing).
    auto h = protocol::ResetOffsetRequestHeader::Decode(cmd);
    if (!h.ok() || h->group != options_.group) return;
    // The broker writes a CPP client's table as ResetOffsetBodyForC's list
    // {offsetTable:[{brokerName, offset, queueId, topic}]}, a Java client's as a map.
    std::vector<std::pair<MessageQueue, int64_t>> targets;
    auto tree = ParseFastjson(cmd.body.owned_text());
    const FjValue* table = tree.ok() ? tree->Find("offsetTable") : nullptr;
    if (table != nullptr && table->is_array()) {
      for (const auto& e : table->items) {
        targets.push_back({MessageQueue{e.Str("topic"), e.Str("brokerName"),
                                        static_cast<int32_t>(e.Int("queueId"))},
                           e.Int("offset")});
      }
    } else if (auto body = protocol::ResetOffsetBody::Decode(cmd.body.owned_text()); body.ok()) {
      for (const auto& [q, offset] : body->offset_table) {
        targets.push_back({MessageQueue{q.topic, q.broker_name, q.queue_id}, offset});
      }
    }
    for (const auto& [q, offset] : targets) {
      if (q.topic != h->topic || offset < 0) continue;
      Seek(q, offset).IgnoreError();  // a queue not assigned to us is not ours to move
    }
    return;
  }
  if (cmd.code == protocol::ToInt(RequestCode::kGetConsumerStatusFromClient)) {
    auto h = protocol::GetConsumerStatusRequestHeader::Decode(cmd);
    if (!h.ok())
      return respond(protocol::MakeResponse(cmd, ResponseCode::kSystemError,
                                            std::string(h.status().message())));
    protocol::GetConsumerStatusBody body;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (const auto& [k, st] : queues_) {
        if (st.queue.topic != h->topic || !st.consumed) continue;
        body.message_queue_table[{st.queue.topic, st.queue.broker_name, st.queue.queue_id}] =
            *st.consumed;
      }
    }
    RemotingCommand resp = protocol::MakeResponse(cmd, ResponseCode::kSuccess);
    resp.body.Assign(body.Encode());
    return respond(std::move(resp));
  }
  if (cmd.code == protocol::ToInt(RequestCode::kGetConsumerRunningInfo)) {
    auto h = protocol::GetConsumerRunningInfoRequestHeader::Decode(cmd);
    if (!h.ok() || h->consumer_group != options_.group) {
      return respond(protocol::MakeResponse(cmd, ResponseCode::kSystemError,
                                            "The Consumer Group <" +
                                                (h.ok() ? h->consumer_group : std::string()) +
                                                "> not exist in this consumer"));
    }
    protocol::ConsumerRunningInfoBody info;
    std::string ns;
    for (const auto& a : options_.namesrv_addrs) ns += a + ";";
    info.properties = {{"PROP_NAMESERVER_ADDR", ns},
                       {"PROP_CONSUME_TYPE", "CONSUME_ACTIVELY"},
                       {"PROP_CLIENT_VERSION", "V4_9_8"},
                       {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(start_ms_)},
                       {"PROP_CONSUMEORDERLY", "false"},
                       {"PROP_THREADPOOL_CORE_SIZE", "-1"},
                       {"consumerGroup", options_.group},
                       {"messageModel", "CLUSTERING"},
                       {"pullBatchSize", std::to_string(options_.pull_batch_size)},
                       {"language", "CPP"}};
    info.subscriptions = Subscriptions();
    {
      std::lock_guard<std::mutex> l(mu_);
      for (const auto& [k, st] : queues_) {
        protocol::ProcessQueueInfoBody p;
        p.commit_offset = st.committed;
        p.cached_msg_count = static_cast<int32_t>(st.buffer.size());
        if (!st.buffer.empty()) {
          p.cached_msg_min_offset = st.buffer.front().queue_offset;
          p.cached_msg_max_offset = st.buffer.back().queue_offset;
        }
        info.mq_table[{st.queue.topic, st.queue.broker_name, st.queue.queue_id}] = p;
      }
    }
    RemotingCommand resp = protocol::MakeResponse(cmd, ResponseCode::kSuccess);
    resp.body.Assign(info.Encode());
    return respond(std::move(resp));
  }
  if (cmd.code == protocol::ToInt(RequestCode::kConsumeMessageDirectly)) {
    // Only a push consumer (a listener the client calls) can consume on demand; a pull
    // consumer consumes when its application polls. Java answers SYSTEM_ERROR here too.
    return respond(protocol::MakeResponse(
        cmd, ResponseCode::kSystemError,
        "consumer " + client_id_ + " of group " + options_.group +
            " is a pull consumer: it cannot consume a message directly (only push consumers do)"));
  }
  respond(protocol::MakeResponse(cmd, ResponseCode::kRequestCodeNotSupported,
                                 "request code " + std::to_string(cmd.code) +
                                     " is not supported by the rocketstore pull consumer"));
}

std::vector<uint8_t> PullConsumer::HeartbeatBody() const {
  protocol::HeartbeatData hb;
  hb.client_id = client_id_;
  protocol::ConsumerData cd;
  cd.group_name = options_.group;
  cd.consume_type = "CONSUME_ACTIVELY";
  cd.message_model = "CLUSTERING";
  cd.consume_from_where = ConsumeFromName(options_.consume_from);
  cd.subscription_data_set = Subscriptions();
  hb.consumer_data_set.push_back(std::move(cd));
  return hb.Encode();
}

Status PullConsumer::SendHeartbeat() {
  const std::vector<uint8_t> body = HeartbeatBody();
  std::set<std::string> addrs;
  for (const auto& s : subs_) {
    auto r = routes_->Get(s.topic);
    if (!r.ok()) continue;
    for (const auto& b : (*r)->broker_datas) {
      if (!b.MasterAddr().empty()) addrs.insert(b.MasterAddr());
    }
  }
  if (addrs.empty()) return Unavailable("heartbeat: no broker serves the subscribed topics");
  Status first;
  for (const auto& a : addrs) {
    Status s = BrokerCall{transport_.get(), a, options_.request_timeout_ms}.Heartbeat(body);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status PullConsumer::Rebalance() {
  if (manual_) return Status::OK();
  std::vector<MessageQueue> mine;
  for (const auto& s : subs_) {
    auto found = routes_->Get(s.topic);
    if (!found.ok() && s.retry && found.status().code() == StatusCode::kNotFound) continue;
    RS_ASSIGN_OR_RETURN(auto route, std::move(found));
    std::vector<MessageQueue> all = route->ReadableQueues(s.topic);
    if (all.empty()) continue;
    std::string addr;
    for (const auto& b : route->broker_datas) {
      if (!b.MasterAddr().empty()) {
        addr = b.MasterAddr();
        break;
      }
    }
    RS_ASSIGN_OR_RETURN(
        auto ids, (BrokerCall{transport_.get(), addr, options_.request_timeout_ms}.ConsumerIds(
                      options_.group)));
    if (std::find(ids.begin(), ids.end(), client_id_) == ids.end()) ids.push_back(client_id_);
    auto part = AllocateAveragely(std::move(all), std::move(ids), client_id_);
    mine.insert(mine.end(), part.begin(), part.end());
  }
  // Commit the queues this member gives up before dropping them, as Java does.
  std::vector<std::pair<MessageQueue, int64_t>> to_commit;
  {
    std::lock_guard<std::mutex> l(mu_);
    std::set<std::string> keep;
    for (const auto& q : mine) keep.insert(Key(q));
    for (const auto& [k, st] : queues_) {
      if (!keep.count(k) && st.consumed && *st.consumed != st.committed) {
        to_commit.emplace_back(st.queue, *st.consumed);
      }
    }
  }
  for (const auto& [q, off] : to_commit) {
    Broker(q.broker_name).UpdateConsumerOffset(options_.group, q, off).IgnoreError();
  }
  SetAssignment(mine);
  return Status::OK();
}

void PullConsumer::SetAssignment(const std::vector<MessageQueue>& queues) {
  std::lock_guard<std::mutex> l(mu_);
  std::map<std::string, QueueState> next;
  for (const auto& q : queues) {
    const std::string k = Key(q);
    auto it = queues_.find(k);
    if (it != queues_.end()) {
      next.emplace(k, std::move(it->second));
    } else {
      QueueState st;
      st.queue = q;
      st.epoch = next_epoch_++;
      next.emplace(k, std::move(st));
    }
  }
  queues_.swap(next);
  cv_.notify_all();
}

std::vector<MessageQueue> PullConsumer::Assignment() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<MessageQueue> out;
  for (const auto& [k, st] : queues_) out.push_back(st.queue);
  return out;
}

std::optional<int64_t> PullConsumer::Position(const MessageQueue& q) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = queues_.find(Key(q));
  if (it == queues_.end()) return std::nullopt;
  if (it->second.consumed) return it->second.consumed;
  return it->second.next_pull;
}

Result<int64_t> PullConsumer::InitialOffset(const MessageQueue& q) {
  BrokerCall b = Broker(q.broker_name);
  if (!manual_) {
    auto committed = b.ConsumerOffset(options_.group, q);
    if (committed.ok() && *committed >= 0) return committed;
    if (!committed.ok() && committed.status().code() != StatusCode::kNotFound) {
      return committed.status();
    }
  }
  switch (options_.consume_from) {
    case ConsumeFrom::kFirst:
      return b.MinOffset(q);
    case ConsumeFrom::kTimestamp:
      return b.SearchOffset(q, options_.consume_timestamp_ms);
    case ConsumeFrom::kLast:
      break;
  }
  return b.MaxOffset(q);
}

bool PullConsumer::Accept(const MessageExt& m, const std::string& topic) const {
  for (const auto& s : subs_) {
    if (s.topic != topic) continue;
    if (s.tags.empty()) return true;
    const std::string tag = m.Tags();
    return std::find(s.tags.begin(), s.tags.end(), tag) != s.tags.end();
  }
  return true;
}

void PullConsumer::KickPulls() {
  struct Todo {
    std::string key;
    MessageQueue q;
    uint64_t epoch;
    std::optional<int64_t> offset;
  };
  std::vector<Todo> todo;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto& [k, st] : queues_) {
      if (st.in_flight || st.buffer.size() >= options_.max_buffered_per_queue) continue;
      st.in_flight = true;
      todo.push_back({k, st.queue, st.epoch, st.next_pull});
    }
  }
  for (Todo& t : todo) {
    if (!t.offset) {
      auto off = InitialOffset(t.q);
      std::lock_guard<std::mutex> l(mu_);
      auto it = queues_.find(t.key);
      if (it == queues_.end() || it->second.epoch != t.epoch) continue;
      if (!off.ok()) {
        it->second.in_flight = false;
        pull_error_ = off.status();
        continue;
      }
      if (!it->second.next_pull) it->second.next_pull = *off;
      if (!it->second.consumed) it->second.consumed = *off;
      it->second.committed = manual_ ? -1 : it->second.committed;
      t.offset = it->second.next_pull;
    }
    const std::string addr = AddrOf(t.q.broker_name);
    std::string expression = "*";
    int64_t version = 0;
    for (const auto& s : subs_) {
      if (s.topic == t.q.topic) {
        expression = s.expression;
        version = s.version;
      }
    }
    RemotingCommand req = protocol::MakeRequest(protocol::RequestCode::kPullMessage);
    protocol::PullMessageRequestHeader h;
    h.consumer_group = options_.group;
    h.topic = t.q.topic;
    h.queue_id = t.q.queue_id;
    h.queue_offset = *t.offset;
    h.max_msg_nums = options_.pull_batch_size;
    h.sys_flag = kPullFlagSuspend | kPullFlagSubscription;
    h.commit_offset = 0;
    h.suspend_timeout_millis = options_.long_poll_ms;
    h.subscription = expression;
    h.sub_version = version;
    h.expression_type = "TAG";
    h.broker_name = t.q.broker_name;
    h.EncodeTo(req);
    Status s = addr.empty() ? Unavailable("no address for broker " + t.q.broker_name)
                            : transport_->InvokeAsync(
                                  addr, std::move(req),
                                  [this, key = t.key, epoch = t.epoch](Result<RemotingCommand> r) {
                                    OnPull(key, epoch, std::move(r));
                                  },
                                  options_.long_poll_ms + options_.request_timeout_ms);
    if (!s.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      auto it = queues_.find(t.key);
      if (it != queues_.end() && it->second.epoch == t.epoch) it->second.in_flight = false;
      pull_error_ = s;
    }
  }
}

void PullConsumer::OnPull(const std::string& key, uint64_t epoch, Result<RemotingCommand> resp) {
  std::vector<MessageExt> msgs;
  std::optional<int64_t> next;
  Status err;
  if (!resp.ok()) {
    err = resp.status();
  } else {
    auto h = protocol::PullMessageResponseHeader::Decode(*resp);
    const int32_t code = resp->code;
    if (!h.ok()) {
      err = h.status();
    } else if (code == 0) {
      std::vector<uint8_t> body = resp->body.Flatten();
      auto decoded = DecodeMessages(body, true);
      if (!decoded.ok()) {
        err = decoded.status();
      } else {
        msgs = std::move(*decoded);
        next = h->next_begin_offset;
      }
    } else if (code == 19 || code == 20 || code == 21) {
      next = h->next_begin_offset;
    } else {
      err = Unavailable("pull of " + key + ": broker answered code " + std::to_string(code) + " " +
                        resp->remark.value_or(""));
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  auto it = queues_.find(key);
  if (it == queues_.end() || it->second.epoch != epoch) return;  // revoked or sought meanwhile
  QueueState& st = it->second;
  st.in_flight = false;
  if (!err.ok()) {
    pull_error_ = err;
  } else {
    for (auto& m : msgs) {
      if (!Accept(m, st.queue.topic)) continue;
      m.broker_name = st.queue.broker_name;
      if (m.topic.rfind("%RETRY%", 0) == 0) {
        if (auto real = m.Property("RETRY_TOPIC")) m.topic = *real;
      }
      st.buffer.push_back(std::move(m));
    }
    if (next) {
      st.next_pull = *next;
      // Messages filtered out (tags) still move the consumed position when nothing is queued.
      if (st.buffer.empty()) st.consumed = *next;
    }
  }
  cv_.notify_all();
}

Result<std::vector<MessageExt>> PullConsumer::Poll(int64_t timeout_ms, size_t max_messages) {
  if (!started_) return FailedPrecondition("consumer not started: call Start() first");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::vector<MessageExt> out;
  while (true) {
    KickPulls();
    std::unique_lock<std::mutex> l(mu_);
    for (auto& [k, st] : queues_) {
      while (!st.buffer.empty() && out.size() < max_messages) {
        st.consumed = st.buffer.front().queue_offset + 1;
        out.push_back(std::move(st.buffer.front()));
        st.buffer.pop_front();
      }
      if (st.buffer.empty() && st.next_pull && st.consumed && *st.consumed < *st.next_pull &&
          !st.in_flight) {
        st.consumed = *st.next_pull;
      }
    }
    if (!out.empty()) return out;
    bool idle = false;
    for (auto& [k, st] : queues_) idle = idle || !st.in_flight;
    if (std::chrono::steady_clock::now() >= deadline) {
      if (!pull_error_.ok() && queues_.empty()) return pull_error_;
      return out;
    }
    if (idle && pull_error_.ok()) continue;  // a queue is ready to pull again
    // An error backs off instead of spinning; answers wake us up.
    const auto wait_until =
        pull_error_.ok()
            ? deadline
            : std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
    cv_.wait_until(l, wait_until);
    pull_error_ = Status::OK();
  }
}

Status PullConsumer::Commit() {
  std::vector<std::pair<MessageQueue, int64_t>> todo;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [k, st] : queues_) {
      if (st.consumed && *st.consumed != st.committed) todo.emplace_back(st.queue, *st.consumed);
    }
  }
  Status first;
  for (const auto& [q, off] : todo) {
    Status s = Broker(q.broker_name).UpdateConsumerOffset(options_.group, q, off);
    if (s.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      auto it = queues_.find(Key(q));
      if (it != queues_.end()) it->second.committed = off;
    } else if (first.ok()) {
      first = s;
    }
  }
  return first;
}

Status PullConsumer::Seek(const MessageQueue& q, int64_t offset) {
  if (offset < 0) return InvalidArgument("seek offset is negative");
  std::lock_guard<std::mutex> l(mu_);
  auto it = queues_.find(Key(q));
  if (it == queues_.end()) {
    return FailedPrecondition("queue " + Key(q) + " is not assigned to this consumer");
  }
  QueueState& st = it->second;
  st.epoch = next_epoch_++;
  st.in_flight = false;
  st.buffer.clear();
  st.next_pull = offset;
  st.consumed = offset;
  st.committed = -1;  // make Commit write it
  cv_.notify_all();
  return Status::OK();
}

Status PullConsumer::SeekToBegin(const MessageQueue& q) {
  RS_ASSIGN_OR_RETURN(int64_t off, Broker(q.broker_name).MinOffset(q));
  return Seek(q, off);
}
Status PullConsumer::SeekToEnd(const MessageQueue& q) {
  RS_ASSIGN_OR_RETURN(int64_t off, Broker(q.broker_name).MaxOffset(q));
  return Seek(q, off);
}
Status PullConsumer::SeekToTime(const MessageQueue& q, int64_t timestamp_ms) {
  RS_ASSIGN_OR_RETURN(int64_t off, Broker(q.broker_name).SearchOffset(q, timestamp_ms));
  return Seek(q, off);
}

Status PullConsumer::SendBack(const MessageExt& m, int32_t delay_level) {
  if (m.broker_name.empty()) return InvalidArgument("message has no broker name");
  return Broker(m.broker_name)
      .SendBack(options_.group, m, delay_level, options_.max_reconsume_times);
}

Status PullConsumer::RunOnce(int64_t now_ms) {
  if (!started_ || manual_) return Status::OK();
  bool hb, rb, cm;
  {
    std::lock_guard<std::mutex> l(mu_);
    hb = last_heartbeat_ms_ < 0 || now_ms - last_heartbeat_ms_ >= options_.heartbeat_interval_ms;
    rb = last_rebalance_ms_ < 0 || now_ms - last_rebalance_ms_ >= options_.rebalance_interval_ms;
    cm = options_.auto_commit &&
         (last_commit_ms_ < 0 || now_ms - last_commit_ms_ >= options_.auto_commit_interval_ms);
  }
  Status first;
  auto note = [&](Status s) {
    if (!s.ok() && first.ok()) first = s;
  };
  if (hb) {
    note(SendHeartbeat());
    std::lock_guard<std::mutex> l(mu_);
    last_heartbeat_ms_ = now_ms;
  }
  if (rb) {
    note(Rebalance());
    std::lock_guard<std::mutex> l(mu_);
    last_rebalance_ms_ = now_ms;
  }
  if (cm) {
    note(Commit());
    std::lock_guard<std::mutex> l(mu_);
    last_commit_ms_ = now_ms;
  }
  return first;
}

}  // namespace rocketstore::client
