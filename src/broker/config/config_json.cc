#include "broker/config/config_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "protocol/json_util.h"

namespace rocketstore::broker::config_json {

// Callers read documents through `const rapidjson::Value&`: RapidJSON 1.1.0 compares
// mutable member iterators only through a converting operator==, which C++20's reversed
// operators make ambiguous (clang rejects it); const iterators compare exactly.
Result<rapidjson::Document> ParseObject(std::string_view text) {
  const std::string fixed = protocol::QuoteBareIntegerKeys(text);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseFullPrecisionFlag>(fixed.data(), fixed.size());
  if (doc.HasParseError()) {
    return Corruption("not valid JSON (error at offset " + std::to_string(doc.GetErrorOffset()) +
                      ")");
  }
  if (!doc.IsObject()) return Corruption("not a JSON object");
  return doc;
}

std::string ToText(const rapidjson::Value& value) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  value.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

std::string Quote(std::string_view s) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(sb.GetString(), sb.GetSize());
}

std::map<std::string, std::string> UnknownMembers(const rapidjson::Value& object,
                                                  std::initializer_list<std::string_view> known) {
  std::map<std::string, std::string> out;
  if (!object.IsObject()) return out;
  for (const auto& m : object.GetObject()) {
    std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    out.emplace(std::string(name), ToText(m.value));
  }
  return out;
}

namespace {
const rapidjson::Value* Member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}
}  // namespace

int32_t IntOr(const rapidjson::Value& object, const char* name, int32_t dflt) {
  const rapidjson::Value* v = Member(object, name);
  return v != nullptr && v->IsInt() ? v->GetInt() : dflt;
}

int64_t Int64Or(const rapidjson::Value& object, const char* name, int64_t dflt) {
  const rapidjson::Value* v = Member(object, name);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : dflt;
}

bool BoolOr(const rapidjson::Value& object, const char* name, bool dflt) {
  const rapidjson::Value* v = Member(object, name);
  return v != nullptr && v->IsBool() ? v->GetBool() : dflt;
}

std::string StringOr(const rapidjson::Value& object, const char* name, std::string dflt) {
  const rapidjson::Value* v = Member(object, name);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : std::move(dflt);
}

const rapidjson::Value* ObjectMember(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* v = Member(object, name);
  return v != nullptr && v->IsObject() ? v : nullptr;
}

std::string JsonObjectText::Text() const {
  std::string out = "{";
  for (const auto& [name, json] : members_) {
    if (out.size() > 1) out.push_back(',');
    out += Quote(name);
    out.push_back(':');
    out += json;
  }
  out.push_back('}');
  return out;
}

}  // namespace rocketstore::broker::config_json
