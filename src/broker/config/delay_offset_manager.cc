#include "broker/config/delay_offset_manager.h"

#include <charconv>

#include "broker/config/config_json.h"

namespace rocketstore::broker {

namespace cj = config_json;

Status DelayOffsetManager::DecodeLocked(std::string_view json) {
  RS_ASSIGN_OR_RETURN(rapidjson::Document doc, cj::ParseObject(json));
  const rapidjson::Value& root = doc;
  std::map<int, int64_t> table;
  if (const rapidjson::Value* offsets = cj::ObjectMember(root, "offsetTable")) {
    for (const auto& m : offsets->GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      int level = 0;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), level);
      if (ec != std::errc() || end != key.data() + key.size() || !m.value.IsInt64()) {
        return Corruption("offsetTable has a bad entry " + cj::ToText(m.name) + ":" +
                          cj::ToText(m.value));
      }
      table[level] = m.value.GetInt64();
    }
  } else if (root.HasMember("offsetTable")) {
    return Corruption("offsetTable is not an object");
  }
  table_ = std::move(table);
  unknown_top_level_ = cj::UnknownMembers(root, {"offsetTable"});
  return Status::OK();
}

std::string DelayOffsetManager::EncodeLocked() const {
  // fastjson writes Map<Integer, Long> keys bare: {1:5,2:0}.
  std::string table = "{";
  for (const auto& [level, offset] : table_) {
    if (table.size() > 1) table.push_back(',');
    table += std::to_string(level) + ":" + std::to_string(offset);
  }
  table.push_back('}');
  cj::JsonObjectText root;
  root.Set("offsetTable", table);
  root.Keep(unknown_top_level_);
  return root.Text();
}

void DelayOffsetManager::Commit(int level, int64_t offset) {
  if (offset < 0) return;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = table_.try_emplace(level, offset);
    if (!inserted) {
      if (it->second == offset) return;
      it->second = offset;
    }
    MarkDirtyLocked();
  }
  NotifyChanged();
}

int64_t DelayOffsetManager::Query(int level) const {
  std::lock_guard lock(mu_);
  auto it = table_.find(level);
  return it == table_.end() ? -1 : it->second;
}

std::map<int, int64_t> DelayOffsetManager::All() const {
  std::lock_guard lock(mu_);
  return table_;
}

}  // namespace rocketstore::broker
