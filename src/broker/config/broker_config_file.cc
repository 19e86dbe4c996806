#include "broker/config/broker_config_file.h"

#include <vector>

namespace rocketstore::broker {

namespace {
std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}
std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}
// The key a `key=value` / `key: value` line sets, or "" for a comment or blank line.
std::string_view KeyOf(std::string_view line) {
  line = TrimLeft(line);
  if (line.empty() || line.front() == '#' || line.front() == '!') return {};
  const size_t sep = line.find_first_of("=:");
  if (sep == std::string_view::npos) return {};
  return TrimRight(line.substr(0, sep));
}
}  // namespace

void BrokerConfigFile::Set(std::string_view key, std::string_view value) {
  const std::string entry = std::string(key) + "=" + std::string(value);
  {
    std::lock_guard l(mu_);
    std::vector<std::string_view> lines;
    std::string_view rest = text_;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      lines.push_back(rest.substr(0, nl));
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
    }
    std::string out;
    bool done = false;
    for (std::string_view line : lines) {
      if (KeyOf(line) == key) {
        if (!done) out += entry + "\n";
        done = true;
        continue;
      }
      out.append(line).push_back('\n');
    }
    if (!done) out += entry + "\n";
    text_ = std::move(out);
    MarkDirtyLocked();
  }
  NotifyChanged();
}

std::string BrokerConfigFile::text() const {
  std::lock_guard l(mu_);
  return text_;
}

}  // namespace rocketstore::broker
