// The Topics screen's endpoints, and the sampler's readings.
#include <algorithm>
#include <string>
#include <vector>

#include "broker/system_topics.h"
#include "console/api_util.h"
#include "console/console_api.h"
#include "console/group_stats.h"

namespace rocketstore::console {

using internal::ErrorReply;
using internal::JsonReply;
using internal::JsonWriter;
using internal::Str;

namespace {

// A topic the console never creates or deletes: RocketMQ's system topics and the ones the
// broker names after itself (the reply topic, the cluster and broker topics) — what
// TopicService refuses, answered 403 here instead of its SYSTEM_ERROR.
bool IsProtectedTopic(broker::Broker& broker, const std::string& name) {
  if (broker::IsSystemTopic(name) || name == broker::ReplyTopicOf(broker.options().cluster_name)) {
    return true;
  }
  const broker::TopicService* service = broker.topic_service();
  if (!service) return false;
  const std::vector<std::string> system = service->SystemTopics();
  return std::binary_search(system.begin(), system.end(), name);
}

int HttpStatusOf(const broker::Verdict& v) {
  using broker::Outcome;
  switch (v.outcome) {
    case Outcome::kOk:
      return 200;
    case Outcome::kInvalidArgument:
    case Outcome::kMessageIllegal:
      return 400;
    case Outcome::kNoPermission:
      return 403;
    case Outcome::kTopicNotExist:
    case Outcome::kQueryNotFound:
    case Outcome::kSubscriptionGroupNotExist:
      return 404;
    case Outcome::kServiceNotAvailable:
    case Outcome::kSystemBusy:
      return 503;
    default:
      return 500;
  }
}

std::string PermString(int32_t perm) {
  std::string s;
  s += (perm & broker::kPermRead) ? 'R' : '-';
  s += (perm & broker::kPermWrite) ? 'W' : '-';
  return s;
}

}  // namespace

RateSampler::Source ConsoleReadings(broker::Broker& broker) {
  return [&broker] {
    std::map<std::string, Reading> out;
    // Puts and gets as the broker counts them (broker/stats: SendService and PullService),
    // the numbers GET_BROKER_RUNTIME_INFO and the metrics exporter report too.
    const broker::StatsSnapshot snap = broker.stats().Collect();
    std::map<std::string, int64_t> put, get;
    uint64_t put_bytes = 0;
    for (const auto& [key, t] : snap.puts) {
      put[key.first] += static_cast<int64_t>(t.messages);
      put_bytes += t.bytes;
    }
    for (const auto& [key, t] : snap.gets) get[key.first] += static_cast<int64_t>(t.messages);
    for (const broker::TopicConfig& t : broker.topics().List()) {
      out["put:" + t.name] = {put.count(t.name) ? put[t.name] : 0, Reading::Kind::kCounter};
      out["get:" + t.name] = {get.count(t.name) ? get[t.name] : 0, Reading::Kind::kCounter};
    }
    for (const std::string& g : KnownGroups(broker)) {
      out["lag:" + g] = {ComputeGroupStats(broker, g).diff_total, Reading::Kind::kGauge};
    }
    out["cluster:put"] = {static_cast<int64_t>(snap.TotalPutMessages()), Reading::Kind::kCounter};
    out["cluster:get"] = {static_cast<int64_t>(snap.TotalGetMessages()), Reading::Kind::kCounter};
    out["cluster:putBytes"] = {static_cast<int64_t>(put_bytes), Reading::Kind::kCounter};
    return out;
  };
}

HttpReply ConsoleApi::Topics() {
  MessageStore& store = broker_.store();
  auto list = broker_.topics().List();
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("topics");
    w.StartArray();
    for (const broker::TopicConfig& t : list) {
      w.StartObject();
      w.Key("topic"), Str(w, t.name);
      w.Key("readQueueNums"), w.Int(t.read_queue_nums);
      w.Key("writeQueueNums"), w.Int(t.write_queue_nums);
      w.Key("perm"), Str(w, PermString(t.perm));
      w.Key("system"), w.Bool(broker::IsSystemTopic(t.name));
      w.Key("kind"), Str(w, t.name.starts_with(broker::kRetryGroupTopicPrefix) ? "retry"
                            : t.name.starts_with(broker::kDlqGroupTopicPrefix) ? "dlq"
                                                                               : "normal");
      int64_t messages = 0;
      const int32_t queues = std::max(t.read_queue_nums, t.write_queue_nums);
      for (int32_t q = 0; q < queues; ++q) {
        messages += store.GetMaxOffsetInQueue(t.name, q) - store.GetMinOffsetInQueue(t.name, q);
      }
      w.Key("messages"), w.Int64(messages);
      w.Key("putTps"), w.Double(rates_.Latest("put:" + t.name));
      w.EndObject();
    }
    w.EndArray();
  });
}

HttpReply ConsoleApi::TopicDetail(const HttpRequest& r) {
  auto name = internal::Required(r, "topic", "topic name");
  if (!name.ok()) return internal::StatusReply(name.status());
  auto t = broker_.topics().Find(*name);
  if (!t) return ErrorReply(404, "no topic " + name->substr(0, 200) + " on this broker");
  MessageStore& store = broker_.store();
  auto consumers = broker_.consumers().GroupsConsuming(*name);
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("topic"), Str(w, t->name);
    w.Key("readQueueNums"), w.Int(t->read_queue_nums);
    w.Key("writeQueueNums"), w.Int(t->write_queue_nums);
    w.Key("perm"), Str(w, PermString(t->perm));
    w.Key("order"), w.Bool(t->order);
    w.Key("queues");
    w.StartArray();
    const int32_t queues = std::max(t->read_queue_nums, t->write_queue_nums);
    for (int32_t q = 0; q < queues; ++q) {
      w.StartObject();
      w.Key("queueId"), w.Int(q);
      w.Key("minOffset"), w.Int64(store.GetMinOffsetInQueue(t->name, q).value());
      w.Key("maxOffset"), w.Int64(store.GetMaxOffsetInQueue(t->name, q).value());
      auto last = store.GetMaxOffsetInQueue(t->name, q).value() - 1;
      auto ts = last >= 0 ? store.GetMessageStoreTime(t->name, q, QueueOffset(last))
                          : Result<int64_t>(Status(StatusCode::kNotFound, "empty"));
      w.Key("lastStoreTime"), w.Int64(ts.ok() ? *ts : 0);
      w.EndObject();
    }
    w.EndArray();
    w.Key("consumerGroups");
    w.StartArray();
    for (const auto& g : consumers) Str(w, g);
    w.EndArray();
    w.Key("putSeries"), internal::WriteSeries(w, rates_.Series("put:" + t->name));
    w.Key("getSeries"), internal::WriteSeries(w, rates_.Series("get:" + t->name));
  });
}

HttpReply ConsoleApi::CreateTopic(const HttpRequest& r) {
  auto name = internal::Required(r, "topic", "topic name");
  if (!name.ok()) return internal::StatusReply(name.status());
  if (!broker::IsValidTopicName(*name)) {
    return ErrorReply(400, "topic name \"" + name->substr(0, 200) +
                               "\" is invalid: use 1..127 characters of A-Z a-z 0-9 _ - % |");
  }
  auto read = internal::IntParam(r, "readQueueNums", 4, 1, broker::TopicService::kMaxQueueNums);
  if (!read.ok()) return internal::StatusReply(read.status());
  auto write =
      internal::IntParam(r, "writeQueueNums", *read, 1, broker::TopicService::kMaxQueueNums);
  if (!write.ok()) return internal::StatusReply(write.status());
  const std::string perm = internal::Optional(r, "perm", "RW");
  if (perm != "RW" && perm != "R" && perm != "W") {
    return ErrorReply(400,
                      "parameter 'perm' must be RW, R or W (got \"" + perm.substr(0, 20) + "\")");
  }
  if (IsProtectedTopic(broker_, *name)) {
    return ErrorReply(403, "topic " + *name + " is a system topic: the console does not change it");
  }
  broker::TopicService* service = broker_.topic_service();
  if (!service) return ErrorReply(503, "the broker is not started yet: try again");
  broker::TopicConfig config;
  if (auto existing = broker_.topics().Find(*name)) config = *existing;  // keep what we do not set
  config.name = *name;
  config.read_queue_nums = static_cast<int32_t>(*read);
  config.write_queue_nums = static_cast<int32_t>(*write);
  config.perm = (perm.find('R') != std::string::npos ? broker::kPermRead : 0) |
                (perm.find('W') != std::string::npos ? broker::kPermWrite : 0);
  broker::Verdict v = service->CreateOrUpdate(config);
  if (!v.ok()) return ErrorReply(HttpStatusOf(v), v.remark);
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("topic"), Str(w, config.name);
    w.Key("readQueueNums"), w.Int(config.read_queue_nums);
    w.Key("writeQueueNums"), w.Int(config.write_queue_nums);
    w.Key("perm"), Str(w, PermString(config.perm));
    // Not waited for (see DeleteTopic); the page's route check follows the round.
    w.Key("routes"), Str(w, "registration requested");
  });
}

HttpReply ConsoleApi::DeleteTopic(const HttpRequest& r) {
  auto name = internal::Required(r, "topic", "topic name");
  if (!name.ok()) return internal::StatusReply(name.status());
  if (!broker::IsValidTopicName(*name)) {
    return ErrorReply(400, "topic name \"" + name->substr(0, 200) +
                               "\" is invalid: use 1..127 characters of A-Z a-z 0-9 _ - % |");
  }
  if (IsProtectedTopic(broker_, *name)) {
    return ErrorReply(403, "topic " + *name + " is a system topic: it cannot be deleted");
  }
  broker::TopicService* service = broker_.topic_service();
  if (!service) return ErrorReply(503, "the broker is not started yet: try again");
  if (!broker_.topics().Find(*name)) {
    return ErrorReply(404, "no topic " + name->substr(0, 200) + " on this broker: nothing deleted");
  }
  // DELETE_TOPIC_IN_BROKER's (215) path: the config, the consumer offsets on the topic and
  // its consume-queue files go; a registration round is requested. The answer does not
  // wait for that round: the HTTP worker would be held for the name servers' connects
  // and REGISTER_BROKERs (seconds each when one is down), and the console has two.
  broker::Verdict v = service->Delete(*name);
  if (!v.ok()) return ErrorReply(HttpStatusOf(v), v.remark);
  return JsonReply(200, [&](JsonWriter& w) {
    w.Key("deleted"), Str(w, *name);
    w.Key("routes"), Str(w, "registration requested");
    w.Key("note"), Str(w,
                       "topic config, consumer offsets and consume-queue files removed; the name "
                       "servers drop its route at the registration round now requested; its "
                       "messages stay in the commit log until retention removes their segments");
  });
}

}  // namespace rocketstore::console
