// File: broker/config/consumer_offset_manager.h
//
// consumerOffset.json: {"offsetTable":{"topic@group":{"0":12,...}}} (RocketMQ's
// ConsumerOffsetManager; fastjson's bare integer queue keys are accepted on load; other
// top-level members, e.g. 5.x's, are kept verbatim). Commit() changes memory only (the
// hot path of every pull and offset update); ConfigPersister writes the file on an
// interval (RocketMQ's flushConsumerOffsetInterval, 5 s). Loading, dirtiness and
// persistence: see broker/config/config_manager.h.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_manager.h"

namespace rocketstore::broker {

class ConsumerOffsetManager final : public ConfigManager {
 public:
  ConsumerOffsetManager(FileSystem& fs, Clock& clock, std::string path)
      : ConfigManager(fs, clock, std::move(path)) {}

  // Negative offsets mean "no offset" and are ignored; committing the stored value again
  // changes nothing.
  void Commit(std::string_view group, std::string_view topic, int32_t queue_id, int64_t offset);
  // -1 when none.
  int64_t Query(std::string_view group, std::string_view topic, int32_t queue_id) const;
  // The offsets of one group on one topic: queue id -> offset.
  std::map<int32_t, int64_t> QueryAll(std::string_view group, std::string_view topic) const;
  // The topics `group` has offsets on (RocketMQ's whichTopicByConsumer).
  std::set<std::string> TopicsOf(std::string_view group) const;
  // Admin: drops every offset on `topic` (any group) / of `group` (any topic); returns
  // how many topic@group entries went.
  int RemoveTopic(std::string_view topic);
  int RemoveGroup(std::string_view group);
  // CLONE_GROUP_OFFSET: `dst`'s offsets on `topic` become a copy of `src`'s (nothing when
  // `src` has none there). Returns whether anything was copied.
  bool Clone(std::string_view src, std::string_view dst, std::string_view topic);
  // Every group with a committed offset.
  std::set<std::string> Groups() const;
  // The groups that have offsets of `topic` (Java's whichGroupByTopic).
  std::set<std::string> GroupsOf(std::string_view topic) const;

  // One (topic, group)'s committed offsets, for the metrics' lag gauges.
  struct Entry {
    std::string topic, group;
    std::map<int32_t, int64_t> offsets;  // queue id -> committed offset
  };
  // Every committed offset (a copy; keys that are not "topic@group" are left out).
  std::vector<Entry> Snapshot() const;
  // The (topic, group) pairs with committed offsets, in "topic@group" order: at most `max`
  // of those whose key sorts after `after_key` ("" = from the first), without their
  // offsets; and how many pairs sort after `after_key` (a count, nothing copied). For a
  // caller that walks the table in bounded chunks and stops early.
  std::vector<std::pair<std::string, std::string>> PairsAfter(std::string_view after_key,
                                                              size_t max) const;
  size_t CountPairsAfter(std::string_view after_key) const;

  // Pull offsets (RocketMQ 5's pullOffsetTable; memory only, never persisted): where the
  // group's last pull of the queue ended — what was handed out, committed or not. The
  // metrics' inflight (pulled - committed) and ready (max - pulled) gauges use them.
  void RecordPull(std::string_view group, std::string_view topic, int32_t queue_id,
                  int64_t next_offset);
  // -1 when the group has not pulled the queue since the broker started.
  int64_t QueryPull(std::string_view group, std::string_view topic, int32_t queue_id) const;

 private:
  std::string EncodeLocked() const override;
  Status DecodeLocked(std::string_view json) override;

  std::map<std::string, std::map<int32_t, int64_t>, std::less<>> table_;  // GUARDED_BY(mu_)
  std::map<std::string, std::string> unknown_top_level_;                  // GUARDED_BY(mu_)
  mutable std::mutex pull_mu_;
  std::map<std::string, std::map<int32_t, int64_t>, std::less<>> pulls_;  // GUARDED_BY(pull_mu_)
};

}  // namespace rocketstore::broker
