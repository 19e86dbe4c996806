#include "io/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "io/fs_errors.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace rocketstore {
namespace {

using io_internal::FsErrnoStatus;

std::string What(std::string_view op, const std::string& path) {
  std::string s(op);
  s += ' ';
  s += path;
  return s;
}

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

void CloseFd(int fd) {
  // Linux always releases the descriptor, even when close reports EINTR: never retry.
  ::close(fd);
}

// Opens `path` with `flags`, retrying EINTR.
int OpenRetry(const char* path, int flags, mode_t mode) {
  int fd;
  do {
    fd = ::open(path, flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

Status FsyncDirectory(const std::string& path) {
  int fd = OpenRetry(path.c_str(), O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0) return FsErrnoStatus(What("open directory", path), errno);
  Status s;
  if (::fsync(fd) != 0) s = FsErrnoStatus(What("fsync directory", path), errno);
  CloseFd(fd);
  return s;
}

class PosixMappedRegion final : public MappedRegion {
 public:
  PosixMappedRegion(std::string path, uint8_t* base, size_t map_len, size_t delta, size_t size,
                    bool writable, bool use_madvise)
      : path_(std::move(path)),
        base_(base),
        map_len_(map_len),
        delta_(delta),
        size_(size),
        writable_(writable),
        use_madvise_(use_madvise) {}

  ~PosixMappedRegion() override { ::munmap(base_, map_len_); }

  uint8_t* data() override { return base_ + delta_; }
  const uint8_t* data() const override { return base_ + delta_; }
  size_t size() const override { return size_; }

  Status Sync(size_t offset, size_t len) override {
    if (offset > size_ || len > size_ - offset) {
      return OutOfRange("msync " + path_ + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds mapping of " + std::to_string(size_) +
                        " bytes");
    }
    if (len == 0) return Status::OK();
    auto [start, span] = PageRange(offset, len);
    if (::msync(start, span, MS_SYNC) != 0) return FsErrnoStatus(What("msync", path_), errno);
    return Status::OK();
  }

  Status SetReadahead(bool enabled) override {
    if (size_ == 0) return Status::OK();
    auto [start, span] = PageRange(0, size_);
    if (::madvise(start, span, enabled ? MADV_NORMAL : MADV_RANDOM) != 0) {
      return FsErrnoStatus(What("madvise readahead", path_), errno);
    }
    return Status::OK();
  }

  Status Unmap(size_t offset, size_t len) override {
    if (offset > size_ || len > size_ - offset) {
      return OutOfRange("unmap " + path_ + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds mapping of " + std::to_string(size_) +
                        " bytes");
    }
    // Whole pages inside the range only: a partly covered page may hold bytes in use.
    const size_t page = PageSize();
    const size_t from = (delta_ + offset + page - 1) & ~(page - 1);  // relative to base_
    const size_t to = (delta_ + offset + len) & ~(page - 1);
    if (from >= to) return Status::OK();
    if (::madvise(base_ + from, to - from, MADV_DONTNEED) != 0) {
      return FsErrnoStatus(What("madvise dontneed", path_), errno);
    }
    return Status::OK();
  }

  Result<size_t> ResidentBytes(size_t offset, size_t len) const override {
    if (offset > size_ || len > size_ - offset) {
      return OutOfRange("mincore " + path_ + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds mapping of " + std::to_string(size_) +
                        " bytes");
    }
    if (len == 0) return size_t{0};
    const size_t page = PageSize();
    auto [start, span] = PageRange(offset, len);
    constexpr size_t kStepPages = 16384;  // 64 MiB of 4 KiB pages per call
    unsigned char vec[kStepPages];
    size_t resident = 0;
    for (size_t done = 0; done < span;) {
      const size_t bytes = std::min(span - done, kStepPages * page);
      if (::mincore(start + done, bytes, vec) != 0) {
        return FsErrnoStatus(What("mincore", path_), errno);
      }
      const size_t pages = (bytes + page - 1) / page;
      for (size_t i = 0; i < pages; ++i) resident += (vec[i] & 1) != 0 ? page : 0;
      done += bytes;
    }
    return std::min(resident, len);
  }

  Status Prefault(size_t offset, size_t len) override {
    if (offset > size_ || len > size_ - offset) {
      return OutOfRange("prefault " + path_ + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds mapping of " + std::to_string(size_) +
                        " bytes");
    }
    if (len == 0) return Status::OK();
    auto [start, span] = PageRange(offset, len);
    if (use_madvise_) {
      const int advice = writable_ ? MADV_POPULATE_WRITE : MADV_POPULATE_READ;
      int rc;
      do {
        rc = ::madvise(start, span, advice);
      } while (rc != 0 && (errno == EINTR || errno == EAGAIN));
      if (rc == 0) return Status::OK();
      if (errno != EINVAL) return FsErrnoStatus(What("madvise populate", path_), errno);
      // EINVAL: the kernel predates MADV_POPULATE_*; touch the pages instead.
    }
    const size_t page = PageSize();
    const volatile uint8_t* p = start;
    for (size_t i = 0; i < span; i += page) {
      (void)p[i];  // read only: a write could race with the appender's bytes
    }
    return Status::OK();
  }

 private:
  // The page-aligned span covering [offset, offset + len) of the region. REQUIRES len > 0.
  std::pair<uint8_t*, size_t> PageRange(size_t offset, size_t len) const {
    const size_t page = PageSize();
    const size_t from = (delta_ + offset) & ~(page - 1);  // relative to base_
    const size_t to = delta_ + offset + len;
    return {base_ + from, to - from};
  }

  const std::string path_;
  uint8_t* const base_;   // page-aligned start of the mapping
  const size_t map_len_;  // bytes mapped from base_
  const size_t delta_;    // data() - base_
  const size_t size_;
  const bool writable_;
  const bool use_madvise_;
};

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd, bool writable, bool use_madvise)
      : path_(std::move(path)), fd_(fd), writable_(writable), use_madvise_(use_madvise) {}
  ~PosixFile() override { CloseFd(fd_); }

  const std::string& path() const override { return path_; }

  Result<uint64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return FsErrnoStatus(What("fstat", path_), errno);
    return static_cast<uint64_t>(st.st_size);
  }

  Status Truncate(uint64_t size) override {
    int rc;
    do {
      rc = ::ftruncate(fd_, static_cast<off_t>(size));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return FsErrnoStatus(What("ftruncate", path_), errno);
    return Status::OK();
  }

  Status Allocate(uint64_t offset, uint64_t len) override {
    if (len == 0) return Status::OK();
    int rc;
    do {
      rc = ::fallocate(fd_, 0, static_cast<off_t>(offset), static_cast<off_t>(len));
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) return Status::OK();
    if (errno != EOPNOTSUPP) return FsErrnoStatus(What("fallocate", path_), errno);
    // posix_fallocate returns the error number instead of setting errno.
    do {
      rc = ::posix_fallocate(fd_, static_cast<off_t>(offset), static_cast<off_t>(len));
    } while (rc == EINTR);
    if (rc != 0) return FsErrnoStatus(What("posix_fallocate", path_), rc);
    return Status::OK();
  }

  Status PWrite(uint64_t offset, const void* data, size_t n) override {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
      if (w < 0) {
        if (errno == EINTR) continue;
        return FsErrnoStatus(What("pwrite", path_), errno);
      }
      if (w == 0) return ErrnoStatus(What("pwrite", path_), EIO);  // no progress
      p += w;
      n -= static_cast<size_t>(w);
      offset += static_cast<uint64_t>(w);
    }
    return Status::OK();
  }

  Result<size_t> PRead(uint64_t offset, void* dst, size_t n) override {
    auto* p = static_cast<uint8_t*>(dst);
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, p + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return FsErrnoStatus(What("pread", path_), errno);
      }
      if (r == 0) break;  // end of file
      done += static_cast<size_t>(r);
    }
    return done;
  }

  Status Sync() override {
    int rc;
    do {
      rc = ::fdatasync(fd_);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return FsErrnoStatus(What("fdatasync", path_), errno);
    return Status::OK();
  }

  Status DropCache(uint64_t offset, uint64_t len) override {
    if (len == 0) return Status::OK();
    const int rc = ::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(len),
                                   POSIX_FADV_DONTNEED);
    if (rc != 0) return FsErrnoStatus(What("fadvise dontneed", path_), rc);
    return Status::OK();
  }

  Result<DataRange> NextDataRange(uint64_t from) override {
    RS_ASSIGN_OR_RETURN(const uint64_t size, Size());
    if (from >= size) return DataRange{size, size};
    // lseek moves the descriptor's offset, which nothing here uses (pread/pwrite only).
    const off_t start = ::lseek(fd_, static_cast<off_t>(from), SEEK_DATA);
    if (start < 0) {
      if (errno == ENXIO) return DataRange{size, size};  // only holes after `from`
      if (errno == EINVAL || errno == EOPNOTSUPP) return DataRange{from, size};  // no support
      return FsErrnoStatus(What("lseek SEEK_DATA", path_), errno);
    }
    const off_t end = ::lseek(fd_, start, SEEK_HOLE);
    if (end < 0) return FsErrnoStatus(What("lseek SEEK_HOLE", path_), errno);
    return DataRange{std::min(static_cast<uint64_t>(start), size),
                     std::min(static_cast<uint64_t>(end), size)};
  }

  Result<std::unique_ptr<MappedRegion>> Map(uint64_t offset, size_t len, bool writable) override {
    if (writable && !writable_) {
      return FailedPrecondition("mmap " + path_ + ": writable mapping of a file opened read-only");
    }
    if (len == 0) return InvalidArgument("mmap " + path_ + ": empty mapping");
    RS_ASSIGN_OR_RETURN(uint64_t file_size, Size());
    if (offset > file_size || len > file_size - offset) {
      // Touching a page past the end of the file would raise SIGBUS.
      return OutOfRange("mmap " + path_ + ": range [" + std::to_string(offset) + ", +" +
                        std::to_string(len) + ") exceeds file size " + std::to_string(file_size));
    }
    const size_t page = PageSize();
    const uint64_t aligned = offset & ~static_cast<uint64_t>(page - 1);
    const size_t delta = static_cast<size_t>(offset - aligned);
    const size_t map_len = len + delta;
    const int prot = PROT_READ | (writable ? PROT_WRITE : 0);
    void* base = ::mmap(nullptr, map_len, prot, MAP_SHARED, fd_, static_cast<off_t>(aligned));
    if (base == MAP_FAILED) return FsErrnoStatus(What("mmap", path_), errno);
    return std::unique_ptr<MappedRegion>(new PosixMappedRegion(
        path_, static_cast<uint8_t*>(base), map_len, delta, len, writable, use_madvise_));
  }

 private:
  const std::string path_;
  const int fd_;
  const bool writable_;
  const bool use_madvise_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override { CloseFd(fd_); }  // closing the description drops the lock

 private:
  const int fd_;
};

}  // namespace

PosixFileSystem::PosixFileSystem(PosixFileSystemOptions options) : options_(options) {}

PosixFileSystem& PosixFileSystem::Default() {
  static PosixFileSystem* fs = new PosixFileSystem();
  return *fs;
}

Result<std::unique_ptr<File>> PosixFileSystem::OpenFile(const std::string& path,
                                                        const OpenOptions& options) {
  const bool writable = options.writable || options.create;
  int flags = writable ? O_RDWR : O_RDONLY;
  if (options.create) {
    flags |= O_CREAT;
    if (options.must_not_exist) flags |= O_EXCL;
  }
  int fd = OpenRetry(path.c_str(), flags, 0644);
  if (fd < 0) return FsErrnoStatus(What("open", path), errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = FsErrnoStatus(What("fstat", path), errno);
    CloseFd(fd);
    return s;
  }
  if (S_ISDIR(st.st_mode)) {
    CloseFd(fd);
    return ErrnoStatus(What("open", path), EISDIR);
  }
  return std::unique_ptr<File>(new PosixFile(path, fd, writable, options_.prefault_with_madvise));
}

Status PosixFileSystem::CreateDirs(const std::string& path) {
  if (path.empty()) return InvalidArgument("mkdir: empty path");
  const bool absolute = path.front() == '/';
  std::string prefix = absolute ? "/" : "";
  std::string parent = absolute ? "/" : ".";
  size_t pos = 0;
  while (pos < path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    std::string_view component(path.data() + pos, next - pos);
    pos = next + 1;
    if (component.empty() || component == ".") continue;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    prefix += component;
    if (::mkdir(prefix.c_str(), 0755) == 0) {
      // Make the new entry durable right away (see the header).
      RS_RETURN_IF_ERROR(FsyncDirectory(parent));
    } else if (errno == EEXIST) {
      struct stat st;
      if (::stat(prefix.c_str(), &st) != 0) return FsErrnoStatus(What("stat", prefix), errno);
      if (!S_ISDIR(st.st_mode)) return ErrnoStatus(What("mkdir", prefix), ENOTDIR);
    } else {
      return FsErrnoStatus(What("mkdir", prefix), errno);
    }
    parent = prefix;
  }
  return Status::OK();
}

Result<std::vector<std::string>> PosixFileSystem::ListDir(const std::string& path) {
  int fd = OpenRetry(path.c_str(), O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0) return FsErrnoStatus(What("opendir", path), errno);
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    Status s = FsErrnoStatus(What("fdopendir", path), errno);
    CloseFd(fd);
    return s;
  }
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    struct dirent* e = ::readdir(dir);
    if (e == nullptr) {
      if (errno != 0) {
        Status s = FsErrnoStatus(What("readdir", path), errno);
        ::closedir(dir);
        return s;
      }
      break;
    }
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(dir);  // also closes fd
  return names;
}

Result<FileInfo> PosixFileSystem::Stat(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return FsErrnoStatus(What("stat", path), errno);
  FileInfo info;
  info.size = static_cast<uint64_t>(st.st_size);
  info.mtime_millis = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 +
                      static_cast<int64_t>(st.st_mtim.tv_nsec) / 1000000;
  info.is_directory = S_ISDIR(st.st_mode);
  return info;
}

Status PosixFileSystem::RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return FsErrnoStatus(What("unlink", path), errno);
  return Status::OK();
}

Status PosixFileSystem::RemoveDir(const std::string& path) {
  if (::rmdir(path.c_str()) != 0) return FsErrnoStatus(What("rmdir", path), errno);
  return Status::OK();
}

Status PosixFileSystem::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return FsErrnoStatus(What("rename", from) + " -> " + to, errno);
  }
  return Status::OK();
}

Status PosixFileSystem::SyncDir(const std::string& path) { return FsyncDirectory(path); }

Status PosixFileSystem::SetMTime(const std::string& path, int64_t mtime_millis) {
  struct timespec times[2];
  times[0].tv_sec = 0;
  times[0].tv_nsec = UTIME_OMIT;  // leave atime alone
  int64_t sec = mtime_millis / 1000;
  int64_t ms = mtime_millis % 1000;
  if (ms < 0) {  // floor division for times before the epoch
    ms += 1000;
    sec -= 1;
  }
  times[1].tv_sec = static_cast<time_t>(sec);
  times[1].tv_nsec = static_cast<long>(ms * 1000000);  // NOLINT(runtime/int)
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return FsErrnoStatus(What("utimensat", path), errno);
  }
  return Status::OK();
}

Result<std::unique_ptr<FileLock>> PosixFileSystem::LockFile(const std::string& path) {
  int fd = OpenRetry(path.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0) return FsErrnoStatus(What("open lock file", path), errno);
  struct flock fl;
  std::memset(&fl, 0, sizeof(fl));
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  fl.l_pid = 0;  // required for OFD locks
  int rc;
  do {
    rc = ::fcntl(fd, F_OFD_SETLK, &fl);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    CloseFd(fd);
    if (err == EAGAIN || err == EACCES) {
      return Status(StatusCode::kAlreadyExists,
                    "lock " + path +
                        ": held by another process (or another lock in this process); is "
                        "another store running on this directory?",
                    err);
    }
    return FsErrnoStatus(What("fcntl(F_OFD_SETLK)", path), err);
  }
  return std::unique_ptr<FileLock>(new PosixFileLock(fd));
}

Result<std::string> PosixFileSystem::BootId() {
  static constexpr char kPath[] = "/proc/sys/kernel/random/boot_id";
  const int fd = ::open(kPath, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FsErrnoStatus(What("open", kPath), errno);
  char buf[64];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  const int err = errno;
  ::close(fd);
  if (n < 0) return FsErrnoStatus(What("read", kPath), err);
  std::string id(buf, static_cast<size_t>(n));
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  if (id.empty()) return Internal(std::string(kPath) + " is empty");
  return id;
}

Result<DiskUsage> PosixFileSystem::GetDiskUsage(const std::string& path) {
  struct statvfs vfs;
  if (::statvfs(path.c_str(), &vfs) != 0) return FsErrnoStatus(What("statvfs", path), errno);
  DiskUsage usage;
  usage.total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  usage.free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  return usage;
}

}  // namespace rocketstore
