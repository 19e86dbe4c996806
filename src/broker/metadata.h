// File: broker/metadata.h
//
// The broker's persistent metadata, in RocketMQ's JSON shapes under <store>/config/:
//   topics.json            {"dataVersion":{...},"topicConfigTable":{name: TopicConfig}}
//   consumerOffset.json    {"offsetTable":{"topic@group":{"0":12,...}}}
//   subscriptionGroup.json {"dataVersion":{...},"subscriptionGroupTable":{name: {...}}}
// Loading accepts fastjson's unquoted integer keys. Writes are atomic: temp file, fsync,
// rename over the target (the previous version kept as <file>.bak), directory fsync.
// Loading falls back to <file>.bak when the file is missing or unparsable.
//
// Thread-safety: every manager is internally locked.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore::broker {

inline constexpr int32_t kPermInherit = 1;
inline constexpr int32_t kPermWrite = 2;
inline constexpr int32_t kPermRead = 4;
inline constexpr std::string_view kAutoCreateTemplateTopic = "TBW102";

// Atomic replace of `path` with `content` (see above).
Status AtomicWriteFile(const std::string& path, std::string_view content);
// Content of `path`, else of `path`.bak; kNotFound when neither exists.
Result<std::string> ReadFileOrBackup(const std::string& path);

// Topic and group names: 1..127 (255 for %RETRY%/%DLQ%) chars of [A-Za-z0-9_%|-].
bool IsValidTopicName(std::string_view name);

struct TopicConfig {
  std::string name;
  int32_t read_queue_nums = 4;
  int32_t write_queue_nums = 4;
  int32_t perm = kPermRead | kPermWrite;
  std::string filter_type = "SINGLE_TAG";
  int32_t sys_flag = 0;
  bool order = false;
  bool operator==(const TopicConfig&) const = default;
};

struct DataVersion {
  int64_t counter = 0;
  int64_t timestamp = 0;
  std::string ToJson() const;
};

class TopicConfigManager {
 public:
  explicit TopicConfigManager(std::string path) : path_(std::move(path)) {}
  Status Load();
  Status Persist() const;

  std::optional<TopicConfig> Find(std::string_view topic) const;
  // Creates or replaces; returns whether anything changed (data version bumped then).
  bool Upsert(const TopicConfig& config);
  // Send to an unknown topic: create it from `template_topic` if that has INHERIT.
  std::optional<TopicConfig> CreateFromTemplate(std::string_view topic,
                                                std::string_view template_topic, int32_t queues);
  // Creates with the given queue count and RW perm unless it exists.
  TopicConfig EnsureSystemTopic(std::string_view topic, int32_t queues);
  DataVersion data_version() const;
  // {"dataVersion":..,"topicConfigTable":{..}} — the topics.json text and the
  // topicConfigSerializeWrapper of REGISTER_BROKER.
  std::string ToJson() const;

 private:
  std::string ToJsonLocked() const;
  void BumpLocked();
  std::string path_;
  mutable std::mutex mu_;
  std::map<std::string, TopicConfig, std::less<>> topics_;
  DataVersion version_;
};

class ConsumerOffsetManager {
 public:
  explicit ConsumerOffsetManager(std::string path) : path_(std::move(path)) {}
  Status Load();
  Status Persist() const;
  // Negative offsets mean "no offset" and are ignored.
  void Commit(std::string_view group, std::string_view topic, int32_t queue_id, int64_t offset);
  // -1 when none.
  int64_t Query(std::string_view group, std::string_view topic, int32_t queue_id) const;
  std::string ToJson() const;

 private:
  std::string path_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<int32_t, int64_t>, std::less<>> table_;  // "topic@group"
  mutable bool dirty_ = false;
};

struct SubscriptionGroupConfig {
  std::string name;
  int32_t retry_queue_nums = 1;
  int32_t retry_max_times = 16;
  bool consume_enable = true;
};

class SubscriptionGroupManager {
 public:
  explicit SubscriptionGroupManager(std::string path) : path_(std::move(path)) {}
  Status Load();
  Status Persist() const;
  // Finds, or auto-creates with defaults (persisting on creation).
  SubscriptionGroupConfig FindOrCreate(std::string_view group);
  std::string ToJson() const;

 private:
  std::string path_;
  mutable std::mutex mu_;
  std::map<std::string, SubscriptionGroupConfig, std::less<>> groups_;
  DataVersion version_;
};

}  // namespace rocketstore::broker
