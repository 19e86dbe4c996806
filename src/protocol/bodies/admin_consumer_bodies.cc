#include "protocol/bodies/admin_consumer_bodies.h"

#include <time.h>

#include <cstdio>

#include "protocol/internal/json_tree.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

using internal::JsonNode;
using internal::JsonTree;
using internal::JsonWriter;
using Kind = JsonNode::Kind;

namespace {

std::string QueueJson(const MessageQueueKey& q) {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("brokerName");
  w.String(q.broker_name);
  w.Key("queueId");
  w.Int(q.queue_id);
  w.Key("topic");
  w.String(q.topic);
  w.EndObject();
  return std::string(out.begin(), out.end());
}

void WriteQueue(JsonWriter& w, const MessageQueueKey& q) {
  w.BeginObject();
  w.Key("brokerName");
  w.String(q.broker_name);
  w.Key("queueId");
  w.Int(q.queue_id);
  w.Key("topic");
  w.String(q.topic);
  w.EndObject();
}

void WriteOffsetTable(JsonWriter& w, const QueueOffsetTable& table) {
  w.BeginObject();
  for (const auto& [q, offset] : table) {
    w.RawKey(QueueJson(q));
    w.Int(offset);
  }
  w.EndObject();
}

void WriteConnections(JsonWriter& w, const std::vector<ConnectionInfo>& set) {
  w.BeginArray();
  for (const auto& c : set) {
    w.BeginObject();
    w.Key("clientAddr");
    w.String(c.client_addr);
    w.Key("clientId");
    w.String(c.client_id);
    w.Key("language");
    w.String(c.language);
    w.Key("version");
    w.Int(c.version);
    w.EndObject();
  }
  w.EndArray();
}

void WriteSubscription(JsonWriter& w, const SubscriptionData& s) {
  w.BeginObject();
  w.Key("classFilterMode");
  w.Bool(s.class_filter_mode);
  w.Key("codeSet");
  w.BeginArray();
  for (int32_t c : s.code_set) w.Int(c);
  w.EndArray();
  w.Key("expressionType");
  w.String(s.expression_type);
  w.Key("subString");
  w.String(s.sub_string);
  w.Key("subVersion");
  w.Int(s.sub_version);
  w.Key("tagsSet");
  w.BeginArray();
  for (const auto& t : s.tags_set) w.String(t);
  w.EndArray();
  w.Key("topic");
  w.String(s.topic);
  w.EndObject();
}

// UtilAll.formatDate(new Date(ms), "yyyy-MM-dd HH:mm:ss,SSS") in the local time zone.
std::string FormatDate(int64_t ms) {
  const time_t secs = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  const int64_t milli = ms - static_cast<int64_t>(secs) * 1000;
  struct tm tm {};
  localtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d,%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(milli));
  return buf;
}

Status Bad(std::string_view what, std::string_view detail) {
  return InvalidArgument(std::string(what) + ": " + std::string(detail));
}

Result<int64_t> LongOf(const JsonNode& v, std::string_view what, std::string_view path) {
  std::optional<int64_t> n = v.kind == Kind::kNumber ? ParseJavaLong(v.text) : std::nullopt;
  if (!n) return Bad(what, std::string(path) + " is not a long");
  return *n;
}

Result<MessageQueueKey> QueueOfKey(std::string_view key, std::string_view what) {
  auto tree = JsonTree::Parse(key, what);
  if (!tree.ok()) return tree.status();
  const JsonNode& o = tree->root();
  if (!o.is_object()) return Bad(what, "a queue key is not an object: " + std::string(key));
  MessageQueueKey q;
  const JsonNode* t = o.Find("topic");
  const JsonNode* b = o.Find("brokerName");
  const JsonNode* i = o.Find("queueId");
  if (t == nullptr || t->kind != Kind::kString || b == nullptr || b->kind != Kind::kString ||
      i == nullptr) {
    return Bad(what, "a queue key lacks topic, brokerName or queueId: " + std::string(key));
  }
  q.topic = std::string(t->text);
  q.broker_name = std::string(b->text);
  auto id = LongOf(*i, what, "queueId");
  if (!id.ok()) return id.status();
  q.queue_id = static_cast<int32_t>(*id);
  return q;
}

Result<QueueOffsetTable> OffsetTableOf(const JsonNode* node, std::string_view what,
                                       std::string_view path) {
  QueueOffsetTable out;
  if (node == nullptr || node->kind == Kind::kNull) return out;
  if (!node->is_object()) return Bad(what, std::string(path) + " is not an object");
  for (const JsonNode& m : node->children) {
    auto q = QueueOfKey(m.key, what);
    if (!q.ok()) return q.status();
    auto v = LongOf(m, what, path);
    if (!v.ok()) return v.status();
    out[*q] = *v;
  }
  return out;
}

Result<JsonTree> ParseLenient(std::string_view json, std::string_view what) {
  auto quoted = QuoteBareKeys(json, what);
  if (!quoted.ok()) return quoted.status();
  auto tree = JsonTree::Parse(*quoted, what);
  if (!tree.ok()) return tree.status();
  if (!tree->root().is_object()) return Bad(what, "not a JSON object");
  return tree;
}

std::vector<uint8_t> Done(std::vector<uint8_t>&& out) { return std::move(out); }

}  // namespace

Result<std::string> QuoteBareKeys(std::string_view text, std::string_view what) {
  std::string out;
  out.reserve(text.size() + 64);
  std::vector<char> stack;
  bool expect_key = false;
  size_t i = 0;
  const size_t n = text.size();
  // Copies the string starting at text[i] (a quote) to `sink`; false if unterminated.
  auto copy_string = [&](std::string& sink) {
    sink.push_back(text[i++]);
    while (i < n) {
      const char c = text[i++];
      sink.push_back(c);
      if (c == '\\' && i < n) {
        sink.push_back(text[i++]);
      } else if (c == '"') {
        return true;
      }
    }
    return false;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '"') {
      if (!copy_string(out)) return Bad(what, "unterminated string");
      expect_key = false;
      continue;
    }
    if (expect_key && c != '}' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      // A bare key: a balanced object/array, or a number, up to its ':'.
      std::string key;
      if (c == '{' || c == '[') {
        int depth = 0;
        while (i < n) {
          const char k = text[i];
          if (k == '"') {
            if (!copy_string(key)) return Bad(what, "unterminated string");
            continue;
          }
          key.push_back(k);
          ++i;
          if (k == '{' || k == '[') ++depth;
          if (k == '}' || k == ']') {
            if (--depth == 0) break;
          }
        }
        if (depth != 0) return Bad(what, "unbalanced bare key");
      } else {
        while (i < n && text[i] != ':' && text[i] != ' ') key.push_back(text[i++]);
      }
      out.push_back('"');
      for (char k : key) {
        if (k == '"' || k == '\\') out.push_back('\\');
        out.push_back(k);
      }
      out.push_back('"');
      expect_key = false;
      continue;
    }
    switch (c) {
      case '{':
        stack.push_back('{');
        expect_key = true;
        break;
      case '[':
        stack.push_back('[');
        break;
      case '}':
      case ']':
        if (stack.empty()) return Bad(what, "unbalanced braces");
        stack.pop_back();
        expect_key = false;
        break;
      case ',':
        expect_key = !stack.empty() && stack.back() == '{';
        break;
      default:
        break;
    }
    out.push_back(c);
    ++i;
  }
  if (!stack.empty()) return Bad(what, "unbalanced braces");
  return out;
}

std::vector<uint8_t> ConsumerConnectionBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("connectionSet");
  WriteConnections(w, connection_set);
  w.Key("consumeFromWhere");
  w.String(consume_from_where);
  w.Key("consumeType");
  w.String(consume_type);
  w.Key("messageModel");
  w.String(message_model);
  w.Key("subscriptionTable");
  w.BeginObject();
  for (const auto& [topic, sub] : subscription_table) {
    w.Key(topic);
    WriteSubscription(w, sub);
  }
  w.EndObject();
  w.EndObject();
  return Done(std::move(out));
}

std::vector<uint8_t> ProducerConnectionBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("connectionSet");
  WriteConnections(w, connection_set);
  w.EndObject();
  return out;
}

std::vector<uint8_t> ProducerTableInfoBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("data");
  w.BeginObject();
  for (const auto& [group, producers] : data) {
    w.Key(group);
    w.BeginArray();
    for (const auto& p : producers) {
      w.BeginObject();
      w.Key("clientId");
      w.String(p.client_id);
      w.Key("language");
      w.String(p.language);
      w.Key("lastUpdateTimestamp");
      w.Int(p.last_update_timestamp);
      w.Key("remoteIP");
      w.String(p.remote_ip);
      w.Key("version");
      w.Int(p.version);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return out;
}

void ConsumeStatsBody::WriteTo(std::vector<uint8_t>* out) const {
  JsonWriter w(out);
  w.BeginObject();
  w.Key("consumeTps");
  w.Double(consume_tps);
  w.Key("offsetTable");
  w.BeginObject();
  for (const auto& [q, o] : offset_table) {
    w.RawKey(QueueJson(q));
    w.BeginObject();
    w.Key("brokerOffset");
    w.Int(o.broker_offset);
    w.Key("consumerOffset");
    w.Int(o.consumer_offset);
    w.Key("lastTimestamp");
    w.Int(o.last_timestamp);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
}

std::vector<uint8_t> ConsumeStatsBody::Encode() const {
  std::vector<uint8_t> out;
  WriteTo(&out);
  return out;
}

Result<ConsumeStatsBody> ConsumeStatsBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "ConsumeStats";
  auto tree = ParseLenient(json, kWhat);
  if (!tree.ok()) return tree.status();
  ConsumeStatsBody body;
  if (const JsonNode* tps = tree->root().Find("consumeTps")) {
    if (tps->kind != Kind::kNumber) return Bad(kWhat, "consumeTps is not a number");
    body.consume_tps = std::stod(std::string(tps->text));
  }
  const JsonNode* table = tree->root().Find("offsetTable");
  if (table != nullptr && table->kind != Kind::kNull) {
    if (!table->is_object()) return Bad(kWhat, "offsetTable is not an object");
    for (const JsonNode& m : table->children) {
      auto q = QueueOfKey(m.key, kWhat);
      if (!q.ok()) return q.status();
      if (!m.is_object()) return Bad(kWhat, "an offsetTable value is not an object");
      OffsetWrapperBody o;
      for (auto [name, field] : {std::pair{"brokerOffset", &o.broker_offset},
                                 std::pair{"consumerOffset", &o.consumer_offset},
                                 std::pair{"lastTimestamp", &o.last_timestamp}}) {
        if (const JsonNode* v = m.Find(name)) {
          auto n = LongOf(*v, kWhat, name);
          if (!n.ok()) return n.status();
          *field = *n;
        }
      }
      body.offset_table[*q] = o;
    }
  }
  return body;
}

std::vector<uint8_t> ConsumeStatsListBody::Encode() const {
  std::vector<uint8_t> out;
  {
    JsonWriter w(&out);
    w.BeginObject();
    w.Key("brokerAddr");
    w.String(broker_addr);
    w.Key("consumeStatsList");
    w.BeginArray();
  }
  // The nested ConsumeStats are written by their own writer; the separators by hand.
  for (size_t i = 0; i < consume_stats_list.size(); ++i) {
    if (i > 0) out.push_back(',');
    const auto& [group, list] = consume_stats_list[i];
    std::vector<uint8_t> key;
    JsonWriter(&key).String(group);
    out.push_back('{');
    out.insert(out.end(), key.begin(), key.end());
    out.push_back(':');
    out.push_back('[');
    for (size_t j = 0; j < list.size(); ++j) {
      if (j > 0) out.push_back(',');
      list[j].WriteTo(&out);
    }
    out.push_back(']');
    out.push_back('}');
  }
  out.push_back(']');
  std::string tail = ",\"totalDiff\":" + std::to_string(total_diff) + "}";
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

std::vector<uint8_t> GroupListBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("groupList");
  w.BeginArray();
  for (const auto& g : group_list) w.String(g);
  w.EndArray();
  w.EndObject();
  return out;
}

Result<GroupListBody> GroupListBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "GroupList";
  auto tree = JsonTree::Parse(json, kWhat);
  if (!tree.ok()) return tree.status();
  GroupListBody body;
  const JsonNode* list = tree->root().Find("groupList");
  if (list == nullptr || list->kind == Kind::kNull) return body;
  if (!list->is_array()) return Bad(kWhat, "groupList is not an array");
  for (const JsonNode& g : list->children) {
    if (g.kind != Kind::kString) return Bad(kWhat, "groupList holds a non-string");
    body.group_list.emplace_back(g.text);
  }
  return body;
}

std::vector<uint8_t> QueryConsumeTimeSpanBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("consumeTimeSpanSet");
  w.BeginArray();
  for (const auto& s : consume_time_span_set) {
    w.BeginObject();
    w.Key("consumeTimeStamp");
    w.Int(s.consume_time_stamp);
    w.Key("consumeTimeStampStr");
    w.String(FormatDate(s.consume_time_stamp));
    w.Key("delayTime");
    w.Int(s.delay_time);
    w.Key("maxTimeStamp");
    w.Int(s.max_time_stamp);
    w.Key("maxTimeStampStr");
    w.String(FormatDate(s.max_time_stamp));
    w.Key("messageQueue");
    WriteQueue(w, s.message_queue);
    w.Key("minTimeStamp");
    w.Int(s.min_time_stamp);
    w.Key("minTimeStampStr");
    w.String(FormatDate(s.min_time_stamp));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

std::vector<uint8_t> BrokerStatsDataBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  auto item = [&w](std::string_view name, const BrokerStatsItemBody& it) {
    w.Key(name);
    w.BeginObject();
    w.Key("avgpt");
    w.Double(it.avgpt);
    w.Key("sum");
    w.Int(it.sum);
    w.Key("tps");
    w.Double(it.tps);
    w.EndObject();
  };
  w.BeginObject();
  item("statsDay", stats_day);
  item("statsHour", stats_hour);
  item("statsMinute", stats_minute);
  w.EndObject();
  return out;
}

std::vector<uint8_t> ResetOffsetBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("offsetTable");
  WriteOffsetTable(w, offset_table);
  w.EndObject();
  return out;
}

Result<ResetOffsetBody> ResetOffsetBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "ResetOffsetBody";
  auto tree = ParseLenient(json, kWhat);
  if (!tree.ok()) return tree.status();
  auto table = OffsetTableOf(tree->root().Find("offsetTable"), kWhat, "offsetTable");
  if (!table.ok()) return table.status();
  return ResetOffsetBody{std::move(*table)};
}

std::vector<uint8_t> ResetOffsetBodyForC::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("offsetTable");
  w.BeginArray();
  for (const auto& [q, offset] : offset_table) {
    w.BeginObject();
    w.Key("brokerName");
    w.String(q.broker_name);
    w.Key("offset");
    w.Int(offset);
    w.Key("queueId");
    w.Int(q.queue_id);
    w.Key("topic");
    w.String(q.topic);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

std::vector<uint8_t> GetConsumerStatusBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("consumerTable");
  w.BeginObject();
  for (const auto& [client, table] : consumer_table) {
    w.Key(client);
    WriteOffsetTable(w, table);
  }
  w.EndObject();
  w.Key("messageQueueTable");
  WriteOffsetTable(w, message_queue_table);
  w.EndObject();
  return out;
}

Result<GetConsumerStatusBody> GetConsumerStatusBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "GetConsumerStatusBody";
  auto tree = ParseLenient(json, kWhat);
  if (!tree.ok()) return tree.status();
  GetConsumerStatusBody body;
  auto mq = OffsetTableOf(tree->root().Find("messageQueueTable"), kWhat, "messageQueueTable");
  if (!mq.ok()) return mq.status();
  body.message_queue_table = std::move(*mq);
  const JsonNode* ct = tree->root().Find("consumerTable");
  if (ct != nullptr && ct->kind != Kind::kNull) {
    if (!ct->is_object()) return Bad(kWhat, "consumerTable is not an object");
    for (const JsonNode& m : ct->children) {
      auto t = OffsetTableOf(&m, kWhat, "consumerTable." + std::string(m.key));
      if (!t.ok()) return t.status();
      body.consumer_table[std::string(m.key)] = std::move(*t);
    }
  }
  return body;
}

std::vector<uint8_t> ConsumerRunningInfoBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("mqTable");
  w.BeginObject();
  for (const auto& [q, p] : mq_table) {
    w.RawKey(QueueJson(q));
    w.BeginObject();
    w.Key("cachedMsgCount"), w.Int(p.cached_msg_count);
    w.Key("cachedMsgMaxOffset"), w.Int(p.cached_msg_max_offset);
    w.Key("cachedMsgMinOffset"), w.Int(p.cached_msg_min_offset);
    w.Key("cachedMsgSizeInMiB"), w.Int(p.cached_msg_size_in_mib);
    w.Key("commitOffset"), w.Int(p.commit_offset);
    w.Key("droped"), w.Bool(p.dropped);
    w.Key("lastConsumeTimestamp"), w.Int(p.last_consume_timestamp);
    w.Key("lastLockTimestamp"), w.Int(0);
    w.Key("lastPullTimestamp"), w.Int(p.last_pull_timestamp);
    w.Key("locked"), w.Bool(false);
    w.Key("transactionMsgCount"), w.Int(0);
    w.Key("transactionMsgMaxOffset"), w.Int(0);
    w.Key("transactionMsgMinOffset"), w.Int(0);
    w.Key("tryUnlockTimes"), w.Int(0);
    w.EndObject();
  }
  w.EndObject();
  w.Key("properties");
  w.BeginObject();
  for (const auto& [k, v] : properties) w.Key(k), w.String(v);
  w.EndObject();
  w.Key("statusTable");
  w.BeginObject();
  w.EndObject();
  w.Key("subscriptionSet");
  w.BeginArray();
  for (const auto& sub : subscriptions) WriteSubscription(w, sub);
  w.EndArray();
  w.EndObject();
  return out;
}

}  // namespace rocketstore::protocol
