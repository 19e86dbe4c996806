// File: protocol/headers/query_headers.h
//
// Typed custom headers of the broker's lookup and admin requests: QUERY_MESSAGE (12) and
// its response, VIEW_MESSAGE_BY_ID (33), GET_MAX_OFFSET (30), GET_MIN_OFFSET (31),
// GET_EARLIEST_MSG_STORETIME (32), SEARCH_OFFSET_BY_TIMESTAMP (29) and their responses,
// UPDATE_AND_CREATE_TOPIC (17).
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

struct QueryMessageRequestHeader {
  std::string topic;            // "topic", required
  std::string key;              // "key", required (a KEYS entry, or a UNIQ_KEY)
  int32_t max_num = 0;          // "maxNum", required
  int64_t begin_timestamp = 0;  // "beginTimestamp", required, epoch ms
  int64_t end_timestamp = 0;    // "endTimestamp", required, epoch ms
  // "_UNIQUE_KEY_QUERY", optional, default false: not a Java header field but an ext field
  // the client adds (MixAll.UNIQUE_MSG_QUERY_FLAG) when `key` is a message's UNIQ_KEY.
  bool unique_key_query = false;

  friend bool operator==(const QueryMessageRequestHeader&,
                         const QueryMessageRequestHeader&) = default;
  static Result<QueryMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct QueryMessageResponseHeader {
  int64_t index_last_update_timestamp = 0;  // "indexLastUpdateTimestamp", required
  int64_t index_last_update_phyoffset = 0;  // "indexLastUpdatePhyoffset", required

  friend bool operator==(const QueryMessageResponseHeader&,
                         const QueryMessageResponseHeader&) = default;
  static Result<QueryMessageResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct ViewMessageRequestHeader {
  int64_t offset = 0;  // "offset", required: commit-log offset of the record

  friend bool operator==(const ViewMessageRequestHeader&,
                         const ViewMessageRequestHeader&) = default;
  static Result<ViewMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetMaxOffsetRequestHeader {
  std::string topic;                       // "topic", required
  int32_t queue_id = 0;                    // "queueId", required
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const GetMaxOffsetRequestHeader&,
                         const GetMaxOffsetRequestHeader&) = default;
  static Result<GetMaxOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetMaxOffsetResponseHeader {
  int64_t offset = 0;  // "offset", required

  friend bool operator==(const GetMaxOffsetResponseHeader&,
                         const GetMaxOffsetResponseHeader&) = default;
  static Result<GetMaxOffsetResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetMinOffsetRequestHeader {
  std::string topic;                       // "topic", required
  int32_t queue_id = 0;                    // "queueId", required
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const GetMinOffsetRequestHeader&,
                         const GetMinOffsetRequestHeader&) = default;
  static Result<GetMinOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetMinOffsetResponseHeader {
  int64_t offset = 0;  // "offset", required

  friend bool operator==(const GetMinOffsetResponseHeader&,
                         const GetMinOffsetResponseHeader&) = default;
  static Result<GetMinOffsetResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetEarliestMsgStoretimeRequestHeader {
  std::string topic;                       // "topic", required
  int32_t queue_id = 0;                    // "queueId", required
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const GetEarliestMsgStoretimeRequestHeader&,
                         const GetEarliestMsgStoretimeRequestHeader&) = default;
  static Result<GetEarliestMsgStoretimeRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct GetEarliestMsgStoretimeResponseHeader {
  int64_t timestamp = 0;  // "timestamp", required, epoch ms

  friend bool operator==(const GetEarliestMsgStoretimeResponseHeader&,
                         const GetEarliestMsgStoretimeResponseHeader&) = default;
  static Result<GetEarliestMsgStoretimeResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// 5.x's BoundaryType: which of several messages stored at the searched time to answer.
enum class BoundaryType : uint8_t { kLower, kUpper };

struct SearchOffsetRequestHeader {
  std::string topic;      // "topic", required
  int32_t queue_id = 0;   // "queueId", required
  int64_t timestamp = 0;  // "timestamp", required, epoch ms
  // "boundaryType", optional (5.x), absent = kLower. Java writes the enum constant
  // ("LOWER" / "UPPER") and reads "upper" in any case as kUpper, anything else as kLower.
  std::optional<BoundaryType> boundary_type;
  std::optional<std::string> broker_name;  // "bname", optional

  friend bool operator==(const SearchOffsetRequestHeader&,
                         const SearchOffsetRequestHeader&) = default;
  static Result<SearchOffsetRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

struct SearchOffsetResponseHeader {
  int64_t offset = 0;  // "offset", required

  friend bool operator==(const SearchOffsetResponseHeader&,
                         const SearchOffsetResponseHeader&) = default;
  static Result<SearchOffsetResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// UPDATE_AND_CREATE_TOPIC (17).
struct CreateTopicRequestHeader {
  std::string topic;             // "topic", required
  std::string default_topic;     // "defaultTopic", required
  int32_t read_queue_nums = 0;   // "readQueueNums", required
  int32_t write_queue_nums = 0;  // "writeQueueNums", required
  int32_t perm = 0;              // "perm", required (PermName bits)
  // "topicFilterType", required: "SINGLE_TAG" or "MULTI_TAG"; anything else fails Decode
  // with "topicFilterType = [<value>] value invalid" (Java's checkFields).
  std::string topic_filter_type;
  std::optional<int32_t> topic_sys_flag;  // "topicSysFlag", optional
  bool order = false;                     // "order", required

  friend bool operator==(const CreateTopicRequestHeader&,
                         const CreateTopicRequestHeader&) = default;
  static Result<CreateTopicRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
