// File: broker/metrics/prom_text.h
//
// PromTextWriter: builds one scrape in Prometheus's text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/):
//   # HELP <name> <text>          (backslash and newline escaped)
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value>",...} <number>
// Label values are escaped (\\, \", \n); a histogram is written as cumulative
// <name>_bucket{...,le="<bound>"} lines ending with le="+Inf", then <name>_sum and
// <name>_count.
//
// Cardinality: every family admits at most `max_series` label sets per scrape (gauges
// computed per topic x group can be many); further samples are not written and are
// counted per family. Finish() appends the gauge rocketmq_metrics_dropped_label_sets
// {metric="<family>"} for the families that dropped any, and returns the text.
//
// Every sample carries the writer's common labels first (cluster, node_type, node_id).
// Thread-safety: one writer per scrape, one thread. Ownership: copies everything it is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocketstore::broker {

using PromLabels = std::vector<std::pair<std::string_view, std::string_view>>;

// `\` -> `\\`, `"` -> `\"`, newline -> `\n` (label values).
std::string EscapeLabelValue(std::string_view value);
// `\` -> `\\`, newline -> `\n` (HELP text).
std::string EscapeHelp(std::string_view text);
// A sample value: integers without a fraction, others in the shortest round-trip form;
// +Inf, -Inf, NaN as Prometheus spells them.
std::string FormatValue(double value);

class PromTextWriter {
 public:
  static constexpr size_t kDefaultMaxSeries = 10000;
  explicit PromTextWriter(PromLabels common, size_t max_series = kDefaultMaxSeries);

  // Starts a family; samples of it follow. `type`: "counter", "gauge" or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  // One sample of the current family (`name` is the family's, or a suffixed one).
  void Sample(const PromLabels& labels, double value);
  // One histogram of the current family: per-bucket (not cumulative) `counts` for the
  // upper bounds `bounds` plus the +Inf bucket last (counts.size() == bounds.size() + 1).
  void Histogram(const PromLabels& labels, std::span<const double> bounds,
                 std::span<const uint64_t> counts, double sum);

  // Counts `n` label sets of the current family as left out without building them (a
  // caller that stops computing at the cap).
  void CountDropped(uint64_t n) {
    if (n > 0) dropped_[family_] += n;
  }
  size_t max_series() const { return max_series_; }

  // The text, with the dropped-label-set gauge appended. The writer is spent after it.
  std::string Finish();

 private:
  bool Admit();
  void WriteLine(std::string_view name, const PromLabels& labels, std::string_view extra_key,
                 std::string_view extra_value, double value);

  PromLabels common_;  // views into common_storage_
  std::vector<std::pair<std::string, std::string>> common_storage_;
  size_t max_series_;
  std::string family_;
  size_t family_series_ = 0;
  std::map<std::string, uint64_t> dropped_;
  std::string out_;
};

}  // namespace rocketstore::broker
