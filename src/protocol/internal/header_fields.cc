#include "protocol/internal/header_fields.h"

#include <limits>

namespace rocketstore::protocol::internal {

namespace {

// Java's Boolean.parseBoolean.
bool ParseJavaBool(std::string_view text) {
  if (text.size() != 4) return false;
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
  return lower(text[0]) == 't' && lower(text[1]) == 'r' && lower(text[2]) == 'u' &&
         lower(text[3]) == 'e';
}

}  // namespace

void FieldReader::Int32(std::string_view name, std::string_view text, int32_t* out) {
  const std::optional<int64_t> v = ParseJavaLong(text);
  if (v && *v >= std::numeric_limits<int32_t>::min() && *v <= std::numeric_limits<int32_t>::max()) {
    *out = static_cast<int32_t>(*v);
  } else {
    status_ = cmd_.GetInt32(name).status();
  }
}

void FieldReader::Int64(std::string_view name, std::string_view text, int64_t* out) {
  if (const std::optional<int64_t> v = ParseJavaLong(text)) {
    *out = *v;
  } else {
    status_ = cmd_.GetInt(name).status();
  }
}

std::optional<std::string_view> FieldReader::Read(std::string_view name, bool required) {
  if (!status_.ok()) return std::nullopt;
  std::optional<std::string_view> v = Find(name);
  if (!v && required) status_ = cmd_.RequireFields({name});
  return v;
}

void FieldReader::Required(std::string_view name, std::string* out) {
  if (const auto v = Read(name, true)) out->assign(*v);
}

void FieldReader::Required(std::string_view name, std::string_view* out) {
  if (const auto v = Read(name, true)) *out = *v;
}

void FieldReader::Required(std::string_view name, int32_t* out) {
  if (const auto v = Read(name, true)) Int32(name, *v, out);
}

void FieldReader::Required(std::string_view name, int64_t* out) {
  if (const auto v = Read(name, true)) Int64(name, *v, out);
}

void FieldReader::Required(std::string_view name, bool* out) {
  if (const auto v = Read(name, true)) *out = ParseJavaBool(*v);
}

void FieldReader::Optional(std::string_view name, std::optional<std::string>* out) {
  if (const auto v = Read(name, false)) out->emplace(*v);
}

void FieldReader::Optional(std::string_view name, std::optional<std::string_view>* out) {
  if (const auto v = Read(name, false)) *out = *v;
}

void FieldReader::Optional(std::string_view name, std::optional<int32_t>* out) {
  if (const auto v = Read(name, false)) {
    int32_t n = 0;
    Int32(name, *v, &n);
    if (status_.ok()) *out = n;
  }
}

void FieldReader::Optional(std::string_view name, std::optional<int64_t>* out) {
  if (const auto v = Read(name, false)) {
    int64_t n = 0;
    Int64(name, *v, &n);
    if (status_.ok()) *out = n;
  }
}

void FieldReader::Optional(std::string_view name, std::optional<bool>* out) {
  if (const auto v = Read(name, false)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, bool* out) {
  if (const auto v = Read(name, false)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, int32_t* out) {
  if (const auto v = Read(name, false)) Int32(name, *v, out);
}

}  // namespace rocketstore::protocol::internal
