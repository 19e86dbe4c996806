// File: protocol/bodies/admin_consumer_bodies.h
//
// JSON bodies of the broker admin codes of part B, in the shapes fastjson gives RocketMQ
// 4.9.8's classes (common/protocol/body/*.java, common/admin/ConsumeStats.java,
// OffsetWrapper.java). Members are written sorted by name, as fastjson does; a map whose
// key is a MessageQueue is written with the queue object as a bare key, as fastjson
// does: {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}.
//
//   203 response  ConsumerConnection  {connectionSet:[Connection], consumeFromWhere,
//                                      consumeType, messageModel,
//                                      subscriptionTable:{topic: SubscriptionData}}
//   204 response  ProducerConnection  {connectionSet:[Connection]}
//                 Connection          {clientAddr, clientId, language ("JAVA"), version}
//   328 response  ProducerTableInfo   {data:{group:[{clientId, language,
//                                      lastUpdateTimestamp, remoteIP, version}]}}
//   208 response  ConsumeStats        {consumeTps, offsetTable:{MQ: {brokerOffset,
//                                      consumerOffset, lastTimestamp}}}
//   317 response  ConsumeStatsList    {brokerAddr, consumeStatsList:[{group:[ConsumeStats]}],
//                                      totalDiff}
//   300 response  GroupList           {groupList:[group]}
//   303 response  QueryConsumeTimeSpanBody {consumeTimeSpanSet:[{consumeTimeStamp,
//                                      consumeTimeStampStr, delayTime, maxTimeStamp,
//                                      maxTimeStampStr, messageQueue:MQ, minTimeStamp,
//                                      minTimeStampStr}]} (the *Str getters fastjson also
//                                      writes: "yyyy-MM-dd HH:mm:ss,SSS", local time)
//   315 response  BrokerStatsData     {statsDay, statsHour, statsMinute: {avgpt, sum, tps}}
//   222 response, 220 request body    ResetOffsetBody {offsetTable:{MQ: offset}}
//   220 request body, CPP client ResetOffsetBodyForC {offsetTable:[{brokerName, offset,
//                                      queueId, topic}]}
//   221 response, 223 response        GetConsumerStatusBody {consumerTable:{clientId:
//                                      {MQ: offset}}, messageQueueTable:{MQ: offset}}
//
// Decode (of what clients send: 221's answer; and for tests the broker's own answers)
// accepts both fastjson's bare keys and string keys holding the queue's JSON; a body that
// is not JSON, or whose member has the wrong type, is kInvalidArgument naming the body.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "protocol/bodies/client_bodies.h"

namespace rocketstore::protocol {

// Ordered as Java's MessageQueue.compareTo: topic, broker name, queue id.
struct MessageQueueKey {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
  friend auto operator<=>(const MessageQueueKey&, const MessageQueueKey&) = default;
};
using QueueOffsetTable = std::map<MessageQueueKey, int64_t>;

struct ConnectionInfo {
  std::string client_id;    // "clientId"
  std::string client_addr;  // "clientAddr": ip:port of the client's connection
  std::string language;     // "language": LanguageCode name ("JAVA")
  int32_t version = 0;      // "version": MQVersion ordinal
  friend bool operator==(const ConnectionInfo&, const ConnectionInfo&) = default;
};

struct ConsumerConnectionBody {
  std::vector<ConnectionInfo> connection_set;
  std::map<std::string, SubscriptionData> subscription_table;
  std::string consume_type, message_model, consume_from_where;
  std::vector<uint8_t> Encode() const;
};

struct ProducerConnectionBody {
  std::vector<ConnectionInfo> connection_set;
  std::vector<uint8_t> Encode() const;
};

struct ProducerInfoBody {
  std::string client_id;              // "clientId"
  std::string remote_ip;              // "remoteIP": ip:port
  std::string language;               // "language"
  int32_t version = 0;                // "version"
  int64_t last_update_timestamp = 0;  // "lastUpdateTimestamp"
};
struct ProducerTableInfoBody {
  std::map<std::string, std::vector<ProducerInfoBody>> data;  // group -> producers
  std::vector<uint8_t> Encode() const;
};

struct OffsetWrapperBody {
  int64_t broker_offset = 0;    // "brokerOffset": the queue's max offset
  int64_t consumer_offset = 0;  // "consumerOffset": the group's committed offset
  int64_t last_timestamp = 0;   // "lastTimestamp": store time of the last consumed message
  friend bool operator==(const OffsetWrapperBody&, const OffsetWrapperBody&) = default;
};
struct ConsumeStatsBody {
  std::map<MessageQueueKey, OffsetWrapperBody> offset_table;
  double consume_tps = 0;
  static Result<ConsumeStatsBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
  void WriteTo(std::vector<uint8_t>* out) const;
};

struct ConsumeStatsListBody {
  // One entry per subscription group: {group: [its ConsumeStats per topic]}.
  std::vector<std::pair<std::string, std::vector<ConsumeStatsBody>>> consume_stats_list;
  std::string broker_addr;
  int64_t total_diff = 0;
  std::vector<uint8_t> Encode() const;
};

struct GroupListBody {
  std::vector<std::string> group_list;
  static Result<GroupListBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

struct QueueTimeSpanBody {
  MessageQueueKey message_queue;
  int64_t min_time_stamp = 0;
  int64_t max_time_stamp = 0;
  int64_t consume_time_stamp = 0;
  int64_t delay_time = 0;
};
struct QueryConsumeTimeSpanBody {
  std::vector<QueueTimeSpanBody> consume_time_span_set;
  std::vector<uint8_t> Encode() const;
};

struct BrokerStatsItemBody {
  int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;
};
struct BrokerStatsDataBody {
  BrokerStatsItemBody stats_minute, stats_hour, stats_day;
  std::vector<uint8_t> Encode() const;
};

struct ResetOffsetBody {
  QueueOffsetTable offset_table;
  static Result<ResetOffsetBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

// 220's body for a CPP client (ResetOffsetBodyForC): {offsetTable:[{brokerName, offset,
// queueId, topic}]}.
struct ResetOffsetBodyForC {
  QueueOffsetTable offset_table;
  std::vector<uint8_t> Encode() const;
};

struct GetConsumerStatusBody {
  QueueOffsetTable message_queue_table;
  std::map<std::string, QueueOffsetTable> consumer_table;
  static Result<GetConsumerStatusBody> Decode(std::string_view json);
  std::vector<uint8_t> Encode() const;
};

// GET_CONSUMER_RUNNING_INFO (307)'s answer from a client (ConsumerRunningInfo): members in
// fastjson's order {jstack?, mqTable:{<MessageQueue>:ProcessQueueInfo}, properties:{},
// statusTable:{}, subscriptionSet:[SubscriptionData]}. ProcessQueueInfo's 14 members are
// written in full; a client without a concept (locks, transactions) reports zeros.
struct ProcessQueueInfoBody {
  int64_t commit_offset = 0;           // "commitOffset"
  int64_t cached_msg_min_offset = 0;   // "cachedMsgMinOffset"
  int64_t cached_msg_max_offset = 0;   // "cachedMsgMaxOffset"
  int32_t cached_msg_count = 0;        // "cachedMsgCount"
  int32_t cached_msg_size_in_mib = 0;  // "cachedMsgSizeInMiB"
  bool dropped = false;                // "droped" (sic)
  int64_t last_pull_timestamp = 0;     // "lastPullTimestamp"
  int64_t last_consume_timestamp = 0;  // "lastConsumeTimestamp"
};
struct ConsumerRunningInfoBody {
  std::map<std::string, std::string> properties;
  std::vector<SubscriptionData> subscriptions;
  std::map<MessageQueueKey, ProcessQueueInfoBody> mq_table;
  std::vector<uint8_t> Encode() const;
};

// fastjson's text with bare non-string member names turned into JSON strings holding
// their text ({{"a":1}:2} -> {"{\"a\":1}":2}), so that a strict parser reads it.
// kInvalidArgument "<what>: ..." when braces or strings do not balance.
Result<std::string> QuoteBareKeys(std::string_view json, std::string_view what);

}  // namespace rocketstore::protocol
