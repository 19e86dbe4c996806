// File: broker/config/delay_offset_manager.h
//
// config/delayOffset.json: how far each delay level's queue (SCHEDULE_TOPIC_XXXX queue
// level - 1) has been delivered, as RocketMQ's ScheduleMessageService writes it:
// {"offsetTable":{1:5,2:0}} — level -> the next queue offset to deliver, with fastjson's
// bare integer keys. Bare and quoted keys are read; bare keys are written, as fastjson
// does. Other top-level members (5.x's dataVersion) are kept verbatim. Loading, dirtiness
// and persistence: broker/config/config_manager.h; ConfigPersister writes it on an
// interval (RocketMQ's flushDelayOffsetInterval, 10 s).
//
// What is committed here must be safe to persist: ScheduleDeliveryService commits a
// level's offset only once the re-puts below it are durable in the commit log.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "broker/config/config_manager.h"

namespace rocketstore::broker {

class DelayOffsetManager final : public ConfigManager {
 public:
  DelayOffsetManager(FileSystem& fs, Clock& clock, std::string path)
      : ConfigManager(fs, clock, std::move(path)) {}

  // Sets a level's next offset (negative offsets are ignored; the same value changes
  // nothing).
  void Commit(int level, int64_t offset);
  // -1 when the level has no entry.
  int64_t Query(int level) const;
  // level -> offset.
  std::map<int, int64_t> All() const;

 private:
  std::string EncodeLocked() const override;
  Status DecodeLocked(std::string_view json) override;

  std::map<int, int64_t> table_;                          // GUARDED_BY(mu_)
  std::map<std::string, std::string> unknown_top_level_;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
