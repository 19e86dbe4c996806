// File: base/status.h
//
// Status: the outcome of an operation that returns no value. Errors are values in
// rocketstore: no exception crosses a module API, and a Status must be looked at
// ([[nodiscard]]). A caught error is returned or escalated, never only logged.
//
// Choosing a code (after absl):
//   kInvalidArgument    the caller's input is wrong whatever the state (bad name, bad frame).
//   kNotFound           the thing asked for does not exist.
//   kCorruption         stored bytes fail a check (CRC, magic, length); data may be lost.
//   kIOError            the OS reported an I/O failure (EIO, ...). errno() says which.
//   kNoSpace            the disk is full (ENOSPC/EDQUOT). Freeing space makes a retry work.
//   kUnavailable        the service cannot take the call now (shut down, not writable);
//                       retrying the same call later may work.
//   kFailedPrecondition the system is not in the state the call needs (fix the state first).
//   kOutOfRange         an offset or position past the valid range.
//   kAlreadyExists      the thing to create exists (e.g. store directory locked).
//   kDeadlineExceeded   a wait timed out (e.g. a sync flush took more than 5 s).
//   kResourceExhausted  a bounded resource is used up (message too large, file full).
//   kAborted            the operation was stopped (crash injection, shutdown mid-call).
//   kInternal           an invariant broke: a bug.
//
// Usage:
//   Status s = file->Sync();
//   if (!s.ok()) return s;          // or RS_RETURN_IF_ERROR(file->Sync());
//
// Thread-safety: a Status is a value; distinct objects may be used from any thread.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace rocketstore {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kCorruption,
  kIOError,
  kNoSpace,
  kUnavailable,
  kFailedPrecondition,
  kOutOfRange,
  kAlreadyExists,
  kDeadlineExceeded,
  kResourceExhausted,
  kAborted,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message, int err = 0)
      : code_(code), errno_(err), message_(std::move(message)) {}

  static Status OK() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The OS errno behind an kIOError/kNoSpace, or 0.
  int error_number() const { return errno_; }
  const std::string& message() const { return message_; }

  // "IOError: fsync 00000000000000000000: Input/output error"
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

  // Explicitly drop a status that is deliberately not needed (documents intent).
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  int errno_ = 0;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, const Status& s);

// Builders. The message should say what failed and, where possible, what to do.
inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) {
  return {StatusCode::kDeadlineExceeded, std::move(m)};
}
inline Status ResourceExhausted(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
inline Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// An OS error: ENOSPC/EDQUOT map to kNoSpace, everything else to kIOError.
// `what` names the operation and the file ("fallocate commitlog/000...0").
Status ErrnoStatus(std::string_view what, int err);

}  // namespace rocketstore

// Propagates a non-OK Status to the caller.
#define RS_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    ::rocketstore::Status rs_status_tmp_ = (expr);   \
    if (!rs_status_tmp_.ok()) return rs_status_tmp_; \
  } while (0)
