// File: client/fastjson.h
//
// A lenient reader for the JSON that RocketMQ's Java side (fastjson 1.2) writes: standard
// JSON plus object keys that are not strings — bare numbers ({0:"addr"}) and whole objects
// ({{"brokerName":"b","queueId":0,"topic":"t"}:{...}}, a MessageQueue-keyed map). A member's
// key is itself a value (its `text` holds a string or number key as text).
//
// Thread-safety: values; ParseFastjson is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace rocketstore::client {

struct FjMember;

struct FjValue {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;               // string value, number's source text, or a scalar key's text
  std::vector<FjMember> members;  // kObject (a vector of an incomplete type: C++17)
  std::vector<FjValue> items;     // kArray

  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_null() const { return kind == Kind::kNull; }
  // The member whose scalar key is `name`, or nullptr.
  const FjValue* Find(std::string_view name) const;
  // Member values converted leniently ("" / 0 / false when absent or of another kind;
  // numbers given as strings are accepted, as fastjson does).
  std::string Str(std::string_view name) const;
  int64_t Int(std::string_view name) const;
  double Double(std::string_view name) const;
  bool Bool(std::string_view name) const;
  // This value as a number / bool (lenient, as above).
  int64_t AsInt() const;
  double AsDouble() const;
  bool AsBool() const;
  // Re-serialised as standard JSON (object keys become strings holding their JSON text).
  std::string ToJson() const;
};

// One member of an object: a key (a scalar, or any value: fastjson's maps may have object
// keys) and its value.
struct FjMember {
  FjValue first;
  FjValue second;
};

Result<FjValue> ParseFastjson(std::string_view text, size_t max_depth = 64);

}  // namespace rocketstore::client
