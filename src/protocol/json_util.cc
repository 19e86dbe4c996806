#include "protocol/json_util.h"

#include <cctype>

namespace rocketstore::protocol {

std::string QuoteBareIntegerKeys(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 16);
  bool in_string = false;
  char last_sig = 0;  // last significant char outside strings
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < in.size()) {
        out.push_back(in[++i]);
      } else if (c == '"') {
        in_string = false;
        last_sig = '"';
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      continue;
    }
    if ((last_sig == '{' || last_sig == ',') &&
        (std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      size_t j = i + 1;
      while (j < in.size() && std::isdigit(static_cast<unsigned char>(in[j]))) ++j;
      size_t k = j;
      while (k < in.size() && std::isspace(static_cast<unsigned char>(in[k]))) ++k;
      if (k < in.size() && in[k] == ':') {
        out.push_back('"');
        out.append(in.substr(i, j - i));
        out.push_back('"');
        i = j - 1;
        last_sig = '"';
        continue;
      }
    }
    out.push_back(c);
    if (!std::isspace(static_cast<unsigned char>(c))) last_sig = c;
  }
  return out;
}

namespace {
// The end (one past the closing brace) of the object starting at in[i] == '{', or npos.
size_t MatchingBrace(std::string_view in, size_t i) {
  int depth = 0;
  bool in_string = false;
  for (size_t j = i; j < in.size(); ++j) {
    const char c = in[j];
    if (in_string) {
      if (c == '\\') {
        ++j;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return j + 1;
    }
  }
  return std::string_view::npos;
}
}  // namespace

std::string QuoteBareObjectKeys(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 64);
  std::string stack;  // '{' or '[' per open container
  bool in_string = false;
  char last_sig = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < in.size()) {
        out.push_back(in[++i]);
      } else if (c == '"') {
        in_string = false;
        last_sig = '"';
      }
      continue;
    }
    const bool key_expected =
        !stack.empty() && stack.back() == '{' && (last_sig == '{' || last_sig == ',');
    if (c == '{' && key_expected) {
      const size_t end = MatchingBrace(in, i);
      size_t k = end;
      while (k != std::string_view::npos && k < in.size() &&
             std::isspace(static_cast<unsigned char>(in[k]))) {
        ++k;
      }
      if (k != std::string_view::npos && k < in.size() && in[k] == ':') {
        out.push_back('"');
        for (char kc : in.substr(i, end - i)) {
          if (kc == '"' || kc == '\\') out.push_back('\\');
          out.push_back(kc);
        }
        out.push_back('"');
        i = end - 1;
        last_sig = '"';
        continue;
      }
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      continue;
    }
    if (c == '{' || c == '[') stack.push_back(c);
    if ((c == '}' || c == ']') && !stack.empty()) stack.pop_back();
    out.push_back(c);
    if (!std::isspace(static_cast<unsigned char>(c))) last_sig = c;
  }
  return out;
}

}  // namespace rocketstore::protocol
