// `rocketstore produce` and `rocketstore consume` (docs/cli.md).
#include <fmt/format.h>

#include <csignal>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/clock.h"
#include "client/admin_client.h"
#include "client/producer.h"
#include "client/pull_consumer.h"
#include "store/format/properties.h"
#include "tools/cli/cli_state.h"

namespace rocketstore::tools::cli {

namespace {
volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

Json ResultJson(const client::SendResult& r) {
  return Json::Object()
      .Add("status", std::string(client::SendStatusName(r.status)))
      .Add("msgId", r.msg_id)
      .Add("offsetMsgId", r.offset_msg_id)
      .Add("broker", r.queue.broker_name)
      .Add("queueId", r.queue.queue_id)
      .Add("queueOffset", r.queue_offset);
}

// What to do after a failed send: create a missing topic, look at a refusing one.
std::string SendHint(const Status& st, const std::string& topic) {
  if (st.code() == StatusCode::kNotFound) {
    return "create the topic first: rocketstore topic create " + topic;
  }
  if (st.code() == StatusCode::kFailedPrecondition) {
    return "the topic's brokers and permissions: rocketstore topic describe " + topic;
  }
  return "";
}

// --from-beginning / --from-latest / --from-time with --group choose where a NEW group
// starts (consumeFromWhere): a group with offsets on the topic resumes from them, so the
// flag would do nothing. Such a call is refused (kInvalidArgument) pointing at `group
// seek`. The offsets are read with GET_ALL_CONSUMER_OFFSET (43), whose "topic@group" keys
// say it on any broker (QUERY_CONSUMER_OFFSET of a 4.9.8 broker answers 0 for "none").
Status CheckNewGroupStart(const CliState& s) {
  const char* flag = !s.from_time.empty() ? "--from-time"
                     : s.from_latest      ? "--from-latest"
                     : s.from_beginning   ? "--from-beginning"
                                          : nullptr;
  if (flag == nullptr) return Status::OK();
  client::AdminClient admin(client::AdminOptions{s.g.NamesrvAddrs(), s.g.timeout_ms});
  RS_ASSIGN_OR_RETURN(auto route, admin.GetRoute(s.topic));
  for (const auto& b : route->broker_datas) {
    if (b.MasterAddr().empty()) continue;
    RS_ASSIGN_OR_RETURN(auto offsets, admin.GetAllConsumerOffsets(b.MasterAddr()));
    if (offsets.offsets.count(s.topic + "@" + s.group) == 0) continue;
    const char* to = !s.from_time.empty() ? "--to-time"
                     : s.from_latest      ? "--to-latest"
                                          : "--to-earliest";
    return InvalidArgument("group " + s.group + " already has offsets on " + s.topic + " (on " +
                           b.broker_name + "): " + flag +
                           " only chooses where a new group starts; move the group with "
                           "`rocketstore group seek " +
                           s.group + " --topic " + s.topic + " " + to + "`");
  }
  return Status::OK();
}
}  // namespace

Json MessageJson(const client::MessageExt& m) {
  Json props = Json::Object();
  for (const auto& [k, v] : format::ParseProperties(m.properties)) props.Add(k, v);
  return Json::Object()
      .Add("topic", m.topic)
      .Add("broker", m.broker_name)
      .Add("queueId", m.queue_id)
      .Add("queueOffset", m.queue_offset)
      .Add("msgId", m.msg_id)
      .Add("offsetMsgId", m.offset_msg_id)
      .Add("commitLogOffset", m.commit_log_offset)
      .Add("tags", m.Tags())
      .Add("keys", m.Keys())
      .Add("bornTimestamp", m.born_timestamp)
      .Add("storeTimestamp", m.store_timestamp)
      .Add("bornHost", m.born_host)
      .Add("storeHost", m.store_host)
      .Add("reconsumeTimes", m.reconsume_times)
      .Add("properties", props)
      .Add("body", m.body);
}

int RunProduce(CliState& s, FILE* in, FILE* out, FILE* err) {
  client::Message base;
  base.topic = s.topic;
  base.tags = s.tag;
  base.keys = s.keys;
  base.delay_level = s.delay_level;
  base.delay_sec = s.delay_sec;
  if (!s.deliver_at.empty() &&
      !ParseTime(s.deliver_at, Clock::Real().NowMillis(), &base.deliver_time_ms)) {
    return Fail(err, InvalidArgument("--deliver-at " + s.deliver_at +
                                     ": use epoch ms or 'YYYY-MM-DD HH:MM[:SS]' (UTC)"));
  }
  for (const auto& p : s.props) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Fail(err, InvalidArgument("--property " + p + ": write NAME=VALUE"));
    }
    base.properties[p.substr(0, eq)] = p.substr(eq + 1);
  }
  std::vector<client::Message> msgs;
  if (!s.files.empty()) {
    for (const auto& f : s.files) {
      std::ifstream file(f, std::ios::binary);
      std::string body((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      if (!file.good() && !file.eof()) return Fail(err, Unavailable("cannot read " + f));
      client::Message m = base;
      m.body = std::move(body);
      msgs.push_back(std::move(m));
    }
  } else {
    char* line = nullptr;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) >= 0) {
      std::string text(line, static_cast<size_t>(n));
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      if (text.empty()) continue;
      client::Message m = base;
      m.body = std::move(text);
      msgs.push_back(std::move(m));
    }
    free(line);
  }
  if (msgs.empty()) {
    return Fail(err, InvalidArgument("nothing to send: pipe lines into stdin or pass --file"));
  }
  client::ProducerOptions po;
  po.group = "rocketstore_cli_producer";
  po.namesrv_addrs = s.g.NamesrvAddrs();
  po.send_timeout_ms = s.g.timeout_ms;
  client::Producer producer(po);
  if (Status st = producer.Start(); !st.ok()) return Fail(err, st);
  std::vector<client::SendResult> results;
  if (s.batch) {
    auto r = producer.SendBatch(msgs);
    if (!r.ok()) return Fail(err, r.status(), SendHint(r.status(), s.topic));
    results.push_back(*r);
  } else {
    for (const auto& m : msgs) {
      auto r = producer.Send(m);
      if (!r.ok()) {
        Fail(err, r.status(), SendHint(r.status(), s.topic));
        if (!results.empty()) fmt::print(err, "{} message(s) were sent before\n", results.size());
        return ExitCodeFor(r.status());
      }
      results.push_back(*r);
    }
  }
  if (s.g.json()) {
    Json arr = Json::Array();
    for (const auto& r : results) arr.Push(ResultJson(r));
    fmt::print(out, "{}\n",
               Json::Object()
                   .Add("topic", s.topic)
                   .Add("sent", static_cast<int64_t>(msgs.size()))
                   .Add("results", arr)
                   .str());
  } else {
    Table t({"STATUS", "BROKER", "QUEUE", "OFFSET", "MSG ID", "OFFSET MSG ID"});
    for (const auto& r : results) {
      t.Row({std::string(client::SendStatusName(r.status)), r.queue.broker_name,
             std::to_string(r.queue.queue_id), std::to_string(r.queue_offset), r.msg_id,
             r.offset_msg_id});
    }
    t.Print(out);
  }
  return kExitOk;
}

int RunConsume(CliState& s, FILE* out, FILE* err) {
  const bool raw = s.group.empty();
  client::PullConsumerOptions co;
  co.group = raw ? kToolsConsumerGroup : s.group;
  co.namesrv_addrs = s.g.NamesrvAddrs();
  co.request_timeout_ms = s.g.timeout_ms;
  co.long_poll_ms = std::min<int64_t>(s.idle_timeout_ms > 0 ? s.idle_timeout_ms : 2000, 15000);
  co.consume_from = s.from_latest ? client::ConsumeFrom::kLast : client::ConsumeFrom::kFirst;
  int64_t from_ts = 0;
  if (!s.from_time.empty()) {
    if (!ParseTime(s.from_time, Clock::Real().NowMillis(), &from_ts)) {
      return Fail(err, InvalidArgument("--from-time " + s.from_time +
                                       ": use epoch ms, 'YYYY-MM-DD HH:MM[:SS]' (UTC) or -1h"));
    }
    co.consume_from = client::ConsumeFrom::kTimestamp;
    co.consume_timestamp_ms = from_ts;
  }
  if (!raw && s.from_offset >= 0) {
    return Fail(err, InvalidArgument("--from-offset is for raw reads (without --group); to move "
                                     "a group use `rocketstore group seek`"));
  }
  if (!raw && s.queue_id >= 0) {
    return Fail(err, InvalidArgument("--queue is for raw reads (without --group): a member of " +
                                     s.group + " reads the queues the group's rebalance gives it"));
  }
  if (!raw) {
    if (Status st = CheckNewGroupStart(s); !st.ok()) {
      return Fail(
          err, st,
          st.code() == StatusCode::kNotFound ? "list topics with `rocketstore topic list`" : "");
    }
  }
  client::PullConsumer consumer(co);
  std::vector<client::MessageQueue> assigned;
  if (raw) {
    client::Transport t;
    client::RouteCache routes(t, client::RouteCacheOptions{co.namesrv_addrs, 0, s.g.timeout_ms});
    auto route = routes.Get(s.topic);
    if (!route.ok()) return Fail(err, route.status(), "list topics with `rocketstore topic list`");
    for (const auto& q : (*route)->ReadableQueues(s.topic)) {
      if (s.queue_id < 0 || q.queue_id == s.queue_id) assigned.push_back(q);
    }
    if (assigned.empty()) {
      return Fail(err,
                  NotFound("topic " + s.topic + " has no queue " + std::to_string(s.queue_id)));
    }
    if (Status st = consumer.Assign(assigned, s.expression); !st.ok()) return Fail(err, st);
  } else {
    if (Status st = consumer.Subscribe(s.topic, s.expression); !st.ok()) return Fail(err, st);
  }
  if (Status st = consumer.Start(); !st.ok()) {
    return Fail(
        err, st,
        st.code() == StatusCode::kNotFound ? "list topics with `rocketstore topic list`" : "");
  }
  if (raw) {
    for (const auto& q : assigned) {
      Status st = s.from_offset >= 0     ? consumer.Seek(q, s.from_offset)
                  : !s.from_time.empty() ? consumer.SeekToTime(q, from_ts)
                  : s.from_latest        ? consumer.SeekToEnd(q)
                                         : consumer.SeekToBegin(q);
      if (!st.ok()) return Fail(err, st);
    }
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  int64_t n = 0;
  int64_t idle_since = Clock::Real().MonotonicNanos() / 1000000;
  Table t({"TOPIC", "QUEUE", "OFFSET", "MSG ID", "TAGS", "KEYS", "BODY"});
  while (!g_stop && (s.count < 0 || n < s.count)) {
    auto batch = consumer.Poll(500, s.count < 0 ? 256 : static_cast<size_t>(s.count - n));
    if (!batch.ok()) return Fail(err, batch.status());
    const int64_t now = Clock::Real().MonotonicNanos() / 1000000;
    if (batch->empty()) {
      if (!s.follow && now - idle_since >= s.idle_timeout_ms) break;
      continue;
    }
    idle_since = now;
    for (const auto& m : *batch) {
      ++n;
      if (s.g.json()) {
        fmt::print(out, "{}\n", MessageJson(m).str());  // JSON Lines, one per message
      } else if (s.follow) {
        fmt::print(out, "{} {} {} {} tags={} keys={} {}\n", m.topic, m.queue_id, m.queue_offset,
                   m.msg_id, m.Tags(), m.Keys(), m.body);
      } else {
        t.Row({m.topic, std::to_string(m.queue_id), std::to_string(m.queue_offset), m.msg_id,
               m.Tags(), m.Keys(), m.body});
      }
    }
    std::fflush(out);
  }
  if (!s.g.json() && !s.follow) t.Print(out);
  Status commit = raw ? Status::OK() : consumer.Commit();
  consumer.Shutdown();
  if (!commit.ok()) return Fail(err, commit);
  if (!s.g.json()) fmt::print(err, "{} message(s)\n", n);
  return kExitOk;
}

}  // namespace rocketstore::tools::cli
