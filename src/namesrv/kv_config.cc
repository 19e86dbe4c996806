#include "namesrv/kv_config.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "io/atomic_file.h"

namespace rocketstore::namesrv {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteStringMap(Writer& w, const std::map<std::string, std::string>& m) {
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
}

using Table = std::map<std::string, std::map<std::string, std::string>>;

Result<Table> ParseFile(std::string_view content) {
  rapidjson::Document parsed;
  parsed.Parse(content.data(), content.size());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    return Corruption("kvConfig.json is not a JSON object");
  }
  const rapidjson::Value& doc = parsed;
  Table out;
  auto ct = doc.FindMember("configTable");
  if (ct == doc.MemberEnd() || ct->value.IsNull()) return out;
  if (!ct->value.IsObject()) return Corruption("kvConfig.json: configTable is not an object");
  for (const auto& ns : ct->value.GetObject()) {
    if (!ns.value.IsObject()) {
      return Corruption(std::string("kvConfig.json: namespace ") + ns.name.GetString() +
                        " is not an object");
    }
    auto& kv = out[ns.name.GetString()];
    for (const auto& e : ns.value.GetObject()) {
      if (e.value.IsString()) {
        kv[e.name.GetString()] = std::string(e.value.GetString(), e.value.GetStringLength());
      } else if (!e.value.IsNull()) {
        return Corruption(std::string("kvConfig.json: value of ") + e.name.GetString() +
                          " is not a string");
      }
    }
  }
  return out;
}

}  // namespace

std::string KvConfigFileJson(const Table& t) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  w.Key("configTable");
  w.StartObject();
  for (const auto& [ns, kv] : t) {
    w.Key(ns.c_str(), static_cast<rapidjson::SizeType>(ns.size()));
    WriteStringMap(w, kv);
  }
  w.EndObject();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

Status KvConfigStore::Load() {
  if (path_.empty() || fs_ == nullptr) return Status::OK();
  auto file =
      ReadFileOrBackup(*fs_, path_, [](std::string_view c) { return ParseFile(c).status(); });
  if (!file.ok()) {
    if (file.status().code() == StatusCode::kNotFound) return Status::OK();
    return file.status().WithContext("cannot load the name server's KV config " + path_);
  }
  auto table = ParseFile(file->content);
  if (!table.ok()) return table.status();
  std::lock_guard lock(mu_);
  table_ = std::move(*table);
  return Status::OK();
}

Status KvConfigStore::PersistLocked(const Table& table) {
  if (path_.empty() || fs_ == nullptr) return Status::OK();
  if (Status s = fs_->CreateDirs(ParentDir(path_)); !s.ok()) {
    return s.WithContext("cannot create the directory of " + path_);
  }
  Status s = WriteFileAtomically(*fs_, path_, KvConfigFileJson(table));
  if (!s.ok()) return s.WithContext("cannot write the name server's KV config " + path_);
  return Status::OK();
}

Status KvConfigStore::Put(const std::string& ns, const std::string& key, const std::string& value) {
  std::lock_guard lock(mu_);
  Table next = table_;
  next[ns][key] = value;
  RS_RETURN_IF_ERROR(PersistLocked(next));
  table_ = std::move(next);
  return Status::OK();
}

Status KvConfigStore::Delete(const std::string& ns, const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = table_.find(ns);
  if (it == table_.end() || !it->second.count(key)) return Status::OK();
  Table next = table_;
  next[ns].erase(key);
  RS_RETURN_IF_ERROR(PersistLocked(next));
  table_ = std::move(next);
  return Status::OK();
}

std::optional<std::string> KvConfigStore::Get(const std::string& ns, const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = table_.find(ns);
  if (it == table_.end()) return std::nullopt;
  auto kv = it->second.find(key);
  if (kv == it->second.end()) return std::nullopt;
  return kv->second;
}

std::optional<std::string> KvConfigStore::NamespaceJson(const std::string& ns) const {
  std::lock_guard lock(mu_);
  auto it = table_.find(ns);
  if (it == table_.end()) return std::nullopt;
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  w.Key("table");
  WriteStringMap(w, it->second);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

}  // namespace rocketstore::namesrv
