#include "protocol/remoting_command.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <new>

namespace rocketstore::protocol {

namespace {

std::string QuoteForMessage(std::string_view value) {
  constexpr size_t kMaxShown = 64;
  std::string out = "\"";
  out.append(value.substr(0, kMaxShown));
  if (value.size() > kMaxShown) out.append("...");
  out.push_back('"');
  return out;
}

Status MissingField(std::string_view name) {
  return InvalidArgument("the custom field <" + std::string(name) + "> is null");
}

Status NotAnInt(std::string_view name, std::string_view value, std::string_view type) {
  return InvalidArgument("the custom field <" + std::string(name) + "> is not a valid " +
                         std::string(type) + ": " + QuoteForMessage(value));
}

Result<int32_t> ToInt32(std::string_view name, std::string_view text) {
  const std::optional<int64_t> v = ParseJavaLong(text);
  if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return NotAnInt(name, text, "int");
  }
  return static_cast<int32_t>(*v);
}

Result<int64_t> ToInt64(std::string_view name, std::string_view text) {
  const std::optional<int64_t> v = ParseJavaLong(text);
  if (!v) return NotAnInt(name, text, "long");
  return *v;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    return lower(x) == lower(y);
  });
}

// A send handler looks up ~12 fields among ~13, most of them one letter long (V2
// headers): comparing the first byte inline skips a memcmp call for nearly every
// mismatch (measured: memcmp calls were ~5 % of the broker io thread).
inline bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return a[0] == b[0] &&
         (a.size() == 1 || std::memcmp(a.data() + 1, b.data() + 1, a.size() - 1) == 0);
}

}  // namespace

// ---- ExtFields ------------------------------------------------------------------------------

uint32_t ExtFields::Append(std::string_view bytes) {
  const auto at = static_cast<uint32_t>(arena_.size());
  arena_.append(bytes);
  return at;
}

const ExtFields::Slot* ExtFields::FindSlot(std::string_view name) const {
  if (slots_.size() > kMaxIndexed) {  // past the index: a scan
    for (const Slot& s : slots_) {
      if (SameName(std::string_view(arena_.data() + s.name_at, s.name_len), name)) return &s;
    }
    return nullptr;
  }
  for (uint16_t i = heads_[BucketOf(name)]; i != 0; i = slots_[i - 1].next) {
    const Slot& s = slots_[i - 1];
    if (SameName(std::string_view(arena_.data() + s.name_at, s.name_len), name)) return &s;
  }
  return nullptr;
}

void ExtFields::Link(size_t slot_index) {
  Slot& s = slots_[slot_index];
  uint16_t& head = heads_[BucketOf(std::string_view(arena_.data() + s.name_at, s.name_len))];
  s.next = head;
  head = static_cast<uint16_t>(slot_index + 1);
}

void ExtFields::Reindex() {
  heads_.fill(0);
  if (slots_.size() > kMaxIndexed) return;
  for (size_t i = 0; i < slots_.size(); ++i) Link(i);
}

std::optional<std::string_view> ExtFields::Find(std::string_view name) const {
  const Slot* s = FindSlot(name);
  if (s == nullptr) return std::nullopt;
  return std::string_view(arena_.data() + s->value_at, s->value_len);
}

void ExtFields::Set(std::string_view name, std::string_view value) {
  // Frames are at most 16 MiB by default, and the decoders bound names and values
  // (Limits): offsets fit 32 bits.
  if (const Slot* found = FindSlot(name)) {
    Slot& s = slots_[static_cast<size_t>(found - slots_.data())];
    if (value.size() <= s.value_len) {
      // In place; memmove because `value` may itself point into the arena.
      std::memmove(arena_.data() + s.value_at, value.data(), value.size());
    } else {
      s.value_at = Append(value);  // the old value's bytes stay, unused until Clear()
    }
    s.value_len = static_cast<uint32_t>(value.size());
    return;
  }
  Slot s;
  s.name_at = Append(name);
  s.name_len = static_cast<uint32_t>(name.size());
  s.value_at = Append(value);
  s.value_len = static_cast<uint32_t>(value.size());
  slots_.push_back(s);
  if (slots_.size() <= kMaxIndexed) Link(slots_.size() - 1);
}

bool ExtFields::Erase(std::string_view name) {
  const Slot* found = FindSlot(name);
  if (found == nullptr) return false;
  slots_.erase(slots_.begin() + (found - slots_.data()));  // its bytes stay, unused
  Reindex();
  return true;
}

bool operator==(const ExtFields& a, const ExtFields& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.EntryAt(i) != b.EntryAt(i)) return false;
  }
  return true;
}

// ---- CommandBody ----------------------------------------------------------------------------

void CommandBody::Assign(std::vector<uint8_t> bytes) {
  Clear();
  owned_ = std::move(bytes);
}

void CommandBody::Assign(std::string_view bytes) {
  Clear();
  owned_.assign(bytes.begin(), bytes.end());
}

void CommandBody::Borrow(std::span<const uint8_t> bytes) {
  Clear();
  borrowed_ = bytes;
}

void CommandBody::AppendExternal(std::span<const uint8_t> part, std::shared_ptr<const void> owner) {
  if (owner) owners_.push_back(std::move(owner));
  if (part.empty()) return;
  external_.push_back(part);
  external_size_ += part.size();
}

void CommandBody::Clear() {
  owned_.clear();
  borrowed_ = {};
  external_.clear();
  owners_.clear();
  external_size_ = 0;
}

std::vector<std::span<const uint8_t>> CommandBody::Parts() const {
  std::vector<std::span<const uint8_t>> parts;
  if (empty()) return parts;  // most responses: no allocation
  parts.reserve(external_.size() + 1);
  if (!owned_.empty()) parts.emplace_back(owned_);
  if (!borrowed_.empty()) parts.push_back(borrowed_);
  parts.insert(parts.end(), external_.begin(), external_.end());
  return parts;
}

std::vector<uint8_t> CommandBody::Flatten() const {
  std::vector<uint8_t> out;
  out.reserve(size());
  out.insert(out.end(), owned_.begin(), owned_.end());
  out.insert(out.end(), borrowed_.begin(), borrowed_.end());
  for (const auto& part : external_) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// ---- RemotingCommand ------------------------------------------------------------------------

std::optional<std::string_view> RemotingCommand::FindField(std::string_view name) const {
  if (send_v2.used()) {
    if (std::optional<std::string_view> v = send_v2.Find(name)) return v;
  }
  if (send_reply.used()) {
    if (std::optional<std::string_view> v = send_reply.Find(name)) return v;
  }
  return ext_fields.Find(name);
}

size_t RemotingCommand::FieldCount() const {
  size_t n = 0;
  ForEachField([&n](std::string_view, std::string_view) { return ++n > 0; });
  return n;
}

Result<std::string_view> RemotingCommand::GetString(std::string_view name) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return MissingField(name);
  return *v;
}

Result<int64_t> RemotingCommand::GetInt(std::string_view name) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return MissingField(name);
  return ToInt64(name, *v);
}

Result<int32_t> RemotingCommand::GetInt32(std::string_view name) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return MissingField(name);
  return ToInt32(name, *v);
}

Result<bool> RemotingCommand::GetBool(std::string_view name) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return MissingField(name);
  return EqualsIgnoreAsciiCase(*v, "true");
}

Result<int64_t> RemotingCommand::GetIntOr(std::string_view name, int64_t fallback) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return fallback;
  return ToInt64(name, *v);
}

Result<int32_t> RemotingCommand::GetInt32Or(std::string_view name, int32_t fallback) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return fallback;
  return ToInt32(name, *v);
}

bool RemotingCommand::GetBoolOr(std::string_view name, bool fallback) const {
  const std::optional<std::string_view> v = FindField(name);
  if (!v) return fallback;
  return EqualsIgnoreAsciiCase(*v, "true");
}

Status RemotingCommand::RequireFields(std::initializer_list<std::string_view> names) const {
  for (std::string_view name : names) {
    if (!FindField(name)) return MissingField(name);
  }
  return Status::OK();
}

void RemotingCommand::SetField(std::string_view name, std::string_view value) {
  if (send_v2.used() && send_v2.Set(name, value)) return;
  if (send_reply.used() && send_reply.Set(name, value)) return;
  ext_fields.Set(name, value);
}

void RemotingCommand::SetIntField(std::string_view name, int64_t value) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), value);
  SetField(name, std::string_view(digits, static_cast<size_t>(r.ptr - digits)));
}

void RemotingCommand::SetBoolField(std::string_view name, bool value) {
  SetField(name, value ? "true" : "false");
}

std::string RemotingCommand::DebugString() const {
  std::string out = IsResponse() ? "response " : "request ";
  const std::string_view name = IsResponse() ? ResponseCodeName(code) : RequestCodeName(code);
  if (!name.empty()) out.append(name);
  out.append("(" + std::to_string(code) + ") opaque=" + std::to_string(opaque) +
             " flag=" + std::to_string(flag) + " ext=" + std::to_string(FieldCount()) +
             " body=" + std::to_string(body.size()));
  if (remark) out.append(" remark=" + QuoteForMessage(*remark));
  return out;
}

// ---- Free functions -------------------------------------------------------------------------

std::optional<int64_t> ParseJavaLong(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  if (text.size() - i <= 18) {  // cannot overflow: no range checks per digit
    int64_t v = 0;
    for (; i < text.size(); ++i) {
      const auto digit = static_cast<unsigned>(text[i] - '0');
      if (digit > 9) return std::nullopt;
      v = v * 10 + static_cast<int64_t>(digit);
    }
    return negative ? -v : v;
  }
  // Accumulate as a negative number so INT64_MIN parses (as Java's parseLong does).
  int64_t value = 0;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (value < kMin / 10) return std::nullopt;
    value *= 10;
    if (value < kMin + digit) return std::nullopt;
    value -= digit;
  }
  if (negative) return value;
  if (value == kMin) return std::nullopt;
  return -value;
}

RemotingCommand MakeRequest(int32_t code) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.language = kLocalLanguage;
  cmd.version = kLocalVersion;
  return cmd;
}

RemotingCommand MakeResponse(const RemotingCommand& request, int32_t code) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.language = kLocalLanguage;
  cmd.version = kLocalVersion;
  cmd.opaque = request.opaque;
  cmd.flag = kFlagResponse;
  cmd.serialize_type = request.serialize_type;
  return cmd;
}

RemotingCommand MakeResponse(const RemotingCommand& request, int32_t code, std::string remark) {
  RemotingCommand cmd = MakeResponse(request, code);
  cmd.remark = std::move(remark);
  return cmd;
}

RemotingCommand MakeResponse(const RemotingCommand& request, ResponseCode code) {
  return MakeResponse(request, ToInt(code));
}

RemotingCommand MakeResponse(const RemotingCommand& request, ResponseCode code,
                             std::string remark) {
  return MakeResponse(request, ToInt(code), std::move(remark));
}

RemotingCommand MakeRequestCodeNotSupportedResponse(const RemotingCommand& request) {
  return MakeResponse(request, ResponseCode::kRequestCodeNotSupported,
                      " request type " + std::to_string(request.code) + " not supported");
}

RemotingCommand MakeSystemErrorResponse(const RemotingCommand& request, const Status& error) {
  return MakeResponse(request, ResponseCode::kSystemError, error.message());
}

}  // namespace rocketstore::protocol
