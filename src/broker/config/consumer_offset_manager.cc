#include "broker/config/consumer_offset_manager.h"

#include <charconv>

#include "broker/config/config_json.h"

namespace rocketstore::broker {

namespace cj = config_json;

namespace {
std::string Key(std::string_view group, std::string_view topic) {
  std::string key;
  key.reserve(topic.size() + 1 + group.size());
  key.append(topic).push_back('@');
  key.append(group);
  return key;
}
}  // namespace

Status ConsumerOffsetManager::DecodeLocked(std::string_view json) {
  RS_ASSIGN_OR_RETURN(rapidjson::Document doc, cj::ParseObject(json));
  const rapidjson::Value& root = doc;
  std::map<std::string, std::map<int32_t, int64_t>, std::less<>> table;
  if (const rapidjson::Value* offsets = cj::ObjectMember(root, "offsetTable")) {
    for (const auto& m : offsets->GetObject()) {
      const std::string key(m.name.GetString(), m.name.GetStringLength());
      if (!m.value.IsObject()) return Corruption("offsetTable." + key + " is not an object");
      auto& queues = table[key];
      for (const auto& q : m.value.GetObject()) {
        std::string_view id(q.name.GetString(), q.name.GetStringLength());
        int32_t queue_id = 0;
        auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), queue_id);
        if (ec != std::errc() || end != id.data() + id.size() || !q.value.IsInt64()) {
          return Corruption("offsetTable." + key + " has a bad entry " + cj::ToText(q.name));
        }
        queues[queue_id] = q.value.GetInt64();
      }
    }
  } else if (root.HasMember("offsetTable")) {
    return Corruption("offsetTable is not an object");
  }
  table_ = std::move(table);
  unknown_top_level_ = cj::UnknownMembers(root, {"offsetTable"});
  return Status::OK();
}

std::string ConsumerOffsetManager::EncodeLocked() const {
  cj::JsonObjectText table;
  for (const auto& [key, queues] : table_) {
    cj::JsonObjectText q;
    for (const auto& [id, off] : queues) q.SetInt(std::to_string(id), off);
    table.Set(key, q.Text());
  }
  cj::JsonObjectText root;
  root.Set("offsetTable", table.Text());
  root.Keep(unknown_top_level_);
  return root.Text();
}

void ConsumerOffsetManager::Commit(std::string_view group, std::string_view topic, int32_t queue_id,
                                   int64_t offset) {
  if (offset < 0) return;
  std::string key = Key(group, topic);
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = table_[std::move(key)].try_emplace(queue_id, offset);
    if (!inserted) {
      if (it->second == offset) return;
      it->second = offset;
    }
    MarkDirtyLocked();
  }
  NotifyChanged();
}

namespace {
// "topic@group" -> its two halves (a topic has no '@').
std::pair<std::string_view, std::string_view> SplitKey(std::string_view key) {
  const size_t at = key.find('@');
  if (at == std::string_view::npos) return {key, {}};
  return {key.substr(0, at), key.substr(at + 1)};
}
}  // namespace

std::set<std::string> ConsumerOffsetManager::TopicsOf(std::string_view group) const {
  std::set<std::string> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, queues] : table_) {
    auto [topic, g] = SplitKey(key);
    if (g == group) out.emplace(topic);
  }
  return out;
}

int ConsumerOffsetManager::RemoveTopic(std::string_view topic) {
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = static_cast<int>(
        std::erase_if(table_, [topic](const auto& e) { return SplitKey(e.first).first == topic; }));
    if (n > 0) MarkDirtyLocked();
  }
  if (n > 0) NotifyChanged();
  return n;
}

int ConsumerOffsetManager::RemoveGroup(std::string_view group) {
  int n = 0;
  {
    std::lock_guard lock(mu_);
    n = static_cast<int>(std::erase_if(
        table_, [group](const auto& e) { return SplitKey(e.first).second == group; }));
    if (n > 0) MarkDirtyLocked();
  }
  if (n > 0) NotifyChanged();
  return n;
}

bool ConsumerOffsetManager::Clone(std::string_view src, std::string_view dst,
                                  std::string_view topic) {
  {
    std::lock_guard lock(mu_);
    auto it = table_.find(Key(src, topic));
    if (it == table_.end()) return false;
    std::map<int32_t, int64_t> copy = it->second;
    table_[Key(dst, topic)] = std::move(copy);
    MarkDirtyLocked();
  }
  NotifyChanged();
  return true;
}

int64_t ConsumerOffsetManager::Query(std::string_view group, std::string_view topic,
                                     int32_t queue_id) const {
  const std::string key = Key(group, topic);
  std::lock_guard lock(mu_);
  auto it = table_.find(key);
  if (it == table_.end()) return -1;
  auto q = it->second.find(queue_id);
  return q == it->second.end() ? -1 : q->second;
}

std::map<int32_t, int64_t> ConsumerOffsetManager::QueryAll(std::string_view group,
                                                           std::string_view topic) const {
  const std::string key = Key(group, topic);
  std::lock_guard lock(mu_);
  auto it = table_.find(key);
  return it == table_.end() ? std::map<int32_t, int64_t>{} : it->second;
}

std::set<std::string> ConsumerOffsetManager::Groups() const {
  std::set<std::string> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, queues] : table_) {
    const size_t at = key.rfind('@');
    if (at != std::string::npos) out.insert(key.substr(at + 1));
  }
  return out;
}

std::set<std::string> ConsumerOffsetManager::GroupsOf(std::string_view topic) const {
  std::set<std::string> out;
  std::lock_guard lock(mu_);
  for (const auto& [key, queues] : table_) {
    const size_t at = key.find('@');
    if (at != std::string::npos && std::string_view(key).substr(0, at) == topic) {
      out.insert(key.substr(at + 1));
    }
  }
  return out;
}

namespace {
// "topic@group" with both parts non-empty (Snapshot's rule).
bool IsPairKey(std::string_view key) {
  const size_t at = key.find('@');
  return at != std::string_view::npos && at != 0 && at + 1 != key.size();
}
}  // namespace

std::vector<std::pair<std::string, std::string>> ConsumerOffsetManager::PairsAfter(
    std::string_view after_key, size_t max) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard lock(mu_);
  for (auto it = table_.upper_bound(after_key); it != table_.end() && out.size() < max; ++it) {
    if (!IsPairKey(it->first)) continue;
    const size_t at = it->first.find('@');
    out.emplace_back(it->first.substr(0, at), it->first.substr(at + 1));
  }
  return out;
}

size_t ConsumerOffsetManager::CountPairsAfter(std::string_view after_key) const {
  size_t n = 0;
  std::lock_guard lock(mu_);
  for (auto it = table_.upper_bound(after_key); it != table_.end(); ++it) {
    n += IsPairKey(it->first) ? 1 : 0;
  }
  return n;
}

std::vector<ConsumerOffsetManager::Entry> ConsumerOffsetManager::Snapshot() const {
  std::vector<Entry> out;
  std::lock_guard lock(mu_);
  out.reserve(table_.size());
  for (const auto& [key, offsets] : table_) {
    const size_t at = key.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == key.size()) continue;
    out.push_back(Entry{key.substr(0, at), key.substr(at + 1), offsets});
  }
  return out;
}

void ConsumerOffsetManager::RecordPull(std::string_view group, std::string_view topic,
                                       int32_t queue_id, int64_t next_offset) {
  if (next_offset < 0) return;
  const std::string key = Key(group, topic);
  std::lock_guard lock(pull_mu_);
  pulls_[key][queue_id] = next_offset;
}

int64_t ConsumerOffsetManager::QueryPull(std::string_view group, std::string_view topic,
                                         int32_t queue_id) const {
  const std::string key = Key(group, topic);
  std::lock_guard lock(pull_mu_);
  auto it = pulls_.find(key);
  if (it == pulls_.end()) return -1;
  auto q = it->second.find(queue_id);
  return q == it->second.end() ? -1 : q->second;
}

}  // namespace rocketstore::broker
