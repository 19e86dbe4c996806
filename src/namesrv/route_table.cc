#include "namesrv/route_table.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "protocol/json_util.h"

namespace rocketstore::namesrv {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

Status ParseRegisterBody(std::string_view body, BrokerRegistration& reg) {
  std::string text = protocol::QuoteBareIntegerKeys(body);
  rapidjson::Document parsed;
  parsed.Parse(text.data(), text.size());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    return InvalidArgument("register body is not JSON");
  }
  // Read through a const view: RapidJSON 1.1.0 compares a mutable member iterator with
  // the end only through a converting operator==, which C++20's reversed-operator rules
  // make ambiguous (clang rejects it); const iterators compare exactly.
  const rapidjson::Value& doc = parsed;
  auto wrapper = doc.FindMember("topicConfigSerializeWrapper");
  if (wrapper == doc.MemberEnd() || !wrapper->value.IsObject()) return Status::OK();
  const rapidjson::Value& w = wrapper->value;
  auto dv = w.FindMember("dataVersion");
  if (dv != w.MemberEnd()) {
    rapidjson::StringBuffer sb;
    Writer writer(sb);
    dv->value.Accept(writer);
    reg.data_version = sb.GetString();
  }
  auto table = w.FindMember("topicConfigTable");
  if (table == w.MemberEnd() || !table->value.IsObject()) return Status::OK();
  for (auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    QueueData q;
    q.broker_name = reg.broker_name;
    auto get = [&](const char* key, int32_t dflt) {
      auto it = m.value.FindMember(key);
      return (it != m.value.MemberEnd() && it->value.IsInt()) ? it->value.GetInt() : dflt;
    };
    q.read_queue_nums = get("readQueueNums", 0);
    q.write_queue_nums = get("writeQueueNums", 0);
    q.perm = get("perm", 6);
    q.topic_sys_flag = get("topicSysFlag", 0);
    reg.topics[m.name.GetString()] = q;
  }
  return Status::OK();
}

void RouteTable::Register(const BrokerRegistration& reg, int64_t now_ms) {
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
}

void RouteTable::RemoveAddrLocked(const std::string& addr) {
  auto lit = live_.find(addr);
  if (lit == live_.end()) return;
  const std::string broker_name = lit->second.broker_name;
  const std::string cluster = lit->second.cluster;
  live_.erase(lit);
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
  w.Key("enableActingMaster");
  w.Bool(false);
  w.EndObject();
}
}  // namespace

std::optional<std::string> RouteTable::RouteJson(const std::string& topic) const {
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
  w.EndObject();
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

size_t RouteTable::broker_count() const {
  std::lock_guard lock(mu_);
  return live_.size();
}

}  // namespace rocketstore::namesrv
