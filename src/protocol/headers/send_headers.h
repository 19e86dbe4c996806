// File: protocol/headers/send_headers.h
//
// Typed custom headers of the producer side: SEND_MESSAGE (10), SEND_MESSAGE_V2 (310),
// SEND_BATCH_MESSAGE (320), SEND_REPLY_MESSAGE (324) / _V2 (325) and their response;
// CONSUMER_SEND_MSG_BACK (36); END_TRANSACTION (37); CHECK_TRANSACTION_STATE (39).
// Field tables mirror RocketMQ 4.9.8's header classes (common/protocol/header/*.java);
// each member's comment gives its wire name, whether it is required and its default.
//
// Shape shared by every header in protocol/headers/:
//   static Result<H> Decode(const RemotingCommand& cmd);  reads cmd.ext_fields
//   void EncodeTo(RemotingCommand& cmd) const;             sets ext fields (others stay)
// Decode reads the fields in Java's declaration order and returns the first error, a
// kInvalidArgument whose message names the field: "the custom field <topic> is null"
// for a missing required field, "the custom field <queueId> is not a valid int: "x""
// for a malformed number (base-10 Java parseInt/parseLong syntax, range-checked). A
// boolean is true iff its text is "true" in any case (Java's Boolean.parseBoolean).
// Fields the struct does not name are ignored. Unlike 4.9.8 (whose reflective decoder only
// logs a missing @CFNotNull field and leaves it null) a missing required field is an
// error here; the remark of the SYSTEM_ERROR response should be the message.
// EncodeTo writes required fields always and optional ones only when set.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

// SEND_MESSAGE / SEND_REPLY_MESSAGE carry SendMessageRequestHeader's long names;
// SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE / SEND_REPLY_MESSAGE_V2 carry
// SendMessageRequestHeaderV2's one-letter names. Both decode into this one struct.
struct SendMessageRequestHeader {
  std::string producer_group;            // "producerGroup" | "a", required
  std::string topic;                     // "topic" | "b", required
  std::string default_topic;             // "defaultTopic" | "c", required (e.g. "TBW102")
  int32_t default_topic_queue_nums = 0;  // "defaultTopicQueueNums" | "d", required
  int32_t queue_id = 0;                  // "queueId" | "e", required; < 0: broker picks
  int32_t sys_flag = 0;                  // "sysFlag" | "f", required (MessageSysFlag bits)
  int64_t born_timestamp = 0;            // "bornTimestamp" | "g", required, epoch ms
  int32_t flag = 0;                      // "flag" | "h", required (user flag)
  // "properties" | "i", optional: name\x01value\x02... (store-format.md).
  std::optional<std::string> properties;
  std::optional<int32_t> reconsume_times;      // "reconsumeTimes" | "j", optional
  bool unit_mode = false;                      // "unitMode" | "k", optional, default false
  std::optional<int32_t> max_reconsume_times;  // "maxReconsumeTimes" | "l", optional
  // "batch" | "m", optional, default false. As sent: SEND_BATCH_MESSAGE clients set it,
  // but whether code 320 implies a batch is the handler's decision.
  bool batch = false;
  std::optional<std::string> broker_name;  // "bname" | "n", optional (RpcRequestHeader)

  // Whether `code` uses the one-letter names (310, 320, 325).
  friend bool operator==(const SendMessageRequestHeader&,
                         const SendMessageRequestHeader&) = default;
  static bool UsesShortNames(int32_t code);
  // Picks the names by cmd.code (UsesShortNames).
  static Result<SendMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd, bool v2) const;
};

// The same fields as views into the command's header (its ext fields or send_v2), for
// the send path, which copies none of them: valid while the command lives and its fields
// are unchanged. Decode is SendMessageRequestHeader's (same names, same errors).
struct SendMessageRequestView {
  std::string_view producer_group;
  std::string_view topic;
  std::string_view default_topic;
  int32_t default_topic_queue_nums = 0;
  int32_t queue_id = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int32_t flag = 0;
  std::optional<std::string_view> properties;
  std::optional<int32_t> reconsume_times;
  bool unit_mode = false;
  std::optional<int32_t> max_reconsume_times;
  bool batch = false;
  std::optional<std::string_view> broker_name;

  static Result<SendMessageRequestView> Decode(const RemotingCommand& cmd);
};

struct SendMessageResponseHeader {
  std::string msg_id;                         // "msgId", required (offset message id)
  int32_t queue_id = 0;                       // "queueId", required
  int64_t queue_offset = 0;                   // "queueOffset", required
  std::optional<std::string> transaction_id;  // "transactionId", optional
  std::optional<std::string> recall_handle;   // "recallHandle", optional (5.3, timers)
  // Not header fields in Java but ext fields its broker adds to every send response.
  std::optional<std::string> msg_region;  // "MSG_REGION", optional ("DefaultRegion")
  std::optional<bool> trace_on;           // "TRACE_ON", optional ("true"/"false")

  friend bool operator==(const SendMessageResponseHeader&,
                         const SendMessageResponseHeader&) = default;
  static Result<SendMessageResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// A send answer's whole frame written in one pass — the broker's most frequent answer —
// without building its RemotingCommand (no field block, no strings, no header pass over
// a map). JSON only. The bytes are exactly those EncodeFrameInto writes for the answer
//   MakeResponse(request, code) (no remark), opaque = the request's, MarkResponse(),
//   SendMessageResponseHeader{...}.EncodeTo
// (tests/protocol/headers_fields_test.cc compares them on random values): `head` is
// overwritten with the frame (length words and header; a send answer has no body). When a
// value needs a JSON escape or the header is past the frame's limits it takes the generic
// encoder, whose error (a header or frame too long) it returns; `head` is then unusable.
struct SendAnswerFrame {
  int32_t code = 0;  // the ResponseCode of a stored message (SUCCESS or a flush warning)
  int32_t opaque = 0;
  std::string_view msg_id;  // "msgId"
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  std::optional<std::string_view> transaction_id;  // absent: not written
  std::optional<std::string_view> recall_handle;
  std::optional<std::string_view> msg_region;
  std::optional<bool> trace_on;
};
[[nodiscard]] Status EncodeSendAnswerFrame(const SendAnswerFrame& answer,
                                           std::vector<uint8_t>* head);
namespace internal {
// EncodeSendAnswerFrame's one pass: false, `head` unspecified, when a value needs an escape
// or the header could pass the frame's limits (the caller then encodes the generic way).
bool WriteSendAnswerFramePlain(const SendAnswerFrame& answer, std::vector<uint8_t>* head);
}  // namespace internal
// The answer's header fields as the generic path holds them (copies of the strings).
SendMessageResponseHeader ResponseHeaderOf(const SendAnswerFrame& answer);

// CONSUMER_SEND_MSG_BACK (36): a consumer hands a message back for retry (or DLQ).
struct ConsumerSendMsgBackRequestHeader {
  int64_t offset = 0;                          // "offset", required: commit-log offset
  std::string group;                           // "group", required: consumer group
  int32_t delay_level = 0;                     // "delayLevel", required (<0: DLQ now)
  std::optional<std::string> origin_msg_id;    // "originMsgId", optional
  std::optional<std::string> origin_topic;     // "originTopic", optional
  bool unit_mode = false;                      // "unitMode", optional, default false
  std::optional<int32_t> max_reconsume_times;  // "maxReconsumeTimes", optional
  std::optional<std::string> broker_name;      // "bname", optional

  friend bool operator==(const ConsumerSendMsgBackRequestHeader&,
                         const ConsumerSendMsgBackRequestHeader&) = default;
  static Result<ConsumerSendMsgBackRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// MessageSysFlag's transaction types, the values of "commitOrRollback".
inline constexpr int32_t kTransactionNotType = 0;
inline constexpr int32_t kTransactionCommitType = 0x8;
inline constexpr int32_t kTransactionRollbackType = 0xC;

// RECALL_MESSAGE (370, RocketMQ 5.3 RecallMessageRequestHeader / ResponseHeader).
struct RecallMessageRequestHeader {
  std::optional<std::string> producer_group;  // "producerGroup", optional
  std::string topic;                          // "topic", required
  std::string recall_handle;                  // "recallHandle", required

  friend bool operator==(const RecallMessageRequestHeader&,
                         const RecallMessageRequestHeader&) = default;
  static Result<RecallMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};
struct RecallMessageResponseHeader {
  std::string msg_id;  // "msgId", required
  static Result<RecallMessageResponseHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// END_TRANSACTION (37, oneway).
struct EndTransactionRequestHeader {
  std::string producer_group;           // "producerGroup", required
  int64_t tran_state_table_offset = 0;  // "tranStateTableOffset", required (queue offset)
  int64_t commit_log_offset = 0;        // "commitLogOffset", required (half message)
  // "commitOrRollback", required: kTransactionNotType / CommitType / RollbackType; any
  // other value fails Decode with "commitOrRollback field wrong" (Java's checkFields).
  int32_t commit_or_rollback = kTransactionNotType;
  bool from_transaction_check = false;        // "fromTransactionCheck", optional, false
  std::string msg_id;                         // "msgId", required (the UNIQ_KEY)
  std::optional<std::string> transaction_id;  // "transactionId", optional
  std::optional<std::string> broker_name;     // "bname", optional

  friend bool operator==(const EndTransactionRequestHeader&,
                         const EndTransactionRequestHeader&) = default;
  static Result<EndTransactionRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

// CHECK_TRANSACTION_STATE (39, broker → producer, oneway; body = the half message).
struct CheckTransactionStateRequestHeader {
  int64_t tran_state_table_offset = 0;        // "tranStateTableOffset", required
  int64_t commit_log_offset = 0;              // "commitLogOffset", required
  std::optional<std::string> msg_id;          // "msgId", optional (UNIQ_KEY)
  std::optional<std::string> transaction_id;  // "transactionId", optional
  std::optional<std::string> offset_msg_id;   // "offsetMsgId", optional
  std::optional<std::string> broker_name;     // "bname", optional

  friend bool operator==(const CheckTransactionStateRequestHeader&,
                         const CheckTransactionStateRequestHeader&) = default;
  static Result<CheckTransactionStateRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
