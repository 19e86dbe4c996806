#include "broker/metadata.h"

#include <fcntl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "protocol/json_util.h"

namespace rocketstore::broker {

namespace {
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

int64_t WallMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// RocketMQ's "dataVersion" object, shared by topics.json and subscriptionGroup.json.
template <typename W>
void WriteDataVersion(W& w, const DataVersion& v) {
  w.Key("dataVersion");
  w.StartObject();
  w.Key("counter");
  w.Int64(v.counter);
  w.Key("stateVersion");
  w.Int64(0);
  w.Key("timestamp");
  w.Int64(v.timestamp);
  w.EndObject();
}

Status Errno(const std::string& what) { return Internal(what + ": " + std::strerror(errno)); }

std::string DirOf(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Callers read the document through a `const rapidjson::Value&`: RapidJSON 1.1.0 compares
// mutable member iterators only through a converting operator==, which C++20's reversed
// operators make ambiguous (clang rejects it); const iterators compare exactly.
Result<rapidjson::Document> LoadJson(const std::string& path) {
  RS_ASSIGN_OR_RETURN(std::string text, ReadFileOrBackup(path));
  std::string fixed = protocol::QuoteBareIntegerKeys(text);
  rapidjson::Document doc;
  doc.Parse(fixed.data(), fixed.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    // Try the backup explicitly.
    auto bak = ReadFileOrBackup(path + ".bak");
    if (bak.ok()) {
      fixed = protocol::QuoteBareIntegerKeys(*bak);
      doc.Parse(fixed.data(), fixed.size());
    }
    if (doc.HasParseError() || !doc.IsObject()) return Corruption(path + " is not valid JSON");
  }
  return doc;
}

int32_t IntOr(const rapidjson::Value& v, const char* key, int32_t dflt) {
  auto it = v.FindMember(key);
  return (it != v.MemberEnd() && it->value.IsInt()) ? it->value.GetInt() : dflt;
}

void ReadVersion(const rapidjson::Document& doc, DataVersion& v) {
  auto it = doc.FindMember("dataVersion");
  if (it == doc.MemberEnd() || !it->value.IsObject()) return;
  auto c = it->value.FindMember("counter");
  if (c != it->value.MemberEnd() && c->value.IsInt64()) v.counter = c->value.GetInt64();
  auto t = it->value.FindMember("timestamp");
  if (t != it->value.MemberEnd() && t->value.IsInt64()) v.timestamp = t->value.GetInt64();
}
}  // namespace

Status AtomicWriteFile(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("open " + tmp);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = Errno("write " + tmp);
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = Errno("fsync " + tmp);
    ::close(fd);
    return s;
  }
  ::close(fd);
  // Keep the previous version as .bak (hard link, so the target is never missing).
  const std::string bak = path + ".bak";
  ::unlink(bak.c_str());
  if (::link(path.c_str(), bak.c_str()) != 0 && errno != ENOENT) return Errno("link " + bak);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno("rename " + tmp);
  int dfd = ::open(DirOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return Errno("open dir of " + path);
  int r = ::fsync(dfd);
  ::close(dfd);
  if (r != 0) return Errno("fsync dir of " + path);
  return Status::OK();
}

Result<std::string> ReadFileOrBackup(const std::string& path) {
  for (const std::string& p : {path, path + ".bak"}) {
    std::ifstream in(p, std::ios::binary);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (!text.empty()) return text;
  }
  return NotFound(path + " not found");
}

bool IsValidTopicName(std::string_view name) {
  const bool sys = name.starts_with("%RETRY%") || name.starts_with("%DLQ%");
  if (name.empty() || name.size() > (sys ? 255u : 127u)) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '%' || c == '|' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string DataVersion::ToJson() const {
  return "{\"counter\":" + std::to_string(counter) +
         ",\"stateVersion\":0,\"timestamp\":" + std::to_string(timestamp) + "}";
}

// ---------------- topics ----------------

Status TopicConfigManager::Load() {
  auto doc = LoadJson(path_);
  if (!doc.ok()) {
    return doc.status().code() == StatusCode::kNotFound ? Status::OK() : doc.status();
  }
  std::lock_guard lock(mu_);
  ReadVersion(*doc, version_);
  const rapidjson::Value& root = *doc;  // read through const iterators (see LoadJson)
  auto table = root.FindMember("topicConfigTable");
  if (table == root.MemberEnd() || !table->value.IsObject()) return Status::OK();
  for (const auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    TopicConfig c;
    c.name = m.name.GetString();
    c.read_queue_nums = IntOr(m.value, "readQueueNums", 4);
    c.write_queue_nums = IntOr(m.value, "writeQueueNums", 4);
    c.perm = IntOr(m.value, "perm", 6);
    c.sys_flag = IntOr(m.value, "topicSysFlag", 0);
    auto f = m.value.FindMember("topicFilterType");
    if (f != m.value.MemberEnd() && f->value.IsString()) c.filter_type = f->value.GetString();
    auto o = m.value.FindMember("order");
    if (o != m.value.MemberEnd() && o->value.IsBool()) c.order = o->value.GetBool();
    topics_[c.name] = c;
  }
  return Status::OK();
}

std::string TopicConfigManager::ToJsonLocked() const {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  WriteDataVersion(w, version_);
  w.Key("topicConfigTable");
  w.StartObject();
  for (const auto& [name, c] : topics_) {
    w.Key(name.c_str());
    w.StartObject();
    w.Key("attributes");
    w.StartObject();
    w.EndObject();
    w.Key("order");
    w.Bool(c.order);
    w.Key("perm");
    w.Int(c.perm);
    w.Key("readQueueNums");
    w.Int(c.read_queue_nums);
    w.Key("topicFilterType");
    w.String(c.filter_type.c_str());
    w.Key("topicName");
    w.String(c.name.c_str());
    w.Key("topicSysFlag");
    w.Int(c.sys_flag);
    w.Key("writeQueueNums");
    w.Int(c.write_queue_nums);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string TopicConfigManager::ToJson() const {
  std::lock_guard lock(mu_);
  return ToJsonLocked();
}

Status TopicConfigManager::Persist() const {
  std::string text = ToJson();
  return AtomicWriteFile(path_, text);
}

std::optional<TopicConfig> TopicConfigManager::Find(std::string_view topic) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return it->second;
}

void TopicConfigManager::BumpLocked() {
  version_.counter++;
  version_.timestamp = WallMillis();
}

bool TopicConfigManager::Upsert(const TopicConfig& config) {
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(config.name);
    if (it != topics_.end() && it->second == config) return false;
    topics_[config.name] = config;
    BumpLocked();
  }
  (void)Persist();
  return true;
}

std::optional<TopicConfig> TopicConfigManager::CreateFromTemplate(std::string_view topic,
                                                                  std::string_view template_topic,
                                                                  int32_t queues) {
  auto tmpl = Find(template_topic);
  if (!tmpl || (tmpl->perm & kPermInherit) == 0) return std::nullopt;
  TopicConfig c;
  c.name = std::string(topic);
  c.read_queue_nums = c.write_queue_nums = std::max(1, std::min(queues, tmpl->write_queue_nums));
  c.perm = tmpl->perm & ~kPermInherit;
  c.filter_type = tmpl->filter_type;
  Upsert(c);
  return c;
}

TopicConfig TopicConfigManager::EnsureSystemTopic(std::string_view topic, int32_t queues) {
  if (auto c = Find(topic)) return *c;
  TopicConfig c;
  c.name = std::string(topic);
  c.read_queue_nums = c.write_queue_nums = queues;
  Upsert(c);
  return c;
}

DataVersion TopicConfigManager::data_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

// ---------------- consumer offsets ----------------

Status ConsumerOffsetManager::Load() {
  auto doc = LoadJson(path_);
  if (!doc.ok()) {
    return doc.status().code() == StatusCode::kNotFound ? Status::OK() : doc.status();
  }
  std::lock_guard lock(mu_);
  const rapidjson::Value& root = *doc;  // read through const iterators (see LoadJson)
  auto table = root.FindMember("offsetTable");
  if (table == root.MemberEnd() || !table->value.IsObject()) return Status::OK();
  for (const auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    auto& queues = table_[m.name.GetString()];
    for (const auto& q : m.value.GetObject()) {
      if (!q.value.IsInt64()) continue;
      queues[std::atoi(q.name.GetString())] = q.value.GetInt64();
    }
  }
  return Status::OK();
}

std::string ConsumerOffsetManager::ToJson() const {
  std::lock_guard lock(mu_);
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("offsetTable");
  w.StartObject();
  for (const auto& [key, queues] : table_) {
    w.Key(key.c_str());
    w.StartObject();
    for (const auto& [q, off] : queues) {
      w.Key(std::to_string(q).c_str());
      w.Int64(off);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  dirty_ = false;
  return std::string(sb.GetString(), sb.GetSize());
}

Status ConsumerOffsetManager::Persist() const { return AtomicWriteFile(path_, ToJson()); }

void ConsumerOffsetManager::Commit(std::string_view group, std::string_view topic, int32_t queue_id,
                                   int64_t offset) {
  if (offset < 0) return;
  std::string key = std::string(topic) + "@" + std::string(group);
  std::lock_guard lock(mu_);
  table_[key][queue_id] = offset;
  dirty_ = true;
}

int64_t ConsumerOffsetManager::Query(std::string_view group, std::string_view topic,
                                     int32_t queue_id) const {
  std::string key = std::string(topic) + "@" + std::string(group);
  std::lock_guard lock(mu_);
  auto it = table_.find(key);
  if (it == table_.end()) return -1;
  auto q = it->second.find(queue_id);
  return q == it->second.end() ? -1 : q->second;
}

// ---------------- subscription groups ----------------

Status SubscriptionGroupManager::Load() {
  auto doc = LoadJson(path_);
  if (!doc.ok()) {
    return doc.status().code() == StatusCode::kNotFound ? Status::OK() : doc.status();
  }
  std::lock_guard lock(mu_);
  ReadVersion(*doc, version_);
  const rapidjson::Value& root = *doc;  // read through const iterators (see LoadJson)
  auto table = root.FindMember("subscriptionGroupTable");
  if (table == root.MemberEnd() || !table->value.IsObject()) return Status::OK();
  for (const auto& m : table->value.GetObject()) {
    if (!m.value.IsObject()) continue;
    SubscriptionGroupConfig g;
    g.name = m.name.GetString();
    g.retry_queue_nums = IntOr(m.value, "retryQueueNums", 1);
    g.retry_max_times = IntOr(m.value, "retryMaxTimes", 16);
    groups_[g.name] = g;
  }
  return Status::OK();
}

std::string SubscriptionGroupManager::ToJson() const {
  std::lock_guard lock(mu_);
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  WriteDataVersion(w, version_);
  w.Key("subscriptionGroupTable");
  w.StartObject();
  for (const auto& [name, g] : groups_) {
    w.Key(name.c_str());
    w.StartObject();
    w.Key("brokerId");
    w.Int(0);
    w.Key("consumeBroadcastEnable");
    w.Bool(true);
    w.Key("consumeEnable");
    w.Bool(g.consume_enable);
    w.Key("consumeFromMinEnable");
    w.Bool(true);
    w.Key("groupName");
    w.String(name.c_str());
    w.Key("notifyConsumerIdsChangedEnable");
    w.Bool(true);
    w.Key("retryMaxTimes");
    w.Int(g.retry_max_times);
    w.Key("retryQueueNums");
    w.Int(g.retry_queue_nums);
    w.Key("whichBrokerWhenConsumeSlowly");
    w.Int(1);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

Status SubscriptionGroupManager::Persist() const { return AtomicWriteFile(path_, ToJson()); }

SubscriptionGroupConfig SubscriptionGroupManager::FindOrCreate(std::string_view group) {
  {
    std::lock_guard lock(mu_);
    auto it = groups_.find(group);
    if (it != groups_.end()) return it->second;
    SubscriptionGroupConfig g;
    g.name = std::string(group);
    groups_[g.name] = g;
    version_.counter++;
    version_.timestamp = WallMillis();
  }
  (void)Persist();
  return FindOrCreate(group);
}

}  // namespace rocketstore::broker
