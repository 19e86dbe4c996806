// File: protocol/internal/header_fields.h
//
// The two helpers every typed header in protocol/headers/ is written with. Internal to
// protocol/.
//
// FieldReader reads ext fields in a header's declaration order and keeps the first error,
// as Java's decodeCommandCustomHeader reports the first bad field: a missing required
// field is "the custom field <name> is null"; a malformed number is RemotingCommand's
// "the custom field <name> is not a valid int|long: ..."; a boolean is true iff the text
// is "true" in any case (Boolean.parseBoolean: never an error). Once an error is kept, the
// remaining reads do nothing, so a Decode is a straight list of reads and one status().
//
// Thread-safety: a FieldReader is used by one thread; it borrows the command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol::internal {

class FieldReader {
 public:
  explicit FieldReader(const RemotingCommand& cmd)
      : cmd_(cmd),
        by_position_(cmd.send_v2.used() && !cmd.send_reply.used() && cmd.ext_fields.empty()) {}

  // Required fields (@CFNotNull).
  void Required(std::string_view name, std::string* out);
  void Required(std::string_view name, std::string_view* out);  // a view into the command
  void Required(std::string_view name, int32_t* out);
  void Required(std::string_view name, int64_t* out);
  void Required(std::string_view name, bool* out);
  // Optional fields: nullopt when absent.
  void Optional(std::string_view name, std::optional<std::string>* out);
  void Optional(std::string_view name, std::optional<std::string_view>* out);
  void Optional(std::string_view name, std::optional<int32_t>* out);
  void Optional(std::string_view name, std::optional<int64_t>* out);
  void Optional(std::string_view name, std::optional<bool>* out);
  // Optional fields with a documented default: `*out` is left alone when absent.
  void OrKeep(std::string_view name, bool* out);
  void OrKeep(std::string_view name, int32_t* out);

  const Status& status() const { return status_; }

 private:
  // cmd_.FindField(name). A send request decoded by position has all its fields in
  // send_v2: read there directly.
  std::optional<std::string_view> Find(std::string_view name) const {
    return by_position_ ? cmd_.send_v2.Find(name) : cmd_.FindField(name);
  }
  // The field's text when no error is kept and it is present; a required field that is
  // absent keeps Java's "is null" error.
  std::optional<std::string_view> Read(std::string_view name, bool required);
  // A number that parses and fits goes to *out; otherwise the reason is cmd_.GetInt32 /
  // GetInt's error, worded there (failures only take that path).
  void Int32(std::string_view name, std::string_view text, int32_t* out);
  void Int64(std::string_view name, std::string_view text, int64_t* out);

  const RemotingCommand& cmd_;
  const bool by_position_;
  Status status_;
};

// Writers for EncodeTo: an absent optional writes nothing (Java's writeIfNotNull).
inline void PutOptional(RemotingCommand& cmd, std::string_view name,
                        const std::optional<std::string>& v) {
  if (v) cmd.SetField(name, *v);
}
inline void PutOptional(RemotingCommand& cmd, std::string_view name,
                        const std::optional<int32_t>& v) {
  if (v) cmd.SetIntField(name, *v);
}
inline void PutOptional(RemotingCommand& cmd, std::string_view name,
                        const std::optional<int64_t>& v) {
  if (v) cmd.SetIntField(name, *v);
}
inline void PutOptional(RemotingCommand& cmd, std::string_view name, const std::optional<bool>& v) {
  if (v) cmd.SetBoolField(name, *v);
}

}  // namespace rocketstore::protocol::internal
