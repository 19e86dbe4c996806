#include "store/layout/layout.h"

#include "io/file_system.h"

namespace rocketstore::layout {

std::string CommitLogDir(const std::string& root) { return JoinPath(root, kCommitLogDir); }

std::string ConsumeQueueRootDir(const std::string& root) {
  return JoinPath(root, kConsumeQueueDir);
}

std::string ConsumeQueueTopicDir(const std::string& root, std::string_view topic) {
  return JoinPath(ConsumeQueueRootDir(root), std::string(topic));
}

std::string ConsumeQueueDir(const std::string& root, std::string_view topic, int32_t queue_id) {
  return JoinPath(ConsumeQueueTopicDir(root, topic), std::to_string(queue_id));
}

std::string IndexDir(const std::string& root) { return JoinPath(root, kIndexDir); }

std::string CheckpointPath(const std::string& root) { return JoinPath(root, kCheckpointFile); }

std::string CheckpointTempPath(const std::string& root) {
  return CheckpointPath(root) + kTempSuffix;
}

std::string AbortPath(const std::string& root) { return JoinPath(root, kAbortFile); }

std::string LockPath(const std::string& root) { return JoinPath(root, kLockFile); }

std::string_view ConfigFileName(ConfigFile file) {
  switch (file) {
    case ConfigFile::kTopics:
      return "topics.json";
    case ConfigFile::kConsumerOffset:
      return "consumerOffset.json";
    case ConfigFile::kSubscriptionGroup:
      return "subscriptionGroup.json";
    case ConfigFile::kDelayOffset:
      return "delayOffset.json";
  }
  return "";
}

std::string ConfigDir(const std::string& root) { return JoinPath(root, kConfigDir); }

std::string ConfigPath(const std::string& root, ConfigFile file) {
  return JoinPath(ConfigDir(root), std::string(ConfigFileName(file)));
}

std::string ConfigBackupPath(const std::string& root, ConfigFile file) {
  return ConfigPath(root, file) + kBackupSuffix;
}

std::string ConfigTempPath(const std::string& root, ConfigFile file) {
  return ConfigPath(root, file) + kTempSuffix;
}

}  // namespace rocketstore::layout
