// File: client/admin_ops_types.h
//
// The bodies of RocketMQ 4.9.8's operational admin calls (issue #18 §1) as decoded structs,
// next to client/admin_types.h (which has the topic/group/connection bodies):
// ConsumerOffsetSerializeWrapper (GET_ALL_CONSUMER_OFFSET 43), BrokerStatsData
// (VIEW_BROKER_STATS_DATA 315), ConsumeStatsList (GET_BROKER_CONSUME_STATS 317),
// QueryConsumeTimeSpanBody (QUERY_CONSUME_TIME_SPAN 303), QueryConsumeQueueResponseBody
// (QUERY_CONSUME_QUEUE 321), ConsumeMessageDirectlyResult (CONSUME_MESSAGE_DIRECTLY 309),
// ProducerTableInfo (GET_ALL_PRODUCER_INFO 328) and DataVersion (QUERY_DATA_VERSION 322).
// Field names are those of the Java classes; docs/protocol.md lists them.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "client/admin_types.h"
#include "client/message.h"

namespace rocketstore::client {

// {"offsetTable":{"topic@group":{queueId:offset}}}
struct ConsumerOffsetTable {
  std::map<std::string, std::map<int32_t, int64_t>> offsets;
  static Result<ConsumerOffsetTable> Decode(std::string_view json);
};

struct BrokerStatsItem {
  int64_t sum = 0;
  double tps = 0, avgpt = 0;
};
struct BrokerStatsData {  // statsMinute / statsHour / statsDay
  BrokerStatsItem minute, hour, day;
  static Result<BrokerStatsData> Decode(std::string_view json);
};

struct ConsumeStatsList {  // {"brokerAddr","totalDiff","consumeStatsList":[{group:[stats]}]}
  std::string broker_addr;
  int64_t total_diff = 0;
  std::vector<std::pair<std::string, std::vector<ConsumeStats>>> groups;
  static Result<ConsumeStatsList> Decode(std::string_view json);
};

struct QueueTimeSpan {
  MessageQueue queue;  // messageQueue
  int64_t min_timestamp = 0, max_timestamp = 0, consume_timestamp = 0, delay_time = 0;
};
struct ConsumeTimeSpans {  // {"consumeTimeSpanSet":[QueueTimeSpan]}
  std::vector<QueueTimeSpan> spans;
  static Result<ConsumeTimeSpans> Decode(std::string_view json);
};

struct ConsumeQueueEntry {  // ConsumeQueueData
  int64_t physic_offset = 0, tags_code = 0;
  int32_t physic_size = 0;
  std::string extend_data_json, bit_map, msg;
  bool eval = false;
};
struct ConsumeQueueView {         // QueryConsumeQueueResponseBody
  std::string subscription_json;  // subscriptionData, re-serialised ("" when absent)
  std::string filter_data;
  std::vector<ConsumeQueueEntry> entries;  // queueData
  int64_t max_queue_index = 0, min_queue_index = 0;
  static Result<ConsumeQueueView> Decode(std::string_view json);
};

struct ConsumeDirectlyResult {  // ConsumeMessageDirectlyResult
  bool order = false, auto_commit = true;
  std::string consume_result;  // CMResult: CR_SUCCESS, CR_LATER, ...
  std::string remark;
  int64_t spent_time_mills = 0;
  static Result<ConsumeDirectlyResult> Decode(std::string_view json);
};

struct ProducerInfo {
  std::string client_id, remote_ip, language;
  int32_t version = 0;
  int64_t last_update_timestamp = 0;
};
struct ProducerTable {  // ProducerTableInfo: {"data":{group:[ProducerInfo]}}
  std::map<std::string, std::vector<ProducerInfo>> groups;
  static Result<ProducerTable> Decode(std::string_view json);
};

struct DataVersionValue {  // {"counter":N,"timestamp":ms}
  int64_t counter = 0, timestamp = 0;
  static Result<DataVersionValue> Decode(std::string_view json);
  std::string Encode() const;
};
struct DataVersionAnswer {  // QUERY_DATA_VERSION's reply: header "changed", body the table's
  bool changed = false;
  bool has_version = false;
  DataVersionValue namesrv_version;
};

}  // namespace rocketstore::client
