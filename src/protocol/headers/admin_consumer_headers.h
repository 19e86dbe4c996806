// File: protocol/headers/admin_consumer_headers.h
//
// Typed custom headers of the broker admin codes of part B (RocketMQ 4.9.8's
// common/protocol/header/*.java): connections (203, 204), consume stats (208, 317),
// who consumes a topic (300), consume time span (303), statistics (315), offset reset
// (222, and RESET_CONSUMER_CLIENT_OFFSET 220 broker → client, same header), consumer
// status (223, and GET_CONSUMER_STATUS_FROM_CLIENT 221 broker → client, same header),
// consumer running info (307) and direct consumption (309), both forwarded to a client.
// GET_ALL_PRODUCER_INFO (328) has an empty header.
//
// Decode / EncodeTo, errors and defaults: as specified in protocol/headers/send_headers.h
// (a missing required field is "the custom field <name> is null"). Each member's comment
// gives its wire name, whether it is required and its default.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

#define RS_ADMIN_HEADER_METHODS(T)                      \
  friend bool operator==(const T&, const T&) = default; \
  static Result<T> Decode(const RemotingCommand& cmd);  \
  void EncodeTo(RemotingCommand& cmd) const

// GET_CONSUMER_CONNECTION_LIST (203).
struct GetConsumerConnectionListRequestHeader {
  std::string consumer_group;  // "consumerGroup", required
  RS_ADMIN_HEADER_METHODS(GetConsumerConnectionListRequestHeader);
};

// GET_PRODUCER_CONNECTION_LIST (204).
struct GetProducerConnectionListRequestHeader {
  std::string producer_group;  // "producerGroup", required
  RS_ADMIN_HEADER_METHODS(GetProducerConnectionListRequestHeader);
};

// GET_CONSUME_STATS (208). A blank topic means every topic the group has offsets of.
struct GetConsumeStatsRequestHeader {
  std::string consumer_group;        // "consumerGroup", required
  std::optional<std::string> topic;  // "topic", optional
  RS_ADMIN_HEADER_METHODS(GetConsumeStatsRequestHeader);
};

// GET_BROKER_CONSUME_STATS (317).
struct GetConsumeStatsInBrokerHeader {
  bool is_order = false;  // "isOrder", required: only order topics
  RS_ADMIN_HEADER_METHODS(GetConsumeStatsInBrokerHeader);
};

// QUERY_TOPIC_CONSUME_BY_WHO (300).
struct QueryTopicConsumeByWhoRequestHeader {
  std::string topic;  // "topic", required
  RS_ADMIN_HEADER_METHODS(QueryTopicConsumeByWhoRequestHeader);
};

// QUERY_CONSUME_TIME_SPAN (303).
struct QueryConsumeTimeSpanRequestHeader {
  std::string topic;  // "topic", required
  std::string group;  // "group", required
  RS_ADMIN_HEADER_METHODS(QueryConsumeTimeSpanRequestHeader);
};

// VIEW_BROKER_STATS_DATA (315).
struct ViewBrokerStatsDataRequestHeader {
  std::string stats_name;  // "statsName", required (TOPIC_PUT_NUMS, GROUP_GET_NUMS, ...)
  std::string stats_key;   // "statsKey", required (topic, topic@group, cluster)
  RS_ADMIN_HEADER_METHODS(ViewBrokerStatsDataRequestHeader);
};

// INVOKE_BROKER_TO_RESET_OFFSET (222) and RESET_CONSUMER_CLIENT_OFFSET (220).
struct ResetOffsetRequestHeader {
  std::string topic;      // "topic", required
  std::string group;      // "group", required
  int64_t timestamp = 0;  // "timestamp", required: ms, or -1 for the queues' ends
  bool is_force = false;  // "isForce", required
  RS_ADMIN_HEADER_METHODS(ResetOffsetRequestHeader);
};

// INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) and GET_CONSUMER_STATUS_FROM_CLIENT (221).
struct GetConsumerStatusRequestHeader {
  std::string topic;                       // "topic", required
  std::string group;                       // "group", required
  std::optional<std::string> client_addr;  // "clientAddr", optional: one client id, or all
  RS_ADMIN_HEADER_METHODS(GetConsumerStatusRequestHeader);
};

// GET_CONSUMER_RUNNING_INFO (307).
struct GetConsumerRunningInfoRequestHeader {
  std::string consumer_group;         // "consumerGroup", required
  std::string client_id;              // "clientId", required
  std::optional<bool> jstack_enable;  // "jstackEnable", optional (false)
  RS_ADMIN_HEADER_METHODS(GetConsumerRunningInfoRequestHeader);
};

// CONSUME_MESSAGE_DIRECTLY (309).
struct ConsumeMessageDirectlyResultRequestHeader {
  std::string consumer_group;              // "consumerGroup", required
  std::optional<std::string> client_id;    // "clientId", optional
  std::optional<std::string> msg_id;       // "msgId", optional: an offset message id
  std::optional<std::string> broker_name;  // "brokerName", optional (the broker sets it)
  RS_ADMIN_HEADER_METHODS(ConsumeMessageDirectlyResultRequestHeader);
};

#undef RS_ADMIN_HEADER_METHODS

}  // namespace rocketstore::protocol
