// File: base/offsets.h
//
// Distinct types for the three kinds of position the store juggles, so that mixing
// them does not compile:
//   PhysicalOffset  absolute byte offset in the CommitLog (across all segment files);
//                   also the start offset that names a segment file.
//   QueueOffset     logical index of a message in one consume queue (entry number,
//                   not bytes): the "queueOffset" of the protocol.
// A position inside one file is a plain uint32_t/size_t ("file position").
//
// Arithmetic: offset + bytes -> offset; offset - offset -> int64_t distance.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>

namespace rocketstore {

template <typename Tag>
class StrongOffset {
 public:
  constexpr StrongOffset() = default;
  constexpr explicit StrongOffset(int64_t v) : v_(v) {}
  constexpr int64_t value() const { return v_; }

  constexpr auto operator<=>(const StrongOffset&) const = default;
  constexpr StrongOffset operator+(int64_t d) const { return StrongOffset(v_ + d); }
  constexpr StrongOffset operator-(int64_t d) const { return StrongOffset(v_ - d); }
  constexpr int64_t operator-(StrongOffset o) const { return v_ - o.v_; }
  constexpr StrongOffset& operator+=(int64_t d) {
    v_ += d;
    return *this;
  }

  friend std::ostream& operator<<(std::ostream& os, StrongOffset o) { return os << o.v_; }

 private:
  int64_t v_ = 0;
};

using PhysicalOffset = StrongOffset<struct PhysicalOffsetTag>;
using QueueOffset = StrongOffset<struct QueueOffsetTag>;

}  // namespace rocketstore

template <typename Tag>
struct std::hash<rocketstore::StrongOffset<Tag>> {
  size_t operator()(rocketstore::StrongOffset<Tag> o) const noexcept {
    return std::hash<int64_t>()(o.value());
  }
};
