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

}  // namespace rocketstore::protocol
