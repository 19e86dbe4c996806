#include "protocol/internal/json_tree.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>

#include "protocol/internal/header_codec.h"

namespace rocketstore::protocol::internal {

namespace {

class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  TreeBuilder(JsonNode* root, size_t max_depth) : root_(root), max_depth_(max_depth) {}

  bool Null() { return Add(JsonNode::Kind::kNull) != nullptr; }
  bool Bool(bool b) {
    JsonNode* n = Add(JsonNode::Kind::kBool);
    if (n != nullptr) n->boolean = b;
    return n != nullptr;
  }
  bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
    return AddText(JsonNode::Kind::kNumber, s, len);
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    return AddText(JsonNode::Kind::kString, s, len);
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    key_ = std::string_view(s, len);
    return true;
  }
  bool StartObject() { return Open(JsonNode::Kind::kObject); }
  bool StartArray() { return Open(JsonNode::Kind::kArray); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

  bool too_deep() const { return too_deep_; }

 private:
  JsonNode* Add(JsonNode::Kind kind) {
    JsonNode* n;
    if (open_.empty()) {
      n = root_;
    } else {
      JsonNode* parent = open_.back();
      parent->children.emplace_back();
      n = &parent->children.back();
      if (parent->is_object()) n->key = key_;
    }
    n->kind = kind;
    return n;
  }
  bool AddText(JsonNode::Kind kind, const char* s, rapidjson::SizeType len) {
    JsonNode* n = Add(kind);
    n->text = std::string_view(s, len);
    return true;
  }
  bool Open(JsonNode::Kind kind) {
    if (open_.size() >= max_depth_) {
      too_deep_ = true;
      return false;
    }
    // Only the open path is held by pointer; siblings added later go into the innermost
    // open node's vector, never into a vector holding an open node.
    open_.push_back(Add(kind));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  JsonNode* root_;
  size_t max_depth_;
  std::vector<JsonNode*> open_;
  std::string_view key_;
  bool too_deep_ = false;
};

}  // namespace

const JsonNode* JsonNode::Find(std::string_view name) const {
  if (!is_object()) return nullptr;
  for (const JsonNode& c : children) {
    if (c.key == name) return &c;
  }
  return nullptr;
}

Result<JsonTree> JsonTree::Parse(std::string_view text, std::string_view what, size_t max_depth) {
  JsonTree tree;
  // NUL-terminated, plus three more NULs: RapidJSON's UTF-8 validation takes up to three
  // continuation bytes after a lead byte without stopping at the terminator (the JSON
  // header decoder pads the same way).
  constexpr size_t kPadding = 4;
  tree.buffer_.reserve(text.size() + kPadding);
  tree.buffer_.assign(text.begin(), text.end());
  tree.buffer_.insert(tree.buffer_.end(), kPadding, '\0');
  TreeBuilder builder(&tree.root_, max_depth);
  rapidjson::InsituStringStream stream(tree.buffer_.data());
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::Reader reader;
  const rapidjson::ParseResult r = reader.Parse<kFlags>(stream, builder);
  if (builder.too_deep()) {
    return InvalidArgument(std::string(what) + ": nested deeper than " + std::to_string(max_depth));
  }
  if (r.IsError()) {
    return InvalidArgument(std::string(what) + ": not valid JSON at byte " +
                           std::to_string(r.Offset()) + ": " +
                           rapidjson::GetParseError_En(r.Code()));
  }
  // A NUL byte ends the in-situ text early; whatever follows it is not JSON.
  if (stream.Tell() != text.size()) {
    return InvalidArgument(std::string(what) + ": not valid JSON at byte " +
                           std::to_string(stream.Tell()) + ": NUL byte in the text");
  }
  return tree;
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_->push_back(',');
    has_items_.back() = true;
  }
}

void JsonWriter::Open(char c) {
  BeforeValue();
  out_->push_back(static_cast<uint8_t>(c));
  has_items_.push_back(false);
}

void JsonWriter::Close(char c) {
  out_->push_back(static_cast<uint8_t>(c));
  has_items_.pop_back();
}

void JsonWriter::Key(std::string_view name) {
  BeforeValue();
  AppendJsonString(name, out_);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(value, out_);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), value);
  out_->insert(out_->end(), digits, r.ptr);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  const std::string_view text = value ? "true" : "false";
  out_->insert(out_->end(), text.begin(), text.end());
}

void JsonWriter::Double(double value) {
  BeforeValue();
  char buf[40];
  const double mag = value < 0 ? -value : value;
  if (value == 0 || (mag >= 1e-3 && mag < 1e7)) {
    const auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
    std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
    out_->insert(out_->end(), text.begin(), text.end());
    if (text.find('.') == std::string_view::npos) {
      out_->push_back('.');
      out_->push_back('0');
    }
    return;
  }
  const auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  const size_t e = text.find('e');
  std::string_view mantissa = text.substr(0, e);
  out_->insert(out_->end(), mantissa.begin(), mantissa.end());
  if (mantissa.find('.') == std::string_view::npos) {
    out_->push_back('.');
    out_->push_back('0');
  }
  out_->push_back('E');
  std::string_view exp = text.substr(e + 1);
  if (!exp.empty() && exp[0] == '+') exp.remove_prefix(1);
  bool negative = !exp.empty() && exp[0] == '-';
  if (negative) {
    out_->push_back('-');
    exp.remove_prefix(1);
  }
  while (exp.size() > 1 && exp[0] == '0') exp.remove_prefix(1);
  out_->insert(out_->end(), exp.begin(), exp.end());
}

void JsonWriter::RawKey(std::string_view json) {
  BeforeValue();
  out_->insert(out_->end(), json.begin(), json.end());
  out_->push_back(':');
  after_key_ = true;
}

}  // namespace rocketstore::protocol::internal
