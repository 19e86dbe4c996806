// File: protocol/bodies/admin_bodies.h
//
// JSON bodies of the broker admin codes, part A, in the shapes fastjson gives RocketMQ
// 4.9.8's classes (common/protocol/body/*.java; docs/protocol.md, "Broker admin codes
// (part A)"):
//   GET_BROKER_RUNTIME_INFO (28) response   KVTable            {"table":{"k":"v",..}}
//   GET_TOPIC_STATS_INFO (202) response     TopicStatsTable    {"offsetTable":{MQ:TopicOffset}}
//     with each MessageQueue key written BARE, as fastjson writes a non-String map key:
//     {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":0,
//      "maxOffset":0,"minOffset":0}}}
//   GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305)  TopicList          {"topicList":["T",..]}
//   UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) request SubscriptionGroupConfigBody
//   QUERY_CONSUME_QUEUE (321) response      QueryConsumeQueueResponseBody
// (21, 201 and 43 answer the config files' own text: broker/config/*.h.)
//
// Encode(): compact JSON, members sorted by name (fastjson's order); fastjson leaves out
// null members, so do we (optional members). Decode(json): what a Java client's
// RemotingSerializable.decode accepts: bare object keys (TopicStatsTable) and bare integer
// keys are accepted; absent or null members keep their defaults; a member of the wrong
// type or invalid JSON is kInvalidArgument naming the body and the member.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "protocol/bodies/client_bodies.h"

namespace rocketstore::protocol {

struct KVTable {
  std::map<std::string, std::string> table;  // "table"

  static Result<KVTable> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

// org.apache.rocketmq.common.admin.TopicOffset.
struct TopicOffset {
  int64_t min_offset = 0;             // "minOffset"
  int64_t max_offset = 0;             // "maxOffset"
  int64_t last_update_timestamp = 0;  // "lastUpdateTimestamp": store time of max-1, 0 if empty
  friend bool operator==(const TopicOffset&, const TopicOffset&) = default;
};

struct TopicStatsTable {
  std::vector<std::pair<MessageQueue, TopicOffset>> offset_table;  // "offsetTable", in order

  static Result<TopicStatsTable> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

struct TopicList {
  std::vector<std::string> topic_list;     // "topicList" (a Java Set)
  std::optional<std::string> broker_addr;  // "brokerAddr", null for these answers

  static Result<TopicList> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

// SubscriptionGroupConfig (4.9.8 members; others are ignored as fastjson does).
struct SubscriptionGroupConfigBody {
  std::string group_name;                          // "groupName"
  bool consume_enable = true;                      // "consumeEnable"
  bool consume_from_min_enable = true;             // "consumeFromMinEnable"
  bool consume_broadcast_enable = true;            // "consumeBroadcastEnable"
  int32_t retry_queue_nums = 1;                    // "retryQueueNums"
  int32_t retry_max_times = 16;                    // "retryMaxTimes"
  int64_t broker_id = 0;                           // "brokerId"
  int64_t which_broker_when_consume_slowly = 1;    // "whichBrokerWhenConsumeSlowly"
  bool notify_consumer_ids_changed_enable = true;  // "notifyConsumerIdsChangedEnable"

  static Result<SubscriptionGroupConfigBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

// ConsumeQueueData: one consume-queue unit.
struct ConsumeQueueData {
  int64_t physic_offset = 0;                    // "physicOffset"
  int32_t physic_size = 0;                      // "physicSize"
  int64_t tags_code = 0;                        // "tagsCode"
  std::optional<std::string> extend_data_json;  // "extendDataJson" (CQ ext: never here)
  std::optional<std::string> bit_map;           // "bitMap" (CQ ext: never here)
  bool eval = false;                            // "eval"
  std::optional<std::string> msg;               // "msg"
  friend bool operator==(const ConsumeQueueData&, const ConsumeQueueData&) = default;
};

struct QueryConsumeQueueResponseBody {
  std::optional<SubscriptionData> subscription_data;        // "subscriptionData"
  std::optional<std::string> filter_data;                   // "filterData"
  std::optional<std::vector<ConsumeQueueData>> queue_data;  // "queueData"
  int64_t max_queue_index = 0;                              // "maxQueueIndex"
  int64_t min_queue_index = 0;                              // "minQueueIndex"

  static Result<QueryConsumeQueueResponseBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

}  // namespace rocketstore::protocol
