#include "broker/metrics/prom_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace rocketstore::broker {

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[40];
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", value);
    return buf;
  }
  // The shortest text that reads back as the same double (0.1, not 0.10000000000000001).
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

PromTextWriter::PromTextWriter(PromLabels common, size_t max_series) : max_series_(max_series) {
  common_storage_.reserve(common.size());
  for (const auto& [k, v] : common) common_storage_.emplace_back(std::string(k), std::string(v));
  for (const auto& [k, v] : common_storage_) common_.emplace_back(k, v);
}

void PromTextWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  family_ = std::string(name);
  family_series_ = 0;
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += EscapeHelp(help);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

bool PromTextWriter::Admit() {
  if (family_series_ >= max_series_) {
    ++dropped_[family_];
    return false;
  }
  ++family_series_;
  return true;
}

void PromTextWriter::WriteLine(std::string_view name, const PromLabels& labels,
                               std::string_view extra_key, std::string_view extra_value,
                               double value) {
  out_ += name;
  bool first = true;
  auto label = [&](std::string_view k, std::string_view v) {
    out_ += first ? '{' : ',';
    first = false;
    out_ += k;
    out_ += "=\"";
    out_ += EscapeLabelValue(v);
    out_ += '"';
  };
  for (const auto& [k, v] : common_) label(k, v);
  for (const auto& [k, v] : labels) label(k, v);
  if (!extra_key.empty()) label(extra_key, extra_value);
  if (!first) out_ += '}';
  out_ += ' ';
  out_ += FormatValue(value);
  out_ += '\n';
}

void PromTextWriter::Sample(const PromLabels& labels, double value) {
  if (!Admit()) return;
  WriteLine(family_, labels, {}, {}, value);
}

void PromTextWriter::Histogram(const PromLabels& labels, std::span<const double> bounds,
                               std::span<const uint64_t> counts, double sum) {
  if (!Admit()) return;
  const std::string bucket = family_ + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size() && i < counts.size(); ++i) {
    cumulative += counts[i];
    WriteLine(bucket, labels, "le", FormatValue(bounds[i]), static_cast<double>(cumulative));
  }
  if (counts.size() > bounds.size()) cumulative += counts[bounds.size()];
  WriteLine(bucket, labels, "le", "+Inf", static_cast<double>(cumulative));
  WriteLine(family_ + "_sum", labels, {}, {}, sum);
  WriteLine(family_ + "_count", labels, {}, {}, static_cast<double>(cumulative));
}

std::string PromTextWriter::Finish() {
  Family("rocketmq_metrics_dropped_label_sets", "gauge",
         "Label sets left out of this scrape because their metric reached its cap");
  const size_t cap = max_series_;
  max_series_ = SIZE_MAX;  // the report itself is never capped
  for (const auto& [metric, n] : dropped_) {
    WriteLine(family_, {{"metric", metric}}, {}, {}, static_cast<double>(n));
  }
  max_series_ = cap;
  return std::move(out_);
}

}  // namespace rocketstore::broker
