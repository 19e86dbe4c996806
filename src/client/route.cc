#include "client/route.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "client/fastjson.h"
#include "protocol/headers/namesrv_headers.h"

namespace rocketstore::client {

std::string BrokerData::MasterAddr() const {
  auto it = addrs.find(0);
  return it == addrs.end() ? std::string() : it->second;
}

Result<TopicRoute> TopicRoute::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue root, ParseFastjson(json));
  if (!root.is_object()) return Corruption("topic route body is not a JSON object");
  TopicRoute r;
  if (const FjValue* qds = root.Find("queueDatas"); qds != nullptr && qds->is_array()) {
    for (const FjValue& q : qds->items) {
      QueueData d;
      d.broker_name = q.Str("brokerName");
      d.read_queue_nums = static_cast<int32_t>(q.Int("readQueueNums"));
      d.write_queue_nums = static_cast<int32_t>(q.Int("writeQueueNums"));
      d.perm = static_cast<int32_t>(q.Int("perm"));
      d.topic_sys_flag = static_cast<int32_t>(q.Int("topicSysFlag"));
      r.queue_datas.push_back(std::move(d));
    }
  }
  if (const FjValue* bds = root.Find("brokerDatas"); bds != nullptr && bds->is_array()) {
    for (const FjValue& b : bds->items) {
      BrokerData d;
      d.cluster = b.Str("cluster");
      d.broker_name = b.Str("brokerName");
      if (const FjValue* addrs = b.Find("brokerAddrs"); addrs != nullptr && addrs->is_object()) {
        for (const auto& [k, v] : addrs->members) {
          int64_t id = 0;
          const std::string& key = k.text;
          auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
          if (ec != std::errc() || p != key.data() + key.size()) {
            return Corruption("broker id \"" + key + "\" in brokerAddrs is not a number");
          }
          d.addrs[id] = v.text;
        }
      }
      r.broker_datas.push_back(std::move(d));
    }
  }
  r.order_topic_conf = root.Str("orderTopicConf");
  return r;
}

const BrokerData* TopicRoute::FindBroker(std::string_view name) const {
  for (const auto& b : broker_datas) {
    if (b.broker_name == name) return &b;
  }
  return nullptr;
}

namespace {
std::vector<MessageQueue> Queues(const TopicRoute& r, std::string_view topic, bool write) {
  std::vector<const QueueData*> qds;
  for (const auto& q : r.queue_datas) qds.push_back(&q);
  std::sort(qds.begin(), qds.end(),
            [](const QueueData* a, const QueueData* b) { return a->broker_name < b->broker_name; });
  std::vector<MessageQueue> out;
  for (const QueueData* q : qds) {
    if ((q->perm & (write ? kPermWrite : kPermRead)) == 0) continue;
    const BrokerData* b = r.FindBroker(q->broker_name);
    if (b == nullptr || b->MasterAddr().empty()) continue;
    const int32_t n = write ? q->write_queue_nums : q->read_queue_nums;
    for (int32_t i = 0; i < n; ++i) out.push_back({std::string(topic), q->broker_name, i});
  }
  return out;
}
}  // namespace

std::vector<MessageQueue> TopicRoute::WritableQueues(std::string_view topic) const {
  return Queues(*this, topic, true);
}
std::vector<MessageQueue> TopicRoute::ReadableQueues(std::string_view topic) const {
  return Queues(*this, topic, false);
}

std::vector<std::string> SplitNamesrvAddrs(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ';' || c == ',' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

RouteCache::RouteCache(Transport& transport, RouteCacheOptions options, Clock& clock)
    : transport_(transport), options_(std::move(options)), clock_(clock) {}

Result<protocol::RemotingCommand> RouteCache::InvokeNamesrv(
    const protocol::RemotingCommand& request) {
  if (options_.namesrv_addrs.empty()) {
    return FailedPrecondition("no name server address: pass --namesrv HOST:PORT");
  }
  Status last;
  const size_t n = options_.namesrv_addrs.size();
  for (size_t i = 0; i < n; ++i) {
    size_t idx;
    {
      std::lock_guard<std::mutex> l(mu_);
      idx = next_namesrv_ % n;
    }
    const std::string& addr = options_.namesrv_addrs[idx];
    protocol::RemotingCommand copy = request;
    auto r = transport_.Invoke(addr, std::move(copy), options_.timeout_ms);
    if (r.ok()) return r;
    last = r.status();
    std::lock_guard<std::mutex> l(mu_);
    next_namesrv_ = idx + 1;
  }
  return Unavailable("no name server answered (" + last.message() + ")");
}

Result<std::shared_ptr<const TopicRoute>> RouteCache::Get(const std::string& topic) {
  std::shared_ptr<const TopicRoute> cached;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = routes_.find(topic);
    if (it != routes_.end()) {
      cached = it->second.route;
      if (!it->second.stale &&
          clock_.MonotonicNanos() / 1000000 - it->second.fetched_ms < options_.refresh_ms) {
        return cached;
      }
    }
  }
  auto fresh = Refresh(topic);
  // No name server answered: the route we have is the best there is.
  if (!fresh.ok() && cached && fresh.status().code() == StatusCode::kUnavailable) return cached;
  return fresh;
}

void RouteCache::MarkStale(const std::string& topic) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = routes_.find(topic);
  if (it != routes_.end()) it->second.stale = true;
}

Result<std::shared_ptr<const TopicRoute>> RouteCache::Refresh(const std::string& topic) {
  protocol::RemotingCommand req =
      protocol::MakeRequest(protocol::RequestCode::kGetRouteinfoByTopic);
  protocol::GetRouteInfoRequestHeader h;
  h.topic = topic;
  h.EncodeTo(req);
  RS_ASSIGN_OR_RETURN(protocol::RemotingCommand resp, InvokeNamesrv(req));
  if (resp.code == protocol::ToInt(protocol::ResponseCode::kTopicNotExist)) {
    return NotFound("topic " + topic +
                    " has no route on the name server (create it with "
                    "`rocketstore topic create " +
                    topic + "`)");
  }
  if (resp.code != 0) {
    return Unavailable("route of " + topic + ": name server answered code " +
                       std::to_string(resp.code) + " " + resp.remark.value_or(""));
  }
  std::vector<uint8_t> body = resp.body.Flatten();
  RS_ASSIGN_OR_RETURN(TopicRoute route,
                      TopicRoute::Decode(std::string_view(
                          reinterpret_cast<const char*>(body.data()), body.size())));
  auto shared = std::make_shared<const TopicRoute>(std::move(route));
  std::lock_guard<std::mutex> l(mu_);
  routes_[topic] = Entry{shared, clock_.MonotonicNanos() / 1000000};
  return shared;
}

void RouteCache::Invalidate(const std::string& topic) {
  std::lock_guard<std::mutex> l(mu_);
  routes_.erase(topic);
}

std::string RouteCache::BrokerAddr(const std::string& broker_name) const {
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [t, e] : routes_) {
    if (const BrokerData* b = e.route->FindBroker(broker_name)) {
      std::string a = b->MasterAddr();
      if (!a.empty()) return a;
    }
  }
  return {};
}

std::vector<std::string> RouteCache::MasterAddrs() const {
  std::set<std::string> addrs;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [t, e] : routes_) {
      for (const auto& b : e.route->broker_datas) {
        if (!b.MasterAddr().empty()) addrs.insert(b.MasterAddr());
      }
    }
  }
  return {addrs.begin(), addrs.end()};
}

Result<std::string> RouteCache::ClusterInfoJson() {
  protocol::RemotingCommand req =
      protocol::MakeRequest(protocol::RequestCode::kGetBrokerClusterInfo);
  RS_ASSIGN_OR_RETURN(protocol::RemotingCommand resp, InvokeNamesrv(req));
  if (resp.code != 0) {
    return Unavailable("cluster info: name server answered code " + std::to_string(resp.code) +
                       " " + resp.remark.value_or(""));
  }
  std::vector<uint8_t> body = resp.body.Flatten();
  return std::string(body.begin(), body.end());
}

}  // namespace rocketstore::client
