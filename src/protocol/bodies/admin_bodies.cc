#include "protocol/bodies/admin_bodies.h"

#include <limits>

#include "protocol/internal/json_tree.h"
#include "protocol/internal/subscription_json.h"
#include "protocol/json_util.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

using internal::JsonNode;
using internal::JsonTree;
using internal::JsonWriter;
using Kind = JsonNode::Kind;

namespace {

// Typed reads of one body's members, keeping the first error ("<body>: <path> is not ..").
class Reader {
 public:
  explicit Reader(std::string_view body) : body_(body) {}
  const JsonNode* Member(const JsonNode& o, std::string_view key) const {
    if (!status_.ok()) return nullptr;
    const JsonNode* v = o.Find(key);
    return (v == nullptr || v->kind == Kind::kNull) ? nullptr : v;
  }
  void String(const JsonNode& o, std::string_view key, std::string* out) {
    if (const JsonNode* v = Member(o, key)) {
      if (v->kind != Kind::kString) return Fail(key, "is not a string");
      out->assign(v->text);
    }
  }
  void String(const JsonNode& o, std::string_view key, std::optional<std::string>* out) {
    if (Member(o, key) == nullptr) return;
    String(o, key, &out->emplace());
  }
  void Bool(const JsonNode& o, std::string_view key, bool* out) {
    if (const JsonNode* v = Member(o, key)) {
      if (v->kind != Kind::kBool) return Fail(key, "is not a boolean");
      *out = v->boolean;
    }
  }
  template <typename T>
  void Int(const JsonNode& o, std::string_view key, T* out) {
    if (const JsonNode* v = Member(o, key)) {
      const std::optional<int64_t> n =
          v->kind == Kind::kNumber ? ParseJavaLong(v->text) : std::nullopt;
      if (!n || *n < std::numeric_limits<T>::min() || *n > std::numeric_limits<T>::max()) {
        return Fail(key, sizeof(T) == 4 ? "is not an int" : "is not a long");
      }
      *out = static_cast<T>(*n);
    }
  }
  const JsonNode* Container(const JsonNode& o, std::string_view key, Kind kind) {
    const JsonNode* v = Member(o, key);
    if (v == nullptr) return nullptr;
    if (v->kind != kind) {
      Fail(key, kind == Kind::kObject ? "is not an object" : "is not an array");
      return nullptr;
    }
    return v;
  }
  void Fail(std::string_view key, std::string_view what) {
    if (status_.ok()) {
      status_ =
          InvalidArgument(std::string(body_) + ": " + std::string(key) + " " + std::string(what));
    }
  }
  const Status& status() const { return status_; }

 private:
  std::string_view body_;
  Status status_;
};

Result<JsonTree> ParseRoot(std::string_view json, std::string_view what) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, JsonTree::Parse(json, what));
  if (!tree.root().is_object()) {
    return InvalidArgument(std::string(what) + ": the body is not a JSON object");
  }
  return tree;
}

void Append(std::vector<uint8_t>* out, std::string_view text) {
  for (char c : text) out->push_back(static_cast<uint8_t>(c));
}

}  // namespace

// ---- KVTable ----------------------------------------------------------------------------

Result<KVTable> KVTable::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, "KVTable"));
  Reader r("KVTable");
  KVTable t;
  if (const JsonNode* table = r.Container(tree.root(), "table", Kind::kObject)) {
    for (const JsonNode& m : table->children) {
      if (m.kind != Kind::kString) {
        r.Fail("table." + std::string(m.key), "is not a string");
        break;
      }
      t.table[std::string(m.key)] = std::string(m.text);
    }
  }
  if (!r.status().ok()) return r.status();
  return t;
}

std::vector<uint8_t> KVTable::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("table");
  w.BeginObject();
  for (const auto& [k, v] : table) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
  w.EndObject();
  return out;
}

// ---- TopicStatsTable --------------------------------------------------------------------

Result<TopicStatsTable> TopicStatsTable::Decode(std::string_view json) {
  const std::string strict = QuoteBareObjectKeys(json);
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(strict, "TopicStatsTable"));
  Reader r("TopicStatsTable");
  TopicStatsTable t;
  if (const JsonNode* table = r.Container(tree.root(), "offsetTable", Kind::kObject)) {
    for (const JsonNode& m : table->children) {
      auto key = ParseRoot(m.key, "TopicStatsTable: offsetTable key");
      if (!key.ok()) return key.status();
      if (!m.is_object())
        return InvalidArgument("TopicStatsTable: an offsetTable value is not an object");
      auto& [mq, off] = t.offset_table.emplace_back();
      r.String(key->root(), "topic", &mq.topic);
      r.String(key->root(), "brokerName", &mq.broker_name);
      r.Int(key->root(), "queueId", &mq.queue_id);
      r.Int(m, "minOffset", &off.min_offset);
      r.Int(m, "maxOffset", &off.max_offset);
      r.Int(m, "lastUpdateTimestamp", &off.last_update_timestamp);
    }
  }
  if (!r.status().ok()) return r.status();
  return t;
}

std::vector<uint8_t> TopicStatsTable::Encode() const {
  std::vector<uint8_t> out;
  Append(&out, "{\"offsetTable\":{");
  bool first = true;
  for (const auto& [mq, off] : offset_table) {
    if (!first) out.push_back(',');
    first = false;
    JsonWriter k(&out);  // the bare MessageQueue key
    k.BeginObject();
    k.Key("brokerName");
    k.String(mq.broker_name);
    k.Key("queueId");
    k.Int(mq.queue_id);
    k.Key("topic");
    k.String(mq.topic);
    k.EndObject();
    out.push_back(':');
    JsonWriter v(&out);
    v.BeginObject();
    v.Key("lastUpdateTimestamp");
    v.Int(off.last_update_timestamp);
    v.Key("maxOffset");
    v.Int(off.max_offset);
    v.Key("minOffset");
    v.Int(off.min_offset);
    v.EndObject();
  }
  Append(&out, "}}");
  return out;
}

// ---- TopicList --------------------------------------------------------------------------

Result<TopicList> TopicList::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, "TopicList"));
  Reader r("TopicList");
  TopicList t;
  if (const JsonNode* a = r.Container(tree.root(), "topicList", Kind::kArray)) {
    for (const JsonNode& e : a->children) {
      if (e.kind != Kind::kString) {
        r.Fail("topicList[]", "is not a string");
        break;
      }
      t.topic_list.emplace_back(e.text);
    }
  }
  r.String(tree.root(), "brokerAddr", &t.broker_addr);
  if (!r.status().ok()) return r.status();
  return t;
}

std::vector<uint8_t> TopicList::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  if (broker_addr) {
    w.Key("brokerAddr");
    w.String(*broker_addr);
  }
  w.Key("topicList");
  w.BeginArray();
  for (const std::string& t : topic_list) w.String(t);
  w.EndArray();
  w.EndObject();
  return out;
}

// ---- SubscriptionGroupConfigBody --------------------------------------------------------

Result<SubscriptionGroupConfigBody> SubscriptionGroupConfigBody::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, "SubscriptionGroupConfig"));
  Reader r("SubscriptionGroupConfig");
  const JsonNode& o = tree.root();
  SubscriptionGroupConfigBody c;
  r.String(o, "groupName", &c.group_name);
  r.Bool(o, "consumeEnable", &c.consume_enable);
  r.Bool(o, "consumeFromMinEnable", &c.consume_from_min_enable);
  r.Bool(o, "consumeBroadcastEnable", &c.consume_broadcast_enable);
  r.Int(o, "retryQueueNums", &c.retry_queue_nums);
  r.Int(o, "retryMaxTimes", &c.retry_max_times);
  r.Int(o, "brokerId", &c.broker_id);
  r.Int(o, "whichBrokerWhenConsumeSlowly", &c.which_broker_when_consume_slowly);
  r.Bool(o, "notifyConsumerIdsChangedEnable", &c.notify_consumer_ids_changed_enable);
  if (!r.status().ok()) return r.status();
  return c;
}

std::vector<uint8_t> SubscriptionGroupConfigBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("brokerId");
  w.Int(broker_id);
  w.Key("consumeBroadcastEnable");
  w.Bool(consume_broadcast_enable);
  w.Key("consumeEnable");
  w.Bool(consume_enable);
  w.Key("consumeFromMinEnable");
  w.Bool(consume_from_min_enable);
  w.Key("groupName");
  w.String(group_name);
  w.Key("notifyConsumerIdsChangedEnable");
  w.Bool(notify_consumer_ids_changed_enable);
  w.Key("retryMaxTimes");
  w.Int(retry_max_times);
  w.Key("retryQueueNums");
  w.Int(retry_queue_nums);
  w.Key("whichBrokerWhenConsumeSlowly");
  w.Int(which_broker_when_consume_slowly);
  w.EndObject();
  return out;
}

// ---- QueryConsumeQueueResponseBody ------------------------------------------------------

Result<QueryConsumeQueueResponseBody> QueryConsumeQueueResponseBody::Decode(std::string_view json) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, "QueryConsumeQueueResponseBody"));
  Reader r("QueryConsumeQueueResponseBody");
  const JsonNode& o = tree.root();
  QueryConsumeQueueResponseBody b;
  r.String(o, "filterData", &b.filter_data);
  r.Int(o, "maxQueueIndex", &b.max_queue_index);
  r.Int(o, "minQueueIndex", &b.min_queue_index);
  if (const JsonNode* s = r.Container(o, "subscriptionData", Kind::kObject)) {
    SubscriptionData& sd = b.subscription_data.emplace();
    r.String(*s, "topic", &sd.topic);
    r.String(*s, "subString", &sd.sub_string);
    r.String(*s, "expressionType", &sd.expression_type);
    r.Int(*s, "subVersion", &sd.sub_version);
  }
  if (const JsonNode* a = r.Container(o, "queueData", Kind::kArray)) {
    auto& units = b.queue_data.emplace();
    for (const JsonNode& e : a->children) {
      if (!e.is_object()) {
        r.Fail("queueData[]", "is not an object");
        break;
      }
      ConsumeQueueData& u = units.emplace_back();
      r.Int(e, "physicOffset", &u.physic_offset);
      r.Int(e, "physicSize", &u.physic_size);
      r.Int(e, "tagsCode", &u.tags_code);
      r.String(e, "extendDataJson", &u.extend_data_json);
      r.String(e, "bitMap", &u.bit_map);
      r.Bool(e, "eval", &u.eval);
      r.String(e, "msg", &u.msg);
    }
  }
  if (!r.status().ok()) return r.status();
  return b;
}

std::vector<uint8_t> QueryConsumeQueueResponseBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  auto opt = [&w](std::string_view key, const std::optional<std::string>& v) {
    if (!v) return;
    w.Key(key);
    w.String(*v);
  };
  w.BeginObject();
  opt("filterData", filter_data);
  w.Key("maxQueueIndex");
  w.Int(max_queue_index);
  w.Key("minQueueIndex");
  w.Int(min_queue_index);
  if (queue_data) {
    w.Key("queueData");
    w.BeginArray();
    for (const ConsumeQueueData& u : *queue_data) {
      w.BeginObject();
      opt("bitMap", u.bit_map);
      w.Key("eval");
      w.Bool(u.eval);
      opt("extendDataJson", u.extend_data_json);
      opt("msg", u.msg);
      w.Key("physicOffset");
      w.Int(u.physic_offset);
      w.Key("physicSize");
      w.Int(u.physic_size);
      w.Key("tagsCode");
      w.Int(u.tags_code);
      w.EndObject();
    }
    w.EndArray();
  }
  if (subscription_data) {
    w.Key("subscriptionData");
    internal::WriteSubscriptionData(w, *subscription_data);
  }
  w.EndObject();
  return out;
}

}  // namespace rocketstore::protocol
