#include "broker/service/sql_filter.h"

#include <array>

#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

Result<CompiledSql> SqlFilterCache::Get(const std::string& group, const std::string& topic,
                                        std::string_view type, const std::string& expression,
                                        int64_t version) {
  std::lock_guard lock(mu_);
  Entry& e = entries_[{group, topic}];
  const bool filled = e.compiled != nullptr || !e.error.ok();
  if (!filled || e.version != version || e.expression != expression) {
    ++compilations_;
    e.expression = expression;
    e.version = version;
    e.compiled.reset();
    e.error = Status::OK();
    if (type != kExpressionTypeSql92) {
      e.error = InvalidArgument("unsupported expression type " + std::string(type) +
                                " (the broker knows TAG and SQL92)");
    } else if (Result<filter::SqlExpression> c = filter::SqlExpression::Compile(expression);
               c.ok()) {
      e.compiled = std::make_shared<const filter::SqlExpression>(std::move(c).value());
    } else {
      e.error = c.status();
    }
  }
  if (!e.error.ok()) return e.error;
  return e.compiled;
}

size_t SqlFilterCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

int64_t SqlFilterCache::compilations() const {
  std::lock_guard lock(mu_);
  return compilations_;
}

SqlMessageFilter::SqlMessageFilter(CompiledSql expression) : expression_(std::move(expression)) {
  for (const std::string& n : expression_->property_names()) names_.push_back(n);
}

bool SqlMessageFilter::MatchesProperties(std::string_view properties) const {
  constexpr size_t kInline = 16;
  std::array<std::optional<std::string_view>, kInline> inline_values;
  std::vector<std::optional<std::string_view>> heap_values;
  std::span<std::optional<std::string_view>> values(inline_values.data(), names_.size());
  if (names_.size() > kInline) {
    heap_values.resize(names_.size());
    values = heap_values;
  }
  format::FindProperties(properties, names_, values);
  return expression_->Matches(values);
}

bool SqlMessageFilter::MatchesRecord(std::span<const uint8_t> record) const {
  const format::DecodeResult d = format::DecodeRecord(record, /*check_crc=*/false);
  if (d.outcome != format::DecodeOutcome::kRecord) return false;
  return MatchesProperties(d.record.properties);
}

}  // namespace rocketstore::broker
