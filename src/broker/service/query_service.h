// File: broker/service/query_service.h
//
// QueryService: what a client asks of the store without consuming (RocketMQ's
// QueryMessageProcessor and the offset / time lookups of AdminBrokerProcessor):
//   QueryByKey    QUERY_MESSAGE: messages of a topic by KEYS token or UNIQ_KEY in a time range
//   ViewByOffset  VIEW_MESSAGE_BY_ID: the record at a commit-log offset
//   MaxOffset / MinOffset / EarliestStoreTime / SearchOffset: queue metadata
// Results carry raw records (views that keep their segment mapped).
//
// Thread-safety: any thread.
#pragma once

#include <string>
#include <vector>

#include "broker/service/outcome.h"
#include "store/message_store.h"

namespace rocketstore::broker {

struct QueryByKeyRequest {
  std::string topic;
  std::string key;
  int32_t max_num = 32;
  int64_t begin_timestamp = 0;
  int64_t end_timestamp = 0;
  bool unique_key = false;  // _UNIQUE_KEY_QUERY: at most 32
};

struct QueryResult {
  Verdict verdict;
  std::vector<CommitLogBytes> records;
  int64_t index_last_update_timestamp = 0;
  int64_t index_last_update_phy_offset = 0;
};

// SEARCH_OFFSET_BY_TIMESTAMP's boundary: none (4.x clients) answers as 4.9.8 does (the
// unit closest in time; the last unit past the newest); 5.x's boundaryType LOWER is the
// first message stored at or after the time, UPPER the last one stored at or before it.
enum class TimeBoundary { kNone, kLower, kUpper };

class QueryService {
 public:
  explicit QueryService(MessageStore& store) : store_(store) {}

  QueryResult QueryByKey(const QueryByKeyRequest& request) const;
  QueryResult ViewByOffset(int64_t commit_log_offset) const;
  int64_t MaxOffset(const std::string& topic, int32_t queue_id) const;
  int64_t MinOffset(const std::string& topic, int32_t queue_id) const;
  // -1 for an empty or unknown queue.
  int64_t EarliestStoreTime(const std::string& topic, int32_t queue_id) const;
  int64_t SearchOffset(const std::string& topic, int32_t queue_id, int64_t timestamp,
                       TimeBoundary boundary) const;

 private:
  MessageStore& store_;
};

}  // namespace rocketstore::broker
