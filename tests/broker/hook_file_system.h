// A FileSystem that forwards to another one and runs a hook before every Rename: lets a
// test act in the middle of a WriteFileAtomically (after the content was encoded and
// written, before it replaces the file).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace rocketstore::testing {

class HookFileSystem final : public FileSystem {
 public:
  explicit HookFileSystem(FileSystem& inner) : inner_(inner) {}
  std::function<void()> before_rename;

  Result<std::unique_ptr<File>> OpenFile(const std::string& path,
                                         const OpenOptions& options) override {
    return inner_.OpenFile(path, options);
  }
  Status CreateDirs(const std::string& path) override { return inner_.CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return inner_.ListDir(path);
  }
  Result<FileInfo> Stat(const std::string& path) override { return inner_.Stat(path); }
  Status RemoveFile(const std::string& path) override { return inner_.RemoveFile(path); }
  Status RemoveDir(const std::string& path) override { return inner_.RemoveDir(path); }
  Status Rename(const std::string& from, const std::string& to) override {
    if (before_rename) before_rename();
    return inner_.Rename(from, to);
  }
  Status SyncDir(const std::string& path) override { return inner_.SyncDir(path); }
  Status SetMTime(const std::string& path, int64_t mtime_millis) override {
    return inner_.SetMTime(path, mtime_millis);
  }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return inner_.LockFile(path);
  }
  Result<DiskUsage> GetDiskUsage(const std::string& path) override {
    return inner_.GetDiskUsage(path);
  }
  Result<std::string> BootId() override { return inner_.BootId(); }

 private:
  FileSystem& inner_;
};

}  // namespace rocketstore::testing
