// File: store/layout/layout.h
//
// Every path inside a store directory, in one place (in the spirit of leveldb's
// db/filename.h). The layout is RocketMQ's, so a RocketMQ 4.9.8 broker and rocketstore can
// take turns on one directory:
//
//   <root>/commitlog/<20-digit start offset>             commit-log segments
//   <root>/consumequeue/<topic>/<queueId>/<20 digits>    consume-queue files
//   <root>/index/<yyyyMMddHHmmssSSS>                     index files
//   <root>/checkpoint   (+ checkpoint.tmp while it is replaced)
//   <root>/abort        present while a store runs
//   <root>/lock         held (flock) by the running store
//   <root>/config/topics.json consumerOffset.json subscriptionGroup.json delayOffset.json
//                       each with <file>.bak (previous version) and <file>.tmp (being written)
//
// Pure string functions; no I/O. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rocketstore::layout {

inline constexpr char kCommitLogDir[] = "commitlog";
inline constexpr char kConsumeQueueDir[] = "consumequeue";
inline constexpr char kIndexDir[] = "index";
inline constexpr char kConfigDir[] = "config";
inline constexpr char kCheckpointFile[] = "checkpoint";
inline constexpr char kAbortFile[] = "abort";
inline constexpr char kLockFile[] = "lock";
inline constexpr char kTempSuffix[] = ".tmp";
inline constexpr char kBackupSuffix[] = ".bak";

std::string CommitLogDir(const std::string& root);
std::string ConsumeQueueRootDir(const std::string& root);
std::string ConsumeQueueTopicDir(const std::string& root, std::string_view topic);
// REQUIRES: topic is one directory name (ValidateTopicDirName in consume_queue.h).
std::string ConsumeQueueDir(const std::string& root, std::string_view topic, int32_t queue_id);
std::string IndexDir(const std::string& root);
std::string CheckpointPath(const std::string& root);
std::string CheckpointTempPath(const std::string& root);
std::string AbortPath(const std::string& root);
std::string LockPath(const std::string& root);

// The broker's metadata files under config/ (RocketMQ's names).
enum class ConfigFile { kTopics, kConsumerOffset, kSubscriptionGroup, kDelayOffset };
std::string_view ConfigFileName(ConfigFile file);  // "topics.json" ...
std::string ConfigDir(const std::string& root);
std::string ConfigPath(const std::string& root, ConfigFile file);
std::string ConfigBackupPath(const std::string& root, ConfigFile file);  // <file>.bak
std::string ConfigTempPath(const std::string& root, ConfigFile file);    // <file>.tmp

}  // namespace rocketstore::layout
