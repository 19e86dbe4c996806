// File: broker/service/sql_filter.h
//
// SQL92 subscriptions on the broker (RocketMQ's ExpressionMessageFilter and
// ConsumerFilterManager, without the bloom filter / consume-queue extension):
//
//   SqlFilterCache   compiled expressions per (group, topic). A subscription is compiled
//                    once per (expression text, subscription version) — by the first
//                    CHECK_CLIENT_CONFIG or pull that needs it — not per pull; a parse
//                    error is kept the same way, so a bad expression is not re-parsed by
//                    every pull either.
//   SqlMessageFilter the store's MessageFilter (store/get_message.h) for one pull: every
//                    consume-queue unit passes (no bloom filter), and a record matches when
//                    the expression is TRUE over its properties (TAGS, KEYS, user
//                    properties ... as stored). Reading the properties allocates nothing
//                    for expressions of up to 16 distinct names.
//
// Thread-safety: SqlFilterCache from any thread (one mutex; compiling happens under it,
// which is rare). A SqlMessageFilter is immutable; it keeps its expression alive, so a
// held pull is not disturbed by a newer subscription replacing the cache entry.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "filter/sql_expression.h"
#include "store/get_message.h"

namespace rocketstore::broker {

inline constexpr std::string_view kExpressionTypeTag = "TAG";
inline constexpr std::string_view kExpressionTypeSql92 = "SQL92";

// ExpressionType.isTagType: absent, empty or "TAG".
inline bool IsTagType(std::string_view type) { return type.empty() || type == kExpressionTypeTag; }

using CompiledSql = std::shared_ptr<const filter::SqlExpression>;

class SqlFilterCache {
 public:
  // The compiled `expression` of `type` (only SQL92 is known: any other type is
  // kInvalidArgument "unsupported expression type"), for (group, topic) at `version`.
  // Reuses the entry when text and version are the ones it holds; otherwise compiles and
  // replaces it. Errors: the parser's kInvalidArgument (with line and column).
  Result<CompiledSql> Get(const std::string& group, const std::string& topic, std::string_view type,
                          const std::string& expression, int64_t version);
  size_t size() const;
  // How many compilations ran (tests: "not per pull").
  int64_t compilations() const;

 private:
  struct Entry {
    std::string expression;
    int64_t version = 0;
    CompiledSql compiled;  // null when `error` is set
    Status error;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
  int64_t compilations_ = 0;
};

class SqlMessageFilter final : public MessageFilter {
 public:
  explicit SqlMessageFilter(CompiledSql expression);
  bool MatchesTagsCode(int64_t tags_code) const override { return true; }
  bool MatchesRecord(std::span<const uint8_t> record) const override;
  // The properties string of a record (store/format/properties.h).
  bool MatchesProperties(std::string_view properties) const;

 private:
  CompiledSql expression_;
  std::vector<std::string_view> names_;  // views into *expression_
};

}  // namespace rocketstore::broker
