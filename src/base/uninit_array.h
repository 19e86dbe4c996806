// File: base/uninit_array.h
//
// UninitArray<T, N>: room for N objects of a trivially copyable T, left uninitialised
// until each is assigned. A std::array of N std::string_view pairs is zeroed when it is
// constructed (512 bytes for 16 properties), though the send path only ever sets the first
// few: the property arrays it builds per message use this instead.
//
// As with an uninitialised local array of T, element i must be assigned before it is
// read: the users set the first n and read only those. Copies copy all N elements' bytes
// (trivially).
//
// Thread-safety: a value type without internal synchronisation.
#pragma once

#include <cstddef>
#include <type_traits>

namespace rocketstore {

template <class T, size_t N>
class UninitArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "UninitArray holds trivially copyable, trivially destructible types");

 public:
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): uninitialised on purpose.
  UninitArray() {}

  static constexpr size_t size() { return N; }
  T* data() { return items_; }
  const T* data() const { return items_; }
  T& operator[](size_t i) { return items_[i]; }
  const T& operator[](size_t i) const { return items_[i]; }
  T* begin() { return items_; }
  T* end() { return items_ + N; }
  const T* begin() const { return items_; }
  const T* end() const { return items_ + N; }

 private:
  union {
    T items_[N];
  };
};

}  // namespace rocketstore
