// File: protocol/fields_by_position.h
//
// FieldsByPosition<Schema>: a custom header (remoting-protocol.md §A.2) whose names are
// known in advance, held by position in one allocation instead of in ExtFields' name
// index. The broker's hottest request and answer use it:
//   SendV2Fields     SEND_MESSAGE_V2's one-letter names "a" .. "n" (also SEND_BATCH_MESSAGE
//                    and SEND_REPLY_MESSAGE_V2), filled by the frame decoder when asked
//                    (Limits::send_fields_by_position; fastjson's exact header shape only).
//   SendReplyFields  SendMessageResponseHeader's fields and the two the Java broker adds
//                    to every send answer, filled by SendMessageResponseHeader::EncodeTo.
// RemotingCommand holds one of each (unused: one null pointer each, so moving a command
// costs nothing more). Its FindField, Get* readers and SetField see them and ext_fields
// as one header, and the encoders write them (RemotingCommand::ForEachField) — but
// EncodeFrame refuses a command with send_v2 used: the decoder dropped any name outside
// "a" .. "n", so its header would go out without them.
//
// Storage: an array of (offset, length) per schema name, then the values' bytes, in one
// block. A repeated name keeps its last value (the old bytes stay until the block goes),
// as ExtFields does. Views Find and ForEach give stay valid until the next Set. The JSON
// decoder fills a send request's block with one copy of the header text (AdoptText) and
// names each value's bytes in it (PlaceAt), unescaping in place: no copy per value.
//
// A value set with SetIntAt (digits) or SetAt(..., kPlain) is marked plain: it holds no
// byte a JSON string must escape, so the encoder copies it without a check
// (ForEachWithPlain). Set and SetAt(..., kCheck) mark nothing.
//
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace rocketstore::protocol {

template <class Schema>
class FieldsByPosition {
 public:
  static constexpr int kCount = static_cast<int>(Schema::kNames.size());
  // The JSON encoder writes schema names without an escape check (ForEachFieldByKind).
  static constexpr bool PlainNames() {
    for (std::string_view name : Schema::kNames) {
      for (char c : name) {
        const bool plain =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!plain) return false;
      }
    }
    return true;
  }
  static_assert(PlainNames(), "a schema name must be [A-Za-z0-9_]");
  // The schema's position of `name`, or -1 when it is not one of its names.
  static int IndexOf(std::string_view name) { return Schema::IndexOf(name); }

  FieldsByPosition() = default;
  FieldsByPosition(const FieldsByPosition& other);
  FieldsByPosition& operator=(const FieldsByPosition& other);
  FieldsByPosition(FieldsByPosition&&) noexcept = default;
  FieldsByPosition& operator=(FieldsByPosition&&) noexcept = default;

  // Whether Reserve or AdoptText was called: the command's header is (also) here, even if
  // no field of the schema was present.
  bool used() const { return block_ != nullptr; }
  // Room for `bytes` of values in all: one allocation, made by the first call.
  void Reserve(size_t bytes);
  // False, setting nothing, when `name` is not one of the schema's names or before
  // Reserve. Values past the room reserved move the block to a larger one.
  [[nodiscard]] bool Set(std::string_view name, std::string_view value) {
    return SetAt(IndexOf(name), value, kCheck);
  }
  // By schema position (IndexOf). kPlain promises that `value` holds no byte a JSON
  // string must escape (internal/json_bytes.h's rule) — a debug build checks it. False,
  // setting nothing, when i is out of range or before Reserve.
  enum Escape : bool { kCheck = false, kPlain = true };
  [[nodiscard]] bool SetAt(int i, std::string_view value, Escape escape);
  // The decimal digits of `value`, plain.
  [[nodiscard]] bool SetIntAt(int i, int64_t value);
  // The decoder's way in, with no copy per value: a new block (replacing any) holding a
  // copy of `text`, whose bytes are returned for the caller to rewrite in place (it may
  // write anywhere in [0, text.size())); PlaceAt then names each field's bytes in it.
  char* AdoptText(std::string_view text);
  // Field i is bytes [at, at + len) of the block AdoptText made (a repeated i: the last
  // call wins). False, setting nothing, when i is out of range or the bytes are not
  // inside the adopted text.
  [[nodiscard]] bool PlaceAt(int i, size_t at, size_t len) {
    if (i < 0 || i >= kCount || block_ == nullptr || at > block_->used || len > block_->used - at) {
      return false;
    }
    Field& f = block_->fields[static_cast<size_t>(i)];
    f.at = static_cast<uint32_t>(at);
    f.len = static_cast<uint32_t>(len);
    f.plain = false;
    return true;
  }
  std::optional<std::string_view> Find(std::string_view name) const {
    const int i = IndexOf(name);
    if (block_ == nullptr || i < 0) return std::nullopt;
    const Field& f = block_->fields[static_cast<size_t>(i)];
    if (f.len == kAbsent) return std::nullopt;
    return std::string_view(block_->bytes() + f.at, f.len);
  }
  size_t size() const;  // fields present

  // The fields present, in the schema's order: f(name, value) -> bool (false stops).
  // Returns false when f stopped it.
  template <class F>
  bool ForEach(F&& f) const {
    return ForEachWithPlain(
        [&f](std::string_view name, std::string_view value, bool) { return f(name, value); });
  }
  // The same with f(name, value, plain): plain when the value was set as plain.
  template <class F>
  bool ForEachWithPlain(F&& f) const {
    if (block_ == nullptr) return true;
    for (size_t i = 0; i < block_->fields.size(); ++i) {
      const Field& field = block_->fields[i];
      if (field.len == kAbsent) continue;
      if (!f(Schema::kNames[i], std::string_view(block_->bytes() + field.at, field.len),
             field.plain)) {
        return false;
      }
    }
    return true;
  }

 private:
  static constexpr uint32_t kAbsent = 0xFFFFFFFF;
  struct Field {
    uint32_t at = 0, len = kAbsent;
    bool plain = false;
  };
  // The fields, then `capacity` bytes of values (allocated together).
  struct Block {
    std::array<Field, Schema::kNames.size()> fields{};
    size_t used = 0, capacity = 0;
    char* bytes() { return reinterpret_cast<char*>(this + 1); }
    const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
  };
  struct FreeBlock {
    void operator()(Block* b) const;
  };
  using BlockPtr = std::unique_ptr<Block, FreeBlock>;
  // A block of `capacity` holding a copy of `from`'s fields and values (if any).
  static BlockPtr NewBlock(size_t capacity, const Block* from);
  BlockPtr block_;
};

struct SendV2Schema {
  static constexpr std::array<std::string_view, 14> kNames = {"a", "b", "c", "d", "e", "f", "g",
                                                              "h", "i", "j", "k", "l", "m", "n"};
  static int IndexOf(std::string_view name) {
    return name.size() == 1 && name[0] >= 'a' && name[0] <= 'n' ? name[0] - 'a' : -1;
  }
};

// In the order the broker writes them (ExtFields insertion order before; frames unchanged).
struct SendReplySchema {
  static constexpr std::array<std::string_view, 7> kNames = {
      "transactionId", "msgId", "queueId", "queueOffset", "recallHandle", "MSG_REGION", "TRACE_ON"};
  static int IndexOf(std::string_view name) {
    // The names' lengths differ: one comparison.
    int i = -1;
    switch (name.size()) {
      case 13:
        i = 0;
        break;
      case 5:
        i = 1;
        break;
      case 7:
        i = 2;
        break;
      case 11:
        i = 3;
        break;
      case 12:
        i = 4;
        break;
      case 10:
        i = 5;
        break;
      case 8:
        i = 6;
        break;
      default:
        return -1;
    }
    return name == kNames[static_cast<size_t>(i)] ? i : -1;
  }
};

using SendV2Fields = FieldsByPosition<SendV2Schema>;
using SendReplyFields = FieldsByPosition<SendReplySchema>;
extern template class FieldsByPosition<SendV2Schema>;
extern template class FieldsByPosition<SendReplySchema>;

}  // namespace rocketstore::protocol
