// File: protocol/internal/json_tree.h
//
// A small read-only JSON tree for the JSON bodies (protocol/bodies/), built from
// RapidJSON's SAX Reader parsing a private copy of the text in situ. Not RapidJSON's DOM:
// its internal stack (and that of its Writer and StringBuffer) adds an offset to a null
// pointer on first use, which clang's UBSan rejects (the fuzzers build with clang).
// JsonWriter is the matching writer.
//
// Numbers keep their source text (no float rounding); strings are unescaped UTF-8 (the
// reader validates the encoding). Nesting deeper than `max_depth` is an error, which also
// bounds the reader's recursion. Duplicate keys are kept; Find returns the first.
//
// Thread-safety: a JsonTree is immutable after Parse; views point into its own buffer
// and stay valid while the tree lives (moves included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rocketstore::protocol::internal {

struct JsonNode {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string_view text;           // kString: the value; kNumber: its source text
  std::string_view key;            // the member name, for a member of an object
  std::vector<JsonNode> children;  // members of an object / elements of an array, in order

  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  // The first member named `name` of an object, or nullptr (also for a non-object).
  const JsonNode* Find(std::string_view name) const;
};

class JsonTree {
 public:
  // kInvalidArgument "<what>: not valid JSON at byte N: <reason>", or "<what>: nested
  // deeper than <max_depth>".
  static Result<JsonTree> Parse(std::string_view text, std::string_view what,
                                size_t max_depth = 32);
  const JsonNode& root() const { return root_; }

  JsonTree(JsonTree&&) = default;
  JsonTree& operator=(JsonTree&&) = default;
  JsonTree(const JsonTree&) = delete;  // the copy's views would point into this buffer
  JsonTree& operator=(const JsonTree&) = delete;

 private:
  JsonTree() = default;
  std::vector<char> buffer_;  // the in-situ copy; a move keeps its heap block
  JsonNode root_;
};

// Appends compact JSON to a byte vector. The caller nests Begin/End correctly and puts a
// Key before every member value; strings are escaped by AppendJsonString.
class JsonWriter {
 public:
  explicit JsonWriter(std::vector<uint8_t>* out) : out_(out) {}
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view name);
  void String(std::string_view value);
  void Int(int64_t value);
  void Bool(bool value);
  // A Java double as fastjson writes it: shortest round-trip digits, "0.0" for zero,
  // integral values with ".0", E notation outside [1e-3, 1e7) as Double.toString.
  void Double(double value);
  // A member name that is itself JSON (fastjson writes non-String map keys bare:
  // {{"brokerName":..}:5}); `json` is written verbatim.
  void RawKey(std::string_view json);

 private:
  void Open(char c);
  void Close(char c);
  void BeforeValue();
  std::vector<uint8_t>* out_;
  std::vector<bool> has_items_;  // one per open container
  bool after_key_ = false;
};

}  // namespace rocketstore::protocol::internal
