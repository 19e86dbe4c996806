// JSON header codec (serialize type 0). The format and its liberties are specified in
// protocol/frame_codec.h.
//
// Decoding has two paths feeding one SAX handler (HeaderHandler below, which holds every
// rule about fields, limits and nesting): JsonSubsetScanner (internal/json_scanner.h)
// for the JSON subset clients really send, and RapidJSON for everything else and for
// every error message.
//
// RapidJSON is used through its SAX Reader only. It reports every input error through
// ParseResult and the handler's return value; it throws only if RAPIDJSON_ASSERT is
// redefined to throw, which the guard below forbids (and our handler never misuses the
// API that its assertions check). Numbers arrive as their source text, so 64-bit values
// keep their exact digits.
//
// The parse is in situ (on a copy of the header) and recursive. In situ, RapidJSON 1.1.0
// never touches its internal stack, whose first push computes `nullptr + n` (undefined
// behaviour that UBSan reports; the iterative parser always pushes). Recursion is bounded
// because the handler refuses to open more than kMaxJsonDepthCap nested values.
#ifdef RAPIDJSON_ASSERT
#error "protocol/ needs RapidJSON's default RAPIDJSON_ASSERT: errors must not be thrown"
#endif

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/internal/header_codec.h"
#include "protocol/internal/json_bytes.h"
#include "protocol/internal/json_scanner.h"

namespace rocketstore::protocol::internal {

namespace {

constexpr unsigned kParseFlags = rapidjson::kParseInsituFlag |
                                 rapidjson::kParseValidateEncodingFlag |
                                 rapidjson::kParseNumbersAsStringsFlag;
// Upper bound on Limits::max_json_depth: the recursive parser's stack use.
constexpr uint32_t kMaxJsonDepthCap = 128;

// The top-level key whose value comes next.
enum class Slot {
  kNone,
  kCode,
  kLanguage,
  kVersion,
  kOpaque,
  kFlag,
  kRemark,
  kExtFields,
  kIgnored
};

enum class Kind { kNull, kBool, kNumber, kString };

Slot SlotFor(std::string_view key) {
  if (key == "code") return Slot::kCode;
  if (key == "language") return Slot::kLanguage;
  if (key == "version") return Slot::kVersion;
  if (key == "opaque") return Slot::kOpaque;
  if (key == "flag") return Slot::kFlag;
  if (key == "remark") return Slot::kRemark;
  if (key == "extFields") return Slot::kExtFields;
  return Slot::kIgnored;  // serializeTypeCurrentRPC and anything unknown
}

std::string_view SlotName(Slot slot) {
  switch (slot) {
    case Slot::kCode:
      return "code";
    case Slot::kLanguage:
      return "language";
    case Slot::kVersion:
      return "version";
    case Slot::kOpaque:
      return "opaque";
    case Slot::kFlag:
      return "flag";
    case Slot::kRemark:
      return "remark";
    case Slot::kExtFields:
      return "extFields";
    case Slot::kNone:
    case Slot::kIgnored:
      break;
  }
  return "?";
}

std::string Shown(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "\"";
  out.append(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) out.append("...");
  out.push_back('"');
  return out;
}

// SAX handler: a state machine over "outside root" / "in root object" / "in extFields",
// plus a nesting counter while the value of an ignored key is skipped.
class HeaderHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, HeaderHandler> {
 public:
  // `may_escape`: the raw text holds a backslash, so a decoded string may hold bytes that
  // came from an escape (see HasEncodedSurrogate); without one it is validated UTF-8 as is.
  // `ext_fields_hint`: an upper bound of the entries extFields can have (one per ':').
  HeaderHandler(const Limits& limits, RemotingCommand* command, bool may_escape,
                size_t ext_fields_hint, size_t header_size)
      : limits_(limits),
        command_(command),
        may_escape_(may_escape),
        ext_fields_hint_(ext_fields_hint),
        header_size_(header_size) {}

  const Status& error() const { return error_; }

  // Int/Uint/Double events cannot occur with kParseNumbersAsStringsFlag; refuse them.
  bool Default() { return Fail(Internal("unexpected JSON event")); }
  bool Null() { return Scalar(Kind::kNull, {}); }
  bool Bool(bool b) { return Scalar(Kind::kBool, b ? "true" : "false"); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    return Scalar(Kind::kNumber, {s, n});
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (may_escape_ && HasEncodedSurrogate({s, n})) return LoneSurrogate();
    return Scalar(Kind::kString, {s, n});
  }

  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (may_escape_ && HasEncodedSurrogate({s, n})) return LoneSurrogate();
    if (skip_ > 0) return true;
    if (level_ == 1) {
      slot_ = SlotFor({s, n});
      return true;
    }
    if (n > limits_.max_key_length) {
      return Fail(ResourceExhausted("extFields name of " + std::to_string(n) +
                                    " bytes exceeds the limit of " +
                                    std::to_string(limits_.max_key_length)));
    }
    ext_key_ = std::string_view(s, n);
    return true;
  }

  bool StartObject() {
    if (skip_ > 0) return Nest();
    if (level_ == 0) {
      level_ = 1;
      return true;
    }
    if (level_ == 2)
      return Fail(
          InvalidArgument("extFields value of <" + std::string(ext_key_) + "> is an object"));
    const Slot slot = slot_;
    slot_ = Slot::kNone;
    if (slot == Slot::kExtFields) {
      command_->ext_fields.Clear();  // a repeated "extFields" key: the last one wins
      // Names and values never take more bytes than the header they came from.
      command_->ext_fields.Reserve(std::min<size_t>(ext_fields_hint_, limits_.max_ext_fields),
                                   header_size_);
      level_ = 2;
      return true;
    }
    if (slot == Slot::kIgnored) return Nest();
    return Fail(
        InvalidArgument("header field \"" + std::string(SlotName(slot)) + "\" is an object"));
  }

  bool EndObject(rapidjson::SizeType /*members*/) {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    --level_;  // 2 -> 1 (end of extFields) or 1 -> 0 (end of the header)
    return true;
  }

  bool StartArray() {
    if (skip_ > 0) return Nest();
    if (level_ == 0) return Fail(InvalidArgument("the header is not a JSON object"));
    if (level_ == 2)
      return Fail(
          InvalidArgument("extFields value of <" + std::string(ext_key_) + "> is an array"));
    const Slot slot = slot_;
    slot_ = Slot::kNone;
    if (slot == Slot::kIgnored) return Nest();
    return Fail(
        InvalidArgument("header field \"" + std::string(SlotName(slot)) + "\" is an array"));
  }

  bool EndArray(rapidjson::SizeType /*elements*/) {
    --skip_;  // arrays are only ever accepted inside a skipped value
    return true;
  }

 private:
  // RapidJSON 1.1.0 rejects a lone high-surrogate escape ("\ud800") but turns a lone low
  // one ("\udc00") into the 3-byte encoding of the surrogate, which is not UTF-8. The
  // input itself was validated, so such bytes can only come from an escape: reject them
  // too, consistently.
  static bool HasEncodedSurrogate(std::string_view text) {
    for (size_t i = text.find('\xED'); i != std::string_view::npos; i = text.find('\xED', i + 1)) {
      if (i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) >= 0xA0) return true;
    }
    return false;
  }
  bool LoneSurrogate() {
    return Fail(InvalidArgument("malformed JSON header: unpaired UTF-16 surrogate escape"));
  }

  bool Fail(Status s) {
    error_ = std::move(s);
    return false;
  }

  bool Nest() {
    ++skip_;
    const uint32_t max_depth = std::min(limits_.max_json_depth, kMaxJsonDepthCap);
    if (skip_ + 1 > max_depth) {
      return Fail(ResourceExhausted("JSON header nested deeper than " + std::to_string(max_depth) +
                                    " levels"));
    }
    return true;
  }

  bool Scalar(Kind kind, std::string_view text) {
    if (skip_ > 0) return true;
    if (level_ == 0) return Fail(InvalidArgument("the header is not a JSON object"));
    if (level_ == 2) return ExtValue(kind, text);
    const Slot slot = slot_;
    slot_ = Slot::kNone;
    switch (slot) {
      case Slot::kCode:
        return IntField(slot, kind, text, &command_->code);
      case Slot::kVersion:
        return IntField(slot, kind, text, &command_->version);
      case Slot::kOpaque:
        return IntField(slot, kind, text, &command_->opaque);
      case Slot::kFlag:
        return IntField(slot, kind, text, &command_->flag);
      case Slot::kLanguage:
        return Language(kind, text);
      case Slot::kRemark:
        if (kind == Kind::kNull) {
          command_->remark.reset();
          return true;
        }
        if (text.size() > limits_.max_remark_length) {
          return Fail(ResourceExhausted("remark of " + std::to_string(text.size()) +
                                        " bytes exceeds the limit of " +
                                        std::to_string(limits_.max_remark_length)));
        }
        command_->remark.emplace(text);
        return true;
      case Slot::kExtFields:
        if (kind == Kind::kNull) {
          command_->ext_fields.Clear();
          return true;
        }
        return Fail(InvalidArgument("header field \"extFields\" is not an object"));
      case Slot::kIgnored:
      case Slot::kNone:
        return true;
    }
    return true;
  }

  bool IntField(Slot slot, Kind kind, std::string_view text, int32_t* out) {
    if (kind == Kind::kNull) return true;  // Java keeps the field's default
    if (kind == Kind::kNumber || kind == Kind::kString) {
      const std::optional<int64_t> v = ParseJavaLong(text);
      if (v && *v >= std::numeric_limits<int32_t>::min() &&
          *v <= std::numeric_limits<int32_t>::max()) {
        *out = static_cast<int32_t>(*v);
        return true;
      }
    }
    return Fail(InvalidArgument("header field \"" + std::string(SlotName(slot)) +
                                "\" is not an int32: " + Shown(text)));
  }

  bool Language(Kind kind, std::string_view text) {
    switch (kind) {
      case Kind::kNull:
        return true;
      case Kind::kString:
        command_->language = LanguageFromName(text);
        return true;
      case Kind::kNumber:
        if (const std::optional<int64_t> v = ParseJavaLong(text)) {
          command_->language = LanguageFromNumber(*v);
          return true;
        }
        break;
      case Kind::kBool:
        break;
    }
    return Fail(InvalidArgument("header field \"language\" is neither a name nor a number: " +
                                Shown(text)));
  }

  bool ExtValue(Kind kind, std::string_view text) {
    if (kind == Kind::kNull) {
      command_->ext_fields.Erase(ext_key_);  // Java's Map.get then reads null = absent
      return true;
    }
    if (text.size() > limits_.max_value_length) {
      return Fail(ResourceExhausted("extFields value of <" + std::string(ext_key_) + "> has " +
                                    std::to_string(text.size()) + " bytes, over the limit of " +
                                    std::to_string(limits_.max_value_length)));
    }
    command_->ext_fields.Set(ext_key_, text);
    if (command_->ext_fields.size() > limits_.max_ext_fields) {
      return Fail(
          ResourceExhausted("more than " + std::to_string(limits_.max_ext_fields) + " extFields"));
    }
    return true;
  }

  const Limits& limits_;
  RemotingCommand* command_;
  const bool may_escape_;
  const size_t ext_fields_hint_;
  const size_t header_size_;
  Status error_;
  int level_ = 0;      // 0 outside the root, 1 in the root object, 2 in extFields
  uint32_t skip_ = 0;  // nesting inside the value of an ignored key
  Slot slot_ = Slot::kNone;
  // The current extFields name: a view into the parsed text (RapidJSON parses in situ) or
  // into the scanner's key buffer, both valid until the next key.
  std::string_view ext_key_;
};

// Length of the valid UTF-8 sequence starting at text[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF; the same rule RapidJSON validates), or 0.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  const size_t left = text.size() - i;
  auto cont = [&](size_t k, uint8_t lo = 0x80, uint8_t hi = 0xBF) {
    return k < left && byte(i + k) >= lo && byte(i + k) <= hi;
  };
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// The header fields a decoder may change, saved so a fast-path attempt can be undone.
struct SavedHeader {
  explicit SavedHeader(const RemotingCommand& c)
      : code(c.code),
        language(c.language),
        version(c.version),
        opaque(c.opaque),
        flag(c.flag),
        remark(c.remark),
        ext_fields(c.ext_fields) {}
  void RestoreTo(RemotingCommand* c) {
    c->code = code;
    c->language = language;
    c->version = version;
    c->opaque = opaque;
    c->flag = flag;
    c->remark = std::move(remark);
    c->ext_fields = std::move(ext_fields);
  }
  int32_t code;
  LanguageCode language;
  int32_t version, opaque, flag;
  std::optional<std::string> remark;
  ExtFields ext_fields;
};

size_t ExtFieldsHint(std::span<const uint8_t> header) {
  return static_cast<size_t>(std::count(header.begin(), header.end(), ':'));
}

}  // namespace

std::optional<Status> TryDecodeJsonHeaderFast(std::span<const uint8_t> header, const Limits& limits,
                                              RemotingCommand* command) {
  // No counting pass for the reserve: a fixed guess (a send header has 13-14 fields).
  constexpr size_t kExtFieldsGuess = 16;
  const std::string_view text(reinterpret_cast<const char*>(header.data()), header.size());
  if (TryDecodeFastjsonHeader(text, limits, command)) return Status::OK();
  HeaderHandler handler(limits, command, /*may_escape=*/false, kExtFieldsGuess, header.size());
  JsonSubsetScanner<HeaderHandler> scanner(text, &handler);
  switch (scanner.Run()) {
    case JsonSubsetScanner<HeaderHandler>::Outcome::kDone:
      return Status::OK();
    case JsonSubsetScanner<HeaderHandler>::Outcome::kHandlerFailed:
      return handler.error();
    case JsonSubsetScanner<HeaderHandler>::Outcome::kUnsupported:
      break;
  }
  return std::nullopt;
}

Status DecodeJsonHeaderWithRapidJson(std::span<const uint8_t> header, const Limits& limits,
                                     RemotingCommand* command) {
  // In-situ parsing decodes strings into this NUL-terminated copy. The extra NULs matter:
  // RapidJSON 1.1.0's UTF-8 validation takes the continuation bytes a lead byte announces
  // without looking for the end, so a 4-byte lead just before the end reads 3 bytes on.
  constexpr size_t kPadding = 4;
  std::string text;
  text.reserve(header.size() + kPadding);
  text.assign(reinterpret_cast<const char*>(header.data()), header.size());
  text.append(kPadding - 1, '\0');  // plus the terminator std::string keeps
  rapidjson::InsituStringStream stream(text.data());
  const bool may_escape = std::memchr(header.data(), '\\', header.size()) != nullptr;
  HeaderHandler handler(limits, command, may_escape, ExtFieldsHint(header), header.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult parsed = reader.Parse<kParseFlags>(stream, handler);
  if (!handler.error().ok()) return handler.error();
  if (parsed.IsError()) {
    return InvalidArgument(std::string("malformed JSON header: ") +
                           rapidjson::GetParseError_En(parsed.Code()) + " at offset " +
                           std::to_string(parsed.Offset()));
  }
  // RapidJSON stops at a NUL byte as if it were the end of the input.
  if (stream.Tell() != header.size()) {
    return InvalidArgument("malformed JSON header: bytes after the object at offset " +
                           std::to_string(stream.Tell()));
  }
  return Status::OK();
}

Status DecodeJsonHeader(std::span<const uint8_t> header, const Limits& limits,
                        RemotingCommand* command) {
  SavedHeader saved(*command);
  if (std::optional<Status> fast = TryDecodeJsonHeaderFast(header, limits, command)) {
    return *std::move(fast);
  }
  saved.RestoreTo(command);
  return DecodeJsonHeaderWithRapidJson(header, limits, command);
}

namespace {

// Copies the leading run of `text` that a JSON string carries as is (printable ASCII
// other than '"' and '\\': most header values are nothing else) to `out`; returns its
// length. Sixteen (SSE2) or eight bytes at a time while they remain: each block is
// stored before it is checked, so up to text.size() bytes of `out` may be written.
size_t CopyPlainPrefix(std::string_view text, char* out) {
  size_t i = 0;
  if constexpr (kJsonScan16) {
    for (; i + 16 <= text.size(); i += 16) {
      std::memcpy(out + i, text.data() + i, 16);
      if (const uint32_t special = JsonSpecialMask16(text.data() + i); special != 0) {
        return i + static_cast<size_t>(std::countr_zero(special));
      }
    }
  }
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, sizeof(word));
    std::memcpy(out + i, &word, sizeof(word));
    if (const uint64_t special = JsonSpecialBytes(word); special != 0) {
      return i + static_cast<size_t>(std::countr_zero(special)) / 8;  // little-endian
    }
  }
  for (; i < text.size(); ++i) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (IsJsonSpecialByte(c)) return i;
    out[i] = static_cast<char>(c);
  }
  return i;
}

// Bytes a literal of `text` may take at most: quotes, and 6 per byte (\u00XX, or \ufffd
// for a byte of invalid UTF-8; valid UTF-8 is copied as is).
constexpr size_t LiteralBound(size_t text_size) { return 2 + 6 * text_size; }
// The same for a text that needs no escape (most header values): quotes and the text.
constexpr size_t PlainLiteralBound(size_t text_size) { return 2 + text_size; }

// Writes the JSON literal of `text` (quotes included) at `out`, which has room for
// LiteralBound(text.size()) bytes; returns the bytes written. '"' and
// '\\' escaped, control bytes as \b \f \n \r \t or \u00XX (fastjson's forms), valid
// UTF-8 as is, each byte of invalid UTF-8 as \ufffd.
//
// kPlainOnly: `out` has room for PlainLiteralBound(text.size()) bytes only; a text that
// needs any escape writes nothing past that and returns kNotPlain.
constexpr size_t kNotPlain = static_cast<size_t>(-1);
template <bool kPlainOnly>
size_t WriteJsonLiteral(std::string_view text, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t n = 0;
  auto put = [&](const char* bytes, size_t len) {
    std::memcpy(out + n, bytes, len);
    n += len;
  };
  out[n++] = '"';
  size_t i = CopyPlainPrefix(text, out + n);
  n += i;
  if constexpr (kPlainOnly) {
    if (i < text.size()) return kNotPlain;
  }
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      const size_t plain = CopyPlainPrefix(text.substr(i), out + n);
      n += plain;
      i += plain;
    } else if (c == '"' || c == '\\') {
      const char escape[] = {'\\', static_cast<char>(c)};
      put(escape, sizeof(escape));
      ++i;
    } else if (c < 0x20) {
      switch (c) {
        case '\b':
          put("\\b", 2);
          break;
        case '\f':
          put("\\f", 2);
          break;
        case '\n':
          put("\\n", 2);
          break;
        case '\r':
          put("\\r", 2);
          break;
        case '\t':
          put("\\t", 2);
          break;
        default: {
          const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
          put(escape, sizeof(escape));
        }
      }
      ++i;
    } else if (const size_t len = Utf8SequenceLength(text, i); len > 0) {
      put(text.data() + i, len);
      i += len;
    } else {
      put("\\ufffd", 6);
      ++i;
    }
  }
  out[n++] = '"';
  return n;
}

// Digits (and sign) of `v` at `out` (room for 11); returns the length.
size_t WriteInt(int32_t v, char* out) {
  const auto r = std::to_chars(out, out + 11, v);
  return static_cast<size_t>(r.ptr - out);
}

// The fixed text of a header around its fields, for the bound.
constexpr std::string_view kHeaderFixedText =
    "{\"code\":,\"extFields\":{},\"flag\":,\"language\":,\"opaque\":,\"remark\":"
    ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":}";

// Bytes the header of `command` may take at most (WriteJsonHeader's output never exceeds
// it): with kPlainOnly, if no string in it needs an escape.
template <bool kPlainOnly>
size_t JsonHeaderBound(const RemotingCommand& command) {
  auto bound_of = [](size_t n) { return kPlainOnly ? PlainLiteralBound(n) : LiteralBound(n); };
  size_t bound = kHeaderFixedText.size() + 4 * 11;  // four int32 fields
  command.ForEachField([&](std::string_view name, std::string_view value) {
    bound += bound_of(name.size()) + bound_of(value.size()) + 2;  // ':' and ','
    return true;
  });
  bound += bound_of(LanguageName(command.language).size());
  if (command.remark) bound += bound_of(command.remark->size());
  return bound;
}

// Writes the whole header at `out`, which has room for JsonHeaderBound<kPlainOnly>(command)
// bytes; returns its length, or kNotPlain (kPlainOnly only) if a string needs an escape.
// Fields in fastjson's order: alphabetical.
template <bool kPlainOnly>
size_t WriteJsonHeader(const RemotingCommand& command, char* out) {
  size_t n = 0;
  auto raw = [&](std::string_view text) {
    std::memcpy(out + n, text.data(), text.size());
    n += text.size();
  };
  auto literal = [&](std::string_view text) {
    const size_t written = WriteJsonLiteral<kPlainOnly>(text, out + n);
    if (kPlainOnly && written == kNotPlain) return false;
    n += written;
    return true;
  };
  raw("{\"code\":");
  n += WriteInt(command.code, out + n);
  raw(",\"extFields\":{");
  bool first = true;
  auto quoted = [&](std::string_view text) {  // plain by construction
    out[n++] = '"';
    raw(text);
    out[n++] = '"';
  };
  const bool plain = command.ForEachFieldByKind(
      [&](std::string_view name, std::string_view value, bool plain_name, bool plain_value) {
        if (!first) out[n++] = ',';
        first = false;
        if (plain_name) {
          quoted(name);
        } else if (!literal(name)) {
          return false;
        }
        out[n++] = ':';
        if (!plain_value) return literal(value);
        quoted(value);
        return true;
      });
  if (!plain) return kNotPlain;
  raw("},\"flag\":");
  n += WriteInt(command.flag, out + n);
  raw(",\"language\":");
  quoted(LanguageName(command.language));  // one of codes.cc's upper-case names
  raw(",\"opaque\":");
  n += WriteInt(command.opaque, out + n);
  if (command.remark) {
    raw(",\"remark\":");
    if (!literal(*command.remark)) return kNotPlain;
  }
  raw(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
  n += WriteInt(command.version, out + n);
  raw("}");
  return n;
}

}  // namespace

void AppendJsonString(std::string_view text, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + LiteralBound(text.size()));
  out->resize(at + WriteJsonLiteral<false>(text, reinterpret_cast<char*>(out->data()) + at));
}

void EncodeJsonHeader(const RemotingCommand& command, std::vector<uint8_t>* out) {
  // Written once into its final place: room for the most it can take, then trimmed. First
  // as if no string needed an escape (the room is then close to the size); if one does,
  // again with room for the worst case.
  const size_t at = out->size();
  out->resize(at + JsonHeaderBound<true>(command));
  const size_t plain = WriteJsonHeader<true>(command, reinterpret_cast<char*>(out->data()) + at);
  if (plain != kNotPlain) {
    out->resize(at + plain);
    return;
  }
  out->resize(at + JsonHeaderBound<false>(command));
  out->resize(at + WriteJsonHeader<false>(command, reinterpret_cast<char*>(out->data()) + at));
}

}  // namespace rocketstore::protocol::internal
