// File: broker/config/broker_config_file.h
//
// BrokerConfigFile: the broker's properties file (broker.conf, the file `serve --config`
// read; RocketMQ's brokerConfigPath) as a ConfigManager, so that keys changed at run time
// by UPDATE_BROKER_CONFIG (25) are written back off the io threads by the config
// persister (tmp + sync + .bak + rename, as every config file). Java's
// Configuration.persist rewrites the whole file from memory; here the file's own text is
// kept (comments, order, keys rocketstore ignores) and only the changed keys' lines are
// replaced, or appended when the file did not have them.
//
// Load(): reads the file's text (a missing file is an empty text). Set(): changes memory.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <string>
#include <string_view>

#include "broker/config/config_manager.h"

namespace rocketstore::broker {

class BrokerConfigFile final : public ConfigManager {
 public:
  BrokerConfigFile(FileSystem& fs, Clock& clock, std::string path)
      : ConfigManager(fs, clock, std::move(path)) {}

  // `key=value` replaces the first line that sets `key` (later ones are dropped, so the
  // file says one thing), or is appended.
  void Set(std::string_view key, std::string_view value);
  std::string text() const;

 private:
  std::string EncodeLocked() const override { return text_; }
  Status DecodeLocked(std::string_view text) override {
    text_ = std::string(text);
    return Status::OK();
  }

  std::string text_;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
