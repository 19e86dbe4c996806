// File: console/utf8.h
//
// UTF-8 checks for what the console echoes into JSON: request parameters (refused when not
// UTF-8, console/request_parser.h) and message bodies (shown as text with U+FFFD in place
// of the bytes that are not UTF-8).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace rocketstore::console {

// Well-formed UTF-8: no overlong forms, no surrogates (U+D800..U+DFFF), nothing past
// U+10FFFF, no truncated sequence.
bool IsValidUtf8(std::string_view s);

// `s` with every byte that does not start or continue a well-formed sequence replaced by
// U+FFFD (EF BF BD), one per byte; `s` itself when it is valid. The result is valid UTF-8.
// `*replaced` (optional) counts the replacements.
std::string ToValidUtf8(std::string_view s, size_t* replaced = nullptr);

}  // namespace rocketstore::console
