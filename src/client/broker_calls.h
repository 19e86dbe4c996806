// File: client/broker_calls.h
//
// One-request helpers against a broker, shared by the consumer, the admin client and the
// CLI: queue offsets (GET_MAX_OFFSET 30, GET_MIN_OFFSET 31, SEARCH_OFFSET_BY_TIMESTAMP 29,
// GET_EARLIEST_MSG_STORETIME 32), group offsets (QUERY_CONSUMER_OFFSET 14,
// UPDATE_CONSUMER_OFFSET 15), group members (GET_CONSUMER_LIST_BY_GROUP 38), messages
// (VIEW_MESSAGE_BY_ID 33, QUERY_MESSAGE 12) and CONSUMER_SEND_MSG_BACK (36).
// A reply code other than SUCCESS is an error naming the code and the broker's remark;
// QUERY_CONSUMER_OFFSET's "no offset" and VIEW_MESSAGE_BY_ID's "no message there" are
// kNotFound.
//
// Thread-safety: stateless functions over a Transport (any thread, not from I/O callbacks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/message.h"
#include "client/transport.h"
#include "protocol/headers/query_headers.h"

namespace rocketstore::client {

struct BrokerCall {
  Transport* transport = nullptr;
  std::string addr;
  int64_t timeout_ms = 3000;

  Result<int64_t> MaxOffset(const MessageQueue& q) const;
  Result<int64_t> MinOffset(const MessageQueue& q) const;
  // The first queue offset stored at or after timestamp_ms (max offset when none), asked
  // with boundaryType LOWER (RocketMQ 5's field, honoured by rocketstore). A 4.9.8 broker
  // ignores the field and answers the offset closest in time (the last message's when the
  // time is past the newest).
  Result<int64_t> SearchOffset(const MessageQueue& q, int64_t timestamp_ms) const;
  Result<int64_t> EarliestStoreTime(const MessageQueue& q) const;
  // kNotFound when the group has no committed offset for the queue: asked with
  // setZeroIfNotFound=false (RocketMQ 5's field, which rocketstore honours). A 4.9.8
  // broker ignores the field and answers 0 for a queue whose first message is still in
  // memory, which the caller cannot tell from a commit at 0 (Java consumers see the same).
  Result<int64_t> ConsumerOffset(const std::string& group, const MessageQueue& q) const;
  Status UpdateConsumerOffset(const std::string& group, const MessageQueue& q,
                              int64_t offset) const;
  Result<std::vector<std::string>> ConsumerIds(const std::string& group) const;
  Result<MessageExt> ViewMessage(int64_t commit_log_offset) const;
  // By key (a KEYS token) or, with unique_key, by UNIQ_KEY. kNotFound when none.
  Result<std::vector<MessageExt>> QueryMessage(const std::string& topic, const std::string& key,
                                               int32_t max_num, int64_t begin_ms, int64_t end_ms,
                                               bool unique_key) const;
  Status SendBack(const std::string& group, const MessageExt& m, int32_t delay_level,
                  int32_t max_reconsume_times) const;
  Status Heartbeat(const std::vector<uint8_t>& body) const;
  // UPDATE_AND_CREATE_TOPIC (17) with filter type SINGLE_TAG and no sys flag.
  Status CreateTopic(const std::string& topic, int32_t read_queues, int32_t write_queues,
                     int32_t perm, bool order) const;
  // UPDATE_AND_CREATE_TOPIC (17) with every field of the header as given.
  Status CreateTopic(const protocol::CreateTopicRequestHeader& h) const;

  // Sends and checks for SUCCESS; the reply.
  Result<protocol::RemotingCommand> Call(protocol::RemotingCommand req,
                                         const std::string& what) const;
  // Sends; the reply whatever its code (transport errors only).
  Result<protocol::RemotingCommand> Send(protocol::RemotingCommand req,
                                         const std::string& what) const;
  // The error Call returns for a reply that is not SUCCESS (OK for SUCCESS).
  Status Check(const protocol::RemotingCommand& resp, const std::string& what) const;
};

}  // namespace rocketstore::client
