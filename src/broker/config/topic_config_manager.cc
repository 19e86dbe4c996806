#include "broker/config/topic_config_manager.h"

#include <algorithm>

#include "broker/config/config_json.h"
#include "broker/config/data_version_json.h"

namespace rocketstore::broker {

namespace cj = config_json;

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

namespace {

TopicConfig DecodeTopic(std::string name, const rapidjson::Value& v) {
  TopicConfig c;
  c.name = std::move(name);
  c.read_queue_nums = cj::IntOr(v, "readQueueNums", c.read_queue_nums);
  c.write_queue_nums = cj::IntOr(v, "writeQueueNums", c.write_queue_nums);
  c.perm = cj::IntOr(v, "perm", c.perm);
  c.filter_type = cj::StringOr(v, "topicFilterType", c.filter_type);
  c.sys_flag = cj::IntOr(v, "topicSysFlag", c.sys_flag);
  c.order = cj::BoolOr(v, "order", c.order);
  // "topicName" is the table key again.
  c.unknown_fields =
      cj::UnknownMembers(v, {"topicName", "readQueueNums", "writeQueueNums", "perm",
                             "topicFilterType", "topicSysFlag", "order", "attributes"});
  auto attrs = v.FindMember("attributes");
  if (attrs == v.MemberEnd()) return c;
  bool typed = attrs->value.IsObject();
  if (typed) {
    for (const auto& a : attrs->value.GetObject()) typed = typed && a.value.IsString();
  }
  if (!typed) {  // not the 5.x string map: kept verbatim
    c.unknown_fields["attributes"] = cj::ToText(attrs->value);
    return c;
  }
  for (const auto& a : attrs->value.GetObject()) {
    c.attributes[a.name.GetString()] = std::string(a.value.GetString(), a.value.GetStringLength());
  }
  return c;
}

std::string EncodeTopic(const TopicConfig& c) {
  cj::JsonObjectText o;
  cj::JsonObjectText attrs;
  for (const auto& [k, v] : c.attributes) attrs.SetString(k, v);
  if (!c.unknown_fields.contains("attributes")) o.Set("attributes", attrs.Text());
  o.SetBool("order", c.order);
  o.SetInt("perm", c.perm);
  o.SetInt("readQueueNums", c.read_queue_nums);
  o.SetString("topicFilterType", c.filter_type);
  o.SetString("topicName", c.name);
  o.SetInt("topicSysFlag", c.sys_flag);
  o.SetInt("writeQueueNums", c.write_queue_nums);
  o.Keep(c.unknown_fields);
  return o.Text();
}

}  // namespace

Status TopicConfigManager::DecodeLocked(std::string_view json) {
  RS_ASSIGN_OR_RETURN(rapidjson::Document doc, cj::ParseObject(json));
  const rapidjson::Value& root = doc;
  std::map<std::string, TopicConfig, std::less<>> topics;
  RS_RETURN_IF_ERROR(cj::DecodeTable(root, "topicConfigTable", DecodeTopic, &topics));
  topics_ = std::move(topics);
  ReindexLocked();
  version_ = DecodeDataVersion(root);
  unknown_top_level_ = cj::UnknownMembers(root, {"dataVersion", "topicConfigTable"});
  return Status::OK();
}

std::string TopicConfigManager::EncodeLocked() const {
  return cj::EncodeVersionedTable(version_.ToJson(), "topicConfigTable", topics_, EncodeTopic,
                                  unknown_top_level_);
}

std::string TopicConfigManager::RegistrationJson(int32_t broker_perm) const {
  const bool full = (broker_perm & kPermRead) != 0 && (broker_perm & kPermWrite) != 0;
  std::lock_guard lock(mu_);
  if (full) return EncodeLocked();
  std::map<std::string, TopicConfig, std::less<>> masked = topics_;
  for (auto& [name, c] : masked) c.perm = broker_perm;
  return cj::EncodeVersionedTable(version_.ToJson(), "topicConfigTable", masked, EncodeTopic,
                                  unknown_top_level_);
}

void TopicConfigManager::BumpDataVersion() {
  {
    std::lock_guard lock(mu_);
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
}

std::optional<TopicConfig> TopicConfigManager::Find(std::string_view topic) const {
  std::lock_guard lock(mu_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return it->second;
}

size_t TopicConfigManager::Count() const {
  std::lock_guard lock(mu_);
  return topics_.size();
}

std::vector<TopicConfig> TopicConfigManager::List() const {
  std::lock_guard lock(mu_);
  std::vector<TopicConfig> out;
  out.reserve(topics_.size());
  for (const auto& [name, c] : topics_) out.push_back(c);
  return out;
}

bool TopicConfigManager::UpsertLocked(const TopicConfig& config) {
  auto it = topics_.find(config.name);
  if (it != topics_.end() && it->second == config) return false;
  if (it == topics_.end()) {
    it = topics_.emplace(config.name, config).first;
    by_name_.emplace(it->first, &it->second);
  } else {
    it->second = config;  // the node stays where by_name_ points
  }
  BumpLocked(version_);
  MarkDirtyLocked();
  return true;
}

void TopicConfigManager::ReindexLocked() {
  by_name_.clear();
  for (const auto& [name, config] : topics_) by_name_.emplace(name, &config);
}

bool TopicConfigManager::Upsert(const TopicConfig& config) {
  bool changed;
  {
    std::lock_guard lock(mu_);
    changed = UpsertLocked(config);
  }
  if (changed) NotifyChanged();
  return changed;
}

bool TopicConfigManager::Delete(std::string_view topic) {
  {
    std::lock_guard lock(mu_);
    auto it = topics_.find(topic);
    if (it == topics_.end()) return false;
    by_name_.erase(std::string_view(it->first));
    topics_.erase(it);
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return true;
}

std::optional<TopicConfig> TopicConfigManager::CreateFromTemplate(std::string_view topic,
                                                                  std::string_view template_topic,
                                                                  int32_t queues) {
  TopicConfig c;
  {
    std::lock_guard lock(mu_);
    if (auto it = topics_.find(topic); it != topics_.end()) return it->second;
    auto tmpl = topics_.find(template_topic);
    if (tmpl == topics_.end() || (tmpl->second.perm & kPermInherit) == 0) return std::nullopt;
    c.name = std::string(topic);
    c.read_queue_nums = c.write_queue_nums =
        std::max(1, std::min(queues, tmpl->second.write_queue_nums));
    c.perm = tmpl->second.perm & ~kPermInherit;
    c.filter_type = tmpl->second.filter_type;
    UpsertLocked(c);
  }
  NotifyChanged();
  return c;
}

TopicConfig TopicConfigManager::EnsureSystemTopic(std::string_view topic, int32_t queues) {
  TopicConfig c;
  {
    std::lock_guard lock(mu_);
    if (auto it = topics_.find(topic); it != topics_.end()) return it->second;
    c.name = std::string(topic);
    c.read_queue_nums = c.write_queue_nums = queues;
    UpsertLocked(c);
  }
  NotifyChanged();
  return c;
}

int TopicConfigManager::AddMissing(const std::vector<TopicConfig>& topics) {
  int added = 0;
  {
    std::lock_guard lock(mu_);
    for (const TopicConfig& t : topics) {
      auto [it, inserted] = topics_.emplace(t.name, t);
      if (!inserted) continue;
      by_name_.emplace(it->first, &it->second);
      ++added;
    }
    if (added == 0) return 0;
    BumpLocked(version_);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return added;
}

DataVersion TopicConfigManager::data_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

}  // namespace rocketstore::broker
