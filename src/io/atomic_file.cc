#include "io/atomic_file.h"

#include <memory>

namespace rocketstore {

namespace {

// Replaces the content of `path` (created if missing) with `content` and syncs it.
Status WriteAndSync(FileSystem& fs, const std::string& path, std::string_view content) {
  OpenOptions oo;
  oo.create = oo.writable = true;
  RS_ASSIGN_OR_RETURN(std::unique_ptr<File> file, fs.OpenFile(path, oo));
  RS_RETURN_IF_ERROR(file->Truncate(0));
  if (!content.empty()) RS_RETURN_IF_ERROR(file->PWrite(0, content.data(), content.size()));
  return file->Sync();
}

// One candidate of ReadFileOrBackup: its content if usable, else (OK status, problem).
struct Candidate {
  std::string content;
  std::string problem;   // empty: usable
  bool present = false;  // the file exists with content
};

Result<Candidate> ReadCandidate(FileSystem& fs, const std::string& path,
                                const ContentCheck& check) {
  Candidate c;
  Result<std::string> text = ReadWholeFile(fs, path);
  if (!text.ok()) {
    if (text.status().code() != StatusCode::kNotFound) return text.status();
    c.problem = path + " is missing";
    return c;
  }
  if (text->empty()) {
    c.problem = path + " is empty";
    return c;
  }
  c.present = true;
  if (check) {
    if (Status s = check(*text); !s.ok()) {
      c.problem = path + " is unusable: " + s.message();
      return c;
    }
  }
  c.content = std::move(text).value();
  return c;
}

}  // namespace

std::string ParentDir(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status WriteFileAtomically(FileSystem& fs, const std::string& path, std::string_view content,
                           const AtomicWriteOptions& options) {
  const std::string tmp = path + ".tmp";
  RS_RETURN_IF_ERROR(WriteAndSync(fs, tmp, content));
  if (options.keep_backup) {
    Result<std::string> previous = ReadWholeFile(fs, path);
    if (previous.ok()) {
      if (!previous->empty()) RS_RETURN_IF_ERROR(WriteAndSync(fs, path + ".bak", *previous));
    } else if (previous.status().code() != StatusCode::kNotFound) {
      return previous.status();
    }
  }
  RS_RETURN_IF_ERROR(fs.Rename(tmp, path));
  return fs.SyncDir(ParentDir(path));
}

Result<std::string> ReadWholeFile(FileSystem& fs, const std::string& path) {
  RS_ASSIGN_OR_RETURN(std::unique_ptr<File> file, fs.OpenFile(path, OpenOptions{}));
  RS_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::string out(size, '\0');
  size_t done = 0;
  while (done < out.size()) {
    RS_ASSIGN_OR_RETURN(size_t n, file->PRead(done, out.data() + done, out.size() - done));
    if (n == 0) break;  // shrank under us
    done += n;
  }
  out.resize(done);
  return out;
}

Result<FileWithBackup> ReadFileOrBackup(FileSystem& fs, const std::string& path,
                                        const ContentCheck& check) {
  RS_ASSIGN_OR_RETURN(Candidate primary, ReadCandidate(fs, path, check));
  FileWithBackup out;
  if (primary.problem.empty()) {
    out.content = std::move(primary.content);
    out.path = path;
    return out;
  }
  const std::string bak = path + ".bak";
  RS_ASSIGN_OR_RETURN(Candidate backup, ReadCandidate(fs, bak, check));
  if (!backup.problem.empty()) {
    if (!primary.present && !backup.present) return NotFound(path + " not found (nor " + bak + ")");
    return Corruption(primary.problem + "; " + backup.problem);
  }
  out.content = std::move(backup.content);
  out.from_backup = true;
  out.path = bak;
  out.primary_problem = std::move(primary.problem);
  return out;
}

}  // namespace rocketstore
