// A fresh directory under $TMPDIR (or /tmp) removed, with its contents, on destruction.
#pragma once

#include <string>

namespace rocketstore::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rocketstore::testing
