#include "namesrv/route_table.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "protocol/json_util.h"

namespace rocketstore::namesrv {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

namespace {
void WriteTopicSet(Writer& w, const std::set<std::string>& topics) {
  w.StartArray();
  for (const auto& t : topics) w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
  w.EndArray();
}
}  // namespace

std::string DataVersion::ToJson() const {
  return "{\"counter\":" + std::to_string(counter) + ",\"timestamp\":" + std::to_string(timestamp) +
         "}";
}

Result<DataVersion> ParseDataVersion(std::string_view json) {
  rapidjson::Document parsed;
  parsed.Parse(json.data(), json.size());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    return InvalidArgument("DataVersion body is not a JSON object: \"" +
                           std::string(json.substr(0, 200)) + "\"");
  }
  const rapidjson::Value& doc = parsed;
  DataVersion v;
  for (const char* key : {"counter", "timestamp"}) {
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd() || it->value.IsNull()) continue;
    if (!it->value.IsInt64()) {
      return InvalidArgument(std::string("DataVersion.") + key + " is not an integer");
    }
    (key[0] == 'c' ? v.counter : v.timestamp) = it->value.GetInt64();
  }
  return v;
}

std::string TopicList::ToJson() const {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  if (broker_addr) {
    w.Key("brokerAddr");
    w.String(broker_addr->c_str());
  }
  w.Key("topicList");
  WriteTopicSet(w, topics);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

RegisterResult RouteTable::Register(const BrokerRegistration& reg, int64_t now_ms) {
  std::lock_guard lock(mu_);
  clusters_[reg.cluster_name].insert(reg.broker_name);
  auto& bd = brokers_[reg.broker_name];
  bd.cluster = reg.cluster_name;
  // One address per broker id: drop a stale address held under the same id.
  auto old = bd.addrs.find(reg.broker_id);
  if (old != bd.addrs.end() && old->second != reg.broker_addr) live_.erase(old->second);
  bd.addrs[reg.broker_id] = reg.broker_addr;
  auto [it, first] = live_.try_emplace(reg.broker_addr);
  Live& live = it->second;
  const bool changed = first || live.data_version != reg.data_version;
  live.cluster = reg.cluster_name;
  live.broker_name = reg.broker_name;
  live.broker_id = reg.broker_id;
  live.last_update_ms = now_ms;
  live.timeout_ms = reg.heartbeat_timeout_ms > 0 ? reg.heartbeat_timeout_ms : 120000;
  live.connection_id = reg.connection_id;
  live.data_version = reg.data_version;
  live.ha_server_addr = reg.ha_server_addr;
  if (reg.filter_servers.empty()) {
    filter_servers_.erase(reg.broker_addr);
  } else {
    filter_servers_[reg.broker_addr] = reg.filter_servers;
  }
  RegisterResult result;
  if (reg.broker_id != 0) {
    auto master = bd.addrs.find(0);
    if (master != bd.addrs.end()) {
      auto ml = live_.find(master->second);
      if (ml != live_.end()) {
        result.master_addr = master->second;
        result.ha_server_addr = ml->second.ha_server_addr;
      }
    }
  }
  if (changed && reg.broker_id == 0) {
    // Master: its topic table replaces what this broker name had.
    for (auto t = topics_.begin(); t != topics_.end();) {
      if (!reg.topics.count(t->first)) t->second.erase(reg.broker_name);
      if (t->second.empty()) {
        t = topics_.erase(t);
      } else {
        ++t;
      }
    }
    for (const auto& [topic, q] : reg.topics) topics_[topic][reg.broker_name] = q;
  }
  return result;
}

void RouteTable::RemoveAddrLocked(const std::string& addr) {
  auto lit = live_.find(addr);
  if (lit == live_.end()) return;
  const std::string broker_name = lit->second.broker_name;
  const std::string cluster = lit->second.cluster;
  live_.erase(lit);
  filter_servers_.erase(addr);
  auto bit = brokers_.find(broker_name);
  if (bit == brokers_.end()) return;
  for (auto a = bit->second.addrs.begin(); a != bit->second.addrs.end();) {
    if (a->second == addr) {
      a = bit->second.addrs.erase(a);
    } else {
      ++a;
    }
  }
  if (!bit->second.addrs.empty()) return;
  brokers_.erase(bit);
  auto cit = clusters_.find(cluster);
  if (cit != clusters_.end()) {
    cit->second.erase(broker_name);
    if (cit->second.empty()) clusters_.erase(cit);
  }
  for (auto t = topics_.begin(); t != topics_.end();) {
    t->second.erase(broker_name);
    if (t->second.empty()) {
      t = topics_.erase(t);
    } else {
      ++t;
    }
  }
}

void RouteTable::Unregister(const std::string&, const std::string&, const std::string& broker_addr,
                            int64_t) {
  std::lock_guard lock(mu_);
  RemoveAddrLocked(broker_addr);
}

int RouteTable::ScanInactive(int64_t now_ms) {
  std::lock_guard lock(mu_);
  std::vector<std::string> dead;
  for (const auto& [addr, live] : live_) {
    if (now_ms - live.last_update_ms > live.timeout_ms) dead.push_back(addr);
  }
  for (const auto& a : dead) RemoveAddrLocked(a);
  return static_cast<int>(dead.size());
}

int RouteTable::OnConnectionClosed(uint64_t connection_id) {
  std::lock_guard lock(mu_);
  std::vector<std::string> dead;
  for (const auto& [addr, live] : live_) {
    if (live.connection_id == connection_id) dead.push_back(addr);
  }
  for (const auto& a : dead) RemoveAddrLocked(a);
  return static_cast<int>(dead.size());
}

namespace {
void WriteBrokerData(Writer& w, const std::string& name, const std::string& cluster,
                     const std::map<int64_t, std::string>& addrs) {
  w.StartObject();
  w.Key("brokerAddrs");
  w.StartObject();
  for (const auto& [id, addr] : addrs) {
    w.Key(std::to_string(id).c_str());
    w.String(addr.c_str());
  }
  w.EndObject();
  w.Key("brokerName");
  w.String(name.c_str());
  w.Key("cluster");
  w.String(cluster.c_str());
  w.EndObject();
}
}  // namespace

std::optional<std::string> RouteTable::RouteJson(
    const std::string& topic, const std::optional<std::string>& order_topic_conf) const {
  std::lock_guard lock(mu_);
  auto t = topics_.find(topic);
  if (t == topics_.end()) return std::nullopt;
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  w.Key("brokerDatas");
  w.StartArray();
  size_t n = 0;
  for (const auto& [bname, q] : t->second) {
    auto b = brokers_.find(bname);
    if (b == brokers_.end()) continue;
    WriteBrokerData(w, bname, b->second.cluster, b->second.addrs);
    ++n;
  }
  w.EndArray();
  if (n == 0) return std::nullopt;
  w.Key("filterServerTable");
  w.StartObject();
  for (const auto& [bname, q] : t->second) {
    auto b = brokers_.find(bname);
    if (b == brokers_.end()) continue;
    for (const auto& [id, addr] : b->second.addrs) {
      auto f = filter_servers_.find(addr);
      if (f == filter_servers_.end()) continue;
      w.Key(addr.c_str());
      w.StartArray();
      for (const auto& fs : f->second) w.String(fs.c_str());
      w.EndArray();
    }
  }
  w.EndObject();
  if (order_topic_conf) {
    w.Key("orderTopicConf");
    w.String(order_topic_conf->c_str());
  }
  w.Key("queueDatas");
  w.StartArray();
  for (const auto& [bname, q] : t->second) {
    if (!brokers_.count(bname)) continue;
    w.StartObject();
    w.Key("brokerName");
    w.String(bname.c_str());
    w.Key("perm");
    w.Int(q.perm);
    w.Key("readQueueNums");
    w.Int(q.read_queue_nums);
    w.Key("topicSysFlag");
    w.Int(q.topic_sys_flag);
    w.Key("writeQueueNums");
    w.Int(q.write_queue_nums);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string RouteTable::ClusterInfoJson() const {
  std::lock_guard lock(mu_);
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  w.Key("brokerAddrTable");
  w.StartObject();
  for (const auto& [name, b] : brokers_) {
    w.Key(name.c_str());
    WriteBrokerData(w, name, b.cluster, b.addrs);
  }
  w.EndObject();
  w.Key("clusterAddrTable");
  w.StartObject();
  for (const auto& [cluster, names] : clusters_) {
    w.Key(cluster.c_str());
    w.StartArray();
    for (const auto& n : names) w.String(n.c_str());
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

TopicList RouteTable::AllTopics() const {
  std::lock_guard lock(mu_);
  TopicList out;
  for (const auto& [topic, qs] : topics_) out.topics.insert(topic);
  return out;
}

TopicList RouteTable::TopicsByCluster(const std::string& cluster) const {
  std::lock_guard lock(mu_);
  TopicList out;
  auto c = clusters_.find(cluster);
  if (c == clusters_.end()) return out;
  for (const auto& [topic, qs] : topics_) {
    for (const auto& name : c->second) {
      if (qs.count(name)) {
        out.topics.insert(topic);
        break;
      }
    }
  }
  return out;
}

TopicList RouteTable::SystemTopics() const {
  std::lock_guard lock(mu_);
  TopicList out;
  for (const auto& [cluster, names] : clusters_) {
    out.topics.insert(cluster);
    out.topics.insert(names.begin(), names.end());
  }
  for (const auto& [name, b] : brokers_) {
    if (!b.addrs.empty()) {
      out.broker_addr = b.addrs.begin()->second;
      break;
    }
  }
  return out;
}

TopicList RouteTable::TopicsBySysFlag(bool (*pick)(int32_t sys_flag)) const {
  std::lock_guard lock(mu_);
  TopicList out;
  for (const auto& [topic, qs] : topics_) {
    if (!qs.empty() && pick(qs.begin()->second.topic_sys_flag)) out.topics.insert(topic);
  }
  return out;
}

void RouteTable::DeleteTopic(const std::string& topic, const std::string& cluster) {
  std::lock_guard lock(mu_);
  if (cluster.empty()) {
    topics_.erase(topic);
    return;
  }
  auto c = clusters_.find(cluster);
  auto t = topics_.find(topic);
  if (c == clusters_.end() || t == topics_.end()) return;
  for (const auto& name : c->second) t->second.erase(name);
  if (t->second.empty()) topics_.erase(t);
}

int RouteTable::ChangeWritePermLocked(const std::string& broker_name, bool wipe) {
  constexpr int32_t kPermRead = 1 << 2, kPermWrite = 1 << 1;
  int n = 0;
  for (auto& [topic, qs] : topics_) {
    auto q = qs.find(broker_name);
    if (q == qs.end()) continue;
    q->second.perm = wipe ? (q->second.perm & ~kPermWrite) : (kPermRead | kPermWrite);
    ++n;
  }
  return n;
}

int RouteTable::WipeWritePerm(const std::string& broker_name) {
  std::lock_guard lock(mu_);
  return ChangeWritePermLocked(broker_name, true);
}

int RouteTable::AddWritePerm(const std::string& broker_name) {
  std::lock_guard lock(mu_);
  return ChangeWritePermLocked(broker_name, false);
}

std::optional<DataVersion> RouteTable::StoredDataVersion(const std::string& broker_addr) const {
  std::lock_guard lock(mu_);
  auto it = live_.find(broker_addr);
  if (it == live_.end()) return std::nullopt;
  return it->second.data_version;
}

bool RouteTable::QueryDataVersion(const std::string& broker_addr, const DataVersion& v,
                                  int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = live_.find(broker_addr);
  const bool changed = it == live_.end() || !(it->second.data_version == v);
  if (!changed) it->second.last_update_ms = now_ms;
  return changed;
}

size_t RouteTable::broker_count() const {
  std::lock_guard lock(mu_);
  return live_.size();
}

}  // namespace rocketstore::namesrv
