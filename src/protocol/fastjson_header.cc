// The JSON header decoder's first stage: the exact text fastjson (the Java client, and
// rocketstore's own encoder) writes for a header — keys in that order, no whitespace,
// every extFields value a string —
//
//   {"code":I,"extFields":{"k":"v",...},"flag":I,"language":"L","opaque":I,
//    ["remark":"R",]"serializeTypeCurrentRPC":"JSON","version":I}
//
// read left to right with no event handler, no state machine and no per-field lookup of
// what a key means. Strings hold printable ASCII and escapes of ASCII characters (the
// properties separators arrive as \u0001 and \u0002). Anything else — another key order,
// whitespace, a number, null or object where a string stands, a non-ASCII byte, a limit
// exceeded — and it gives up without touching `*command` (the header fields are
// committed together at the end), leaving the input to the subset scanner and RapidJSON,
// which decide and word every error. So on the inputs it accepts it must give what they
// give: tests/protocol/json_header_test.cc and fuzz/json_header_fuzzer.cc compare them.
// With Limits::send_fields_by_position, a send request's one-letter fields go to
// RemotingCommand::send_v2 instead of ext_fields (a response gives up, as does any other
// shape), as one copy of the text with each value placed in it; the same tests compare
// what FindField reads either way.
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/internal/header_codec.h"
#include "protocol/internal/json_bytes.h"
#include "protocol/request_code.h"

namespace rocketstore::protocol::internal {

namespace {

class FastjsonHeaderReader {
 public:
  FastjsonHeaderReader(std::string_view text, const Limits& limits)
      : p_(text.data()), end_(text.data() + text.size()), limits_(limits) {}
  ~FastjsonHeaderReader() {
    // The scratch stays with the thread for the next header, unless one was huge.
    if (unescaped_.capacity() > kKeptScratch) std::string().swap(unescaped_);
  }

  // Whether the whole text has the shape; fills the out-parameters if so. The custom
  // header goes to `send_v2` for a send request's one-letter names when the limits ask
  // for it (a response keeps its map: the fast path gives up), else to `ext`.
  bool Read(int32_t* code, ExtFields* ext, SendV2Fields* send_v2, int32_t* flag,
            LanguageCode* language, int32_t* opaque, std::optional<std::string>* remark,
            int32_t* version) {
    if (!Literal("{\"code\":") || !Int(code) || !Literal(",\"extFields\":{")) return false;
    const bool by_position = limits_.send_fields_by_position && HasSendV2Names(*code);
    if (by_position ? !ExtFieldsBody(send_v2) : !ExtFieldsBody(ext)) return false;
    std::string_view name;
    if (!Literal(",\"flag\":") || !Int(flag) || !Literal(",\"language\":") || !Plain(&name)) {
      return false;
    }
    if (by_position && (*flag & kFlagResponse) != 0) return false;
    *language = LanguageFromName(name);
    if (!Literal(",\"opaque\":") || !Int(opaque)) return false;
    if (Literal(",\"remark\":")) {
      std::string_view text;
      if (!String(&text) || text.size() > limits_.max_remark_length) return false;
      remark->emplace(text);
    }
    return Literal(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":") && Int(version) &&
           Literal("}") && p_ == end_;
  }

 private:
  // The word is a string literal: its size is known where this is inlined, so the
  // comparison needs no call.
  template <size_t N>
  bool Literal(const char (&word)[N]) {
    constexpr size_t n = N - 1;
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  // A JSON integer -?(0|[1-9][0-9]*) in int32 range, followed by ',' or '}'. The digits
  // are read and summed in one pass; at most 11 are read (their sum fits an int64), and
  // more than 10 is refused.
  bool Int(int32_t* out) {
    const char* q = p_;
    const bool negative = q != end_ && *q == '-';
    if (negative) ++q;
    const char* digits = q;
    int64_t v = 0;
    while (q != end_ && q - digits < 11) {
      const unsigned d = static_cast<unsigned char>(*q) - unsigned{'0'};  // wraps below '0'
      if (d > 9) break;
      v = v * 10 + d;
      ++q;
    }
    const auto n = q - digits;
    if (n == 0 || n > 10 || (n > 1 && *digits == '0')) return false;
    if (q == end_ || (*q != ',' && *q != '}')) return false;
    if (negative) v = -v;
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return false;
    }
    *out = static_cast<int32_t>(v);
    p_ = q;
    return true;
  }

  // From `q`, the first byte that is not plain printable ASCII (or end_).
  const char* SkipPlain(const char* q) const { return SkipJsonPlain(q, end_); }

  // A string of plain bytes only (no escape): a view into the text.
  bool Plain(std::string_view* out) {
    if (p_ == end_ || *p_ != '"') return false;
    const char* q = SkipPlain(p_ + 1);
    if (q == end_ || *q != '"') return false;
    *out = std::string_view(p_ + 1, static_cast<size_t>(q - p_ - 1));
    p_ = q + 1;
    return true;
  }

  // A string whose escapes stand for ASCII characters: a view into the text, or into
  // unescaped_ (valid until the next String) when it had escapes.
  bool String(std::string_view* out) {
    if (p_ == end_ || *p_ != '"') return false;
    const char* const begin = p_ + 1;
    const char* q = SkipPlain(begin);
    if (q != end_ && *q == '"') {
      *out = std::string_view(begin, static_cast<size_t>(q - begin));
      p_ = q + 1;
      return true;
    }
    // Room for the rest of the text at once: unescaping only shortens it.
    unescaped_.reserve(static_cast<size_t>(end_ - begin));
    unescaped_.assign(begin, q);
    while (q != end_ && *q == '\\') {
      const int consumed = Unescape(q);
      if (consumed == 0) return false;
      q += consumed;
      const char* run = q;
      q = SkipPlain(q);
      unescaped_.append(run, q);
    }
    if (q == end_ || *q != '"') return false;  // a control or non-ASCII byte
    *out = unescaped_;
    p_ = q + 1;
    return true;
  }

  // The escape at `q` (a backslash) of an ASCII character, appended to unescaped_; the
  // bytes it took, or 0.
  int Unescape(const char* q) {
    char c;
    const int consumed = UnescapeAscii(q, end_, &c);
    if (consumed != 0) unescaped_.push_back(c);
    return consumed;
  }

  static bool HasSendV2Names(int32_t code) {
    return code == ToInt(RequestCode::kSendMessageV2) ||
           code == ToInt(RequestCode::kSendBatchMessage) ||
           code == ToInt(RequestCode::kSendReplyMessageV2);
  }

  // After "extFields":{ — the members and the closing brace. Names are plain strings,
  // values strings; a repeated name replaces the value in its first place, as the map does.
  bool ExtFieldsBody(ExtFields* ext) {
    ext->Reserve(16, static_cast<size_t>(end_ - p_));
    return Members([ext](std::string_view name, std::string_view value) {
      ext->Set(name, value);
      return ext->size();
    });
  }
  // The same into SendV2Fields, with one copy: the rest of the text goes into the block
  // at once (AdoptText) and each value is placed at its own offset there — a value with
  // escapes is unescaped over its copy, which it can only shorten. Names other than "a"
  // .. "n" are dropped (but counted against max_ext_fields, so the same headers fall back
  // as with the map); a repeated name keeps the last value, as the map does.
  bool ExtFieldsBody(SendV2Fields* fields) {
    const char* const base = p_;
    char* const copy = fields->AdoptText(std::string_view(p_, static_cast<size_t>(end_ - p_)));
    if (Literal("}")) return true;
    const bool one_letter_names = limits_.max_key_length >= 1;
    size_t members = 0;
    while (true) {
      int index;
      // fastjson's `"x":` for x in "a" .. "n", the names a send request has.
      if (one_letter_names && end_ - p_ >= 4 && p_[0] == '"' && p_[1] >= 'a' && p_[1] <= 'n' &&
          p_[2] == '"' && p_[3] == ':') {
        index = p_[1] - 'a';
        p_ += 4;
      } else {
        std::string_view name;
        if (!Plain(&name) || name.size() > limits_.max_key_length || !Literal(":")) return false;
        index = SendV2Fields::IndexOf(name);
      }
      if (p_ == end_ || *p_ != '"') return false;
      const char* const begin = p_ + 1;
      const char* q = SkipPlain(begin);
      size_t len = static_cast<size_t>(q - begin);
      if (q != end_ && *q == '\\') {
        // The copy holds [begin, q) already; unescaped bytes follow it.
        char* out = copy + (q - base);
        while (q != end_ && *q == '\\') {
          const int consumed = UnescapeAscii(q, end_, out);
          if (consumed == 0) return false;
          ++out;
          q += consumed;
          const char* const run = q;
          q = SkipPlain(q);
          std::memcpy(out, run, static_cast<size_t>(q - run));
          out += q - run;
        }
        len = static_cast<size_t>(out - (copy + (begin - base)));
      }
      if (q == end_ || *q != '"' || len > limits_.max_value_length) return false;
      p_ = q + 1;
      if (index >= 0) (void)fields->PlaceAt(index, static_cast<size_t>(begin - base), len);
      if (++members > limits_.max_ext_fields) return false;
      if (Literal("}")) return true;
      if (!Literal(",")) return false;
    }
  }
  // Each member to `put(name, value)`, which returns the fields counted so far (anything
  // past max_ext_fields ends the reading).
  template <typename Put>
  bool Members(Put put) {
    if (Literal("}")) return true;
    while (true) {
      std::string_view name, value;
      if (!Plain(&name) || name.size() > limits_.max_key_length || !Literal(":") ||
          !String(&value) || value.size() > limits_.max_value_length) {
        return false;
      }
      if (put(name, value) > limits_.max_ext_fields) return false;
      if (Literal("}")) return true;
      if (!Literal(",")) return false;
    }
  }

  static constexpr size_t kKeptScratch = 64 * 1024;
  const char* p_;
  const char* const end_;
  const Limits& limits_;
  // The unescaped string values: one buffer per thread, reused by every header it reads
  // (a value is copied out before the next String), so steady-state decoding allocates
  // nothing for it.
  static thread_local std::string scratch_;
  std::string& unescaped_ = scratch_;
};

thread_local std::string FastjsonHeaderReader::scratch_;

}  // namespace

bool TryDecodeFastjsonHeader(std::string_view text, const Limits& limits,
                             RemotingCommand* command) {
  int32_t code = 0, flag = 0, opaque = 0, version = 0;
  LanguageCode language = LanguageCode::kJava;
  std::optional<std::string> remark;
  ExtFields ext;
  SendV2Fields send_v2;
  FastjsonHeaderReader reader(text, limits);
  if (!reader.Read(&code, &ext, &send_v2, &flag, &language, &opaque, &remark, &version)) {
    return false;
  }
  command->code = code;
  command->ext_fields = std::move(ext);
  command->send_v2 = std::move(send_v2);
  command->flag = flag;
  command->language = language;
  command->opaque = opaque;
  if (remark) command->remark = std::move(remark);
  command->version = version;
  return true;
}

}  // namespace rocketstore::protocol::internal
