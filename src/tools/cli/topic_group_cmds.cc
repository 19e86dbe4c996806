// `rocketstore topic ...` and `rocketstore group ...` (docs/cli.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "base/clock.h"
#include "client/admin_client.h"
#include "client/allocate.h"
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
                   .str());
  } else {
    fmt::print(out, "created topic {} ({} queues, perm {}) on {}\n", s.topic, s.queues, s.perm,
               fmt::join(names, ", "));
  }
  return kExitOk;
}

int TopicList(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto l = s.cluster.empty() ? admin.GetAllTopics() : admin.GetTopicsByCluster(s.cluster);
  if (!l.ok()) return Fail(err, l.status());
  std::vector<std::string> topics = l->topics;
  std::sort(topics.begin(), topics.end());
  if (s.g.json()) {
    Json a = Json::Array();
    for (const auto& t : topics) a.Push(t);
    fmt::print(out, "{}\n", Json::Object().Add("topics", a).str());
  } else {
    for (const auto& t : topics) fmt::print(out, "{}\n", t);
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
    // GET_TOPIC_STATS_INFO (202) when the broker has it; else offsets one by one.
    std::map<int32_t, client::TopicOffset> stats;
    if (auto ts = admin.GetTopicStats(addr, s.topic); ts.ok()) {
      for (const auto& [q, o] : ts->offsets) stats[q.queue_id] = o;
    } else {
      for (int32_t i = 0; i < qd.read_queue_nums; ++i) {
        MessageQueue q{s.topic, qd.broker_name, i};
        client::TopicOffset o;
        auto mn = admin.Broker(addr).MinOffset(q);
        auto mx = admin.Broker(addr).MaxOffset(q);
        if (!mn.ok()) return Fail(err, mn.status());
        if (!mx.ok()) return Fail(err, mx.status());
        o.min_offset = *mn;
        o.max_offset = *mx;
        stats[i] = o;
      }
    }
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

int TopicDelete(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto addrs = admin.MasterAddrs(s.cluster);
  if (!addrs.ok()) return Fail(err, addrs.status());
  for (const auto& a : *addrs) {
    Status st = admin.DeleteTopicInBroker(a, s.topic);
    if (!st.ok()) return Fail(err, st);
  }
  Status st = admin.DeleteTopicInNamesrv(s.topic);
  if (!st.ok()) return Fail(err, st);
  if (s.g.json()) {
    fmt::print(out, "{}\n", Json::Object().Add("topic", s.topic).Add("deleted", true).str());
  } else {
    fmt::print(out, "deleted topic {}\n", s.topic);
  }
  return kExitOk;
}

int TopicAlter(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto route = admin.GetRoute(s.topic);
  if (!route.ok()) return Fail(err, route.status());
  for (const auto& qd : (*route)->queue_datas) {
    const client::BrokerData* bd = (*route)->FindBroker(qd.broker_name);
    if (bd == nullptr || bd->MasterAddr().empty()) continue;
    client::TopicConfig c;
    c.topic_name = s.topic;
    c.read_queue_nums = s.read_queues > 0 ? s.read_queues : qd.read_queue_nums;
    c.write_queue_nums = s.write_queues > 0 ? s.write_queues : qd.write_queue_nums;
    c.perm = s.topic_alter->count("--perm") ? s.perm : qd.perm;
    Status st = admin.CreateTopic(bd->MasterAddr(), c);
    if (!st.ok()) return Fail(err, st);
    if (s.g.json()) {
      fmt::print(out, "{}\n",
                 Json::Object()
                     .Add("topic", s.topic)
                     .Add("broker", qd.broker_name)
                     .Add("readQueues", c.read_queue_nums)
                     .Add("writeQueues", c.write_queue_nums)
                     .Add("perm", c.perm)
                     .str());
    } else {
      fmt::print(out, "{} on {}: read {} write {} perm {}\n", s.topic, qd.broker_name,
                 c.read_queue_nums, c.write_queue_nums, c.perm);
    }
  }
  return kExitOk;
}

struct QueueLag {
  MessageQueue q;
  client::OffsetWrapper o;
};

// The group's offsets on the topic (or all its topics): GET_CONSUME_STATS (208) per broker,
// or, without it, QUERY_CONSUMER_OFFSET (14) + GET_MAX_OFFSET (30) per queue of --topic.
Result<std::vector<QueueLag>> GroupOffsets(CliState& s, AdminClient& admin) {
  std::vector<QueueLag> out;
  std::vector<std::string> addrs;
  std::shared_ptr<const client::TopicRoute> route;
  if (!s.topic.empty()) {
    RS_ASSIGN_OR_RETURN(route, admin.GetRoute(s.topic));
    for (const auto& b : route->broker_datas) {
      if (!b.MasterAddr().empty()) addrs.push_back(b.MasterAddr());
    }
  } else {
    RS_ASSIGN_OR_RETURN(addrs, admin.MasterAddrs());
  }
  bool fallback = false;
  for (const auto& a : addrs) {
    auto cs = admin.GetConsumeStats(a, s.group, s.topic);
    if (cs.ok()) {
      for (const auto& [q, o] : cs->offsets) out.push_back({q, o});
      continue;
    }
    if (cs.status().code() == StatusCode::kFailedPrecondition) {
      fallback = true;
      break;
    }
    if (cs.status().code() == StatusCode::kNotFound) continue;
    return cs.status();
  }
  if (!fallback) {
    if (out.empty()) {
      return NotFound("group " + s.group + " has no offsets" +
                      (s.topic.empty() ? std::string() : " on topic " + s.topic));
    }
    return out;
  }
  if (route == nullptr) {
    return InvalidArgument("the broker lacks GET_CONSUME_STATS (208): name the topic with --topic");
  }
  out.clear();
  for (const auto& q : route->ReadableQueues(s.topic)) {
    client::BrokerCall b = admin.Broker(route->FindBroker(q.broker_name)->MasterAddr());
    RS_ASSIGN_OR_RETURN(int64_t max, b.MaxOffset(q));
    auto committed = b.ConsumerOffset(s.group, q);
    client::OffsetWrapper o;
    o.broker_offset = max;
    o.consumer_offset = committed.ok() ? *committed : -1;
    out.push_back({q, o});
  }
  return out;
}

int GroupDescribe(CliState& s, AdminClient& admin, FILE* out, FILE* err) {
  auto lags = GroupOffsets(s, admin);
  if (!lags.ok()) return Fail(err, lags.status());
  std::sort(lags->begin(), lags->end(),
            [](const QueueLag& a, const QueueLag& b) { return client::QueueLess(a.q, b.q); });
  // Members: GET_CONSUMER_CONNECTION_LIST (203), or the ids of GET_CONSUMER_LIST_BY_GROUP.
  std::vector<client::Connection> members;
  std::set<std::string> seen;
  auto addrs = admin.MasterAddrs();
  if (addrs.ok()) {
    for (const auto& a : *addrs) {
      auto cc = admin.GetConsumerConnections(a, s.group);
      if (cc.ok()) {
        for (const auto& c : cc->connections) {
          if (seen.insert(c.client_id).second) members.push_back(c);
        }
      } else if (cc.status().code() == StatusCode::kFailedPrecondition) {
        auto ids = admin.Broker(a).ConsumerIds(s.group);
        if (ids.ok()) {
          for (const auto& id : *ids) {
            if (seen.insert(id).second) members.push_back({id, "", "", 0});
          }
        }
      }
    }
  }
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
                  .Add("version", m.version));
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
      fmt::print(out, "  member {} {}\n", m.client_id, m.client_addr);
    }
    t.Print(out);
  }
  return kExitOk;
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
  if (!route.ok()) return Fail(err, route.status());
  Json qs = Json::Array();
  Table t({"TOPIC", "BROKER", "QUEUE", "FROM", "TO"});
  int changed = 0;
  for (const auto& q : (*route)->ReadableQueues(s.topic)) {
    if (s.queue_id >= 0 && q.queue_id != s.queue_id) continue;
    client::BrokerCall b = admin.Broker((*route)->FindBroker(q.broker_name)->MasterAddr());
    auto cur = b.ConsumerOffset(s.group, q);
    const int64_t from = cur.ok() ? *cur : -1;
    Result<int64_t> to = s.to_offset >= 0 ? Result<int64_t>(s.to_offset)
                         : s.to_earliest  ? b.MinOffset(q)
                         : s.to_latest    ? b.MaxOffset(q)
                                          : b.SearchOffset(q, ts);
    if (!to.ok()) return Fail(err, to.status());
    if (!s.dry_run) {
      Status st = b.UpdateConsumerOffset(s.group, q, *to);
      if (!st.ok()) return Fail(err, st);
      ++changed;
    }
    qs.Push(Json::Object()
                .Add("topic", q.topic)
                .Add("broker", q.broker_name)
                .Add("queueId", q.queue_id)
                .Add("from", from)
                .Add("to", *to));
    t.Row({q.topic, q.broker_name, std::to_string(q.queue_id), std::to_string(from),
           std::to_string(*to)});
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("group", s.group)
                   .Add("topic", s.topic)
                   .Add("dryRun", s.dry_run)
                   .Add("queues", qs)
                   .str());
  } else {
    t.Print(out);
    if (s.dry_run) {
      fmt::print(out, "dry run: nothing changed\n");
    } else {
      fmt::print(out, "moved {} queue(s)\n", changed);
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
  for (const auto& a : *addrs) {
    Status st = admin.DeleteGroup(a, s.group);
    if (!st.ok()) return Fail(err, st);
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n", Json::Object().Add("group", s.group).Add("deleted", true).str());
  } else {
    fmt::print(out, "deleted group {}\n", s.group);
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
