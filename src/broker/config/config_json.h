// File: broker/config/config_json.h  (internal to the config managers' .cc files)
//
// Reading and writing the JSON of RocketMQ's config files with RapidJSON, keeping what
// rocketstore does not model: every member a decoder does not know is kept as its JSON
// text and written back unchanged, so a file written by a Java broker (4.9.8 or 5.x)
// loses no field when rocketstore rewrites it.
//
// Thread-safety: pure functions; a JsonObjectText is used by one thread.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rocketstore::broker::config_json {

// Parses a config file's text (fastjson's bare integer keys accepted). kCorruption when it
// is not JSON or not an object.
Result<rapidjson::Document> ParseObject(std::string_view text);

// The members of `object` whose names are not in `known`, as name -> JSON text.
std::map<std::string, std::string> UnknownMembers(const rapidjson::Value& object,
                                                  std::initializer_list<std::string_view> known);

// The JSON text of a value.
std::string ToText(const rapidjson::Value& value);
// A JSON string literal (quoted, escaped).
std::string Quote(std::string_view s);

// Typed member reads: the member's value when present with that type, else `dflt`.
int32_t IntOr(const rapidjson::Value& object, const char* name, int32_t dflt);
int64_t Int64Or(const rapidjson::Value& object, const char* name, int64_t dflt);
bool BoolOr(const rapidjson::Value& object, const char* name, bool dflt);
std::string StringOr(const rapidjson::Value& object, const char* name, std::string dflt);
// The member's value when it is an object, else nullptr.
const rapidjson::Value* ObjectMember(const rapidjson::Value& object, const char* name);

// An object assembled from members given as JSON text, written with its names in sorted
// order (as fastjson writes them). Set() replaces a member; Keep() adds one unless it is
// already there (for kept unknown members, which never shadow a modelled one).
class JsonObjectText {
 public:
  void Set(std::string name, std::string json) { members_[std::move(name)] = std::move(json); }
  void SetInt(std::string name, int64_t v) { Set(std::move(name), std::to_string(v)); }
  void SetBool(std::string name, bool v) { Set(std::move(name), v ? "true" : "false"); }
  void SetString(std::string name, std::string_view v) { Set(std::move(name), Quote(v)); }
  void Keep(const std::map<std::string, std::string>& members) {
    for (const auto& [name, json] : members) members_.emplace(name, json);
  }
  std::string Text() const;

 private:
  std::map<std::string, std::string> members_;
};

// The shape topics.json and subscriptionGroup.json share: `{"dataVersion":{..},
// "<table>":{name:{..},..}, ..}`. DecodeTable reads the table's entries through
// `decode(name, value)` into `*out` (an absent table is empty; a table or entry that is not
// an object is kCorruption naming it). EncodeVersionedTable writes the file back, with the
// top-level members no decoder knew kept.
template <typename Map, typename Decode>
Status DecodeTable(const rapidjson::Value& root, const char* table, Decode decode, Map* out) {
  if (const rapidjson::Value* t = ObjectMember(root, table)) {
    for (const auto& m : t->GetObject()) {
      std::string name(m.name.GetString(), m.name.GetStringLength());
      if (!m.value.IsObject()) {
        return Corruption(std::string(table) + "." + name + " is not an object");
      }
      (*out)[name] = decode(name, m.value);
    }
  } else if (root.HasMember(table)) {
    return Corruption(std::string(table) + " is not an object");
  }
  return Status::OK();
}

template <typename Map, typename Encode>
std::string EncodeVersionedTable(std::string version_json, const char* table, const Map& entries,
                                 Encode encode,
                                 const std::map<std::string, std::string>& unknown_top_level) {
  JsonObjectText t;
  for (const auto& [name, entry] : entries) t.Set(name, encode(entry));
  JsonObjectText root;
  root.Set("dataVersion", std::move(version_json));
  root.Set(table, t.Text());
  root.Keep(unknown_top_level);
  return root.Text();
}

}  // namespace rocketstore::broker::config_json
