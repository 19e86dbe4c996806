// File: io/atomic_file.h
//
// Small files replaced whole (the broker's config/*.json, the store's checkpoint) and
// read back with a fallback to the previous version.
//
// WriteFileAtomically(fs, path, content):
//   1. writes `content` to <path>.tmp and syncs it;
//   2. (keep_backup) copies the current content of <path>, when there is some, to
//      <path>.bak and syncs it; <path> itself is untouched until step 3;
//   3. renames <path>.tmp over <path>;
//   4. syncs the directory.
// A crash (process or power) at any point leaves <path> readable with either the old or
// the new content — or, when <path> itself is gone or torn (a file written by
// something else, e.g. Java's non-atomic MixAll.string2File), <path>.bak with the
// previous version: ReadFileOrBackup reads whichever is usable. After an OK return the
// new content is durable.
//
// Errors: the first failing FileSystem operation's Status (kIOError, kNoSpace...); the
// target keeps its old content then (a stale <path>.tmp may remain; the next write
// replaces it).
// Thread-safety: none of its own. Callers serialise writes of one path (two concurrent
// writers share <path>.tmp); reads may run concurrently with anything.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "io/file_system.h"

namespace rocketstore {

struct AtomicWriteOptions {
  // Keep the replaced version as <path>.bak (step 2). Turn off when the current <path>
  // is known to be unusable (it would overwrite a good .bak) or no backup is wanted.
  bool keep_backup = true;
};

Status WriteFileAtomically(FileSystem& fs, const std::string& path, std::string_view content,
                           const AtomicWriteOptions& options = {});

// The whole content of `path`; kNotFound when nothing is there.
Result<std::string> ReadWholeFile(FileSystem& fs, const std::string& path);

// Judges a candidate's content: OK to use it, else why not (e.g. kCorruption "not JSON").
using ContentCheck = std::function<Status(std::string_view content)>;

struct FileWithBackup {
  std::string content;
  bool from_backup = false;     // true: <path>.bak was used
  std::string path;             // the file that was read
  std::string primary_problem;  // from_backup: why <path> was not used
};

// Reads `path`; when it is missing, empty or rejected by `check`, reads <path>.bak the same
// way. kNotFound when neither file has content (a fresh start); kCorruption when one
// has content but neither is usable (the message says why for both); an I/O error of a
// read is returned as it is (no silent fallback to an older version).
Result<FileWithBackup> ReadFileOrBackup(FileSystem& fs, const std::string& path,
                                        const ContentCheck& check = nullptr);

// "<dir>" of "<dir>/<name>"; "." when there is no slash.
std::string ParentDir(const std::string& path);

}  // namespace rocketstore
