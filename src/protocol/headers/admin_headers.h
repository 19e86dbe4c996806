// File: protocol/headers/admin_headers.h
//
// Typed custom headers of the broker admin codes, part A (docs/protocol.md, "Broker admin
// codes (part A)"): GET_BROKER_CONFIG (26) response, GET_TOPIC_STATS_INFO (202),
// DELETE_TOPIC_IN_BROKER (215), DELETE_SUBSCRIPTIONGROUP (207), CLONE_GROUP_OFFSET (314),
// QUERY_CONSUME_QUEUE (321). The other codes of part A carry no custom header.
//
// Decode / EncodeTo, errors and defaults: as specified in protocol/headers/send_headers.h.
// Each member's comment gives its wire name, whether it is required (Java's @CFNotNull)
// and its default (a Java primitive left absent keeps its zero value).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

// GetBrokerConfigResponseHeader.
struct GetBrokerConfigResponseHeader {
  std::string version;  // "version", required: the config's DataVersion as JSON text

  friend bool operator==(const GetBrokerConfigResponseHeader&,
                         const GetBrokerConfigResponseHeader&) = default;
  static Result<GetBrokerConfigResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// GetTopicStatsInfoRequestHeader (202) and DeleteTopicRequestHeader (215): one topic.
struct TopicRequestHeader {
  std::string topic;  // "topic", required

  friend bool operator==(const TopicRequestHeader&, const TopicRequestHeader&) = default;
  static Result<TopicRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// DeleteSubscriptionGroupRequestHeader.
struct DeleteSubscriptionGroupRequestHeader {
  std::string group_name;      // "groupName", required
  bool remove_offset = false;  // "removeOffset", optional, default false (4.9.8 adds it)

  friend bool operator==(const DeleteSubscriptionGroupRequestHeader&,
                         const DeleteSubscriptionGroupRequestHeader&) = default;
  static Result<DeleteSubscriptionGroupRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// CloneGroupOffsetRequestHeader.
struct CloneGroupOffsetRequestHeader {
  std::string src_group;             // "srcGroup", required
  std::string dest_group;            // "destGroup", required
  std::optional<std::string> topic;  // "topic", optional: absent/blank = every topic of srcGroup
  bool offline = false;              // "offline", optional, default false

  friend bool operator==(const CloneGroupOffsetRequestHeader&,
                         const CloneGroupOffsetRequestHeader&) = default;
  static Result<CloneGroupOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// QueryConsumeQueueRequestHeader (no @CFNotNull: absent numbers are 0, absent topic "").
struct QueryConsumeQueueRequestHeader {
  std::string topic;                          // "topic"
  int32_t queue_id = 0;                       // "queueId"
  int64_t index = 0;                          // "index": the first queue offset
  int32_t count = 0;                          // "count": how many units
  std::optional<std::string> consumer_group;  // "consumerGroup", optional

  friend bool operator==(const QueryConsumeQueueRequestHeader&,
                         const QueryConsumeQueueRequestHeader&) = default;
  static Result<QueryConsumeQueueRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
