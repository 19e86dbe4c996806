#include "protocol/bodies/client_bodies.h"

#include <limits>
#include <optional>

#include "protocol/internal/json_tree.h"
#include "protocol/internal/subscription_json.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

using internal::JsonNode;
using internal::JsonTree;
using internal::JsonWriter;
using Kind = JsonNode::Kind;

namespace {

// Reads typed members out of a JsonTree, keeping the first error. `path` is where `obj`
// sits in the body ("" for the root, "consumerDataSet[0]" below it).
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : body_(body) {}

  void String(const JsonNode& obj, const std::string& path, std::string_view key,
              std::string* out) {
    const JsonNode* v = Member(obj, key);
    if (v == nullptr) return;
    if (v->kind != Kind::kString) return Fail(path, key, "is not a string");
    out->assign(v->text);
  }
  void Bool(const JsonNode& obj, const std::string& path, std::string_view key, bool* out) {
    const JsonNode* v = Member(obj, key);
    if (v == nullptr) return;
    if (v->kind != Kind::kBool) return Fail(path, key, "is not a boolean");
    *out = v->boolean;
  }
  template <typename T>
  void Int(const JsonNode& obj, const std::string& path, std::string_view key, T* out) {
    const JsonNode* v = Member(obj, key);
    if (v != nullptr) IntValue(*v, path, key, out);
  }
  template <typename T>
  void IntValue(const JsonNode& v, const std::string& path, std::string_view key, T* out) {
    const std::optional<int64_t> n = v.kind == Kind::kNumber ? ParseJavaLong(v.text) : std::nullopt;
    if (!n || *n < std::numeric_limits<T>::min() || *n > std::numeric_limits<T>::max()) {
      return Fail(path, key, sizeof(T) == 4 ? "is not an int" : "is not a long");
    }
    *out = static_cast<T>(*n);
  }
  // The elements of array member `key`, or nullptr when it is absent, null or an error.
  const JsonNode* Array(const JsonNode& obj, const std::string& path, std::string_view key) {
    const JsonNode* v = Member(obj, key);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Fail(path, key, "is not an array");
      return nullptr;
    }
    return v;
  }
  // Whether `v` (element `i` of array `key`) is an object; records an error if not.
  bool IsObject(const JsonNode& v, const std::string& path, std::string_view key, size_t i) {
    if (v.is_object()) return true;
    Fail(path, Index(key, i), "is not an object");
    return false;
  }
  void StringList(const JsonNode& obj, const std::string& path, std::string_view key,
                  std::vector<std::string>* out) {
    const JsonNode* a = Array(obj, path, key);
    if (a == nullptr) return;
    for (size_t i = 0; i < a->children.size() && ok(); ++i) {
      const JsonNode& e = a->children[i];
      if (e.kind != Kind::kString) return Fail(path, Index(key, i), "is not a string");
      out->emplace_back(e.text);
    }
  }

  static std::string Join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  static std::string Index(std::string_view key, size_t i) {
    return std::string(key) + "[" + std::to_string(i) + "]";
  }
  void Fail(const std::string& path, std::string_view key, std::string_view what) {
    if (status_.ok()) {
      status_ =
          InvalidArgument(std::string(body_) + ": " + Join(path, key) + " " + std::string(what));
    }
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  // The member, or nullptr when absent, null, or after an error.
  const JsonNode* Member(const JsonNode& obj, std::string_view key) const {
    if (!ok()) return nullptr;
    const JsonNode* v = obj.Find(key);
    return (v == nullptr || v->kind == Kind::kNull) ? nullptr : v;
  }
  std::string_view body_;
  Status status_;
};

// Parses `json` and checks that the root is an object.
Result<JsonTree> ParseRoot(std::string_view json, std::string_view what) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, JsonTree::Parse(json, what));
  if (!tree.root().is_object()) {
    return InvalidArgument(std::string(what) + ": the body is not a JSON object");
  }
  return tree;
}

void ReadSubscription(BodyReader& r, const JsonNode& o, const std::string& path,
                      SubscriptionData* s) {
  r.Bool(o, path, "classFilterMode", &s->class_filter_mode);
  r.String(o, path, "topic", &s->topic);
  r.String(o, path, "subString", &s->sub_string);
  r.StringList(o, path, "tagsSet", &s->tags_set);
  if (const JsonNode* codes = r.Array(o, path, "codeSet")) {
    for (size_t i = 0; i < codes->children.size() && r.ok(); ++i) {
      int32_t code = 0;
      r.IntValue(codes->children[i], path, BodyReader::Index("codeSet", i), &code);
      s->code_set.push_back(code);
    }
  }
  r.Int(o, path, "subVersion", &s->sub_version);
  r.String(o, path, "expressionType", &s->expression_type);
}

void ReadConsumer(BodyReader& r, const JsonNode& o, const std::string& path, ConsumerData* c) {
  r.String(o, path, "groupName", &c->group_name);
  r.String(o, path, "consumeType", &c->consume_type);
  r.String(o, path, "messageModel", &c->message_model);
  r.String(o, path, "consumeFromWhere", &c->consume_from_where);
  if (const JsonNode* subs = r.Array(o, path, "subscriptionDataSet")) {
    for (size_t i = 0; i < subs->children.size() && r.ok(); ++i) {
      if (!r.IsObject(subs->children[i], path, "subscriptionDataSet", i)) break;
      ReadSubscription(r, subs->children[i],
                       BodyReader::Join(path, BodyReader::Index("subscriptionDataSet", i)),
                       &c->subscription_data_set.emplace_back());
    }
  }
  r.Bool(o, path, "unitMode", &c->unit_mode);
}

void ReadQueues(BodyReader& r, const JsonNode& root, std::string_view key,
                std::vector<MessageQueue>* out) {
  const JsonNode* a = r.Array(root, "", key);
  if (a == nullptr) return;
  for (size_t i = 0; i < a->children.size() && r.ok(); ++i) {
    const JsonNode& o = a->children[i];
    if (!r.IsObject(o, "", key, i)) return;
    const std::string path = BodyReader::Index(key, i);
    MessageQueue& q = out->emplace_back();
    r.String(o, path, "topic", &q.topic);
    r.String(o, path, "brokerName", &q.broker_name);
    r.Int(o, path, "queueId", &q.queue_id);
  }
}

void WriteQueues(JsonWriter& w, std::string_view key, const std::vector<MessageQueue>& queues) {
  w.Key(key);
  w.BeginArray();
  for (const MessageQueue& q : queues) {
    w.BeginObject();
    w.Key("brokerName");
    w.String(q.broker_name);
    w.Key("queueId");
    w.Int(q.queue_id);
    w.Key("topic");
    w.String(q.topic);
    w.EndObject();
  }
  w.EndArray();
}

void WriteStrings(JsonWriter& w, std::string_view key, const std::vector<std::string>& values) {
  w.Key(key);
  w.BeginArray();
  for (const std::string& v : values) w.String(v);
  w.EndArray();
}

}  // namespace

void internal::WriteSubscriptionData(JsonWriter& w, const SubscriptionData& s) {
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
  WriteStrings(w, "tagsSet", s.tags_set);
  w.Key("topic");
  w.String(s.topic);
  w.EndObject();
}

namespace {

void WriteConsumer(JsonWriter& w, const ConsumerData& c) {
  w.BeginObject();
  w.Key("consumeFromWhere");
  w.String(c.consume_from_where);
  w.Key("consumeType");
  w.String(c.consume_type);
  w.Key("groupName");
  w.String(c.group_name);
  w.Key("messageModel");
  w.String(c.message_model);
  w.Key("subscriptionDataSet");
  w.BeginArray();
  for (const SubscriptionData& s : c.subscription_data_set) internal::WriteSubscriptionData(w, s);
  w.EndArray();
  w.Key("unitMode");
  w.Bool(c.unit_mode);
  w.EndObject();
}

}  // namespace

Result<HeartbeatData> HeartbeatData::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "HeartbeatData";
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, kWhat));
  const JsonNode& root = tree.root();
  BodyReader r(kWhat);
  HeartbeatData h;
  r.String(root, "", "clientID", &h.client_id);
  if (const JsonNode* id = root.Find("clientID"); id == nullptr || id->kind == Kind::kNull) {
    r.Fail("", "clientID", "is missing");
  }
  if (const JsonNode* producers = r.Array(root, "", "producerDataSet")) {
    for (size_t i = 0; i < producers->children.size() && r.ok(); ++i) {
      const JsonNode& p = producers->children[i];
      if (!r.IsObject(p, "", "producerDataSet", i)) break;
      r.String(p, BodyReader::Index("producerDataSet", i), "groupName",
               &h.producer_data_set.emplace_back().group_name);
    }
  }
  if (const JsonNode* consumers = r.Array(root, "", "consumerDataSet")) {
    for (size_t i = 0; i < consumers->children.size() && r.ok(); ++i) {
      if (!r.IsObject(consumers->children[i], "", "consumerDataSet", i)) break;
      ReadConsumer(r, consumers->children[i], BodyReader::Index("consumerDataSet", i),
                   &h.consumer_data_set.emplace_back());
    }
  }
  if (!r.ok()) return r.status();
  return h;
}

Result<CheckClientRequestBody> CheckClientRequestBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "CheckClientRequestBody";
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, kWhat));
  const JsonNode& root = tree.root();
  BodyReader r(kWhat);
  CheckClientRequestBody b;
  r.String(root, "", "clientId", &b.client_id);
  r.String(root, "", "group", &b.group);
  if (const JsonNode* s = root.Find("subscriptionData"); s != nullptr && s->kind != Kind::kNull) {
    if (!s->is_object()) {
      r.Fail("", "subscriptionData", "is not an object");
    } else {
      ReadSubscription(r, *s, "subscriptionData", &b.subscription_data.emplace());
    }
  }
  if (!r.ok()) return r.status();
  return b;
}

std::vector<uint8_t> CheckClientRequestBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("clientId");
  w.String(client_id);
  w.Key("group");
  w.String(group);
  if (subscription_data) {
    w.Key("subscriptionData");
    internal::WriteSubscriptionData(w, *subscription_data);
  }
  w.EndObject();
  return out;
}

std::vector<uint8_t> HeartbeatData::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("clientID");
  w.String(client_id);
  w.Key("consumerDataSet");
  w.BeginArray();
  for (const ConsumerData& c : consumer_data_set) WriteConsumer(w, c);
  w.EndArray();
  w.Key("producerDataSet");
  w.BeginArray();
  for (const ProducerData& p : producer_data_set) {
    w.BeginObject();
    w.Key("groupName");
    w.String(p.group_name);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

Result<ConsumerListBody> ConsumerListBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "ConsumerListBody";
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, kWhat));
  BodyReader r(kWhat);
  ConsumerListBody b;
  r.StringList(tree.root(), "", "consumerIdList", &b.consumer_id_list);
  if (!r.ok()) return r.status();
  return b;
}

std::vector<uint8_t> ConsumerListBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  WriteStrings(w, "consumerIdList", consumer_id_list);
  w.EndObject();
  return out;
}

namespace {

// LockBatchRequestBody and UnlockBatchRequestBody have the same fields.
template <typename B>
Result<B> DecodeLockRequest(std::string_view json, std::string_view what) {
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, what));
  BodyReader r(what);
  B b;
  r.String(tree.root(), "", "consumerGroup", &b.consumer_group);
  r.String(tree.root(), "", "clientId", &b.client_id);
  ReadQueues(r, tree.root(), "mqSet", &b.mq_set);
  if (!r.ok()) return r.status();
  return b;
}

template <typename B>
std::vector<uint8_t> EncodeLockRequest(const B& b) {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("clientId");
  w.String(b.client_id);
  w.Key("consumerGroup");
  w.String(b.consumer_group);
  WriteQueues(w, "mqSet", b.mq_set);
  w.EndObject();
  return out;
}

}  // namespace

Result<LockBatchRequestBody> LockBatchRequestBody::Decode(std::string_view json) {
  return DecodeLockRequest<LockBatchRequestBody>(json, "LockBatchRequestBody");
}
std::vector<uint8_t> LockBatchRequestBody::Encode() const { return EncodeLockRequest(*this); }

Result<UnlockBatchRequestBody> UnlockBatchRequestBody::Decode(std::string_view json) {
  return DecodeLockRequest<UnlockBatchRequestBody>(json, "UnlockBatchRequestBody");
}
std::vector<uint8_t> UnlockBatchRequestBody::Encode() const { return EncodeLockRequest(*this); }

Result<LockBatchResponseBody> LockBatchResponseBody::Decode(std::string_view json) {
  constexpr std::string_view kWhat = "LockBatchResponseBody";
  RS_ASSIGN_OR_RETURN(JsonTree tree, ParseRoot(json, kWhat));
  BodyReader r(kWhat);
  LockBatchResponseBody b;
  ReadQueues(r, tree.root(), "lockOKMQSet", &b.lock_ok_mq_set);
  if (!r.ok()) return r.status();
  return b;
}

std::vector<uint8_t> LockBatchResponseBody::Encode() const {
  std::vector<uint8_t> out;
  JsonWriter w(&out);
  w.BeginObject();
  WriteQueues(w, "lockOKMQSet", lock_ok_mq_set);
  w.EndObject();
  return out;
}

}  // namespace rocketstore::protocol
