// File: protocol/bodies/client_bodies.h
//
// JSON bodies exchanged with clients, in the shapes fastjson gives RocketMQ 4.9.8's
// classes (common/protocol/heartbeat/*.java, common/protocol/body/*.java):
//   HEART_BEAT (34) request          HeartbeatData
//   CHECK_CLIENT_CONFIG (46) request CheckClientRequestBody
//   GET_CONSUMER_LIST_BY_GROUP (38)  response ConsumerListBody
//   LOCK_BATCH_MQ (41)               request LockBatchRequestBody, response LockBatchResponseBody
//   UNLOCK_BATCH_MQ (42)             request UnlockBatchRequestBody
// Java Sets are JSON arrays; the order is kept as received.
//
// Decode(json): strict JSON (these bodies never carry fastjson's bare non-string keys).
// As with fastjson, an absent or null member leaves the default (empty string, false, 0,
// empty list) and unknown members are ignored; a member of the wrong JSON type, an int
// that is not an integer in range, or invalid JSON is kInvalidArgument naming the body and
// the member's path ("HeartbeatData: consumerDataSet[0].unitMode is not a boolean").
// HeartbeatData also requires clientID (a heartbeat without one identifies nobody).
// Encode(): compact JSON with members in fastjson's order (sorted by name), which is
// byte for byte what the 4.9.8 Java client sent in tests/protocol/vectors/java-4.9.8/.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rocketstore::protocol {

struct SubscriptionData {
  bool class_filter_mode = false;       // "classFilterMode"
  std::string topic;                    // "topic"
  std::string sub_string;               // "subString": "*", "TagA || TagB", or a SQL92 text
  std::vector<std::string> tags_set;    // "tagsSet": the tags of a TAG expression
  std::vector<int32_t> code_set;        // "codeSet": Java String.hashCode of each tag
  int64_t sub_version = 0;              // "subVersion": the client's version stamp (ms)
  std::string expression_type = "TAG";  // "expressionType": "TAG" (default) or "SQL92"
  friend bool operator==(const SubscriptionData&, const SubscriptionData&) = default;
};

struct ProducerData {
  std::string group_name;  // "groupName"
  friend bool operator==(const ProducerData&, const ProducerData&) = default;
};

struct ConsumerData {
  std::string group_name;          // "groupName"
  std::string consume_type;        // "consumeType": CONSUME_PASSIVELY | CONSUME_ACTIVELY
  std::string message_model;       // "messageModel": CLUSTERING | BROADCASTING
  std::string consume_from_where;  // "consumeFromWhere": CONSUME_FROM_LAST_OFFSET, ...
  std::vector<SubscriptionData> subscription_data_set;  // "subscriptionDataSet"
  bool unit_mode = false;                               // "unitMode"
  friend bool operator==(const ConsumerData&, const ConsumerData&) = default;
};

struct HeartbeatData {
  std::string client_id;                        // "clientID", required
  std::vector<ProducerData> producer_data_set;  // "producerDataSet"
  std::vector<ConsumerData> consumer_data_set;  // "consumerDataSet"

  static Result<HeartbeatData> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const HeartbeatData&, const HeartbeatData&) = default;
};

// CHECK_CLIENT_CONFIG (46): a consumer asks whether the broker accepts its subscription
// (the Java client sends it for every non-TAG subscription before it starts).
struct CheckClientRequestBody {
  std::string client_id;                              // "clientId"
  std::string group;                                  // "group"
  std::optional<SubscriptionData> subscription_data;  // "subscriptionData"

  static Result<CheckClientRequestBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const CheckClientRequestBody&, const CheckClientRequestBody&) = default;
};

struct ConsumerListBody {
  std::vector<std::string> consumer_id_list;  // "consumerIdList"

  static Result<ConsumerListBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const ConsumerListBody&, const ConsumerListBody&) = default;
};

// common/message/MessageQueue.java.
struct MessageQueue {
  std::string topic;        // "topic"
  std::string broker_name;  // "brokerName"
  int32_t queue_id = 0;     // "queueId"

  friend bool operator==(const MessageQueue&, const MessageQueue&) = default;
};

struct LockBatchRequestBody {
  std::string consumer_group;        // "consumerGroup"
  std::string client_id;             // "clientId"
  std::vector<MessageQueue> mq_set;  // "mqSet"

  static Result<LockBatchRequestBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const LockBatchRequestBody&, const LockBatchRequestBody&) = default;
};

struct LockBatchResponseBody {
  std::vector<MessageQueue> lock_ok_mq_set;  // "lockOKMQSet": the queues now locked

  static Result<LockBatchResponseBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const LockBatchResponseBody&, const LockBatchResponseBody&) = default;
};

struct UnlockBatchRequestBody {
  std::string consumer_group;        // "consumerGroup"
  std::string client_id;             // "clientId"
  std::vector<MessageQueue> mq_set;  // "mqSet"

  static Result<UnlockBatchRequestBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  friend bool operator==(const UnlockBatchRequestBody&, const UnlockBatchRequestBody&) = default;
};

}  // namespace rocketstore::protocol
