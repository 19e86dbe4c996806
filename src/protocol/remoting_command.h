// File: protocol/remoting_command.h
//
// RemotingCommand: one request or response of RocketMQ's remoting protocol, as a value
// (remoting-protocol.md §A.1-§A.3). The frame codec (protocol/frame_codec.h) turns it
// into bytes and back; nothing here touches sockets.
//
// Header model:
//   code            RequestCode of a request, ResponseCode of a response (any int32).
//   language        LanguageCode of the sender.
//   version         sender's MQVersion ordinal (see request_code.h).
//   opaque          request id picked by the requester; a response echoes it.
//   flag            bit 0 (kFlagResponse) = response; bit 1 (kFlagOneway) = the receiver
//                   must not answer. Other bits are kept as received.
//   remark          optional text (error message of a response). nullopt = absent.
//   ext_fields      the custom header: name → value, all strings on the wire. Kept in
//                   insertion order so encoded frames are deterministic; no RocketMQ client
//                   depends on the order (JSON objects / Java HashMap). A send request's
//                   or answer's fields may be held by position instead (send_v2,
//                   send_reply): read with FindField / ForEachField, not ext_fields alone.
//   serialize_type  header encoding the command arrived in / is to be written in.
//
// Header-field accessors follow Java's decodeCommandCustomHeader (§A.2 step 5): ints are
// base-10 Java parseLong syntax ("+7", "-1"; no spaces, no fractions), a bool is true iff
// the text is "true" in any case. A missing field or a malformed number is a Status with
// code kInvalidArgument and a message naming the field, meant to be sent back verbatim as
// the remark of a SYSTEM_ERROR response (§A.10 item 4).
//
// Body: owned bytes (or, for a send request decoded with Limits::borrow_send_bodies, bytes
// borrowed from the frame buffer), followed by zero or more externally owned parts. A
// decoded command otherwise owns its whole body. The external parts let the pull path send raw
// commit-log records without copying them: the bytes must stay valid and unchanged until the
// encoded frame has been written; attach an owner (any shared_ptr) to tie their lifetime to the
// command.
//
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "protocol/fields_by_position.h"
#include "protocol/request_code.h"
#include "protocol/response_code.h"

namespace rocketstore::protocol {

inline constexpr int32_t kFlagResponse = 1 << 0;
inline constexpr int32_t kFlagOneway = 1 << 1;

// High byte of the frame's typeAndHeaderLength word (§A.1).
enum class SerializeType : uint8_t {
  kJson = 0,      // fastjson-compatible JSON text; what every client we target uses
  kRocketMq = 1,  // RocketMQSerializable binary header (§A.3)
};

// The custom header: an insertion-ordered map with unique names. Setting an existing name
// replaces its value (JSON and Java HashMap: the last duplicate wins).
//
// Storage: every name and value is appended to one byte arena and entries are offsets into
// it, so a decoded header costs two allocations however many fields it has. A longer
// replacement value is appended too (the old bytes stay until Clear()), so the arena of a
// map rewritten in a loop grows; commands are short-lived. Views that Find() and the
// iterators return stay valid until the next Set, Erase or Clear.
class ExtFields {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;

  std::optional<std::string_view> Find(std::string_view name) const;
  bool Contains(std::string_view name) const { return Find(name).has_value(); }
  void Set(std::string_view name, std::string_view value);
  bool Erase(std::string_view name);  // whether it was present
  void Clear() {
    slots_.clear();
    arena_.clear();
    heads_.fill(0);
  }
  // Room for `n` fields of `bytes` name and value bytes in all.
  void Reserve(size_t n, size_t bytes = 0) {
    slots_.reserve(n);
    arena_.reserve(bytes);
  }

  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  class Iterator {
   public:
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    Entry operator*() const { return fields_->EntryAt(i_); }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

   private:
    friend class ExtFields;
    Iterator(const ExtFields* fields, size_t i) : fields_(fields), i_(i) {}
    const ExtFields* fields_;
    size_t i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, slots_.size()); }

  // Same entries in the same order (the arenas may differ).
  friend bool operator==(const ExtFields& a, const ExtFields& b);

 private:
  struct Slot {
    uint32_t name_at, name_len, value_at, value_len;
    uint16_t next = 0;  // the next slot (index + 1) of the same bucket; 0 = none
  };
  Entry EntryAt(size_t i) const {
    const Slot& s = slots_[i];
    return {std::string_view(arena_.data() + s.name_at, s.name_len),
            std::string_view(arena_.data() + s.value_at, s.value_len)};
  }
  uint32_t Append(std::string_view bytes);
  // Names are found through a small chained hash index (heads_ + Slot::next): a header's
  // ~14 lookups cost a probe each instead of a scan. The bucket mixes the length and the
  // first and last bytes, so the one-letter names of SEND_MESSAGE_V2 ("a" … "n") and the
  // usual names of other headers land apart. Past kMaxIndexed fields (far beyond any real
  // header), lookups scan.
  static constexpr size_t kMaxIndexed = 4096;
  static size_t BucketOf(std::string_view name) {
    if (name.empty()) return 0;
    const auto first = static_cast<uint8_t>(name.front());
    const auto last = static_cast<uint8_t>(name.back());
    return (name.size() * 31 + first * 3 + last * 7) & 63;
  }
  void Link(size_t slot_index);  // into its bucket's chain
  void Reindex();                // every slot again (after an Erase)
  // The slot named `name`, or nullptr.
  const Slot* FindSlot(std::string_view name) const;

  std::string arena_;
  std::vector<Slot> slots_;
  std::array<uint16_t, 64> heads_{};  // first slot (index + 1) of each bucket; 0 = none
};

// The body: `owned()` bytes, or `borrowed()` ones (never both), then `external_parts()`
// in order.
class CommandBody {
 public:
  // Replaces the whole body (owned, borrowed and external) with owned bytes.
  void Assign(std::vector<uint8_t> bytes);
  void Assign(std::string_view bytes);
  // Replaces the whole body with a view of bytes that belong to the caller — the frame
  // decoder's input, for a send request when Limits::borrow_send_bodies asks — which must
  // stay valid and unchanged while this body, a copy of it (the copy borrows too) or an
  // EncodedFrame built from it is in use. Nothing keeps them alive.
  void Borrow(std::span<const uint8_t> bytes);
  // Appends bytes owned elsewhere. `part` must stay valid and unchanged as long as this
  // body or an EncodedFrame built from it is in use; `owner`, if given, is kept alive by
  // the body (and its copies) to make that so.
  void AppendExternal(std::span<const uint8_t> part, std::shared_ptr<const void> owner = {});
  void Clear();

  size_t size() const { return owned_.size() + borrowed_.size() + external_size_; }
  bool empty() const { return size() == 0; }
  const std::vector<uint8_t>& owned() const { return owned_; }
  std::vector<uint8_t>& mutable_owned() { return owned_; }
  std::string_view owned_text() const {
    return {reinterpret_cast<const char*>(owned_.data()), owned_.size()};
  }
  std::span<const uint8_t> borrowed() const { return borrowed_; }
  // The owned or borrowed bytes (the body of a decoded command, whichever way it was
  // decoded; external parts are not included).
  std::span<const uint8_t> leading() const {
    return borrowed_.empty() ? std::span<const uint8_t>(owned_) : borrowed_;
  }
  std::string_view leading_text() const {
    const std::span<const uint8_t> b = leading();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  const std::vector<std::span<const uint8_t>>& external_parts() const { return external_; }

  // The non-empty pieces of the body in order: views, no copy (a gather list).
  std::vector<std::span<const uint8_t>> Parts() const;
  // A contiguous copy of the whole body.
  std::vector<uint8_t> Flatten() const;

 private:
  std::vector<uint8_t> owned_;
  std::span<const uint8_t> borrowed_;
  std::vector<std::span<const uint8_t>> external_;
  std::vector<std::shared_ptr<const void>> owners_;
  size_t external_size_ = 0;
};

struct RemotingCommand {
  // Defaults are Java's for a header that omits the field.
  int32_t code = 0;
  LanguageCode language = LanguageCode::kJava;
  int32_t version = 0;
  int32_t opaque = 0;
  int32_t flag = 0;
  std::optional<std::string> remark;
  ExtFields ext_fields;
  // Fields held by position (protocol/fields_by_position.h) besides ext_fields: a send
  // request's one-letter fields when the decoder was asked, a send answer's fields. The
  // readers and SetField below treat the three as one header; a name held by position
  // wins over the same name in ext_fields (which the encoders then skip).
  SendV2Fields send_v2;
  SendReplyFields send_reply;
  SerializeType serialize_type = SerializeType::kJson;
  CommandBody body;
  // Not on the wire: when the server began handling this request (steady clock, ns; 0 =
  // unknown). Set by net::RemotingServer; a response to it reports its latency.
  int64_t received_nanos = 0;

  bool IsResponse() const { return (flag & kFlagResponse) != 0; }
  bool IsOneway() const { return (flag & kFlagOneway) != 0; }
  void MarkResponse() { flag |= kFlagResponse; }
  void MarkOneway() { flag |= kFlagOneway; }

  // ---- Reading the custom header. A returned string_view points into this command.
  std::optional<std::string_view> FindField(std::string_view name) const;
  Result<std::string_view> GetString(std::string_view name) const;
  Result<int64_t> GetInt(std::string_view name) const;    // Java long
  Result<int32_t> GetInt32(std::string_view name) const;  // Java int: range-checked
  Result<bool> GetBool(std::string_view name) const;
  // Optional fields: `fallback` when absent; an error only if present and malformed.
  Result<int64_t> GetIntOr(std::string_view name, int64_t fallback) const;
  Result<int32_t> GetInt32Or(std::string_view name, int32_t fallback) const;
  bool GetBoolOr(std::string_view name, bool fallback) const;
  // OK, or kInvalidArgument "the custom field <name> is null" for the first missing name.
  Status RequireFields(std::initializer_list<std::string_view> names) const;

  // ---- Writing the custom header (values are text on the wire). Into send_v2 or
  // send_reply when it is used and has the name, else into ext_fields.
  void SetField(std::string_view name, std::string_view value);
  void SetIntField(std::string_view name, int64_t value);
  void SetBoolField(std::string_view name, bool value);

  // Every field of the custom header as the encoders write it: send_v2's and
  // send_reply's in their schemas' order, then ext_fields' in insertion order (but for
  // names held by position). f(name, value) -> bool (false stops); false when f stopped.
  template <class F>
  bool ForEachField(F&& f) const {
    return ForEachFieldByKind(
        [&f](std::string_view name, std::string_view value, bool, bool) { return f(name, value); });
  }
  // The same, with f(name, value, plain_name, plain_value), saying what needs no JSON
  // escape check: plain_name when the name is one of a FieldsByPosition schema's (plain
  // ASCII), plain_value when the value was set as plain there (FieldsByPosition::SetAt).
  template <class F>
  bool ForEachFieldByKind(F&& f) const {
    auto schema = [&f](std::string_view name, std::string_view value, bool plain_value) {
      return f(name, value, true, plain_value);
    };
    if (!send_v2.ForEachWithPlain(schema) || !send_reply.ForEachWithPlain(schema)) return false;
    const bool by_position = send_v2.used() || send_reply.used();
    for (const auto& [name, value] : ext_fields) {
      if (by_position && HeldByPosition(name)) continue;
      if (!f(name, value, false, false)) return false;
    }
    return true;
  }
  size_t FieldCount() const;  // what ForEachField visits

  // One line for logs: "request PULL_MESSAGE(11) opaque=7 flag=0 ext=10 body=0".
  std::string DebugString() const;

 private:
  bool HeldByPosition(std::string_view name) const {
    return send_v2.Find(name).has_value() || send_reply.Find(name).has_value();
  }
};

// Base-10 Java Long.parseLong syntax: optional sign, ASCII digits, nothing else.
std::optional<int64_t> ParseJavaLong(std::string_view text);

// A request stamped with kLocalLanguage / kLocalVersion; opaque and flag are 0.
RemotingCommand MakeRequest(int32_t code);
inline RemotingCommand MakeRequest(RequestCode code) { return MakeRequest(ToInt(code)); }

// The response to `request`: same opaque and serialize type, flag = kFlagResponse (never
// oneway), kLocalLanguage / kLocalVersion, no fields, no body. Whether to answer at all
// is the caller's call: a oneway request (IsOneway) must get no response.
// Without a remark argument the response has none (absent, not empty).
RemotingCommand MakeResponse(const RemotingCommand& request, ResponseCode code);
RemotingCommand MakeResponse(const RemotingCommand& request, ResponseCode code, std::string remark);
RemotingCommand MakeResponse(const RemotingCommand& request, int32_t code);
RemotingCommand MakeResponse(const RemotingCommand& request, int32_t code, std::string remark);
// REQUEST_CODE_NOT_SUPPORTED with Java's remark " request type <code> not supported".
RemotingCommand MakeRequestCodeNotSupportedResponse(const RemotingCommand& request);
// SYSTEM_ERROR with remark = error.message() (e.g. a failed GetInt / RequireFields).
RemotingCommand MakeSystemErrorResponse(const RemotingCommand& request, const Status& error);

}  // namespace rocketstore::protocol
