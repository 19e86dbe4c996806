// File: broker/config/topic_config_manager.h
//
// topics.json: {"dataVersion":{..},"topicConfigTable":{name: TopicConfig}} — also the
// topicConfigSerializeWrapper of REGISTER_BROKER and the body of GET_ALL_TOPIC_CONFIG.
// TopicConfig is RocketMQ's (4.9.8: topicName, readQueueNums, writeQueueNums, perm,
// topicFilterType, topicSysFlag, order; 5.x adds attributes); members rocketstore does not
// model are kept verbatim and written back. Loading, dirtiness and persistence: see
// broker/config/config_manager.h (mutations do no I/O).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/string_hash.h"
#include "broker/config/config_manager.h"

namespace rocketstore::broker {

inline constexpr int32_t kPermInherit = 1;
inline constexpr int32_t kPermWrite = 2;
inline constexpr int32_t kPermRead = 4;
inline constexpr std::string_view kAutoCreateTemplateTopic = "TBW102";

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
  std::map<std::string, std::string> attributes;  // 5.x; written as "attributes":{..}
  // Members of the file's TopicConfig object that are not modelled above: name -> JSON
  // text, written back as they were.
  std::map<std::string, std::string> unknown_fields;
  bool operator==(const TopicConfig&) const = default;
};

class TopicConfigManager final : public ConfigManager {
 public:
  TopicConfigManager(FileSystem& fs, Clock& clock, std::string path)
      : ConfigManager(fs, clock, std::move(path)) {}

  std::optional<TopicConfig> Find(std::string_view topic) const;
  // f(config) under the lock, without copying the config (the send path reads a few of
  // its fields per message); false, not calling f, when the topic is unknown. f must not
  // call back into the manager.
  template <class F>
  bool Visit(std::string_view topic, F&& f) const {
    std::lock_guard lock(mu_);
    auto it = by_name_.find(topic);  // hashed: no walk of the ordered map per send
    if (it == by_name_.end()) return false;
    f(*it->second);
    return true;
  }
  // All topics, by name.
  std::vector<TopicConfig> List() const;
  // How many there are (without copying them: the metrics scrape).
  size_t Count() const;
  // Creates or replaces (the whole config: read, modify and Upsert to keep fields);
  // returns whether anything changed (the data version is bumped then).
  bool Upsert(const TopicConfig& config);
  // Removes a topic; returns whether it existed.
  bool Delete(std::string_view topic);
  // Send to an unknown topic: the existing config when it exists, else a new one made
  // from `template_topic` (perm without INHERIT, queues min(queues, template's)) if that
  // has INHERIT; nullopt otherwise.
  std::optional<TopicConfig> CreateFromTemplate(std::string_view topic,
                                                std::string_view template_topic, int32_t queues);
  // The existing config, or a new one with `queues` read/write queues and RW perm.
  TopicConfig EnsureSystemTopic(std::string_view topic, int32_t queues);
  // Adds each of `topics` whose name is not in the table yet: a loaded entry wins, as
  // Java's decode puts the file's table over the topics its constructor created. When any
  // was added the data version is bumped once and the manager is dirty (so topics.json
  // gets them). Returns how many were added.
  int AddMissing(const std::vector<TopicConfig>& topics);
  DataVersion data_version() const;
  // The topicConfigSerializeWrapper a broker whose brokerPermission is `perm` registers:
  // ToJson() itself, except that every topic's perm is replaced by `perm` unless it has
  // both read and write (RocketMQ's registerBrokerAll; broker/service/broker_permission.h).
  std::string RegistrationJson(int32_t broker_perm) const;
  // Next data version (mutation of nothing else): a name server only takes a registered
  // topic table whose version changed, so a brokerPermission change bumps it.
  void BumpDataVersion();

 private:
  std::string EncodeLocked() const override;
  Status DecodeLocked(std::string_view json) override;
  // Inserts or replaces; bumps the version when it changed. REQUIRES: mu_ held.
  bool UpsertLocked(const TopicConfig& config);

  std::map<std::string, TopicConfig, std::less<>> topics_;  // GUARDED_BY(mu_)
  // topics_ hashed by name, for Visit: views of its keys, pointers to its values (a map's
  // nodes never move). Kept in step by every change of topics_' keys (DecodeLocked,
  // UpsertLocked, Delete, AddMissing). GUARDED_BY(mu_)
  std::unordered_map<std::string_view, const TopicConfig*, StringHash, std::equal_to<>> by_name_;
  void ReindexLocked();                                   // by_name_ from topics_, all of it
  DataVersion version_;                                   // GUARDED_BY(mu_)
  std::map<std::string, std::string> unknown_top_level_;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
