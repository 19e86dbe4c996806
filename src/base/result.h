// File: base/result.h
//
// Result<T>: either a value of T or a non-OK Status (C++20 has no std::expected).
//
//   Result<std::unique_ptr<File>> f = fs.Open(path, OpenMode::kReadWrite);
//   if (!f.ok()) return f.status();
//   (*f)->Sync();
//
//   RS_ASSIGN_OR_RETURN(auto file, fs.Open(path, OpenMode::kReadWrite));
//
// Accessing the value of an error Result aborts (a bug, not a runtime condition).
// Thread-safety: a value type; no internal synchronisation.
#pragma once

#include <cstdlib>
#include <optional>
#include <utility>

#include "base/status.h"

namespace rocketstore {

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or from an error Status, so `return value;` and
  // `return NotFound(...)` both work.
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Internal("Result constructed from OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    Check();
    return *value_;
  }
  const T& value() const& {
    Check();
    return *value_;
  }
  T&& value() && {
    Check();
    return std::move(*value_);
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void Check() const {
    if (!value_.has_value()) std::abort();
  }
  std::optional<T> value_;
  Status status_;
};

}  // namespace rocketstore

#define RS_CONCAT_INNER_(a, b) a##b
#define RS_CONCAT_(a, b) RS_CONCAT_INNER_(a, b)
#define RS_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
// Evaluates `expr` (a Result<T>); on error returns its Status, else assigns the value.
#define RS_ASSIGN_OR_RETURN(lhs, expr) \
  RS_ASSIGN_OR_RETURN_IMPL_(RS_CONCAT_(rs_result_tmp_, __LINE__), lhs, expr)
