// File: protocol/headers/reply_headers.h
//
// PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker -> requester, expects an answer): a reply
// message the broker pushes to the client that sent the request (RocketMQ 4.9.8's
// ReplyMessageRequestHeader). The body is the reply's body. The client answers SUCCESS
// (no fields) or SYSTEM_ERROR "process reply message fail".
//
// The send side of request-reply, SEND_REPLY_MESSAGE (324) / _V2 (325), carries
// SendMessageRequestHeader (send_headers.h), with its long / one-letter names.
//
// Decode / EncodeTo, errors and defaults: as specified in protocol/headers/send_headers.h.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol {

struct ReplyMessageRequestHeader {
  std::string producer_group;            // "producerGroup", required (the replier's)
  std::string topic;                     // "topic", required (<cluster>_REPLY_TOPIC)
  std::string default_topic;             // "defaultTopic", required
  int32_t default_topic_queue_nums = 0;  // "defaultTopicQueueNums", required
  int32_t queue_id = 0;                  // "queueId", required (as the replier sent it)
  int32_t sys_flag = 0;                  // "sysFlag", required
  int64_t born_timestamp = 0;            // "bornTimestamp", required, epoch ms
  int32_t flag = 0;                      // "flag", required
  // "properties", optional: the reply's properties plus PUSH_REPLY_TIME.
  std::optional<std::string> properties;
  std::optional<int32_t> reconsume_times;  // "reconsumeTimes", optional
  bool unit_mode = false;                  // "unitMode", optional, default false
  std::string born_host;                   // "bornHost", required: the replier, "ip:port"
  std::string store_host;                  // "storeHost", required: the broker, "ip:port"
  int64_t store_timestamp = 0;             // "storeTimestamp", required, epoch ms

  friend bool operator==(const ReplyMessageRequestHeader&,
                         const ReplyMessageRequestHeader&) = default;
  static Result<ReplyMessageRequestHeader> Decode(const RemotingCommand& cmd);
  void EncodeTo(RemotingCommand& cmd) const;
};

}  // namespace rocketstore::protocol
