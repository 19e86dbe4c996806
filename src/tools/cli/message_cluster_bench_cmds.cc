// `rocketstore message get|find`, `cluster status`, `bench produce|consume` (docs/cli.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>

#include "base/clock.h"
#include "client/admin_client.h"
#include "client/broker_health.h"
#include "client/producer.h"
#include "client/pull_consumer.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"
#include "tools/cli/cli_state.h"

namespace rocketstore::tools::cli {

Json MessageJson(const client::MessageExt& m);  // produce_consume_cmds.cc

using client::StringMap;

namespace {

// What the location of a message depends on, per broker: its store's geometry as it
// answers GET_BROKER_CONFIG (26), RocketMQ's defaults for keys it does not answer.
struct Geometry {
  int64_t commit_log_segment = int64_t{1} << 30;  // mappedFileSizeCommitLog
  int64_t consume_queue_file = format::kDefaultConsumeQueueUnitsPerFile *
                               static_cast<int64_t>(format::kConsumeQueueUnitSize);
  int32_t hash_slot_num = format::kDefaultIndexHashSlotNum;  // maxHashSlotNum
  bool index_enabled = true;                                 // messageIndexEnable
};

// --segment-size overrides the commit-log segment size.
Geometry GeometryOf(const CliState& s, client::AdminClient& admin, const std::string& addr) {
  Geometry g;
  auto config = admin.GetBrokerConfig(addr);
  if (config.ok()) {
    auto num = [&](const char* key, int64_t dflt) {
      auto it = config->find(key);
      if (it == config->end()) return dflt;
      char* end = nullptr;
      const long long v = std::strtoll(it->second.c_str(), &end, 10);
      return end != it->second.c_str() && *end == '\0' && v > 0 ? static_cast<int64_t>(v) : dflt;
    };
    g.commit_log_segment = num("mappedFileSizeCommitLog", g.commit_log_segment);
    g.consume_queue_file = num("mappedFileSizeConsumeQueue", g.consume_queue_file);
    g.hash_slot_num =
        static_cast<int32_t>(std::min<int64_t>(num("maxHashSlotNum", g.hash_slot_num), INT32_MAX));
    auto idx = config->find("messageIndexEnable");
    g.index_enabled = idx == config->end() || idx->second != "false";
  }
  if (s.segment_size > 0) g.commit_log_segment = s.segment_size;
  return g;
}

// The explanation of where m lives; `keys`: the index keys the lookup used.
struct Where {
  std::string commit_log, consume_queue;
  std::vector<std::string> index;
};
Where WhereOf(const client::MessageExt& m, const Geometry& g,
              const std::vector<std::string>& keys) {
  Where w{SegmentExplanation(m.commit_log_offset, g.commit_log_segment),
          ConsumeQueueExplanation(m.topic, m.queue_id, m.queue_offset, g.consume_queue_file),
          {}};
  for (const auto& k : keys) {
    w.index.push_back(g.index_enabled ? IndexExplanation(m.topic, k, g.hash_slot_num)
                                      : "not indexed: the broker has messageIndexEnable=false");
  }
  return w;
}

Json WhereJson(const client::MessageExt& m, const Where& w) {
  Json index = Json::Array();
  for (const auto& i : w.index) index.Push(i);
  return Json::Object()
      .Add("message", MessageJson(m))
      .Add("location", w.commit_log)
      .Add("consumeQueueLocation", w.consume_queue)
      .Add("indexLocation", index);
}

void PrintMessage(const client::MessageExt& m, const Where& w, bool json, FILE* out) {
  if (json) {
    fmt::print(out, "{}\n", WhereJson(m, w).str());
    return;
  }
  fmt::print(out,
             "topic:          {}\nqueue:          {} offset {}\nmsgId:          {}\n"
             "offsetMsgId:    {}\ntags:           {}\nkeys:           {}\n"
             "born:           {} from {}\nstored:         {} on {}\nreconsumeTimes: {}\n"
             "lives in:       {}\nqueue unit:     {}\n",
             m.topic, m.queue_id, m.queue_offset, m.msg_id, m.offset_msg_id, m.Tags(), m.Keys(),
             FormatTime(m.born_timestamp), m.born_host, FormatTime(m.store_timestamp), m.store_host,
             m.reconsume_times, w.commit_log, w.consume_queue);
  for (const auto& i : w.index) fmt::print(out, "index:          {}\n", i);
  fmt::print(out, "body:           {}\n", m.body);
}

int MessageGet(CliState& s, client::AdminClient& admin, FILE* out, FILE* err) {
  if (!s.topic.empty()) {
    // A client message id (UNIQ_KEY): the index's unique-key query on the topic's brokers.
    auto route = admin.GetRoute(s.topic);
    if (!route.ok()) return Fail(err, route.status());
    for (const auto& b : (*route)->broker_datas) {
      auto found = admin.Broker(b.MasterAddr())
                       .QueryMessage(s.topic, s.msg_id, 1, 0, INT64_MAX, /*unique_key=*/true);
      if (found.ok() && !found->empty()) {
        client::MessageExt m = found->front();
        m.broker_name = b.broker_name;
        PrintMessage(m, WhereOf(m, GeometryOf(s, admin, b.MasterAddr()), {s.msg_id}), s.g.json(),
                     out);
        return kExitOk;
      }
    }
    return Fail(err, NotFound("no message of " + s.topic + " has the id " + s.msg_id),
                "an offset message id (offsetMsgId) needs no --topic");
  }
  auto id = format::DecodeOffsetMsgId(s.msg_id);
  if (!id.ok()) {
    return Fail(err,
                InvalidArgument("'" + s.msg_id + "' is not an offset message id (" +
                                id.status().message() + ")"),
                "for a client message id (msgId), add --topic TOPIC");
  }
  const std::string addr = id->host.ToString();
  auto m = admin.Broker(addr).ViewMessage(id->physical_offset);
  if (!m.ok()) {
    return Fail(err, m.status(),
                "the id names broker " + addr + " and commit-log offset " +
                    std::to_string(id->physical_offset) +
                    "; for a client message id (msgId) add --topic TOPIC");
  }
  // The broker's name, when the name server has the id's address as a master.
  if (auto ci = admin.GetClusterInfo(); ci.ok()) {
    for (const auto& [name, b] : ci->brokers) {
      if (b.MasterAddr() == addr) m->broker_name = name;
    }
  }
  // Where each KEYS token sits in the index: what `message find --key` looks up.
  const std::string keys_property = m->Keys();
  std::vector<std::string> keys;
  for (std::string_view k : format::SplitKeys(keys_property)) keys.emplace_back(k);
  PrintMessage(*m, WhereOf(*m, GeometryOf(s, admin, addr), keys), s.g.json(), out);
  return kExitOk;
}

int MessageFind(CliState& s, client::AdminClient& admin, FILE* out, FILE* err) {
  auto route = admin.GetRoute(s.topic);
  if (!route.ok()) return Fail(err, route.status());
  std::vector<client::MessageExt> all;
  std::map<std::string, Geometry> geometries;  // broker name -> its store's geometry
  for (const auto& b : (*route)->broker_datas) {
    auto found = admin.Broker(b.MasterAddr())
                     .QueryMessage(s.topic, s.key, s.max_num, s.begin_ms, s.end_ms, false);
    if (!found.ok()) {
      if (found.status().code() == StatusCode::kNotFound) continue;
      return Fail(err, found.status());
    }
    for (auto& m : *found) {
      if (m.topic != s.topic) continue;
      m.broker_name = b.broker_name;
      if (!geometries.contains(b.broker_name)) {
        geometries[b.broker_name] = GeometryOf(s, admin, b.MasterAddr());
      }
      all.push_back(std::move(m));
    }
  }
  if (all.empty()) {
    return Fail(err, NotFound("no message of " + s.topic + " has the key " + s.key));
  }
  if (s.g.json()) {
    Json arr = Json::Array();
    for (const auto& m : all) {
      arr.Push(WhereJson(m, WhereOf(m, geometries[m.broker_name], {s.key})));
    }
    fmt::print(out, "{}\n", Json::Object().Add("key", s.key).Add("messages", arr).str());
  } else {
    for (const auto& m : all) {
      PrintMessage(m, WhereOf(m, geometries[m.broker_name], {s.key}), false, out);
      fmt::print(out, "\n");
    }
  }
  return kExitOk;
}

// A percentile of sorted values (nearest rank).
int64_t Pct(const std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size()));
  return v[std::min(i, v.size() - 1)];
}

void Progress(bool on, int64_t done, int64_t total, double secs) {
  if (!on) return;
  const int width = 30;
  const int filled = total > 0 ? static_cast<int>(width * done / total) : 0;
  fmt::print(stderr, "\r[{}{}] {}/{} {:.0f} msg/s ", std::string(filled, '#'),
             std::string(width - filled, ' '), done, total,
             secs > 0 ? static_cast<double>(done) / secs : 0.0);
  std::fflush(stderr);
}

void PrintBench(const CliState& s, FILE* out, const char* what, int64_t n, int64_t errors,
                double secs, std::vector<int64_t> lat_us, int64_t bytes) {
  std::sort(lat_us.begin(), lat_us.end());
  const double rate = secs > 0 ? static_cast<double>(n) / secs : 0;
  const double mbps = secs > 0 ? static_cast<double>(bytes) / secs / 1e6 : 0;
  if (s.g.json()) {
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("bench", what)
                   .Add("topic", s.topic)
                   .Add("messages", n)
                   .Add("errors", errors)
                   .Add("seconds", secs)
                   .Add("msgsPerSec", rate)
                   .Add("mbPerSec", mbps)
                   .Add("latencyUs", Json::Object()
                                         .Add("p50", Pct(lat_us, 50))
                                         .Add("p90", Pct(lat_us, 90))
                                         .Add("p99", Pct(lat_us, 99))
                                         .Add("p999", Pct(lat_us, 99.9))
                                         .Add("max", lat_us.empty() ? 0 : lat_us.back()))
                   .str());
  } else {
    fmt::print(out,
               "{}: {} messages ({} errors) in {:.2f} s = {:.0f} msg/s, {:.2f} MB/s\n"
               "latency us: p50 {}  p90 {}  p99 {}  p99.9 {}  max {}\n",
               what, n, errors, secs, rate, mbps, Pct(lat_us, 50), Pct(lat_us, 90), Pct(lat_us, 99),
               Pct(lat_us, 99.9), lat_us.empty() ? 0 : lat_us.back());
  }
}

int BenchProduce(CliState& s, FILE* out, FILE* err) {
  client::ProducerOptions po;
  po.group = "rocketstore_bench_producer";
  po.namesrv_addrs = s.g.NamesrvAddrs();
  po.send_timeout_ms = s.g.timeout_ms;
  client::Producer p(po);
  if (Status st = p.Start(); !st.ok()) return Fail(err, st);
  const std::string body(static_cast<size_t>(s.bench_size), 'x');
  std::mutex mu;
  std::condition_variable cv;
  int64_t inflight = 0, done = 0, errors = 0;
  Status first_error;
  std::vector<int64_t> lat;
  lat.reserve(static_cast<size_t>(s.bench_count));
  const bool progress = !s.no_progress && isatty(2);
  const auto t0 = std::chrono::steady_clock::now();
  auto secs = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int64_t i = 0; i < s.bench_count; ++i) {
    {
      std::unique_lock<std::mutex> l(mu);
      cv.wait(l, [&] { return inflight < s.bench_inflight; });
      ++inflight;
    }
    const auto start = std::chrono::steady_clock::now();
    Status st = p.SendAsync(
        client::Message{.topic = s.topic, .body = body}, [&, start](Result<client::SendResult> r) {
          const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
          std::lock_guard<std::mutex> l(mu);
          --inflight;
          ++done;
          if (r.ok()) {
            lat.push_back(us);
          } else {
            ++errors;
            if (first_error.ok()) first_error = r.status();
          }
          cv.notify_all();
        });
    if (!st.ok()) return Fail(err, st);
    if (progress && i % 1000 == 0) Progress(true, i, s.bench_count, secs());
  }
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return inflight == 0; });
  }
  const double total = secs();
  Progress(progress, s.bench_count, s.bench_count, total);
  if (progress) fmt::print(stderr, "\n");
  PrintBench(s, out, "produce", done - errors, errors, total, lat, (done - errors) * s.bench_size);
  if (!first_error.ok()) return Fail(err, first_error);
  return kExitOk;
}

int BenchConsume(CliState& s, FILE* out, FILE* err) {
  client::Transport t;
  client::RouteCache routes(t, client::RouteCacheOptions{s.g.NamesrvAddrs(), 0, s.g.timeout_ms});
  auto route = routes.Get(s.topic);
  if (!route.ok()) return Fail(err, route.status());
  client::PullConsumerOptions co;
  co.group = kToolsConsumerGroup;  // reads raw: commits nothing
  co.namesrv_addrs = s.g.NamesrvAddrs();
  co.consume_from = client::ConsumeFrom::kFirst;
  co.long_poll_ms = 1000;
  co.pull_batch_size = 32;
  client::PullConsumer c(co);
  auto queues = (*route)->ReadableQueues(s.topic);
  if (Status st = c.Assign(queues); !st.ok()) return Fail(err, st);
  if (Status st = c.Start(); !st.ok()) return Fail(err, st);
  for (const auto& q : queues) {
    if (Status st = c.SeekToBegin(q); !st.ok()) return Fail(err, st);
  }
  const bool progress = !s.no_progress && isatty(2);
  std::vector<int64_t> lat;
  int64_t n = 0, bytes = 0, idle = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (n < s.bench_count && idle < 3) {
    auto batch = c.Poll(1000);
    if (!batch.ok()) return Fail(err, batch.status());
    if (batch->empty()) {
      ++idle;
      continue;
    }
    idle = 0;
    const int64_t now = Clock::Real().NowMillis();
    for (const auto& m : *batch) {
      lat.push_back((now - m.born_timestamp) * 1000);
      bytes += static_cast<int64_t>(m.body.size());
      ++n;
    }
    Progress(progress, n, s.bench_count,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (progress) fmt::print(stderr, "\n");
  c.Shutdown();
  PrintBench(s, out, "consume", n, 0, secs, lat, bytes);
  if (n < s.bench_count) {
    fmt::print(err, "note: only {} of {} messages were in the topic\n", n, s.bench_count);
  }
  return kExitOk;
}

}  // namespace

int RunMessage(CliState& s, FILE* out, FILE* err) {
  client::AdminClient admin(client::AdminOptions{s.g.NamesrvAddrs(), s.g.timeout_ms});
  return s.message_get->parsed() ? MessageGet(s, admin, out, err) : MessageFind(s, admin, out, err);
}

// `cluster status`: the brokers of GET_BROKER_CLUSTER_INFO (106), each with its
// GET_BROKER_RUNTIME_INFO (28): version, put/get rates, today's totals, disk use, how far
// flushing and dispatching are behind the commit log, and whether it takes writes — judged
// for every broker alike from its 28, its GET_BROKER_CONFIG (26) and the name server's
// route of its own topic (105), by AssessBrokerHealth.
int RunCluster(CliState& s, FILE* out, FILE* err) {
  client::AdminClient admin(client::AdminOptions{s.g.NamesrvAddrs(), s.g.timeout_ms});
  auto ci = admin.GetClusterInfo();
  if (!ci.ok()) return Fail(err, ci.status());
  Json clusters = Json::Array();
  Table t({"CLUSTER", "BROKER", "ID", "ADDR", "VERSION", "PUT TPS", "GET TPS", "PUT TODAY",
           "GET TODAY", "DISK", "FLUSH LAG", "DISPATCH LAG", "HEALTH"});
  std::vector<std::string> notes;
  int unreachable = 0;
  for (const auto& [cluster, names] : ci->clusters) {
    Json brokers = Json::Array();
    for (const auto& name : names) {
      auto b = ci->brokers.find(name);
      if (b == ci->brokers.end()) continue;
      for (const auto& [id, addr] : b->second.addrs) {
        Result<StringMap> rt = Status::OK();
        if (auto r = admin.GetBrokerRuntimeInfo(addr); r.ok()) {
          rt = std::move(r->table);
        } else {
          rt = r.status();
          ++unreachable;
          fmt::print(err, "warning: broker {} ({}): {}\n", name, addr, r.status().message());
        }
        Result<StringMap> config =
            rt.ok() ? admin.GetBrokerConfig(addr) : Result<StringMap>(rt.status());
        // The name server's perm of the broker's own topic (routed 7 while
        // brokerTopicEnable): without the write bit, its writes were wiped (205).
        int route_perm = -1;
        if (config.ok() && client::OwnTopicRouteApplies(id, *config)) {
          if (auto route = admin.GetRoute(name); route.ok()) {
            route_perm = client::OwnTopicRoutePerm(**route, name);
          }
        }
        const client::BrokerHealth health = client::AssessBrokerHealth(id, rt, config, route_perm);
        const StringMap kv = rt.ok() ? *rt : StringMap{};
        auto get = [&](const char* k) {
          auto it = kv.find(k);
          return it == kv.end() ? std::string("-") : it->second;
        };
        // "putTps" is "10s 60s 600s" rates; the first is the current one.
        auto first = [&](const char* k) {
          std::string v = get(k);
          return v.substr(0, v.find(' '));
        };
        // A rate for the table: one decimal ("0.9996667777407531" reads as "1.0").
        auto rate = [&](const char* k) {
          const std::string v = first(k);
          char* end = nullptr;
          const double d = std::strtod(v.c_str(), &end);
          return end != v.c_str() && *end == '\0' ? fmt::format("{:.1f}", d) : v;
        };
        Json bj = Json::Object()
                      .Add("name", name)
                      .Add("id", id)
                      .Add("addr", addr)
                      .Add("reachable", rt.ok())
                      .Add("version", get("brokerVersionDesc"))
                      .Add("putTps", first("putTps"))
                      .Add("getTps", first("getTransferedTps"))
                      .Add("putToday", get("msgPutTotalTodayNow"))
                      .Add("getToday", get("msgGetTotalTodayNow"))
                      .Add("commitLogDiskRatio", get("commitLogDiskRatio"))
                      .Add("flushBehindBytes", get("remainHowManyDataToFlush"))
                      .Add("dispatchBehindBytes", get("dispatchBehindBytes"));
        Json runtime = Json::Object();
        for (const auto& [k, v] : kv) runtime.Add(k, v);
        bj.Add("runtime", runtime);
        bj.Add("health", health.state)
            .Add("writable", health.writable)
            .Add("healthReason", health.reason);
        brokers.Push(bj);
        t.Row({cluster, name, std::to_string(id), addr, get("brokerVersionDesc"), rate("putTps"),
               rate("getTransferedTps"), get("msgPutTotalTodayNow"), get("msgGetTotalTodayNow"),
               get("commitLogDiskRatio"), get("remainHowManyDataToFlush"),
               get("dispatchBehindBytes"), health.state});
        if (!health.reason.empty()) {
          notes.push_back(fmt::format("{} ({}, id {}): {}", name, addr, id, health.reason));
        }
      }
    }
    clusters.Push(Json::Object().Add("name", cluster).Add("brokers", brokers));
  }
  if (s.g.json()) {
    fmt::print(out, "{}\n", Json::Object().Add("clusters", clusters).str());
  } else {
    t.Print(out);
    for (const auto& n : notes) fmt::print(out, "  {}\n", n);
  }
  return unreachable == 0 ? kExitOk : kExitError;
}

int RunBench(CliState& s, FILE* out, FILE* err) {
  return s.bench_produce->parsed() ? BenchProduce(s, out, err) : BenchConsume(s, out, err);
}

}  // namespace rocketstore::tools::cli
