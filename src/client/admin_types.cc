#include "client/admin_types.h"

#include <utility>

#include "client/fastjson.h"
#include "protocol/request_code.h"

namespace rocketstore::client {

MessageQueue QueueFromFastjson(const FjValue& key) {
  // Object key (fastjson) or a string holding the object's JSON (standard JSON form).
  if (key.is_object()) {
    return {key.Str("topic"), key.Str("brokerName"), static_cast<int32_t>(key.Int("queueId"))};
  }
  auto inner = ParseFastjson(key.text);
  if (!inner.ok() || !inner->is_object()) return {};
  return QueueFromFastjson(*inner);
}
namespace {
Result<FjValue> Root(std::string_view json, std::string_view what) {
  auto v = ParseFastjson(json);
  if (!v.ok()) return v.status().WithContext(what);
  if (!v->is_object()) return Corruption(std::string(what) + ": body is not a JSON object");
  return v;
}
BrokerData BrokerOf(const FjValue& b) {
  BrokerData d;
  d.cluster = b.Str("cluster");
  d.broker_name = b.Str("brokerName");
  if (const FjValue* a = b.Find("brokerAddrs"); a != nullptr && a->is_object()) {
    for (const auto& [k, v] : a->members) d.addrs[k.AsInt()] = v.text;
  }
  return d;
}
// Java writes LanguageCode by name ("JAVA"); fastjson reads an enum from its ordinal
// too, so a number (a peer that wrote one) is shown by its name all the same.
Connection ConnectionOf(const FjValue& c) {
  std::string language = c.Str("language");
  if (const FjValue* l = c.Find("language"); l != nullptr && l->kind == FjValue::Kind::kNumber) {
    language = std::string(protocol::LanguageName(protocol::LanguageFromNumber(l->AsInt())));
  }
  return {c.Str("clientId"), c.Str("clientAddr"), std::move(language),
          static_cast<int32_t>(c.Int("version"))};
}
}  // namespace

Result<ClusterInfo> ClusterInfo::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ClusterInfo"));
  ClusterInfo out;
  if (const FjValue* t = v.Find("brokerAddrTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, b] : t->members) out.brokers[k.text] = BrokerOf(b);
  }
  if (const FjValue* t = v.Find("clusterAddrTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, names] : t->members) {
      auto& list = out.clusters[k.text];
      for (const auto& n : names.items) list.push_back(n.text);
    }
  }
  return out;
}

std::vector<std::string> ClusterInfo::MasterAddrs(std::string_view cluster) const {
  std::vector<std::string> out;
  for (const auto& [name, b] : brokers) {
    if (!cluster.empty() && b.cluster != cluster) continue;
    if (!b.MasterAddr().empty()) out.push_back(b.MasterAddr());
  }
  return out;
}

Result<TopicList> TopicList::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "TopicList"));
  TopicList out;
  if (const FjValue* l = v.Find("topicList"); l != nullptr && l->is_array()) {
    for (const auto& t : l->items) out.topics.push_back(t.text);
  }
  out.broker_addr = v.Str("brokerAddr");
  return out;
}

Result<TopicStats> TopicStats::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "TopicStatsTable"));
  TopicStats out;
  if (const FjValue* t = v.Find("offsetTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, o] : t->members) {
      out.offsets.emplace_back(
          QueueFromFastjson(k),
          TopicOffset{o.Int("minOffset"), o.Int("maxOffset"), o.Int("lastUpdateTimestamp")});
    }
  }
  return out;
}

Result<ConsumeStats> ConsumeStats::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ConsumeStats"));
  ConsumeStats out;
  out.consume_tps = v.Double("consumeTps");
  if (const FjValue* t = v.Find("offsetTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, o] : t->members) {
      out.offsets.emplace_back(
          QueueFromFastjson(k),
          OffsetWrapper{o.Int("brokerOffset"), o.Int("consumerOffset"), o.Int("lastTimestamp")});
    }
  }
  return out;
}

int64_t ConsumeStats::TotalLag() const {
  int64_t lag = 0;
  for (const auto& [q, o] : offsets)
    lag += std::max<int64_t>(0, o.broker_offset - o.consumer_offset);
  return lag;
}

Result<ConsumerConnection> ConsumerConnection::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ConsumerConnection"));
  ConsumerConnection out;
  if (const FjValue* s = v.Find("connectionSet"); s != nullptr && s->is_array()) {
    for (const auto& c : s->items) out.connections.push_back(ConnectionOf(c));
  }
  out.consume_type = v.Str("consumeType");
  out.message_model = v.Str("messageModel");
  out.consume_from_where = v.Str("consumeFromWhere");
  if (const FjValue* t = v.Find("subscriptionTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, sd] : t->members) out.subscriptions[k.text] = sd.Str("subString");
  }
  return out;
}

Result<ProducerConnection> ProducerConnection::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "ProducerConnection"));
  ProducerConnection out;
  if (const FjValue* s = v.Find("connectionSet"); s != nullptr && s->is_array()) {
    for (const auto& c : s->items) out.connections.push_back(ConnectionOf(c));
  }
  return out;
}

Result<TopicConfigTable> TopicConfigTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "TopicConfigSerializeWrapper"));
  TopicConfigTable out;
  if (const FjValue* dv = v.Find("dataVersion"); dv != nullptr) {
    out.data_version_counter = dv->Int("counter");
    out.data_version_timestamp = dv->Int("timestamp");
  }
  if (const FjValue* t = v.Find("topicConfigTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, c] : t->members) {
      TopicConfig tc;
      tc.topic_name = c.Str("topicName");
      tc.topic_filter_type = c.Str("topicFilterType");
      tc.read_queue_nums = static_cast<int32_t>(c.Int("readQueueNums"));
      tc.write_queue_nums = static_cast<int32_t>(c.Int("writeQueueNums"));
      tc.perm = static_cast<int32_t>(c.Int("perm"));
      tc.topic_sys_flag = static_cast<int32_t>(c.Int("topicSysFlag"));
      tc.order = c.Bool("order");
      out.topics[k.text] = std::move(tc);
    }
  }
  return out;
}

std::vector<uint8_t> SubscriptionGroupConfig::Encode() const {
  std::string s =
      "{\"brokerId\":" + std::to_string(broker_id) +
      ",\"consumeBroadcastEnable\":" + (consume_broadcast_enable ? "true" : "false") +
      ",\"consumeEnable\":" + (consume_enable ? "true" : "false") +
      ",\"consumeFromMinEnable\":" + (consume_from_min_enable ? "true" : "false") +
      ",\"groupName\":" + FjValue{FjValue::Kind::kString, false, group_name, {}, {}}.ToJson() +
      ",\"notifyConsumerIdsChangedEnable\":" +
      (notify_consumer_ids_changed_enable ? "true" : "false") +
      ",\"retryMaxTimes\":" + std::to_string(retry_max_times) +
      ",\"retryQueueNums\":" + std::to_string(retry_queue_nums) +
      ",\"whichBrokerWhenConsumeSlowly\":" + std::to_string(which_broker_when_consume_slowly) + "}";
  return std::vector<uint8_t>(s.begin(), s.end());
}

Result<SubscriptionGroupTable> SubscriptionGroupTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "SubscriptionGroupWrapper"));
  SubscriptionGroupTable out;
  if (const FjValue* t = v.Find("subscriptionGroupTable"); t != nullptr && t->is_object()) {
    for (const auto& [k, g] : t->members) {
      SubscriptionGroupConfig c;
      c.group_name = g.Str("groupName");
      c.consume_enable = g.Bool("consumeEnable");
      c.consume_from_min_enable = g.Bool("consumeFromMinEnable");
      c.consume_broadcast_enable = g.Bool("consumeBroadcastEnable");
      c.retry_queue_nums = static_cast<int32_t>(g.Int("retryQueueNums"));
      c.retry_max_times = static_cast<int32_t>(g.Int("retryMaxTimes"));
      c.broker_id = g.Int("brokerId");
      c.which_broker_when_consume_slowly = g.Int("whichBrokerWhenConsumeSlowly");
      c.notify_consumer_ids_changed_enable = g.Bool("notifyConsumerIdsChangedEnable");
      out.groups[k.text] = std::move(c);
    }
  }
  return out;
}

Result<KvTable> KvTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "KVTable"));
  KvTable out;
  if (const FjValue* t = v.Find("table"); t != nullptr && t->is_object()) {
    for (const auto& [k, val] : t->members) out.table[k.text] = val.text;
  }
  return out;
}

Result<QueueOffsets> QueueOffsets::Decode(std::string_view json, std::string_view field) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "offsetTable body"));
  QueueOffsets out;
  if (const FjValue* t = v.Find(field); t != nullptr && t->is_object()) {
    for (const auto& [k, off] : t->members)
      out.offsets.emplace_back(QueueFromFastjson(k), off.AsInt());
  }
  return out;
}

Result<ConsumerStatusTable> ConsumerStatusTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(FjValue v, Root(json, "GetConsumerStatusBody"));
  ConsumerStatusTable out;
  if (const FjValue* t = v.Find("consumerTable"); t != nullptr && t->is_object()) {
    for (const auto& [client, table] : t->members) {
      auto& list = out.by_client[client.text];
      for (const auto& [k, off] : table.members)
        list.emplace_back(QueueFromFastjson(k), off.AsInt());
    }
  }
  return out;
}

std::map<std::string, std::string> ParseJavaProperties(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    const size_t eq = line.find_first_of("=:");
    std::string key(line.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1));
    std::string unescaped;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) {
        const char c = value[++i];
        unescaped.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c);
      } else {
        unescaped.push_back(value[i]);
      }
    }
    out[key] = unescaped;
  }
  return out;
}

}  // namespace rocketstore::client
