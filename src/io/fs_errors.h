// File: io/fs_errors.h  (internal to the io module)
//
// How both FileSystem implementations turn an errno into a Status, so that callers see
// the same codes whichever implementation is underneath:
//   ENOENT, ENOTDIR -> kNotFound        (nothing at that path)
//   EEXIST          -> kAlreadyExists   (create with must_not_exist)
//   ENOSPC, EDQUOT  -> kNoSpace         (via ErrnoStatus)
//   anything else   -> kIOError         (via ErrnoStatus)
// The errno is kept in Status::error_number() in every case.
//
// Thread-safety: pure function.
#pragma once

#include <string_view>

#include "base/status.h"

namespace rocketstore::io_internal {

// `what` is "<op> <path>", e.g. "open /data/commitlog/00000000000000000000".
Status FsErrnoStatus(std::string_view what, int err);

}  // namespace rocketstore::io_internal
