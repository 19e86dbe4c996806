#include "client/admin_client.h"

#include <charconv>
#include <utility>

#include "client/fastjson.h"

namespace rocketstore::client {

using protocol::RemotingCommand;

namespace {
std::string Body(const RemotingCommand& r) {
  std::vector<uint8_t> b = r.body.Flatten();
  return std::string(b.begin(), b.end());
}
std::string PropertiesText(const std::map<std::string, std::string>& m) {
  std::string s;
  for (const auto& [k, v] : m) s += k + "=" + v + "\n";
  return s;
}
}  // namespace

std::string AdminCodeName(int32_t code) {
  static const std::map<int32_t, const char*> kNames = {
      {17, "UPDATE_AND_CREATE_TOPIC"},
      {21, "GET_ALL_TOPIC_CONFIG"},
      {25, "UPDATE_BROKER_CONFIG"},
      {26, "GET_BROKER_CONFIG"},
      {28, "GET_BROKER_RUNTIME_INFO"},
      {43, "GET_ALL_CONSUMER_OFFSET"},
      {100, "PUT_KV_CONFIG"},
      {101, "GET_KV_CONFIG"},
      {102, "DELETE_KV_CONFIG"},
      {105, "GET_ROUTEINFO_BY_TOPIC"},
      {106, "GET_BROKER_CLUSTER_INFO"},
      {200, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP"},
      {201, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG"},
      {202, "GET_TOPIC_STATS_INFO"},
      {203, "GET_CONSUMER_CONNECTION_LIST"},
      {204, "GET_PRODUCER_CONNECTION_LIST"},
      {205, "WIPE_WRITE_PERM_OF_BROKER"},
      {206, "GET_ALL_TOPIC_LIST_FROM_NAMESERVER"},
      {207, "DELETE_SUBSCRIPTIONGROUP"},
      {208, "GET_CONSUME_STATS"},
      {215, "DELETE_TOPIC_IN_BROKER"},
      {216, "DELETE_TOPIC_IN_NAMESRV"},
      {219, "GET_KVLIST_BY_NAMESPACE"},
      {222, "INVOKE_BROKER_TO_RESET_OFFSET"},
      {223, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS"},
      {224, "GET_TOPICS_BY_CLUSTER"},
      {300, "QUERY_TOPIC_CONSUME_BY_WHO"},
      {303, "QUERY_CONSUME_TIME_SPAN"},
      {304, "GET_SYSTEM_TOPIC_LIST_FROM_NS"},
      {305, "GET_SYSTEM_TOPIC_LIST_FROM_BROKER"},
      {306, "CLEAN_EXPIRED_CONSUMEQUEUE"},
      {307, "GET_CONSUMER_RUNNING_INFO"},
      {309, "CONSUME_MESSAGE_DIRECTLY"},
      {314, "CLONE_GROUP_OFFSET"},
      {315, "VIEW_BROKER_STATS_DATA"},
      {317, "GET_BROKER_CONSUME_STATS"},
      {318, "UPDATE_NAMESRV_CONFIG"},
      {319, "GET_NAMESRV_CONFIG"},
      {321, "QUERY_CONSUME_QUEUE"},
      {322, "QUERY_DATA_VERSION"},
      {327, "ADD_WRITE_PERM_OF_BROKER"},
      {328, "GET_ALL_PRODUCER_INFO"},
      {329, "DELETE_EXPIRED_COMMITLOG"},
  };
  auto it = kNames.find(code);
  return it == kNames.end() ? "request " + std::to_string(code) : it->second;
}

Status CheckReply(const RemotingCommand& resp, int32_t request_code, const std::string& where) {
  if (resp.code == 0) return Status::OK();
  const std::string what = AdminCodeName(request_code) + " (" + std::to_string(request_code) + ")";
  if (resp.code == protocol::ToInt(protocol::ResponseCode::kRequestCodeNotSupported)) {
    return Status(StatusCode::kFailedPrecondition, where + " does not support " + what + " (" +
                                                       resp.remark.value_or("") +
                                                       "): upgrade that server");
  }
  const bool not_found = resp.code == 17 || resp.code == 22 || resp.code == 26 ||
                         resp.code == 206 /* CONSUMER_NOT_ONLINE */;
  // Only a busy or overloaded server is "try again" (kUnavailable, the CLI's network hint);
  // any other answer is the server refusing this request, for the reason in its remark.
  const bool busy = resp.code == protocol::ToInt(protocol::ResponseCode::kSystemBusy);
  const StatusCode code = not_found ? StatusCode::kNotFound
                          : busy    ? StatusCode::kUnavailable
                                    : StatusCode::kFailedPrecondition;
  const std::string_view name = protocol::ResponseCodeName(resp.code);
  return Status(code,
                what + " at " + where + " answered " +
                    (name.empty() ? "code " + std::to_string(resp.code)
                                  : std::string(name) + " (" + std::to_string(resp.code) + ")") +
                    (resp.remark ? ": " + *resp.remark : std::string()));
}

AdminClient::AdminClient(AdminOptions options)
    : options_(std::move(options)),
      transport_(std::make_unique<Transport>()),
      routes_(std::make_unique<RouteCache>(
          *transport_, RouteCacheOptions{options_.namesrv_addrs, 0, options_.timeout_ms})) {}

Result<RemotingCommand> AdminClient::CallBroker(
    const std::string& addr, int32_t code,
    const std::vector<std::pair<std::string, std::string>>& fields, std::string body) {
  RemotingCommand req = protocol::MakeRequest(code);
  for (const auto& [k, v] : fields) req.SetField(k, v);
  if (!body.empty()) req.body.Assign(std::string_view(body));
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      transport_->Invoke(addr, std::move(req), options_.timeout_ms));
  RS_RETURN_IF_ERROR(CheckReply(resp, code, "broker " + addr));
  return resp;
}

Result<RemotingCommand> AdminClient::CallNamesrv(
    int32_t code, const std::vector<std::pair<std::string, std::string>>& fields,
    std::string body) {
  RemotingCommand req = protocol::MakeRequest(code);
  for (const auto& [k, v] : fields) req.SetField(k, v);
  if (!body.empty()) req.body.Assign(std::string_view(body));
  RS_ASSIGN_OR_RETURN(RemotingCommand resp, routes_->InvokeNamesrv(req));
  RS_RETURN_IF_ERROR(CheckReply(resp, code, "the name server"));
  return resp;
}

Result<ClusterInfo> AdminClient::GetClusterInfo() {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(106, {}));
  return ClusterInfo::Decode(Body(r));
}
Result<std::shared_ptr<const TopicRoute>> AdminClient::GetRoute(const std::string& topic) {
  return routes_->Refresh(topic);
}
Result<TopicList> AdminClient::GetAllTopics() {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(206, {}));
  return TopicList::Decode(Body(r));
}
Result<TopicList> AdminClient::GetTopicsByCluster(const std::string& cluster) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(224, {{"cluster", cluster}}));
  return TopicList::Decode(Body(r));
}
Result<TopicList> AdminClient::GetSystemTopics() {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(304, {}));
  return TopicList::Decode(Body(r));
}
Status AdminClient::DeleteTopicInNamesrv(const std::string& topic) {
  return CallNamesrv(216, {{"topic", topic}}).status();
}
Status AdminClient::PutKvConfig(const std::string& ns, const std::string& key,
                                const std::string& value) {
  return CallNamesrv(100, {{"namespace", ns}, {"key", key}, {"value", value}}).status();
}
Result<std::string> AdminClient::GetKvConfig(const std::string& ns, const std::string& key) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(101, {{"namespace", ns}, {"key", key}}));
  auto v = r.FindField("value");
  if (!v) return NotFound("no value for " + ns + "/" + key);
  return std::string(*v);
}
Status AdminClient::DeleteKvConfig(const std::string& ns, const std::string& key) {
  return CallNamesrv(102, {{"namespace", ns}, {"key", key}}).status();
}
Result<KvTable> AdminClient::GetKvList(const std::string& ns) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(219, {{"namespace", ns}}));
  return KvTable::Decode(Body(r));
}
Result<std::map<std::string, std::string>> AdminClient::GetNamesrvConfig() {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrv(319, {}));
  return ParseJavaProperties(Body(r));
}
Status AdminClient::UpdateNamesrvConfig(const std::map<std::string, std::string>& changes) {
  return CallNamesrv(318, {}, PropertiesText(changes)).status();
}

Result<RemotingCommand> AdminClient::CallNamesrvAt(
    const std::string& namesrv_addr, int32_t code,
    const std::vector<std::pair<std::string, std::string>>& fields, std::string body) {
  RemotingCommand req = protocol::MakeRequest(code);
  for (const auto& [k, v] : fields) req.SetField(k, v);
  if (!body.empty()) req.body.Assign(std::string_view(body));
  RS_ASSIGN_OR_RETURN(RemotingCommand resp,
                      transport_->Invoke(namesrv_addr, std::move(req), options_.timeout_ms));
  RS_RETURN_IF_ERROR(CheckReply(resp, code, "name server " + namesrv_addr));
  return resp;
}

namespace {
Result<int32_t> IntField(const RemotingCommand& r, std::string_view name, int32_t code) {
  auto v = r.FindField(name);
  int32_t n = 0;
  if (!v || std::from_chars(v->data(), v->data() + v->size(), n).ec != std::errc()) {
    return Corruption(AdminCodeName(code) + "'s reply lacks the " + std::string(name) +
                      " header field");
  }
  return n;
}
}  // namespace

Result<int32_t> AdminClient::WipeWritePermOfBroker(const std::string& namesrv_addr,
                                                   const std::string& broker_name) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r,
                      CallNamesrvAt(namesrv_addr, 205, {{"brokerName", broker_name}}));
  return IntField(r, "wipeTopicCount", 205);
}
Result<int32_t> AdminClient::AddWritePermOfBroker(const std::string& namesrv_addr,
                                                  const std::string& broker_name) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r,
                      CallNamesrvAt(namesrv_addr, 327, {{"brokerName", broker_name}}));
  return IntField(r, "addTopicCount", 327);
}
Result<DataVersionAnswer> AdminClient::QueryDataVersion(
    const std::string& namesrv_addr, const std::string& cluster, const std::string& broker_name,
    const std::string& broker_addr, int64_t broker_id, const DataVersionValue& version) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallNamesrvAt(namesrv_addr, 322,
                                                       {{"brokerName", broker_name},
                                                        {"brokerAddr", broker_addr},
                                                        {"clusterName", cluster},
                                                        {"brokerId", std::to_string(broker_id)}},
                                                       version.Encode()));
  DataVersionAnswer out;
  auto changed = r.FindField("changed");
  if (!changed) return Corruption("QUERY_DATA_VERSION's reply lacks the changed header field");
  out.changed = *changed == "true";
  const std::string body = Body(r);
  if (!body.empty()) {
    RS_ASSIGN_OR_RETURN(out.namesrv_version, DataVersionValue::Decode(body));
    out.has_version = true;
  }
  return out;
}

Result<KvTable> AdminClient::GetBrokerRuntimeInfo(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 28, {}));
  return KvTable::Decode(Body(r));
}
Result<std::map<std::string, std::string>> AdminClient::GetBrokerConfig(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 26, {}));
  return ParseJavaProperties(Body(r));
}
Status AdminClient::UpdateBrokerConfig(const std::string& addr,
                                       const std::map<std::string, std::string>& changes) {
  return CallBroker(addr, 25, {}, PropertiesText(changes)).status();
}
Result<TopicConfigTable> AdminClient::GetAllTopicConfig(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 21, {}));
  return TopicConfigTable::Decode(Body(r));
}
Result<TopicStats> AdminClient::GetTopicStats(const std::string& addr, const std::string& topic) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 202, {{"topic", topic}}));
  return TopicStats::Decode(Body(r));
}
Status AdminClient::CreateTopic(const std::string& addr, const TopicConfig& c) {
  // Every field of the TopicConfig, as mqadmin's createAndUpdateTopicConfig sends it.
  protocol::CreateTopicRequestHeader h;
  h.topic = c.topic_name;
  h.default_topic = "TBW102";
  h.read_queue_nums = c.read_queue_nums;
  h.write_queue_nums = c.write_queue_nums;
  h.perm = c.perm;
  h.topic_filter_type = c.topic_filter_type.empty() ? "SINGLE_TAG" : c.topic_filter_type;
  h.topic_sys_flag = c.topic_sys_flag;
  h.order = c.order;
  return Broker(addr).CreateTopic(h);
}
Status AdminClient::DeleteTopicInBroker(const std::string& addr, const std::string& topic) {
  return CallBroker(addr, 215, {{"topic", topic}}).status();
}
Result<TopicList> AdminClient::GetSystemTopicsFromBroker(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 305, {}));
  return TopicList::Decode(Body(r));
}
Status AdminClient::CreateOrUpdateGroup(const std::string& addr, const SubscriptionGroupConfig& g) {
  std::vector<uint8_t> b = g.Encode();
  return CallBroker(addr, 200, {}, std::string(b.begin(), b.end())).status();
}
Result<SubscriptionGroupTable> AdminClient::GetAllGroups(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 201, {}));
  return SubscriptionGroupTable::Decode(Body(r));
}
Status AdminClient::DeleteGroup(const std::string& addr, const std::string& group,
                                bool remove_offset) {
  return CallBroker(addr, 207,
                    {{"groupName", group}, {"removeOffset", remove_offset ? "true" : "false"}})
      .status();
}
Result<ConsumerConnection> AdminClient::GetConsumerConnections(const std::string& addr,
                                                               const std::string& group) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 203, {{"consumerGroup", group}}));
  return ConsumerConnection::Decode(Body(r));
}
Result<ProducerConnection> AdminClient::GetProducerConnections(const std::string& addr,
                                                               const std::string& group) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 204, {{"producerGroup", group}}));
  return ProducerConnection::Decode(Body(r));
}
Result<ConsumeStats> AdminClient::GetConsumeStats(const std::string& addr, const std::string& group,
                                                  const std::string& topic) {
  std::vector<std::pair<std::string, std::string>> f = {{"consumerGroup", group}};
  if (!topic.empty()) f.emplace_back("topic", topic);
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 208, f));
  return ConsumeStats::Decode(Body(r));
}
Result<std::vector<std::string>> AdminClient::QueryTopicConsumeByWho(const std::string& addr,
                                                                     const std::string& topic) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 300, {{"topic", topic}}));
  auto v = ParseFastjson(Body(r));
  if (!v.ok()) return v.status();
  std::vector<std::string> out;
  if (const FjValue* l = v->Find("groupList"); l != nullptr) {
    for (const auto& g : l->items) out.push_back(g.text);
  }
  return out;
}
Result<QueueOffsets> AdminClient::ResetOffset(const std::string& addr, const std::string& topic,
                                              const std::string& group, int64_t timestamp_ms,
                                              bool force) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 222,
                                                    {{"topic", topic},
                                                     {"group", group},
                                                     {"timestamp", std::to_string(timestamp_ms)},
                                                     {"isForce", force ? "true" : "false"}}));
  return QueueOffsets::Decode(Body(r));
}
Result<ConsumerStatusTable> AdminClient::GetConsumerStatus(const std::string& addr,
                                                           const std::string& topic,
                                                           const std::string& group) {
  RS_ASSIGN_OR_RETURN(
      RemotingCommand r,
      CallBroker(addr, 223, {{"topic", topic}, {"group", group}, {"clientAddr", ""}}));
  return ConsumerStatusTable::Decode(Body(r));
}
Result<std::string> AdminClient::GetConsumerRunningInfo(const std::string& addr,
                                                        const std::string& group,
                                                        const std::string& client_id) {
  RS_ASSIGN_OR_RETURN(
      RemotingCommand r,
      CallBroker(addr, 307,
                 {{"consumerGroup", group}, {"clientId", client_id}, {"jstackEnable", "false"}}));
  return Body(r);
}

Result<ConsumeDirectlyResult> AdminClient::ConsumeMessageDirectly(const std::string& addr,
                                                                  const std::string& group,
                                                                  const std::string& client_id,
                                                                  const std::string& msg_id,
                                                                  const std::string& broker_name) {
  std::vector<std::pair<std::string, std::string>> f = {
      {"consumerGroup", group}, {"clientId", client_id}, {"msgId", msg_id}};
  if (!broker_name.empty()) f.emplace_back("brokerName", broker_name);
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 309, f));
  return ConsumeDirectlyResult::Decode(Body(r));
}
Result<ConsumerOffsetTable> AdminClient::GetAllConsumerOffsets(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 43, {}));
  return ConsumerOffsetTable::Decode(Body(r));
}
Status AdminClient::CloneGroupOffset(const std::string& addr, const std::string& src_group,
                                     const std::string& dest_group, const std::string& topic,
                                     bool offline) {
  return CallBroker(addr, 314,
                    {{"srcGroup", src_group},
                     {"destGroup", dest_group},
                     {"topic", topic},
                     {"offline", offline ? "true" : "false"}})
      .status();
}
Status AdminClient::CleanExpiredConsumeQueue(const std::string& addr) {
  return CallBroker(addr, 306, {}).status();
}
Status AdminClient::DeleteExpiredCommitLog(const std::string& addr) {
  return CallBroker(addr, 329, {}).status();
}
Result<BrokerStatsData> AdminClient::ViewBrokerStats(const std::string& addr,
                                                     const std::string& stats_name,
                                                     const std::string& stats_key) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r,
                      CallBroker(addr, 315, {{"statsName", stats_name}, {"statsKey", stats_key}}));
  return BrokerStatsData::Decode(Body(r));
}
Result<ConsumeStatsList> AdminClient::GetBrokerConsumeStats(const std::string& addr,
                                                            bool is_order) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r,
                      CallBroker(addr, 317, {{"isOrder", is_order ? "true" : "false"}}));
  return ConsumeStatsList::Decode(Body(r));
}
Result<ConsumeTimeSpans> AdminClient::QueryConsumeTimeSpan(const std::string& addr,
                                                           const std::string& topic,
                                                           const std::string& group) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r,
                      CallBroker(addr, 303, {{"topic", topic}, {"group", group}}));
  return ConsumeTimeSpans::Decode(Body(r));
}
Result<ConsumeQueueView> AdminClient::QueryConsumeQueue(const std::string& addr,
                                                        const std::string& topic, int32_t queue_id,
                                                        int64_t index, int32_t count,
                                                        const std::string& group) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 321,
                                                    {{"topic", topic},
                                                     {"queueId", std::to_string(queue_id)},
                                                     {"index", std::to_string(index)},
                                                     {"count", std::to_string(count)},
                                                     {"consumerGroup", group}}));
  // Java answers SUCCESS without a body (the remark says why) for a queue it lacks.
  if (r.body.empty()) {
    return NotFound(
        "QUERY_CONSUME_QUEUE: " + r.remark.value_or(topic + " queue " + std::to_string(queue_id)) +
        " (no such consume queue)");
  }
  return ConsumeQueueView::Decode(Body(r));
}
Result<ProducerTable> AdminClient::GetAllProducerInfo(const std::string& addr) {
  RS_ASSIGN_OR_RETURN(RemotingCommand r, CallBroker(addr, 328, {}));
  return ProducerTable::Decode(Body(r));
}

Result<std::vector<std::string>> AdminClient::MasterAddrs(const std::string& cluster) {
  RS_ASSIGN_OR_RETURN(ClusterInfo info, GetClusterInfo());
  auto addrs = info.MasterAddrs(cluster);
  if (addrs.empty()) {
    return NotFound(cluster.empty() ? std::string("no broker is registered with the name server")
                                    : "cluster " + cluster + " has no master broker");
  }
  return addrs;
}

}  // namespace rocketstore::client
