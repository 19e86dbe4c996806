// `rocketstore topic ...` and `rocketstore group ...` (docs/cli.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "base/clock.h"
#include "client/admin_client.h"
#include "client/allocate.h"
#include "protocol/mq_version.h"
#include "tools/cli/cli_state.h"

namespace rocketstore::tools::cli {

namespace {
using client::AdminClient;
using client::MessageQueue;

client::AdminOptions AdminOpts(const CliState& s) {
  return client::AdminOptions{s.g.NamesrvAddrs(), s.g.timeout_ms};
}

std::string BrokerNameOf(const client::ClusterInfo& ci, const std::string& addr) {
  for (const auto& [name, b] : ci.brokers) {
    if (b.MasterAddr() == addr) return name;
  }
  return addr;
}

// The name servers' namespace whose value for a topic becomes "orderTopicConf" in its
// route (NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG): "brokerName:writeQueues;...".
constexpr const char* kOrderTopicConfigNamespace = "ORDER_TOPIC_CONFIG";

// As mqadmin updateTopic -o true: PUT_KV_CONFIG (100) of the topic's order conf on every
// name server (putKVConfigValue sends to each one).
Status PutOrderConf(const CliState& s, AdminClient& admin, const std::string& value) {
  for (const auto& ns : s.g.NamesrvAddrs()) {
    RS_RETURN_IF_ERROR(
        admin
            .CallNamesrvAt(
                ns, 100,
                {{"namespace", kOrderTopicConfigNamespace}, {"key", s.topic}, {"value", value}})
            .status());
  }
  return Status::OK();
}

int TopicCreate(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto ci = admin.GetClusterInfo();
  if (!ci.ok()) return Fail(err, ci.status());
  auto addrs = ci->MasterAddrs(s.cluster);
  if (addrs.empty()) {
    return Fail(err,
                NotFound(s.cluster.empty() ? "no broker is registered with the name server"
                                           : "cluster " + s.cluster + " has no master"),
                "start a broker (rocketstore serve) or check --cluster");
  }
  std::vector<std::string> names;
  for (const auto& a : addrs) {
    client::TopicConfig c;
    c.topic_name = s.topic;
    c.read_queue_nums = c.write_queue_nums = s.queues;
    c.perm = s.perm;
    c.order = s.order;
    Status st = admin.CreateTopic(a, c);
    if (!st.ok()) return Fail(err, st);
    names.push_back(BrokerNameOf(*ci, a));
  }
  std::string order_conf;
  if (s.order) {
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& n : sorted) {
      order_conf += (order_conf.empty() ? "" : ";") + n + ":" + std::to_string(s.queues);
    }
    if (Status st = PutOrderConf(s, admin, order_conf); !st.ok()) {
      return Fail(err, st,
                  "the topic was created on " + fmt::format("{}", fmt::join(names, ", ")) +
                      " but its order conf is not on the name servers; create it again");
    }
    // Java's name server puts the conf in routes only with orderMessageEnable=true.
    if (auto conf = admin.GetNamesrvConfig(); conf.ok()) {
      auto it = conf->find("orderMessageEnable");
      if (it == conf->end() || it->second != "true") {
        fmt::print(err,
                   "note: the name server routes orderTopicConf only with "
                   "orderMessageEnable=true (mqadmin updateNamesrvConfig -k orderMessageEnable "
                   "-v true)\n");
      }
    }
  }
  // Wait (briefly) until the name server routes the new topic, so a following produce works.
  for (int i = 0; i < 50; ++i) {
    auto r = admin.GetRoute(s.topic);
    if (r.ok() && (*r)->queue_datas.size() >= addrs.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (s.g.json()) {
    Json b = Json::Array();
    for (const auto& n : names) b.Push(n);
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("topic", s.topic)
                   .Add("readQueues", s.queues)
                   .Add("writeQueues", s.queues)
                   .Add("perm", s.perm)
                   .Add("order", s.order)
                   .Add("brokers", b)
                   .Add("orderTopicConf", order_conf)
                   .str());
  } else {
    fmt::print(out, "created topic {} ({} queues, perm {}) on {}\n", s.topic, s.queues, s.perm,
               fmt::join(names, ", "));
    if (s.order) fmt::print(out, "order conf on the name servers: {}\n", order_conf);
  }
  return kExitOk;
}

// A topic's type, as rocketmq-dashboard sorts its topic list and RocketMQ's brokers know
// their system topics: RETRY and DLQ by prefix (MixAll's %RETRY% / %DLQ%), SYSTEM for
// what a name server lists as system topics (GET_SYSTEM_TOPIC_LIST_FROM_NS 304: cluster and
// broker names, the dashboard's %SYS%) or a broker does (GET_SYSTEM_TOPIC_LIST_FROM_BROKER
// 305: TopicValidator's set, to which 4.9.8's TopicConfigManager adds the cluster and broker
// names and <cluster>_REPLY_TOPIC) and rmq_sys_* (TopicValidator.isSystemTopic); NORMAL
// otherwise.
std::string TopicType(const std::string& topic, const std::set<std::string>& system) {
  if (topic.starts_with("%RETRY%")) return "RETRY";
  if (topic.starts_with("%DLQ%")) return "DLQ";
  if (system.count(topic) != 0 || topic.starts_with("rmq_sys_")) return "SYSTEM";
  return "NORMAL";
}

int TopicList(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto l = s.cluster.empty() ? admin.GetAllTopics() : admin.GetTopicsByCluster(s.cluster);
  if (!l.ok()) return Fail(err, l.status());
  std::set<std::string> system;
  auto ns_system = admin.GetSystemTopics();
  if (!ns_system.ok()) return Fail(err, ns_system.status());
  system.insert(ns_system->topics.begin(), ns_system->topics.end());
  auto addrs = admin.MasterAddrs();
  if (!addrs.ok()) return Fail(err, addrs.status());
  for (const auto& a : *addrs) {
    auto b = admin.GetSystemTopicsFromBroker(a);
    if (!b.ok()) return Fail(err, b.status());
    system.insert(b->topics.begin(), b->topics.end());
  }
  std::vector<std::string> topics = l->topics;
  std::sort(topics.begin(), topics.end());
  std::vector<std::pair<std::string, std::string>> typed;
  for (const auto& t : topics) {
    std::string type = TopicType(t, system);
    std::string lower = type;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (!s.topic_type.empty() &&
        std::none_of(s.topic_type.begin(), s.topic_type.end(), [&](std::string want) {
          std::transform(want.begin(), want.end(), want.begin(), ::tolower);
          return want == lower;
        })) {
      continue;
    }
    typed.emplace_back(t, std::move(type));
  }
  if (s.g.json()) {
    Json a = Json::Array();
    Json types = Json::Object();
    for (const auto& [t, type] : typed) {
      a.Push(t);
      types.Add(t, type);
    }
    fmt::print(out, "{}\n", Json::Object().Add("topics", a).Add("types", types).str());
  } else {
    Table table({"TOPIC", "TYPE"});
    for (const auto& [t, type] : typed) table.Row({t, type});
    table.Print(out);
  }
  return kExitOk;
}

int TopicDescribe(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto route = admin.GetRoute(s.topic);
  if (!route.ok()) return Fail(err, route.status(), "list topics with `rocketstore topic list`");
  Json brokers = Json::Array();
  Json queues = Json::Array();
  Table t({"BROKER", "QUEUE", "MIN", "MAX", "MESSAGES", "LAST STORED"});
  int64_t total = 0;
  std::vector<client::QueueData> qds = (*route)->queue_datas;
  std::sort(qds.begin(), qds.end(),
            [](const auto& a, const auto& b) { return a.broker_name < b.broker_name; });
  for (const auto& qd : qds) {
    const client::BrokerData* bd = (*route)->FindBroker(qd.broker_name);
    const std::string addr = bd ? bd->MasterAddr() : "";
    brokers.Push(Json::Object()
                     .Add("name", qd.broker_name)
                     .Add("addr", addr)
                     .Add("readQueues", qd.read_queue_nums)
                     .Add("writeQueues", qd.write_queue_nums)
                     .Add("perm", qd.perm));
    // GET_TOPIC_STATS_INFO (202): min/max offset and last store time per queue.
    std::map<int32_t, client::TopicOffset> stats;
    auto ts = admin.GetTopicStats(addr, s.topic);
    if (!ts.ok()) return Fail(err, ts.status());
    for (const auto& [q, o] : ts->offsets) stats[q.queue_id] = o;
    for (const auto& [qid, o] : stats) {
      total += o.max_offset - o.min_offset;
      queues.Push(Json::Object()
                      .Add("broker", qd.broker_name)
                      .Add("queueId", qid)
                      .Add("minOffset", o.min_offset)
                      .Add("maxOffset", o.max_offset)
                      .Add("lastUpdateTimestamp", o.last_update_timestamp));
      t.Row({qd.broker_name, std::to_string(qid), std::to_string(o.min_offset),
             std::to_string(o.max_offset), std::to_string(o.max_offset - o.min_offset),
             FormatTime(o.last_update_timestamp)});
    }
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("topic", s.topic)
                   .Add("brokers", brokers)
                   .Add("queues", queues)
                   .Add("messages", total)
                   .str());
  } else {
    fmt::print(out, "topic {}: {} message(s) stored\n", s.topic, total);
    t.Print(out);
  }
  return kExitOk;
}

// As mqadmin deleteTopic: DELETE_TOPIC_IN_BROKER (215) on every master of the cluster,
// then DELETE_TOPIC_IN_NAMESRV (216) on every name server.
int TopicDelete(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto all = admin.GetAllTopics();
  if (!all.ok()) return Fail(err, all.status());
  if (std::find(all->topics.begin(), all->topics.end(), s.topic) == all->topics.end()) {
    return Fail(err, NotFound("topic " + s.topic + " does not exist"),
                "list topics with `rocketstore topic list`");
  }
  auto addrs = admin.MasterAddrs(s.cluster);
  if (!addrs.ok()) return Fail(err, addrs.status());
  for (const auto& a : *addrs) {
    Status st = admin.DeleteTopicInBroker(a, s.topic);
    if (!st.ok()) return Fail(err, st);
  }
  // 216 names the cluster as mqadmin's deleteTopicInNameServer does: the name server then
  // drops only that cluster's brokers from the route.
  std::vector<std::pair<std::string, std::string>> fields = {{"topic", s.topic}};
  if (!s.cluster.empty()) fields.emplace_back("clusterName", s.cluster);
  bool order_conf_deleted = false;
  for (const auto& ns : s.g.NamesrvAddrs()) {
    Status st = admin.CallNamesrvAt(ns, 216, fields).status();
    if (!st.ok()) return Fail(err, st);
    if (!s.cluster.empty()) continue;
    // Gone everywhere: its order conf (written by `topic create --order`) goes too, or a
    // topic created later under the name would be routed as ordered.
    auto conf =
        admin.CallNamesrvAt(ns, 101, {{"namespace", kOrderTopicConfigNamespace}, {"key", s.topic}});
    if (conf.status().code() == StatusCode::kNotFound) continue;
    if (!conf.ok()) return Fail(err, conf.status());
    st = admin.CallNamesrvAt(ns, 102, {{"namespace", kOrderTopicConfigNamespace}, {"key", s.topic}})
             .status();
    if (!st.ok()) return Fail(err, st);
    order_conf_deleted = true;
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("topic", s.topic)
                   .Add("deleted", true)
                   .Add("brokers", static_cast<int64_t>(addrs->size()))
                   .Add("orderTopicConfDeleted", order_conf_deleted)
                   .str());
  } else {
    fmt::print(out, "deleted topic {} on {} broker(s){} and the name server(s){}\n", s.topic,
               addrs->size(), s.cluster.empty() ? "" : " of cluster " + s.cluster,
               order_conf_deleted ? " with its order conf" : "");
  }
  return kExitOk;
}

// As mqadmin updateTopic on every broker that has the topic, changing only the fields
// given. The starting point is each master's own TopicConfig (GET_ALL_TOPIC_CONFIG 21):
// the route's perm is masked by the broker's runtime brokerPermission and carries neither
// order nor the filter type, so copying it would persist the mask and drop the rest.
// Every config is read before anything is written.
int TopicAlter(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  const bool perm_given = s.topic_alter->count("--perm") > 0;
  if (s.read_queues < 0 && s.write_queues < 0 && !perm_given) {
    fmt::print(err,
               "error: nothing to change: give --read-queues, --write-queues or --perm\n"
               "Run with --help for more information.\n");
    return kExitUsage;
  }
  auto route = admin.GetRoute(s.topic);
  if (!route.ok()) return Fail(err, route.status(), "list topics with `rocketstore topic list`");
  struct Change {
    std::string broker, addr;
    client::TopicConfig before, after;
  };
  std::vector<Change> changes;
  std::vector<client::QueueData> qds = (*route)->queue_datas;
  std::sort(qds.begin(), qds.end(),
            [](const auto& a, const auto& b) { return a.broker_name < b.broker_name; });
  for (const auto& qd : qds) {
    const client::BrokerData* bd = (*route)->FindBroker(qd.broker_name);
    if (bd == nullptr || bd->MasterAddr().empty()) {
      return Fail(err,
                  FailedPrecondition("broker " + qd.broker_name + " of topic " + s.topic +
                                     " has no live master: nothing was changed"),
                  "start its master, then alter again");
    }
    auto configs = admin.GetAllTopicConfig(bd->MasterAddr());
    if (!configs.ok()) return Fail(err, configs.status());
    auto it = configs->topics.find(s.topic);
    if (it == configs->topics.end()) {
      return Fail(
          err,
          NotFound("broker " + qd.broker_name + " (" + bd->MasterAddr() + ") does not have topic " +
                   s.topic + " although the name server routes it there: nothing was changed"),
          "wait for the broker's next registration, or create it there");
    }
    Change c{qd.broker_name, bd->MasterAddr(), it->second, it->second};
    if (s.read_queues > 0) c.after.read_queue_nums = s.read_queues;
    if (s.write_queues > 0) c.after.write_queue_nums = s.write_queues;
    if (perm_given) c.after.perm = s.perm;
    changes.push_back(std::move(c));
  }
  std::vector<std::string> done;
  for (const auto& c : changes) {
    Status st = admin.CreateTopic(c.addr, c.after);
    if (!st.ok()) {
      return Fail(err, st,
                  done.empty() ? "nothing was changed"
                               : "already changed on " + fmt::format("{}", fmt::join(done, ", ")));
    }
    done.push_back(c.broker);
  }
  // An ordered topic's order conf names each broker's write queues: keep it true.
  std::string order_conf;
  if (s.write_queues > 0) {
    for (const auto& c : changes) {
      if (!c.after.order) continue;
      order_conf += (order_conf.empty() ? "" : ";") + c.broker + ":" +
                    std::to_string(c.after.write_queue_nums);
    }
    if (!order_conf.empty()) {
      if (Status st = PutOrderConf(s, admin, order_conf); !st.ok()) {
        return Fail(err, st, "the brokers were changed; alter again to write the order conf");
      }
    }
  }
  if (s.g.json()) {
    Json brokers = Json::Array();
    for (const auto& c : changes) {
      brokers.Push(Json::Object()
                       .Add("name", c.broker)
                       .Add("readQueues", c.after.read_queue_nums)
                       .Add("writeQueues", c.after.write_queue_nums)
                       .Add("perm", c.after.perm)
                       .Add("order", c.after.order)
                       .Add("previous", Json::Object()
                                            .Add("readQueues", c.before.read_queue_nums)
                                            .Add("writeQueues", c.before.write_queue_nums)
                                            .Add("perm", c.before.perm)));
    }
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("topic", s.topic)
                   .Add("brokers", brokers)
                   .Add("orderTopicConf", order_conf)
                   .str());
  } else {
    auto field = [](int32_t before, int32_t after) {
      return before == after ? std::to_string(after)
                             : std::to_string(before) + " -> " + std::to_string(after);
    };
    for (const auto& c : changes) {
      fmt::print(out, "altered {} on {}: read queues {}, write queues {}, perm {}{}\n", s.topic,
                 c.broker, field(c.before.read_queue_nums, c.after.read_queue_nums),
                 field(c.before.write_queue_nums, c.after.write_queue_nums),
                 field(c.before.perm, c.after.perm), c.after.order ? ", ordered" : "");
    }
    if (!order_conf.empty()) fmt::print(out, "order conf on the name servers: {}\n", order_conf);
  }
  return kExitOk;
}

struct QueueLag {
  MessageQueue q;
  client::OffsetWrapper o;
};

// The group's offsets on every topic it consumes (or only --topic): GET_CONSUME_STATS
// (208) on every master broker, as mqadmin consumerProgress does.
Result<std::vector<QueueLag>> GroupOffsets(CliState& s, AdminClient& admin) {
  std::vector<QueueLag> out;
  RS_ASSIGN_OR_RETURN(std::vector<std::string> addrs, admin.MasterAddrs());
  for (const auto& a : addrs) {
    auto cs = admin.GetConsumeStats(a, s.group, s.topic);
    if (cs.status().code() == StatusCode::kNotFound) continue;  // not on this broker
    if (!cs.ok()) return cs.status();
    for (const auto& [q, o] : cs->offsets) out.push_back({q, o});
  }
  if (out.empty()) {
    return NotFound("group " + s.group + " has no subscription or offsets" +
                    (s.topic.empty() ? std::string() : " on topic " + s.topic) + " on any broker");
  }
  return out;
}

// The group's live members: GET_CONSUMER_CONNECTION_LIST (203) on every master
// (CONSUMER_NOT_ONLINE = none there).
Result<std::vector<client::Connection>> GroupMembers(CliState& s, AdminClient& admin,
                                                     const std::vector<std::string>& addrs) {
  std::vector<client::Connection> members;
  std::set<std::string> seen;
  for (const auto& a : addrs) {
    auto cc = admin.GetConsumerConnections(a, s.group);
    if (cc.status().code() == StatusCode::kNotFound) continue;
    if (!cc.ok()) return cc.status();
    for (const auto& c : cc->connections) {
      if (seen.insert(c.client_id).second) members.push_back(c);
    }
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.client_id < b.client_id; });
  return members;
}

int GroupDescribe(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto lags = GroupOffsets(s, admin);
  if (!lags.ok()) return Fail(err, lags.status());
  std::sort(lags->begin(), lags->end(),
            [](const QueueLag& a, const QueueLag& b) { return client::QueueLess(a.q, b.q); });
  auto addrs = admin.MasterAddrs();
  if (!addrs.ok()) return Fail(err, addrs.status());
  auto found = GroupMembers(s, admin, *addrs);
  if (!found.ok()) return Fail(err, found.status());
  const std::vector<client::Connection>& members = *found;
  int64_t total = 0;
  Json qs = Json::Array();
  Table t({"TOPIC", "BROKER", "QUEUE", "BROKER OFFSET", "CONSUMER OFFSET", "LAG", "LAST CONSUMED"});
  for (const auto& l : *lags) {
    const int64_t lag = l.o.consumer_offset < 0
                            ? l.o.broker_offset
                            : std::max<int64_t>(0, l.o.broker_offset - l.o.consumer_offset);
    total += lag;
    qs.Push(Json::Object()
                .Add("topic", l.q.topic)
                .Add("broker", l.q.broker_name)
                .Add("queueId", l.q.queue_id)
                .Add("brokerOffset", l.o.broker_offset)
                .Add("consumerOffset", l.o.consumer_offset)
                .Add("lag", lag)
                .Add("lastTimestamp", l.o.last_timestamp));
    t.Row({l.q.topic, l.q.broker_name, std::to_string(l.q.queue_id),
           std::to_string(l.o.broker_offset), std::to_string(l.o.consumer_offset),
           std::to_string(lag), FormatTime(l.o.last_timestamp)});
  }
  if (s.g.json()) {
    Json ms = Json::Array();
    for (const auto& m : members) {
      ms.Push(Json::Object()
                  .Add("clientId", m.client_id)
                  .Add("clientAddr", m.client_addr)
                  .Add("language", m.language)
                  .Add("version", m.version)
                  .Add("versionDesc", protocol::VersionDesc(m.version)));
    }
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("group", s.group)
                   .Add("members", ms)
                   .Add("queues", qs)
                   .Add("totalLag", total)
                   .str());
  } else {
    fmt::print(out, "group {}: {} member(s), total lag {}\n", s.group, members.size(), total);
    for (const auto& m : members) {
      // As mqadmin consumerConnection: the language's name and MQVersion.getVersionDesc.
      fmt::print(out, "  member {} at {} ({} {})\n", m.client_id, m.client_addr, m.language,
                 protocol::VersionDesc(m.version));
    }
    t.Print(out);
  }
  return kExitOk;
}

// Where a seek moves one queue to: the target the user named, asked of the broker.
Result<int64_t> SeekTarget(const CliState& s, const client::BrokerCall& b, const MessageQueue& q,
                           int64_t ts) {
  if (s.to_offset >= 0) return s.to_offset;
  if (s.to_earliest) return b.MinOffset(q);
  if (s.to_latest) return b.MaxOffset(q);
  return b.SearchOffset(q, ts);
}

// Whether GROUP exists on any of addrs: a subscription config (GET_ALL_SUBSCRIPTIONGROUP_
// CONFIG 201) or offsets on the topic (GET_ALL_CONSUMER_OFFSET 43). RocketMQ's resetOffset
// refuses a group without a subscription config; offsets left by a deleted config still
// count here, since they are what a seek moves.
Result<bool> GroupExists(const CliState& s, AdminClient& admin,
                         const std::vector<std::string>& addrs) {
  for (const auto& a : addrs) {
    RS_ASSIGN_OR_RETURN(auto groups, admin.GetAllGroups(a));
    if (groups.groups.count(s.group) != 0) return true;
    RS_ASSIGN_OR_RETURN(auto offsets, admin.GetAllConsumerOffsets(a));
    if (offsets.offsets.count(s.topic + "@" + s.group) != 0) return true;
  }
  return false;
}

int GroupSeek(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  if (s.to_offset < 0 && s.to_time.empty() && !s.to_earliest && !s.to_latest) {
    return Fail(err, InvalidArgument("say where to: --to-offset, --to-time, --to-earliest or "
                                     "--to-latest"));
  }
  int64_t ts = 0;
  if (!s.to_time.empty() && !ParseTime(s.to_time, Clock::Real().NowMillis(), &ts)) {
    return Fail(err, InvalidArgument("--to-time " + s.to_time +
                                     ": use epoch ms, 'YYYY-MM-DD HH:MM[:SS]' (UTC) or -10m"));
  }
  auto route = admin.GetRoute(s.topic);
  if (!route.ok()) return Fail(err, route.status(), "list topics with `rocketstore topic list`");
  std::vector<std::string> addrs;
  for (const auto& b : (*route)->broker_datas) {
    if (!b.MasterAddr().empty()) addrs.push_back(b.MasterAddr());
  }
  auto members = GroupMembers(s, admin, addrs);
  if (!members.ok()) return Fail(err, members.status());
  const bool online = !members->empty();
  if (!online) {
    // Writing offsets (15) for a name nobody uses would create that group.
    auto exists = GroupExists(s, admin, addrs);
    if (!exists.ok()) return Fail(err, exists.status());
    if (!*exists) {
      return Fail(err,
                  NotFound("group " + s.group + " does not exist on the brokers of " + s.topic +
                           ": no subscription config (201) and no offsets on " + s.topic +
                           " (43); nothing was changed"),
                  "list groups with `rocketstore group list`; a group is created by its first "
                  "consumer: rocketstore consume " +
                      s.topic + " --group " + s.group);
    }
  }
  if (online && (s.to_offset >= 0 || s.queue_id >= 0)) {
    return Fail(err,
                FailedPrecondition("group " + s.group + " has " + std::to_string(members->size()) +
                                   " live member(s), which would commit their own positions "
                                   "over --to-offset / --queue"),
                "stop the group's consumers first, or seek with --to-time, --to-earliest or "
                "--to-latest (the broker then resets the live consumers too)");
  }
  // Per queue: the committed offset now and where the seek puts it.
  struct Move {
    MessageQueue q;
    int64_t from = -1, to = 0;
  };
  std::vector<Move> moves;
  for (const auto& q : (*route)->ReadableQueues(s.topic)) {
    if (s.queue_id >= 0 && q.queue_id != s.queue_id) continue;
    client::BrokerCall b = admin.Broker((*route)->FindBroker(q.broker_name)->MasterAddr());
    auto cur = b.ConsumerOffset(s.group, q);
    auto to = SeekTarget(s, b, q, ts);
    if (!to.ok()) return Fail(err, to.status());
    if (s.to_offset >= 0) {
      // As RocketMQ's resetOffset by queue: an offset outside [min, max] is refused.
      auto min = b.MinOffset(q);
      if (!min.ok()) return Fail(err, min.status());
      auto max = b.MaxOffset(q);
      if (!max.ok()) return Fail(err, max.status());
      if (*to < *min || *to > *max) {
        return Fail(err, InvalidArgument("--to-offset " + std::to_string(*to) +
                                         " is outside queue " + std::to_string(q.queue_id) +
                                         " of " + q.broker_name + ": its range is [" +
                                         std::to_string(*min) + ", " + std::to_string(*max) +
                                         "] (min offset to max offset, the next to be "
                                         "written); nothing was changed"));
      }
    }
    moves.push_back({q, cur.ok() ? *cur : -1, *to});
  }
  if (moves.empty()) {
    return Fail(err, NotFound("topic " + s.topic + " has no queue " + std::to_string(s.queue_id)));
  }
  std::string how = "dry run";
  if (!s.dry_run && online) {
    // INVOKE_BROKER_TO_RESET_OFFSET (222) per broker: the broker writes the offsets and
    // pushes RESET_CONSUMER_CLIENT_OFFSET (220) to the live consumers. Java's broker reads
    // timestamp -1 as "the max offset"; 0 finds the min offset.
    const int64_t when = s.to_latest ? -1 : s.to_earliest ? 0 : ts;
    for (const auto& a : addrs) {
      auto r = admin.ResetOffset(a, s.topic, s.group, when, true);
      if (!r.ok()) return Fail(err, r.status());
      for (const auto& [q, off] : r->offsets) {
        for (auto& m : moves) {
          if (!client::QueueLess(m.q, q) && !client::QueueLess(q, m.q)) m.to = off;
        }
      }
    }
    how = "reset through the broker (live consumers told)";
  } else if (!s.dry_run) {
    for (const auto& m : moves) {
      client::BrokerCall b = admin.Broker((*route)->FindBroker(m.q.broker_name)->MasterAddr());
      Status st = b.UpdateConsumerOffset(s.group, m.q, m.to);
      if (!st.ok()) return Fail(err, st);
    }
    how = "offsets written (group offline)";
  }
  Json qs = Json::Array();
  Table t({"TOPIC", "BROKER", "QUEUE", "FROM", "TO"});
  for (const auto& m : moves) {
    qs.Push(Json::Object()
                .Add("topic", m.q.topic)
                .Add("broker", m.q.broker_name)
                .Add("queueId", m.q.queue_id)
                .Add("from", m.from)
                .Add("to", m.to));
    t.Row({m.q.topic, m.q.broker_name, std::to_string(m.q.queue_id), std::to_string(m.from),
           std::to_string(m.to)});
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("group", s.group)
                   .Add("topic", s.topic)
                   .Add("dryRun", s.dry_run)
                   .Add("online", online)
                   .Add("queues", qs)
                   .str());
  } else {
    t.Print(out);
    if (s.dry_run) {
      fmt::print(out, "dry run: nothing changed\n");
    } else {
      fmt::print(out, "moved {} queue(s): {}\n", moves.size(), how);
    }
  }
  return kExitOk;
}

int GroupList(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto addrs = admin.MasterAddrs();
  if (!addrs.ok()) return Fail(err, addrs.status());
  std::set<std::string> names;
  for (const auto& a : *addrs) {
    auto g = admin.GetAllGroups(a);
    if (!g.ok()) return Fail(err, g.status());
    for (const auto& [n, c] : g->groups) names.insert(n);
  }
  if (s.g.json()) {
    Json arr = Json::Array();
    for (const auto& n : names) arr.Push(n);
    fmt::print(out, "{}\n", Json::Object().Add("groups", arr).str());
  } else {
    for (const auto& n : names) fmt::print(out, "{}\n", n);
  }
  return kExitOk;
}

int GroupDelete(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto addrs = admin.MasterAddrs();
  if (!addrs.ok()) return Fail(err, addrs.status());
  bool existed = false;
  for (const auto& a : *addrs) {
    auto groups = admin.GetAllGroups(a);
    if (!groups.ok()) return Fail(err, groups.status());
    if (groups->groups.count(s.group) == 0) continue;
    existed = true;
    Status st = admin.DeleteGroup(a, s.group, s.remove_offset);
    if (!st.ok()) return Fail(err, st);
  }
  if (!existed) {
    return Fail(err, NotFound("group " + s.group + " is on no broker"),
                "list groups with `rocketstore group list`");
  }
  // As mqadmin deleteSubGroup: the group's retry and dead-letter topics go too.
  std::vector<std::string> topics_deleted;
  auto all = admin.GetAllTopics();
  if (!all.ok()) return Fail(err, all.status());
  for (const std::string& t : {"%RETRY%" + s.group, "%DLQ%" + s.group}) {
    if (std::find(all->topics.begin(), all->topics.end(), t) == all->topics.end()) continue;
    for (const auto& a : *addrs) {
      Status st = admin.DeleteTopicInBroker(a, t);
      if (!st.ok() && st.code() != StatusCode::kNotFound) return Fail(err, st);
    }
    Status st = admin.DeleteTopicInNamesrv(t);
    if (!st.ok()) return Fail(err, st);
    topics_deleted.push_back(t);
  }
  if (s.g.json()) {
    Json ts = Json::Array();
    for (const auto& t : topics_deleted) ts.Push(t);
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("group", s.group)
                   .Add("deleted", true)
                   .Add("offsetsRemoved", s.remove_offset)
                   .Add("topicsDeleted", ts)
                   .str());
  } else {
    fmt::print(out, "deleted group {}{}{}\n", s.group, s.remove_offset ? " and its offsets" : "",
               topics_deleted.empty() ? std::string()
                                      : fmt::format(" (and {})", fmt::join(topics_deleted, ", ")));
  }
  return kExitOk;
}
}  // namespace

int RunTopic(CliState& s, FILE* out, FILE* err) {
  AdminClient admin(AdminOpts(s));
  if (s.topic_create->parsed()) return TopicCreate(s, admin, out, err);
  if (s.topic_list->parsed()) return TopicList(s, admin, out, err);
  if (s.topic_describe->parsed()) return TopicDescribe(s, admin, out, err);
  if (s.topic_delete->parsed()) return TopicDelete(s, admin, out, err);
  return TopicAlter(s, admin, out, err);
}

int RunGroup(CliState& s, FILE* out, FILE* err) {
  AdminClient admin(AdminOpts(s));
  if (s.group_list->parsed()) return GroupList(s, admin, out, err);
  if (s.group_describe->parsed()) return GroupDescribe(s, admin, out, err);
  if (s.group_seek->parsed()) return GroupSeek(s, admin, out, err);
  return GroupDelete(s, admin, out, err);
}

}  // namespace rocketstore::tools::cli
