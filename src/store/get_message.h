// File: store/get_message.h
//
// Reading the way consumers do (spec §9.2): a consumer asks for messages of one queue
// from a queue offset; the store reads the queue's ConsumeQueue units from there, filters
// by tag hash, and returns views of the raw commit-log records (no copy), ready to be
// sent as a pull body. The result always carries the queue's min/max offsets, a status
// with RocketMQ's name, and the offset the consumer should ask for next.
//
// Status and next-begin offset (checked in this order):
//   queue does not exist / has no units   NO_MESSAGE_IN_QUEUE     0
//   topic or queue id invalid             NO_MATCHED_LOGIC_QUEUE  0
//   offset < min                          OFFSET_TOO_SMALL        min
//   offset == max                         OFFSET_OVERFLOW_ONE     offset
//   offset > max                          OFFSET_OVERFLOW_BADLY   max
//   unit not available (file gone)        OFFSET_FOUND_NULL       first offset of the next CQ file
//   otherwise, scanning up to max(800, maxMsgNums) units:
//     something returned                  FOUND                   offset + units examined
//     all filtered out                    NO_MATCHED_MESSAGE      offset + units examined
//     records already deleted             MESSAGE_WAS_REMOVING    offset + units examined
// A batch is full at maxMsgNums messages, or (never before the first message) when the
// next record would pass the byte limit: 256 KiB / 32 messages when the data is likely in
// memory, 64 KiB / 8 messages when it is older than 40 % of RAM behind the log's end.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/offsets.h"
#include "store/commitlog/commit_log.h"

namespace rocketstore {

enum class GetMessageStatus : uint8_t {
  kFound,
  kNoMatchedMessage,
  kMessageWasRemoving,
  kOffsetFoundNull,
  kOffsetOverflowBadly,
  kOffsetOverflowOne,
  kOffsetTooSmall,
  kNoMatchedLogicQueue,
  kNoMessageInQueue,
};

std::string_view GetMessageStatusName(GetMessageStatus s);

// Decides which messages a consumer wants. The ConsumeQueue check sees only the tag hash;
// the commit-log check (optional) sees the whole record.
class MessageFilter {
 public:
  virtual ~MessageFilter() = default;
  virtual bool MatchesTagsCode(int64_t tags_code) const = 0;
  virtual bool MatchesRecord(std::span<const uint8_t> record) const { return true; }
};

// RocketMQ's TAG subscription: "*" or empty matches everything; otherwise "a || b || c",
// compared by Java String.hashCode (collisions are resolved by the client comparing the
// tag string, which TagFilter::exact_tags() exposes for callers that want to).
class TagFilter final : public MessageFilter {
 public:
  explicit TagFilter(std::string_view expression);
  bool MatchesTagsCode(int64_t tags_code) const override;
  bool matches_all() const { return all_; }
  const std::vector<std::string>& exact_tags() const { return tags_; }

 private:
  bool all_ = false;
  std::vector<std::string> tags_;
  std::unordered_set<int32_t> codes_;
};

struct GetMessageRequest {
  std::string_view group;
  std::string_view topic;
  int32_t queue_id = 0;
  QueueOffset offset;
  int32_t max_msg_nums = 32;
  const MessageFilter* filter = nullptr;  // nullptr: everything
};

struct GetMessageResult {
  GetMessageStatus status = GetMessageStatus::kNoMessageInQueue;
  QueueOffset next_begin_offset;
  QueueOffset min_offset;
  QueueOffset max_offset;
  std::vector<CommitLogBytes> messages;    // raw records, in queue order
  std::vector<QueueOffset> queue_offsets;  // queue offset of each message
  int64_t total_bytes = 0;
  bool suggest_pulling_from_slave = false;
};

}  // namespace rocketstore
