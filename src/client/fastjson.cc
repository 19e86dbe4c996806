#include "client/fastjson.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace rocketstore::client {

namespace {

class Parser {
 public:
  Parser(std::string_view s, size_t max_depth) : s_(s), max_depth_(max_depth) {}

  Result<FjValue> Run() {
    FjValue v;
    Status st = Value(&v, 0);
    if (!st.ok()) return st;
    Ws();
    if (pos_ != s_.size()) return Error("trailing characters after the JSON value");
    return v;
  }

 private:
  Status Error(std::string what) const {
    return Corruption("JSON body: " + what + " at byte " + std::to_string(pos_));
  }
  void Ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Lit(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return true;
    }
    return false;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  Status Hex4(uint32_t* out) {
    if (pos_ + 4 > s_.size()) return Error("short \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Error("bad \\u escape");
      }
    }
    *out = v;
    return Status::OK();
  }
  Status String(std::string* out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return Status::OK();
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          RS_RETURN_IF_ERROR(Hex4(&cp));
          if (cp >= 0xD800 && cp < 0xDC00 && Lit("\\u")) {
            uint32_t lo = 0;
            RS_RETURN_IF_ERROR(Hex4(&lo));
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error("bad escape");
      }
    }
    return Error("unterminated string");
  }
  Status Number(std::string* out) {
    const size_t start = pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
        ++pos_;
      } else {
        break;
      }
    }
    if (pos_ == start) return Error("unexpected character");
    *out = std::string(s_.substr(start, pos_ - start));
    return Status::OK();
  }
  Status Value(FjValue* v, size_t depth) {
    if (depth > max_depth_) return Error("nested too deeply");
    Ws();
    if (pos_ >= s_.size()) return Error("unexpected end");
    const char c = s_[pos_];
    if (c == '{') {
      v->kind = FjValue::Kind::kObject;
      ++pos_;
      Ws();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return Status::OK();
      }
      while (true) {
        FjValue key, val;
        RS_RETURN_IF_ERROR(Value(&key, depth + 1));  // a string, a bare number or an object
        Ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return Error("expected ':'");
        ++pos_;
        RS_RETURN_IF_ERROR(Value(&val, depth + 1));
        v->members.push_back(FjMember{std::move(key), std::move(val)});
        Ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return Status::OK();
        }
        return Error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v->kind = FjValue::Kind::kArray;
      ++pos_;
      Ws();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return Status::OK();
      }
      while (true) {
        FjValue item;
        RS_RETURN_IF_ERROR(Value(&item, depth + 1));
        v->items.push_back(std::move(item));
        Ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return Status::OK();
        }
        return Error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v->kind = FjValue::Kind::kString;
      return String(&v->text);
    }
    if (Lit("true")) {
      v->kind = FjValue::Kind::kBool;
      v->boolean = true;
      return Status::OK();
    }
    if (Lit("false")) {
      v->kind = FjValue::Kind::kBool;
      return Status::OK();
    }
    if (Lit("null")) return Status::OK();
    v->kind = FjValue::Kind::kNumber;
    return Number(&v->text);
  }

  std::string_view s_;
  size_t max_depth_;
  size_t pos_ = 0;
};

void JsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

void Write(const FjValue& v, std::string* out) {
  switch (v.kind) {
    case FjValue::Kind::kNull:
      out->append("null");
      return;
    case FjValue::Kind::kBool:
      out->append(v.boolean ? "true" : "false");
      return;
    case FjValue::Kind::kNumber:
      out->append(v.text);
      return;
    case FjValue::Kind::kString:
      JsonString(v.text, out);
      return;
    case FjValue::Kind::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out->push_back(',');
        Write(v.items[i], out);
      }
      out->push_back(']');
      return;
    }
    case FjValue::Kind::kObject: {
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out->push_back(',');
        const FjValue& k = v.members[i].first;
        if (k.kind == FjValue::Kind::kString || k.kind == FjValue::Kind::kNumber) {
          JsonString(k.text, out);
        } else {
          std::string inner;
          Write(k, &inner);
          JsonString(inner, out);
        }
        out->push_back(':');
        Write(v.members[i].second, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

const FjValue* FjValue::Find(std::string_view name) const {
  for (const auto& [k, v] : members) {
    if ((k.kind == Kind::kString || k.kind == Kind::kNumber) && k.text == name) return &v;
  }
  return nullptr;
}

std::string FjValue::Str(std::string_view name) const {
  const FjValue* v = Find(name);
  if (v == nullptr || v->is_null()) return {};
  if (v->kind == Kind::kBool) return v->boolean ? "true" : "false";
  if (v->kind == Kind::kObject || v->kind == Kind::kArray) return v->ToJson();
  return v->text;
}

int64_t FjValue::AsInt() const {
  if (kind == Kind::kBool) return boolean ? 1 : 0;
  if (kind != Kind::kNumber && kind != Kind::kString) return 0;
  int64_t out = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc()) return static_cast<int64_t>(std::strtod(text.c_str(), nullptr));
  return out;
}

double FjValue::AsDouble() const {
  if (kind != Kind::kNumber && kind != Kind::kString) return 0;
  return std::strtod(text.c_str(), nullptr);
}

bool FjValue::AsBool() const {
  if (kind == Kind::kBool) return boolean;
  return text == "true";
}

int64_t FjValue::Int(std::string_view name) const {
  const FjValue* v = Find(name);
  return v == nullptr ? 0 : v->AsInt();
}
double FjValue::Double(std::string_view name) const {
  const FjValue* v = Find(name);
  return v == nullptr ? 0 : v->AsDouble();
}
bool FjValue::Bool(std::string_view name) const {
  const FjValue* v = Find(name);
  return v != nullptr && v->AsBool();
}

std::string FjValue::ToJson() const {
  std::string out;
  Write(*this, &out);
  return out;
}

Result<FjValue> ParseFastjson(std::string_view text, size_t max_depth) {
  return Parser(text, max_depth).Run();
}

}  // namespace rocketstore::client
