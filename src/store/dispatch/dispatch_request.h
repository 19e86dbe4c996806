// File: store/dispatch/dispatch_request.h
//
// What the dispatcher (RocketMQ's "reput" service) extracts from each CommitLog record
// and hands to every CommitLogDispatcher: the ConsumeQueue builder, the IndexFile
// builder, and later others (e.g. LMQ multi-dispatch). The views point into the mapped
// commit log and are valid only during the Dispatch call.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/offsets.h"
#include "base/status.h"

namespace rocketstore {

struct DispatchRequest {
  std::string_view topic;
  int32_t queue_id = 0;
  PhysicalOffset commit_log_offset;  // first byte of the record
  int32_t size = 0;                  // TOTALSIZE
  // jhash(TAGS) sign-extended, 0 without tags; for SCHEDULE_TOPIC_XXXX the delivery time.
  int64_t tags_code = 0;
  int64_t store_timestamp = 0;
  QueueOffset queue_offset;   // the record's QUEUEOFFSET field
  std::string_view keys;      // KEYS property (space separated), may be empty
  std::string_view uniq_key;  // UNIQ_KEY property, may be empty
  int32_t sys_flag = 0;
  int64_t prepared_transaction_offset = 0;
  std::string_view properties;  // the whole properties string

  int TransactionType() const { return sys_flag & 0x0C; }
};

// A consumer of dispatched records. Called by the single dispatcher thread, in commit-log
// order; a record may be dispatched again after a crash (implementations must ignore
// records they already have).
class CommitLogDispatcher {
 public:
  virtual ~CommitLogDispatcher() = default;
  virtual Status Dispatch(const DispatchRequest& request) = 0;
};

}  // namespace rocketstore
