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

void FieldReader::Required(std::string_view name, std::string* out) {
  std::string_view v;
  Required(name, &v);
  if (status_.ok()) out->assign(v);
}

void FieldReader::Required(std::string_view name, std::string_view* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    *out = *v;
  } else {
    status_ = cmd_.RequireFields({name});
  }
}

void FieldReader::Required(std::string_view name, int32_t* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    Int32(name, *v, out);
  } else {
    status_ = cmd_.RequireFields({name});
  }
}

void FieldReader::Required(std::string_view name, int64_t* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    Int64(name, *v, out);
  } else {
    status_ = cmd_.RequireFields({name});
  }
}

void FieldReader::Required(std::string_view name, bool* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    *out = ParseJavaBool(*v);
  } else {
    status_ = cmd_.RequireFields({name});
  }
}

void FieldReader::Optional(std::string_view name, std::optional<std::string>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) out->emplace(*v);
}

void FieldReader::Optional(std::string_view name, std::optional<std::string_view>* out) {
  if (!status_.ok()) return;
  *out = Find(name);
}

void FieldReader::Optional(std::string_view name, std::optional<int32_t>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    int32_t n = 0;
    Int32(name, *v, &n);
    if (status_.ok()) *out = n;
  }
}

void FieldReader::Optional(std::string_view name, std::optional<int64_t>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) {
    int64_t n = 0;
    Int64(name, *v, &n);
    if (status_.ok()) *out = n;
  }
}

void FieldReader::Optional(std::string_view name, std::optional<bool>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, bool* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, int32_t* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = Find(name)) Int32(name, *v, out);
}

}  // namespace rocketstore::protocol::internal
