// File: namesrv/namesrv_config.h
//
// NamesrvRuntimeConfig: what GET_NAMESRV_CONFIG (319) shows and UPDATE_NAMESRV_CONFIG
// (318) may change, in Java's properties text ("key=value\n" lines).
//
// Shown: listenPort, kvConfigPath, configStorePath, configBlackList, productEnvName,
// clusterTest, orderMessageEnable — the NamesrvConfig / NettyServerConfig keys that mean
// something here (Java's thread-pool and socket-buffer keys are not shown: we have no
// such settings).
// Updatable (the allow-list): orderMessageEnable, clusterTest, productEnvName. Any other
// key is refused whole (nothing applied) with the key named; paths (kvConfigPath,
// configStorePath, rocketmqHome) and configBlackList never change at run time. An
// accepted update is written to configStorePath (atomically) and read back by Load().
// Ownership: `fs` must outlive the config. Thread-safety: internally locked.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "base/result.h"
#include "io/file_system.h"

namespace rocketstore::namesrv {

// Parses Java properties text: "key=value" or "key:value" lines, '#'/'!' comments,
// surrounding blanks trimmed. Later keys win.
std::map<std::string, std::string> ParsePropertiesText(std::string_view text);

class NamesrvRuntimeConfig {
 public:
  NamesrvRuntimeConfig(FileSystem* fs, std::string kv_config_path, std::string config_store_path)
      : fs_(fs),
        kv_config_path_(std::move(kv_config_path)),
        config_store_path_(std::move(config_store_path)) {}

  // Applies the allow-listed keys of configStorePath when it exists; kInvalidArgument
  // naming the key for a bad value or a key that cannot be set there.
  Status Load();
  void set_listen_port(int port);
  bool order_message_enable() const;
  // The properties text for GET_NAMESRV_CONFIG.
  std::string PropertiesText() const;
  // kFailedPrecondition naming the first refused key; kInvalidArgument for a bad value;
  // the write's error (nothing applied) when configStorePath cannot be written.
  Status Update(std::string_view properties_text);

 private:
  struct Values {
    bool order_message_enable = false;
    bool cluster_test = false;
    std::string product_env_name = "center";
  };
  static Status Apply(const std::map<std::string, std::string>& kv, Values& v);
  static std::string UpdatableText(const Values& v);

  FileSystem* fs_;
  const std::string kv_config_path_;
  const std::string config_store_path_;
  mutable std::mutex mu_;
  int listen_port_ = 0;
  Values values_;
};

}  // namespace rocketstore::namesrv
