// File: client/admin_types.h
//
// The admin bodies of RocketMQ 4.9.8 (issue #18 §1) as decoded structs, with decoders for
// fastjson's shapes (MessageQueue-keyed maps, bare numeric keys; client/fastjson.h):
// ClusterInfo (106), TopicList (206/224), TopicStatsTable (202), ConsumeStats (208),
// ConsumerConnection (203), ProducerConnection (204), TopicConfigSerializeWrapper (21),
// SubscriptionGroupWrapper (201), KVTable (28 runtime info), ResetOffsetBody (222),
// ConsumerStatus (223 body: consumerTable), and Java Properties text (26/318).
// Field names are those of the Java classes; docs/protocol.md lists them.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "client/message.h"
#include "client/route.h"

namespace rocketstore::client {

struct ClusterInfo {
  std::map<std::string, BrokerData> brokers;                 // brokerAddrTable
  std::map<std::string, std::vector<std::string>> clusters;  // clusterAddrTable
  static Result<ClusterInfo> Decode(std::string_view json);
  std::vector<std::string> MasterAddrs(std::string_view cluster = {}) const;
};

struct TopicList {
  std::vector<std::string> topics;  // topicList
  std::string broker_addr;          // brokerAddr (only some answers)
  static Result<TopicList> Decode(std::string_view json);
};

struct TopicOffset {
  int64_t min_offset = 0, max_offset = 0, last_update_timestamp = 0;
};
struct TopicStats {                                           // TopicStatsTable
  std::vector<std::pair<MessageQueue, TopicOffset>> offsets;  // offsetTable
  static Result<TopicStats> Decode(std::string_view json);
};

struct OffsetWrapper {
  int64_t broker_offset = 0, consumer_offset = 0, last_timestamp = 0;
};
struct ConsumeStats {
  double consume_tps = 0;                                       // consumeTps
  std::vector<std::pair<MessageQueue, OffsetWrapper>> offsets;  // offsetTable
  static Result<ConsumeStats> Decode(std::string_view json);
  int64_t TotalLag() const;
};

struct Connection {
  std::string client_id, client_addr, language;
  int32_t version = 0;
};
struct ConsumerConnection {
  std::vector<Connection> connections;  // connectionSet
  std::string consume_type, message_model, consume_from_where;
  std::map<std::string, std::string> subscriptions;  // topic -> subString
  static Result<ConsumerConnection> Decode(std::string_view json);
};
struct ProducerConnection {
  std::vector<Connection> connections;
  static Result<ProducerConnection> Decode(std::string_view json);
};

struct TopicConfig {
  std::string topic_name, topic_filter_type;
  int32_t read_queue_nums = 0, write_queue_nums = 0, perm = 0, topic_sys_flag = 0;
  bool order = false;
};
struct TopicConfigTable {  // TopicConfigSerializeWrapper
  std::map<std::string, TopicConfig> topics;
  int64_t data_version_counter = 0, data_version_timestamp = 0;
  static Result<TopicConfigTable> Decode(std::string_view json);
};

struct SubscriptionGroupConfig {
  std::string group_name;
  bool consume_enable = true, consume_from_min_enable = true, consume_broadcast_enable = true;
  int32_t retry_queue_nums = 1, retry_max_times = 16;
  int64_t broker_id = 0, which_broker_when_consume_slowly = 1;
  bool notify_consumer_ids_changed_enable = true;
  std::vector<uint8_t> Encode() const;  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP 200's body
};
struct SubscriptionGroupTable {
  std::map<std::string, SubscriptionGroupConfig> groups;
  static Result<SubscriptionGroupTable> Decode(std::string_view json);
};

struct KvTable {  // KVTable: {"table":{k:v}}
  std::map<std::string, std::string> table;
  static Result<KvTable> Decode(std::string_view json);
};

// {"offsetTable":{{mq}:offset}} (222 reply, 220 body) and {"consumerTable":{id:{{mq}:off}}}.
struct QueueOffsets {
  std::vector<std::pair<MessageQueue, int64_t>> offsets;
  static Result<QueueOffsets> Decode(std::string_view json, std::string_view field = "offsetTable");
};
struct ConsumerStatusTable {
  std::map<std::string, std::vector<std::pair<MessageQueue, int64_t>>> by_client;
  static Result<ConsumerStatusTable> Decode(std::string_view json);
};

// A MessageQueue given as a fastjson object key or value, or as a string holding its JSON.
struct FjValue;
MessageQueue QueueFromFastjson(const FjValue& v);

// java.util.Properties text (key=value lines, '#' comments, '\' escapes).
std::map<std::string, std::string> ParseJavaProperties(std::string_view text);

}  // namespace rocketstore::client
