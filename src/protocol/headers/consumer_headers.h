// File: protocol/headers/consumer_headers.h
//
// Typed custom headers of the consumer side: PULL_MESSAGE (11) and its response,
// QUERY_CONSUMER_OFFSET (14) and its response, UPDATE_CONSUMER_OFFSET (15),
// UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38) and
// NOTIFY_CONSUMER_IDS_CHANGED (40, broker → consumer). The body of 38's response is
// ConsumerListBody (protocol/bodies/client_bodies.h).
//
// Decode / EncodeTo, errors and defaults: as specified in protocol/headers/send_headers.h.
// Each member's comment gives its wire name, whether it is required and its default.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

struct PullMessageRequestHeader {
  std::string consumer_group;               // "consumerGroup", required
  std::string topic;                        // "topic", required
  int32_t queue_id = 0;                     // "queueId", required
  int64_t queue_offset = 0;                 // "queueOffset", required
  int32_t max_msg_nums = 0;                 // "maxMsgNums", required
  int32_t sys_flag = 0;                     // "sysFlag", required (PullSysFlag bits)
  int64_t commit_offset = 0;                // "commitOffset", required
  int64_t suspend_timeout_millis = 0;       // "suspendTimeoutMillis", required (long polling)
  std::optional<std::string> subscription;  // "subscription", optional (expression)
  int64_t sub_version = 0;                  // "subVersion", required
  // "expressionType", optional: "TAG" (what Java assumes when absent) or "SQL92".
  std::optional<std::string> expression_type;
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const PullMessageRequestHeader&,
                         const PullMessageRequestHeader&) = default;
  static Result<PullMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct PullMessageResponseHeader {
  int64_t suggest_which_broker_id = 0;    // "suggestWhichBrokerId", required
  int64_t next_begin_offset = 0;          // "nextBeginOffset", required
  int64_t min_offset = 0;                 // "minOffset", required
  int64_t max_offset = 0;                 // "maxOffset", required
  std::optional<int32_t> topic_sys_flag;  // "topicSysFlag", optional (5.x)
  std::optional<int32_t> group_sys_flag;  // "groupSysFlag", optional (5.x)

  friend bool operator==(const PullMessageResponseHeader&,
                         const PullMessageResponseHeader&) = default;
  static Result<PullMessageResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct QueryConsumerOffsetRequestHeader {
  std::string consumer_group;  // "consumerGroup", required
  std::string topic;           // "topic", required
  int32_t queue_id = 0;        // "queueId", required
  // "setZeroIfNotFound", optional (5.x): false asks for QUERY_NOT_FOUND instead of 0 when
  // the group has no offset; absent behaves as true.
  std::optional<bool> set_zero_if_not_found;
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const QueryConsumerOffsetRequestHeader&,
                         const QueryConsumerOffsetRequestHeader&) = default;
  static Result<QueryConsumerOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct QueryConsumerOffsetResponseHeader {
  int64_t offset = 0;  // "offset", required

  friend bool operator==(const QueryConsumerOffsetResponseHeader&,
                         const QueryConsumerOffsetResponseHeader&) = default;
  static Result<QueryConsumerOffsetResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct UpdateConsumerOffsetRequestHeader {
  std::string consumer_group;              // "consumerGroup", required
  std::string topic;                       // "topic", required
  int32_t queue_id = 0;                    // "queueId", required
  int64_t commit_offset = 0;               // "commitOffset", required
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const UpdateConsumerOffsetRequestHeader&,
                         const UpdateConsumerOffsetRequestHeader&) = default;
  static Result<UpdateConsumerOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct UnregisterClientRequestHeader {
  std::string client_id;                      // "clientID", required
  std::optional<std::string> producer_group;  // "producerGroup", optional
  std::optional<std::string> consumer_group;  // "consumerGroup", optional

  friend bool operator==(const UnregisterClientRequestHeader&,
                         const UnregisterClientRequestHeader&) = default;
  static Result<UnregisterClientRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetConsumerListByGroupRequestHeader {
  std::string consumer_group;  // "consumerGroup", required

  friend bool operator==(const GetConsumerListByGroupRequestHeader&,
                         const GetConsumerListByGroupRequestHeader&) = default;
  static Result<GetConsumerListByGroupRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct NotifyConsumerIdsChangedRequestHeader {
  std::string consumer_group;  // "consumerGroup", required

  friend bool operator==(const NotifyConsumerIdsChangedRequestHeader&,
                         const NotifyConsumerIdsChangedRequestHeader&) = default;
  static Result<NotifyConsumerIdsChangedRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
