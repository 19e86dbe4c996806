// File: protocol/internal/json_scanner.h
//
// JsonSubsetScanner: the JSON header decoder's fast path (protocol/json_header.cc).
//
// RocketMQ clients send headers in a small subset of JSON: printable ASCII, escapes only
// for ASCII characters (the Java client writes the property separators as \u0001 and
// \u0002), integers as plain digits. This scanner reads exactly that subset straight
// from the frame, copying only strings that hold escapes, and emits the events
// RapidJSON's SAX reader would emit for the same text (StartObject, Key, String,
// RawNumber, Bool, Null, EndObject, StartArray, EndArray — numbers as their source text)
// to the same handler, so every rule about fields, limits and nesting lives in the
// handler alone. Anything outside the subset — a non-ASCII byte or escape, a fraction or
// exponent, any syntax error, bytes after the root value — makes it stop with
// kUnsupported without judging the input; the caller then undoes what the handler did
// and lets RapidJSON decode the header, so that errors and liberal inputs are handled and
// reported exactly as RapidJSON does. tests/protocol/json_header_test.cc and
// fuzz/json_header_fuzzer.cc check that the two agree wherever the scanner answers.
//
// `Handler` has RapidJSON's SAX handler interface; a false return stops the scan with
// kHandlerFailed. Recursion depth follows the input's nesting: the handler must refuse
// to open values beyond its own limit (the header handler does).
//
// Thread-safety: one scanner per call; it holds views of `text`, which must outlive it.
#pragma once

#include <rapidjson/rapidjson.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "protocol/internal/json_bytes.h"

namespace rocketstore::protocol::internal {

template <typename Handler>
class JsonSubsetScanner {
 public:
  enum class Outcome { kDone, kHandlerFailed, kUnsupported };

  JsonSubsetScanner(std::string_view text, Handler* handler)
      : p_(text.data()), end_(text.data() + text.size()), handler_(handler) {}

  Outcome Run() {
    SkipWhitespace();
    if (!Value()) return outcome_;
    SkipWhitespace();
    return p_ == end_ ? Outcome::kDone : Outcome::kUnsupported;
  }

 private:
  bool Unsupported() {
    outcome_ = Outcome::kUnsupported;
    return false;
  }
  bool Emit(bool handler_ok) {
    if (!handler_ok) outcome_ = Outcome::kHandlerFailed;
    return handler_ok;
  }

  void SkipWhitespace() {
    // Clients send no whitespace: one comparison in that case (every JSON whitespace byte
    // is at most ' ').
    while (p_ != end_ && static_cast<uint8_t>(*p_) <= ' ' &&
           (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool Value() {
    if (p_ == end_) return Unsupported();
    switch (*p_) {
      case '{':
        return Object();
      case '[':
        return Array();
      case '"': {
        std::string_view s;
        return ScanString(&s) &&
               Emit(handler_->String(s.data(), static_cast<rapidjson::SizeType>(s.size()), false));
      }
      case 't':
        return Literal("true") && Emit(handler_->Bool(true));
      case 'f':
        return Literal("false") && Emit(handler_->Bool(false));
      case 'n':
        return Literal("null") && Emit(handler_->Null());
      default:
        return Number();
    }
  }

  bool Object() {
    ++p_;  // '{'
    if (!Emit(handler_->StartObject())) return false;
    SkipWhitespace();
    rapidjson::SizeType members = 0;
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return Emit(handler_->EndObject(0));
    }
    while (true) {
      std::string_view key;
      if (p_ == end_ || *p_ != '"' || !ScanString(&key)) return Unsupported();
      if (key.data() == unescaped_.data()) {  // stays valid while its value is scanned
        unescaped_key_.assign(key);
        key = unescaped_key_;
      }
      if (!Emit(handler_->Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), false))) {
        return false;
      }
      SkipWhitespace();
      if (p_ == end_ || *p_ != ':') return Unsupported();
      ++p_;
      SkipWhitespace();
      if (!Value()) return false;
      ++members;
      SkipWhitespace();
      if (p_ == end_) return Unsupported();
      if (*p_ == '}') {
        ++p_;
        return Emit(handler_->EndObject(members));
      }
      if (*p_ != ',') return Unsupported();
      ++p_;
      SkipWhitespace();
    }
  }

  bool Array() {
    ++p_;  // '['
    if (!Emit(handler_->StartArray())) return false;
    SkipWhitespace();
    rapidjson::SizeType elements = 0;
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return Emit(handler_->EndArray(0));
    }
    while (true) {
      if (!Value()) return false;
      ++elements;
      SkipWhitespace();
      if (p_ == end_) return Unsupported();
      if (*p_ == ']') {
        ++p_;
        return Emit(handler_->EndArray(elements));
      }
      if (*p_ != ',') return Unsupported();
      ++p_;
      SkipWhitespace();
    }
  }

  // A string of printable ASCII, where escapes may stand for ASCII characters (the Java
  // client writes the property separators 0x01 and 0x02 as \u0001 and \u0002); `*p_` is
  // its opening quote. Without escapes the result points into the header; with them, into
  // `unescaped_`, valid until the next string is scanned (Object() moves an escaped key to
  // `unescaped_key_`, so a key stays valid until the next key).
  // Runs of plain bytes are skipped sixteen or eight at a time (SkipJsonPlain).
  bool ScanString(std::string_view* out) {
    const char* const begin = p_ + 1;
    const char* q = begin;
    const char* run = begin;  // start of the plain bytes not yet copied to unescaped_
    bool escaped = false;
    while (true) {
      q = SkipJsonPlain(q, end_);  // to the next byte that is not plain
      if (q == end_) return Unsupported();
      const auto b = static_cast<uint8_t>(*q);
      if (b == '"') {
        if (escaped) {
          unescaped_.append(run, q);
          *out = unescaped_;
        } else {
          *out = std::string_view(begin, static_cast<size_t>(q - begin));
        }
        p_ = q + 1;
        return true;
      }
      if (b < 0x20 || b >= 0x80) return Unsupported();
      // A backslash: SkipJsonPlain stops at nothing else.
      if (!escaped) {
        unescaped_.assign(begin, q);
        escaped = true;
      } else {
        unescaped_.append(run, q);
      }
      const int consumed = Unescape(q);
      if (consumed == 0) return Unsupported();
      q += consumed;
      run = q;
    }
  }

  // Decodes the escape at `q` (a backslash) onto unescaped_; returns the bytes it took, or
  // 0 when it is not an escape of an ASCII character.
  int Unescape(const char* q) {
    char c;
    const int consumed = UnescapeAscii(q, end_, &c);
    if (consumed != 0) unescaped_.push_back(c);
    return consumed;
  }

  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return Unsupported();
    }
    p_ += word.size();
    return true;
  }

  static constexpr std::ptrdiff_t kMaxScannedDigits = 300;
  // An integer: -?(0|[1-9][0-9]*), followed by something that cannot continue a number.
  bool Number() {
    const char* begin = p_;
    const char* q = p_;
    if (q != end_ && *q == '-') ++q;
    if (q == end_ || *q < '0' || *q > '9') return Unsupported();
    if (*q == '0') {
      ++q;
    } else {
      while (q != end_ && *q >= '0' && *q <= '9') ++q;
    }
    if (q != end_ && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9'))) {
      return Unsupported();  // fractions and exponents: RapidJSON's job
    }
    // RapidJSON refuses integers past double's range (~309 digits: "Number too big to be
    // stored in double") even when it hands numbers over as text: long ones are its call.
    if (q - begin > kMaxScannedDigits) return Unsupported();
    p_ = q;
    return Emit(handler_->RawNumber(begin, static_cast<rapidjson::SizeType>(q - begin), false));
  }

  const char* p_;
  const char* const end_;
  Handler* const handler_;
  Outcome outcome_ = Outcome::kDone;
  std::string unescaped_;
  std::string unescaped_key_;
};

}  // namespace rocketstore::protocol::internal
