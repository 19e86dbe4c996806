#include "broker/config/config_manager.h"

#include <algorithm>

#include "io/atomic_file.h"

namespace rocketstore::broker {

std::string DataVersion::ToJson() const {
  return "{\"counter\":" + std::to_string(counter) +
         ",\"stateVersion\":" + std::to_string(state_version) +
         ",\"timestamp\":" + std::to_string(timestamp) + "}";
}

std::string ConfigLoadReport::ToString() const {
  switch (source) {
    case Source::kNone:
      return "no " + path + " (nor .bak): starting empty";
    case Source::kFile:
      return "loaded " + path;
    case Source::kBackup:
      return "loaded " + path + " (" + primary_problem + ")";
  }
  return "?";
}

Status ConfigManager::Load() {
  std::lock_guard lock(mu_);
  ContentCheck decode = [this](std::string_view text) { return DecodeLocked(text); };
  Result<FileWithBackup> read = ReadFileOrBackup(fs_, path_, decode);
  if (!read.ok()) {
    if (read.status().code() != StatusCode::kNotFound) {
      return read.status().WithContext("loading " + path_);
    }
    report_ = ConfigLoadReport{};
    report_.path = path_;
    return Status::OK();
  }
  report_.source =
      read->from_backup ? ConfigLoadReport::Source::kBackup : ConfigLoadReport::Source::kFile;
  report_.path = read->path;
  report_.primary_problem = read->primary_problem;
  primary_unusable_ = read->from_backup;
  persisted_generation_ = generation_;
  if (read->from_backup) MarkDirtyLocked();  // rewrite the file from the good version
  return Status::OK();
}

ConfigLoadReport ConfigManager::load_report() const {
  std::lock_guard lock(mu_);
  return report_;
}

Status ConfigManager::Persist() {
  std::lock_guard serial(persist_mu_);
  std::string text;
  uint64_t generation = 0;
  AtomicWriteOptions options;
  {
    std::lock_guard lock(mu_);
    if (generation_ == persisted_generation_) return Status::OK();
    generation = generation_;
    text = EncodeLocked();
    options.keep_backup = !primary_unusable_;
  }
  if (Status s = WriteFileAtomically(fs_, path_, text, options); !s.ok()) {
    return s.WithContext("persisting " + path_);
  }
  std::lock_guard lock(mu_);
  persisted_generation_ = std::max(persisted_generation_, generation);
  primary_unusable_ = false;
  return Status::OK();
}

bool ConfigManager::dirty() const {
  std::lock_guard lock(mu_);
  return generation_ != persisted_generation_;
}

uint64_t ConfigManager::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

std::string ConfigManager::ToJson() const {
  std::lock_guard lock(mu_);
  return EncodeLocked();
}

}  // namespace rocketstore::broker
