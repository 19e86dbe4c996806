// File: namesrv/kv_config.h
//
// KvConfigStore: the name server's namespace → key → value table (4.9.8's
// KVConfigManager), behind PUT_KV_CONFIG (100), GET_KV_CONFIG (101), DELETE_KV_CONFIG
// (102) and GET_KVLIST_BY_NAMESPACE (219). The ORDER_TOPIC_CONFIG namespace holds the
// per-topic order configuration that routes carry as "orderTopicConf".
//
// Persistence: every change rewrites the whole file in Java's shape,
// {"configTable":{"<namespace>":{"<key>":"<value>"}}}, through WriteFileAtomically (the
// previous version kept as <path>.bak); Load() reads it back (or the .bak when the
// file is torn). A change whose write fails is undone in memory and its Status returned:
// what the table says is always what is on disk. An empty path keeps the table in
// memory only (tests; `rocketstore serve` always gives one).
// Ownership: `fs` must outlive the store. Thread-safety: internally locked; writes are
// serialised (one writer of the file at a time).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.h"
#include "io/file_system.h"

namespace rocketstore::namesrv {

inline constexpr char kOrderTopicConfigNamespace[] = "ORDER_TOPIC_CONFIG";

class KvConfigStore {
 public:
  KvConfigStore(FileSystem* fs, std::string path) : fs_(fs), path_(std::move(path)) {}

  // Reads the file; a missing file is an empty table. kCorruption when neither the file
  // nor its .bak is a KVConfigSerializeWrapper JSON object.
  Status Load();

  Status Put(const std::string& ns, const std::string& key, const std::string& value);
  // Removing an absent key succeeds and changes nothing (as in Java).
  Status Delete(const std::string& ns, const std::string& key);
  std::optional<std::string> Get(const std::string& ns, const std::string& key) const;
  // KVTable JSON {"table":{..}} of a namespace, or nullopt when it does not exist.
  std::optional<std::string> NamespaceJson(const std::string& ns) const;
  const std::string& path() const { return path_; }

 private:
  using Table = std::map<std::string, std::map<std::string, std::string>>;
  Status PersistLocked(const Table& table);

  FileSystem* fs_;
  std::string path_;
  mutable std::mutex mu_;
  Table table_;
};

// The file's JSON for `table` (exposed for tests).
std::string KvConfigFileJson(const std::map<std::string, std::map<std::string, std::string>>& t);

}  // namespace rocketstore::namesrv
