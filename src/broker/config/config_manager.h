// File: broker/config/config_manager.h
//
// ConfigManager: the base of the broker's JSON config files under <store>/config/
// (RocketMQ's ConfigManager: encode / decode / load / persist), used by topics.json,
// consumerOffset.json and subscriptionGroup.json.
//
//   Load()     reads the file through ReadFileOrBackup (io/atomic_file.h): when the file is
//              missing, empty, not JSON or not decodable, <file>.bak is used instead and
//              load_report() says so (the caller logs it). Neither file present: a fresh
//              start (empty state, OK). Present but neither usable: kCorruption (starting
//              with empty metadata would silently forget topics and offsets). I/O errors
//              are returned. Load does I/O under the manager's lock: call it before use.
//   mutations  (in the derived classes) change memory only and mark the manager dirty: a
//              generation counter counts them. No I/O, so they may run on io threads.
//   Persist()  writes the state if dirty (WriteFileAtomically: tmp, sync, .bak, rename,
//              directory sync). On success the generation it encoded counts as persisted,
//              so a mutation that raced the write keeps the manager dirty. On failure the
//              error is returned and the manager stays dirty. Persist calls are
//              serialised (one write of the file at a time); mutations do not wait for
//              the disk, only for the in-memory encode.
// ConfigPersister (broker/config/config_persister.h) calls Persist off the io threads.
//
// Durability: what a successful Persist() wrote survives a crash or power loss.
// Time: data version timestamps come from the Clock given at construction.
// Ownership: the FileSystem and the Clock must outlive the manager.
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "io/file_system.h"

namespace rocketstore::broker {

// RocketMQ's DataVersion: {"counter":..,"stateVersion":..,"timestamp":..} (stateVersion is
// 5.x's; 4.9.8 ignores it).
struct DataVersion {
  int64_t counter = 0;
  int64_t timestamp = 0;
  int64_t state_version = 0;
  std::string ToJson() const;
  bool operator==(const DataVersion&) const = default;
};

// What the last Load() read.
struct ConfigLoadReport {
  enum class Source {
    kNone,    // neither the file nor its .bak had content: empty state
    kFile,    // the file itself
    kBackup,  // <file>.bak, because the file was missing, empty or unusable
  };
  Source source = Source::kNone;
  std::string path;             // the file read (kNone: the file looked for)
  std::string primary_problem;  // kBackup: why the file itself was not used
  // One line for the log, e.g. "loaded /s/config/topics.json.bak (/s/config/topics.json
  // is unusable: not valid JSON (error at offset 12))".
  std::string ToString() const;
};

class ConfigManager {
 public:
  virtual ~ConfigManager() = default;
  ConfigManager(const ConfigManager&) = delete;
  ConfigManager& operator=(const ConfigManager&) = delete;

  const std::string& path() const { return path_; }

  // See the file comment. Replaces the in-memory state on success (unchanged on error).
  // After loading from the .bak the manager is dirty, so the next Persist rewrites the
  // file (without copying the unusable file over the good .bak).
  Status Load();
  ConfigLoadReport load_report() const;

  // Writes the state if dirty; OK without I/O when clean. See the file comment.
  Status Persist();

  bool dirty() const;
  // Mutations so far (including the one a Load from the .bak counts as).
  uint64_t generation() const;

  // The file's JSON text (what Persist writes).
  std::string ToJson() const;

  // Called after every mutation, outside the manager's lock (ConfigPersister uses it to
  // ask for prompt persistence). Set it before the manager is shared between threads.
  void SetChangeListener(std::function<void()> listener) { listener_ = std::move(listener); }

 protected:
  ConfigManager(FileSystem& fs, Clock& clock, std::string path)
      : fs_(fs), clock_(clock), path_(std::move(path)) {}

  // The file's text for the current state. REQUIRES: mu_ held.
  virtual std::string EncodeLocked() const = 0;
  // Replaces the state with the file's text `json`; leaves it unchanged and returns
  // kCorruption when the text is not a usable file. REQUIRES: mu_ held.
  virtual Status DecodeLocked(std::string_view json) = 0;

  // A mutation happened. REQUIRES: mu_ held.
  void MarkDirtyLocked() { ++generation_; }
  // Next data version: counter + 1, timestamp now. REQUIRES: mu_ held.
  void BumpLocked(DataVersion& v) const {
    ++v.counter;
    v.timestamp = clock_.NowMillis();
  }
  // Calls the change listener. REQUIRES: mu_ NOT held.
  void NotifyChanged() const {
    if (listener_) listener_();
  }

  // Guards the derived classes' state and the bookkeeping below.
  mutable std::mutex mu_;

 private:
  FileSystem& fs_;
  Clock& clock_;
  const std::string path_;
  std::function<void()> listener_;
  std::mutex persist_mu_;              // one Persist at a time
  uint64_t generation_ = 0;            // GUARDED_BY(mu_)
  uint64_t persisted_generation_ = 0;  // GUARDED_BY(mu_)
  bool primary_unusable_ = false;      // GUARDED_BY(mu_): loaded from .bak, not yet rewritten
  ConfigLoadReport report_;            // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
