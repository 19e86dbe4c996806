#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol::internal {

namespace {

// Java's Boolean.parseBoolean.
bool ParseJavaBool(std::string_view text) {
  if (text.size() != 4) return false;
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
  return lower(text[0]) == 't' && lower(text[1]) == 'r' && lower(text[2]) == 'u' &&
         lower(text[3]) == 'e';
}

// Stores `r`'s value in `*out` or its error in `*status`.
template <typename T, typename U>
void Take(Result<T> r, U* out, Status* status) {
  if (r.ok()) {
    *out = *r;
  } else {
    *status = r.status();
  }
}

}  // namespace

void FieldReader::Required(std::string_view name, std::string* out) {
  if (!status_.ok()) return;
  Result<std::string_view> v = cmd_.GetString(name);
  if (v.ok()) {
    out->assign(*v);
  } else {
    status_ = v.status();
  }
}

void FieldReader::Required(std::string_view name, int32_t* out) {
  if (status_.ok()) Take(cmd_.GetInt32(name), out, &status_);
}

void FieldReader::Required(std::string_view name, int64_t* out) {
  if (status_.ok()) Take(cmd_.GetInt(name), out, &status_);
}

void FieldReader::Required(std::string_view name, bool* out) {
  if (!status_.ok()) return;
  const std::optional<std::string_view> v = cmd_.FindField(name);
  if (!v) {
    status_ = cmd_.RequireFields({name});
    return;
  }
  *out = ParseJavaBool(*v);
}

void FieldReader::Optional(std::string_view name, std::optional<std::string>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = cmd_.FindField(name)) out->emplace(*v);
}

void FieldReader::Optional(std::string_view name, std::optional<int32_t>* out) {
  if (!status_.ok() || !cmd_.FindField(name)) return;
  Take(cmd_.GetInt32(name), out, &status_);
}

void FieldReader::Optional(std::string_view name, std::optional<int64_t>* out) {
  if (!status_.ok() || !cmd_.FindField(name)) return;
  Take(cmd_.GetInt(name), out, &status_);
}

void FieldReader::Optional(std::string_view name, std::optional<bool>* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = cmd_.FindField(name)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, bool* out) {
  if (!status_.ok()) return;
  if (const std::optional<std::string_view> v = cmd_.FindField(name)) *out = ParseJavaBool(*v);
}

void FieldReader::OrKeep(std::string_view name, int32_t* out) {
  if (status_.ok()) Take(cmd_.GetInt32Or(name, *out), out, &status_);
}

}  // namespace rocketstore::protocol::internal
