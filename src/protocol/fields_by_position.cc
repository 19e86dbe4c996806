#include "protocol/fields_by_position.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <new>

#include "protocol/internal/json_bytes.h"

namespace rocketstore::protocol {

template <class Schema>
void FieldsByPosition<Schema>::FreeBlock::operator()(Block* b) const {
  b->~Block();
  ::operator delete(b);
}

template <class Schema>
typename FieldsByPosition<Schema>::BlockPtr FieldsByPosition<Schema>::NewBlock(size_t capacity,
                                                                               const Block* from) {
  void* raw = ::operator new(sizeof(Block) + capacity);
  BlockPtr block(new (raw) Block());
  block->capacity = capacity;
  if (from != nullptr) {
    block->fields = from->fields;
    block->used = from->used;
    std::memcpy(block->bytes(), from->bytes(), from->used);
  }
  return block;
}

template <class Schema>
FieldsByPosition<Schema>::FieldsByPosition(const FieldsByPosition& other) {
  *this = other;
}

template <class Schema>
FieldsByPosition<Schema>& FieldsByPosition<Schema>::operator=(const FieldsByPosition& other) {
  if (this == &other) return *this;
  block_ = other.block_ == nullptr ? nullptr : NewBlock(other.block_->used, other.block_.get());
  return *this;
}

template <class Schema>
void FieldsByPosition<Schema>::Reserve(size_t bytes) {
  if (block_ == nullptr) block_ = NewBlock(bytes, nullptr);
}

template <class Schema>
char* FieldsByPosition<Schema>::AdoptText(std::string_view text) {
  block_ = NewBlock(text.size(), nullptr);
  if (!text.empty()) std::memcpy(block_->bytes(), text.data(), text.size());
  block_->used = text.size();
  return block_->bytes();
}

template <class Schema>
bool FieldsByPosition<Schema>::SetIntAt(int i, int64_t value) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), value);
  return SetAt(i, std::string_view(digits, static_cast<size_t>(r.ptr - digits)), kPlain);
}

template <class Schema>
bool FieldsByPosition<Schema>::SetAt(int i, std::string_view value, Escape escape) {
  // The kPlain promise, by the encoder's own rule (a debug build checks it).
  assert(escape == kCheck || internal::SkipJsonPlain(value.data(), value.data() + value.size()) ==
                                 value.data() + value.size());
  if (i < 0 || i >= kCount || block_ == nullptr) return false;
  // A repeated name: the new value goes after the old one (kept until the block goes).
  // Past the room, into a larger block; `value` may be a view of this block, so it is
  // copied before the old block is freed.
  BlockPtr grown;
  Block* into = block_.get();
  if (value.size() > block_->capacity - block_->used) {
    grown = NewBlock(std::max(2 * block_->capacity, block_->used + value.size()), block_.get());
    into = grown.get();
  }
  Field& f = into->fields[static_cast<size_t>(i)];
  f.at = static_cast<uint32_t>(into->used);
  f.len = static_cast<uint32_t>(value.size());
  f.plain = escape == kPlain;
  if (!value.empty()) std::memcpy(into->bytes() + into->used, value.data(), value.size());
  into->used += value.size();
  if (grown != nullptr) block_ = std::move(grown);
  return true;
}

template <class Schema>
size_t FieldsByPosition<Schema>::size() const {
  if (block_ == nullptr) return 0;
  size_t n = 0;
  for (const Field& f : block_->fields) n += f.len != kAbsent ? 1 : 0;
  return n;
}

template class FieldsByPosition<SendV2Schema>;
template class FieldsByPosition<SendReplySchema>;

}  // namespace rocketstore::protocol
