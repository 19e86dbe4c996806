#include "io/file_system.h"

#include <cerrno>
#include <cstring>

#include "io/fs_errors.h"

namespace rocketstore {

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

namespace io_internal {

Status FsErrnoStatus(std::string_view what, int err) {
  if (err == ENOENT || err == ENOTDIR || err == EEXIST) {
    std::string m(what);
    m += ": ";
    m += std::strerror(err);
    return Status(err == EEXIST ? StatusCode::kAlreadyExists : StatusCode::kNotFound, std::move(m),
                  err);
  }
  return ErrnoStatus(what, err);
}

}  // namespace io_internal
}  // namespace rocketstore
