// File: base/string_hash.h
//
// StringHash: the hash of a std::string key looked up by std::string_view in an
// unordered container without building a string (heterogeneous lookup: pair it with
// std::equal_to<>). The per-message lookups by topic use it.
//
// Thread-safety: stateless.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace rocketstore {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace rocketstore
