// File: client/message.h
//
// The client library's value types: a Message to send, a received MessageExt (decoded
// from a pull or view-by-id body), SendResult, and the property names the producer sets.
// Property semantics are RocketMQ's (MessageConst): KEYS space-separated, TAGS one tag,
// DELAY a delay level 1..N, TIMER_DELIVER_MS / TIMER_DELAY_SEC (RocketMQ 5 timers).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "protocol/bodies/client_bodies.h"

namespace rocketstore::client {

using protocol::MessageQueue;

inline constexpr std::string_view kPropertyTimerDeliverMs = "TIMER_DELIVER_MS";
inline constexpr std::string_view kPropertyTimerDelaySec = "TIMER_DELAY_SEC";

struct Message {
  std::string topic{};
  std::string body{};
  std::string tags{};                               // TAGS ("" = none)
  std::vector<std::string> keys{};                  // KEYS, joined by spaces
  int32_t flag = 0;                                 // the user flag
  int32_t delay_level = 0;                          // DELAY (0 = none)
  int64_t deliver_time_ms = 0;                      // TIMER_DELIVER_MS, epoch ms (0 = none)
  int64_t delay_sec = 0;                            // TIMER_DELAY_SEC (0 = none)
  bool wait_store_ok = true;                        // WAIT
  std::map<std::string, std::string> properties{};  // user properties
};

// A stored message as a consumer sees it.
struct MessageExt {
  std::string topic;
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  int64_t commit_log_offset = 0;
  int32_t flag = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int64_t store_timestamp = 0;
  std::string born_host;   // "ip:port"
  std::string store_host;  // "ip:port"
  int32_t reconsume_times = 0;
  std::string body;
  std::string properties;     // serialised (name\x01value\x02...)
  std::string msg_id;         // UNIQ_KEY when present, else the offset message id
  std::string offset_msg_id;  // store host + commit log offset
  std::string broker_name;    // the queue's broker (set by the consumer)

  std::optional<std::string> Property(std::string_view name) const;
  std::string Tags() const { return Property("TAGS").value_or(""); }
  std::string Keys() const { return Property("KEYS").value_or(""); }
};

// Decodes the concatenated stored records of a PULL_MESSAGE / VIEW_MESSAGE_BY_ID body
// (CRC checked when check_crc). A record that does not decode is kCorruption naming its
// position.
Result<std::vector<MessageExt>> DecodeMessages(std::span<const uint8_t> body, bool check_crc);

enum class SendStatus { kOk, kFlushDiskTimeout, kFlushSlaveTimeout, kSlaveNotAvailable };
std::string_view SendStatusName(SendStatus s);

struct SendResult {
  SendStatus status = SendStatus::kOk;
  std::string msg_id;         // the client's UNIQ_KEY (comma-joined for a batch)
  std::string offset_msg_id;  // the broker's offset message id (comma-joined for a batch)
  MessageQueue queue;
  int64_t queue_offset = 0;
  std::string broker_addr;
  int attempts = 1;  // sends it took (1 + retries)
};

// Serialises a Message's properties as the Java client does (HashMap order of 4.9.8), with
// UNIQ_KEY = uniq_id. Invalid input (empty topic, a delay level < 0, both timer forms) is
// kInvalidArgument naming the field.
Result<std::string> BuildProperties(const Message& m, std::string_view uniq_id);

}  // namespace rocketstore::client
