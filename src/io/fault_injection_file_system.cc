// File: io/fault_injection_file_system.cc
//
// The fault-injecting file system itself: namespace operations, crash simulation
// (process crash, power loss), failure injection and capacity. The handles it gives out
// are in fault_injection_handles.cc; what both share in fault_injection_internal.h.
#include "io/fault_injection_file_system.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "io/fault_injection_internal.h"
#include "io/fs_errors.h"

namespace rocketstore {

using io_internal::FsErrnoStatus;

namespace {

using Inode = FaultInjectionFileSystem::Inode;
using World = FaultInjectionFileSystem::World;
using fault_injection_internal::BlocksFor;
using fault_injection_internal::IsZero;
using fault_injection_internal::kBlock;
using fault_injection_internal::What;

constexpr uint64_t kPage = 4096;
// ext4's largest file with 4 KiB blocks; larger sizes fail with EFBIG.
constexpr uint64_t kMaxFileSize = uint64_t{16} << 40;

uint64_t RoundUpToPage(uint64_t n) { return (n + kPage - 1) / kPage * kPage; }

// Blocks of [offset, end) that `f` has not allocated (blocks past its size count as
// missing). REQUIRES: offset < end.
uint64_t MissingBlocks(const Inode& f, uint64_t offset, uint64_t end) {
  const uint64_t first = offset / kBlock;
  const uint64_t last = BlocksFor(end);
  uint64_t missing = last - first;
  const uint64_t stop = std::min<uint64_t>(last, f.allocated.size());
  for (uint64_t b = first; b < stop; ++b) {
    if (f.allocated[b]) --missing;
  }
  return missing;
}

// Splits a path into components, ignoring empty and "." ones.
Result<std::vector<std::string>> SplitPath(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    std::string_view c(path.data() + pos, next - pos);
    pos = next + 1;
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      return InvalidArgument("path " + path +
                             ": '..' is not supported by FaultInjectionFileSystem");
    }
    out.emplace_back(c);
  }
  return out;
}

std::string JoinComponents(const std::vector<std::string>& comps) {
  std::string s;
  for (const auto& c : comps) {
    s += '/';
    s += c;
  }
  return s.empty() ? "/" : s;
}

// Walks `comps[0, n)` from the root through live entries. On failure returns nullptr and
// sets *err to ENOENT or ENOTDIR.
std::shared_ptr<Inode> Walk(const World& w, const std::vector<std::string>& comps, size_t n,
                            int* err) {
  std::shared_ptr<Inode> cur = w.root;
  for (size_t i = 0; i < n; ++i) {
    if (!cur->is_dir) {
      *err = ENOTDIR;
      return nullptr;
    }
    auto it = cur->entries.find(comps[i]);
    if (it == cur->entries.end()) {
      *err = ENOENT;
      return nullptr;
    }
    cur = it->second;
  }
  return cur;
}

// The directory that holds the last component. *err as for Walk.
std::shared_ptr<Inode> WalkParent(const World& w, const std::vector<std::string>& comps, int* err) {
  std::shared_ptr<Inode> parent = Walk(w, comps, comps.size() - 1, err);
  if (parent != nullptr && !parent->is_dir) {
    *err = ENOTDIR;
    return nullptr;
  }
  return parent;
}

// The blocks of a file count towards the capacity while a live entry names it (an
// unlinked file kept alive by handles no longer counts).
void Link(World& w, Inode& inode) {
  if (inode.nlink++ == 0 && !inode.is_dir) w.used_blocks += inode.allocated_blocks;
}

void Unlink(World& w, Inode& inode) {
  if (--inode.nlink == 0 && !inode.is_dir) w.used_blocks -= inode.allocated_blocks;
}

// Deep copy of a world as `mode` leaves it. Sharing between entries is preserved.
class WorldCopier {
 public:
  explicit WorldCopier(CrashMode mode) : mode_(mode) {}

  std::shared_ptr<World> Copy(const World& from) {
    auto to = std::make_shared<World>();
    to->root = CopyInode(from.root);
    // Recount links and space from the live entries of the new state.
    std::unordered_set<const Inode*> seen;
    Count(*to, *to->root, seen);
    return to;
  }

 private:
  std::shared_ptr<Inode> CopyInode(const std::shared_ptr<Inode>& src) {
    auto it = memo_.find(src.get());
    if (it != memo_.end()) return it->second;
    auto dst = std::make_shared<Inode>(src->is_dir);
    memo_.emplace(src.get(), dst);
    dst->mtime_millis = src->mtime_millis;
    if (!src->is_dir) {
      dst->durable = src->durable;
      const bool power = mode_ == CrashMode::kPowerLoss;
      const uint64_t size = power ? src->durable.size() : src->size;
      const uint8_t* bytes = power ? src->durable.data() : src->buf;
      dst->size = size;
      dst->capacity = RoundUpToPage(size);
      if (dst->capacity > 0) {
        dst->buf = static_cast<uint8_t*>(std::calloc(dst->capacity, 1));
        if (dst->buf == nullptr) std::abort();  // test-only memory; nothing sane to do
      }
      // Allocation survives as it is in the live state, within the surviving size; a
      // block holding data (e.g. written through a mapping into a hole, which the kernel
      // allocates at the page fault) is allocated too. Holes stay holes (all zeros, and
      // not copied, so sparse files stay cheap).
      const uint64_t blocks = BlocksFor(size);
      dst->allocated.assign(blocks, false);
      for (uint64_t b = 0; b < blocks; ++b) {
        const uint64_t lo = b * kBlock;
        const uint64_t n = std::min(kBlock, size - lo);
        const bool was_allocated = b < src->allocated.size() && src->allocated[b];
        if (!was_allocated && IsZero(bytes + lo, n)) continue;
        std::memcpy(dst->buf + lo, bytes + lo, n);
        dst->allocated[b] = true;
        ++dst->allocated_blocks;
      }
    } else if (mode_ == CrashMode::kPowerLoss) {
      for (const auto& [name, child] : src->durable_entries) {
        dst->entries.emplace(name, CopyInode(child));
      }
      dst->durable_entries = dst->entries;
    } else {
      for (const auto& [name, child] : src->entries) {
        dst->entries.emplace(name, CopyInode(child));
      }
      for (const auto& [name, child] : src->durable_entries) {
        dst->durable_entries.emplace(name, CopyInode(child));
      }
    }
    return dst;
  }

  void Count(World& w, Inode& dir, std::unordered_set<const Inode*>& seen) {
    if (!seen.insert(&dir).second) return;
    for (auto& [name, child] : dir.entries) {
      Link(w, *child);
      if (child->is_dir) Count(w, *child, seen);
    }
  }

  const CrashMode mode_;
  std::unordered_map<const Inode*, std::shared_ptr<Inode>> memo_;
};

}  // namespace

// ---- FaultInjectionFileSystem ----------------------------------------------------------

std::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kOpen:
      return "open";
    case OpKind::kTruncate:
      return "truncate";
    case OpKind::kAllocate:
      return "allocate";
    case OpKind::kWrite:
      return "write";
    case OpKind::kSync:
      return "sync";
    case OpKind::kMap:
      return "map";
    case OpKind::kMapSync:
      return "map-sync";
    case OpKind::kCreateDirs:
      return "create-dirs";
    case OpKind::kRemove:
      return "remove";
    case OpKind::kRename:
      return "rename";
    case OpKind::kSyncDir:
      return "sync-dir";
    case OpKind::kSetMTime:
      return "set-mtime";
    case OpKind::kLock:
      return "lock";
  }
  return "unknown";
}

FaultInjectionFileSystem::FaultInjectionFileSystem(Clock& clock)
    : clock_(clock), world_(std::make_shared<World>()) {
  world_->root->mtime_millis = clock_.NowMillis();
  world_->root->nlink = 1;
}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

Status FaultInjectionFileSystem::BeginOpLocked(OpKind kind, const std::string& what) {
  if (crashed_) return Aborted("simulated crash: " + what);
  const uint64_t n = ++op_count_;
  if (crash_at_.has_value() && n == *crash_at_) {
    crash_at_.reset();
    snapshot_ = WorldCopier(crash_mode_).Copy(*world_);
    crashed_ = true;
    crashed_mode_ = crash_mode_;
    return Aborted("simulated crash at op " + std::to_string(n) + ": " + what);
  }
  if (fail_at_.has_value() && n == *fail_at_) {
    fail_at_.reset();
    return FsErrnoStatus(what + " (injected at op " + std::to_string(n) + ")", fail_at_errno_);
  }
  auto it = kind_failures_.find(kind);
  if (it != kind_failures_.end()) {
    return FsErrnoStatus(what + " (injected for every " + std::string(OpKindName(kind)) + ")",
                         it->second);
  }
  return Status::OK();
}

Status FaultInjectionFileSystem::CheckWorldLocked(const World* world,
                                                  const std::string& what) const {
  if (world != world_.get()) {
    return Aborted(what + ": handle from before a simulated crash (detached by Reboot)");
  }
  return Status::OK();
}

Status FaultInjectionFileSystem::ResizeLocked(Inode& f, uint64_t new_size,
                                              const std::string& what) {
  if (new_size == f.size) return Status::OK();
  if (new_size > f.size) {
    // Growing allocates no blocks (a sparse tail), so the capacity does not limit it.
    if (new_size > kMaxFileSize) return ErrnoStatus(what, EFBIG);
    if (new_size > f.capacity) {
      if (!f.map_ends.empty()) {
        return FailedPrecondition(
            what + ": FaultInjectionFileSystem cannot grow a file to " + std::to_string(new_size) +
            " bytes past its buffer (" + std::to_string(f.capacity) +
            " bytes) while a mapping of it is alive; allocate the final size before mapping");
      }
      const uint64_t cap = std::max(RoundUpToPage(new_size), 2 * f.capacity);
      auto* buf = static_cast<uint8_t*>(std::calloc(cap, 1));
      if (buf == nullptr) return ErrnoStatus(what + " (in-memory buffer)", ENOMEM);
      if (f.size > 0) std::memcpy(buf, f.buf, f.size);
      std::free(f.buf);
      f.buf = buf;
      f.capacity = cap;
    }
  } else {
    if (!f.map_ends.empty() && *f.map_ends.rbegin() > new_size) {
      return FailedPrecondition(what + ": cannot shrink to " + std::to_string(new_size) +
                                " bytes below a live mapping ending at " +
                                std::to_string(*f.map_ends.rbegin()));
    }
    std::memset(f.buf + new_size, 0, f.size - new_size);
    // Free the blocks wholly past the new size (a partial last block stays).
    uint64_t freed = 0;
    for (uint64_t b = BlocksFor(new_size); b < f.allocated.size(); ++b) {
      if (f.allocated[b]) ++freed;
    }
    f.allocated_blocks -= freed;
    if (f.nlink > 0) world_->used_blocks -= freed;
  }
  f.allocated.resize(BlocksFor(new_size), false);
  f.size = new_size;
  return Status::OK();
}

Status FaultInjectionFileSystem::AllocateLocked(Inode& f, uint64_t offset, uint64_t end,
                                                const std::string& what) {
  if (end > kMaxFileSize) return ErrnoStatus(what, EFBIG);
  const uint64_t missing = MissingBlocks(f, offset, end);
  World& w = *world_;
  if (missing > 0 && f.nlink > 0) {
    const uint64_t used = w.used_blocks * kBlock;
    const uint64_t free_blocks = capacity_ > used ? (capacity_ - used) / kBlock : 0;
    if (missing > free_blocks) {
      return ErrnoStatus(what + " (needs " + std::to_string(missing) + " more blocks of " +
                             std::to_string(kBlock) + " bytes; capacity " +
                             std::to_string(capacity_) + " bytes, " + std::to_string(used) +
                             " allocated)",
                         ENOSPC);
    }
  }
  if (end > f.size) RS_RETURN_IF_ERROR(ResizeLocked(f, end, what));
  if (missing == 0) return Status::OK();
  for (uint64_t b = offset / kBlock, last = BlocksFor(end); b < last; ++b) {
    f.allocated[b] = true;
  }
  f.allocated_blocks += missing;
  if (f.nlink > 0) w.used_blocks += missing;
  return Status::OK();
}

Result<std::unique_ptr<File>> FaultInjectionFileSystem::OpenFile(const std::string& path,
                                                                 const OpenOptions& options) {
  const bool writable = options.writable || options.create;
  const std::string what = What("open", path);
  std::lock_guard<std::mutex> lock(mu_);
  if (writable) RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kOpen, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  if (comps.empty()) return ErrnoStatus(what, EISDIR);
  int err = 0;
  std::shared_ptr<Inode> parent = WalkParent(*world_, comps, &err);
  if (parent == nullptr) return FsErrnoStatus(what, err);
  std::shared_ptr<Inode> inode;
  auto it = parent->entries.find(comps.back());
  if (it != parent->entries.end()) {
    inode = it->second;
    if (inode->is_dir) return ErrnoStatus(what, EISDIR);
    if (options.create && options.must_not_exist) return FsErrnoStatus(what, EEXIST);
  } else {
    if (!options.create) return FsErrnoStatus(what, ENOENT);
    inode = std::make_shared<Inode>(/*dir=*/false);
    inode->mtime_millis = NowMillis();
    parent->entries.emplace(comps.back(), inode);
    Link(*world_, *inode);
  }
  return fault_injection_internal::NewFaultFile(this, world_, std::move(inode), path, writable);
}

Status FaultInjectionFileSystem::CreateDirs(const std::string& path) {
  const std::string what = What("mkdir", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kCreateDirs, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  std::shared_ptr<Inode> cur = world_->root;
  for (const std::string& name : comps) {
    auto it = cur->entries.find(name);
    if (it != cur->entries.end()) {
      if (!it->second->is_dir) return ErrnoStatus(what, ENOTDIR);
      cur = it->second;
      continue;
    }
    auto dir = std::make_shared<Inode>(/*dir=*/true);
    dir->mtime_millis = NowMillis();
    cur->entries.emplace(name, dir);
    cur->durable_entries[name] = dir;  // CreateDirs is durable (see the header)
    Link(*world_, *dir);
    cur = std::move(dir);
  }
  return Status::OK();
}

Result<std::vector<std::string>> FaultInjectionFileSystem::ListDir(const std::string& path) {
  const std::string what = What("opendir", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  std::shared_ptr<Inode> dir = Walk(*world_, comps, comps.size(), &err);
  if (dir == nullptr) return FsErrnoStatus(what, err);
  if (!dir->is_dir) return FsErrnoStatus(what, ENOTDIR);
  std::vector<std::string> names;
  names.reserve(dir->entries.size());
  for (const auto& [name, child] : dir->entries) names.push_back(name);
  return names;
}

Result<FileInfo> FaultInjectionFileSystem::Stat(const std::string& path) {
  const std::string what = What("stat", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  std::shared_ptr<Inode> node = Walk(*world_, comps, comps.size(), &err);
  if (node == nullptr) return FsErrnoStatus(what, err);
  FileInfo info;
  info.size = node->is_dir ? 0 : node->size;
  info.mtime_millis = node->mtime_millis;
  info.is_directory = node->is_dir;
  return info;
}

Status FaultInjectionFileSystem::RemoveFile(const std::string& path) {
  const std::string what = What("unlink", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kRemove, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  if (comps.empty()) return ErrnoStatus(what, EISDIR);
  int err = 0;
  std::shared_ptr<Inode> parent = WalkParent(*world_, comps, &err);
  if (parent == nullptr) return FsErrnoStatus(what, err);
  auto it = parent->entries.find(comps.back());
  if (it == parent->entries.end()) return FsErrnoStatus(what, ENOENT);
  if (it->second->is_dir) return ErrnoStatus(what, EISDIR);
  Unlink(*world_, *it->second);
  parent->entries.erase(it);
  return Status::OK();
}

Status FaultInjectionFileSystem::RemoveDir(const std::string& path) {
  const std::string what = What("rmdir", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kRemove, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  if (comps.empty()) return ErrnoStatus(what, EBUSY);
  int err = 0;
  std::shared_ptr<Inode> parent = WalkParent(*world_, comps, &err);
  if (parent == nullptr) return FsErrnoStatus(what, err);
  auto it = parent->entries.find(comps.back());
  if (it == parent->entries.end()) return FsErrnoStatus(what, ENOENT);
  if (!it->second->is_dir) return FsErrnoStatus(what, ENOTDIR);
  if (!it->second->entries.empty()) return ErrnoStatus(what, ENOTEMPTY);
  Unlink(*world_, *it->second);
  parent->entries.erase(it);
  return Status::OK();
}

Status FaultInjectionFileSystem::Rename(const std::string& from, const std::string& to) {
  const std::string what = What("rename", from) + " -> " + to;
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kRename, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> src, SplitPath(from));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> dst, SplitPath(to));
  if (src.empty() || dst.empty()) return ErrnoStatus(what, EBUSY);
  int err = 0;
  std::shared_ptr<Inode> src_parent = WalkParent(*world_, src, &err);
  if (src_parent == nullptr) return FsErrnoStatus(what, err);
  auto src_it = src_parent->entries.find(src.back());
  if (src_it == src_parent->entries.end()) return FsErrnoStatus(what, ENOENT);
  std::shared_ptr<Inode> node = src_it->second;
  std::shared_ptr<Inode> dst_parent = WalkParent(*world_, dst, &err);
  if (dst_parent == nullptr) return FsErrnoStatus(what, err);
  if (node->is_dir && dst.size() > src.size() && std::equal(src.begin(), src.end(), dst.begin())) {
    return ErrnoStatus(what + " (into itself)", EINVAL);
  }
  auto dst_it = dst_parent->entries.find(dst.back());
  if (dst_it != dst_parent->entries.end()) {
    std::shared_ptr<Inode> old = dst_it->second;
    if (old == node) return Status::OK();  // same inode: rename(2) does nothing
    if (!node->is_dir && old->is_dir) return ErrnoStatus(what, EISDIR);
    if (node->is_dir && !old->is_dir) return ErrnoStatus(what, ENOTDIR);
    if (old->is_dir && !old->entries.empty()) return ErrnoStatus(what, ENOTEMPTY);
    Unlink(*world_, *old);
    dst_it->second = node;
  } else {
    dst_parent->entries.emplace(dst.back(), node);
  }
  src_parent->entries.erase(src.back());
  return Status::OK();
}

Status FaultInjectionFileSystem::SyncDir(const std::string& path) {
  const std::string what = What("fsync directory", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kSyncDir, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  std::shared_ptr<Inode> dir = Walk(*world_, comps, comps.size(), &err);
  if (dir == nullptr) return FsErrnoStatus(what, err);
  if (!dir->is_dir) return FsErrnoStatus(what, ENOTDIR);
  dir->durable_entries = dir->entries;
  return Status::OK();
}

Status FaultInjectionFileSystem::SetMTime(const std::string& path, int64_t mtime_millis) {
  const std::string what = What("utimensat", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kSetMTime, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  std::shared_ptr<Inode> node = Walk(*world_, comps, comps.size(), &err);
  if (node == nullptr) return FsErrnoStatus(what, err);
  node->mtime_millis = mtime_millis;
  return Status::OK();
}

Result<std::unique_ptr<FileLock>> FaultInjectionFileSystem::LockFile(const std::string& path) {
  const std::string what = What("lock", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_RETURN_IF_ERROR(BeginOpLocked(OpKind::kLock, what));
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  if (comps.empty()) return ErrnoStatus(what, EISDIR);
  int err = 0;
  std::shared_ptr<Inode> parent = WalkParent(*world_, comps, &err);
  if (parent == nullptr) return FsErrnoStatus(what, err);
  auto it = parent->entries.find(comps.back());
  if (it != parent->entries.end() && it->second->is_dir) return ErrnoStatus(what, EISDIR);
  std::string key = JoinComponents(comps);
  if (world_->locks.count(key) != 0) {
    return Status(StatusCode::kAlreadyExists,
                  what +
                      ": held by another process (or another lock in this process); is another "
                      "store running on this directory?",
                  EAGAIN);
  }
  if (it == parent->entries.end()) {
    auto inode = std::make_shared<Inode>(/*dir=*/false);
    inode->mtime_millis = NowMillis();
    parent->entries.emplace(comps.back(), inode);
    Link(*world_, *inode);
  }
  world_->locks.insert(key);
  return fault_injection_internal::NewFaultFileLock(this, world_, std::move(key));
}

Result<DiskUsage> FaultInjectionFileSystem::GetDiskUsage(const std::string& path) {
  const std::string what = What("statvfs", path);
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  if (Walk(*world_, comps, comps.size(), &err) == nullptr) return FsErrnoStatus(what, err);
  const uint64_t used = world_->used_blocks * kBlock;
  DiskUsage usage;
  usage.total_bytes = capacity_;
  usage.free_bytes = capacity_ > used ? capacity_ - used : 0;
  return usage;
}

uint64_t FaultInjectionFileSystem::op_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return op_count_;
}

void FaultInjectionFileSystem::CrashAtOp(uint64_t n, CrashMode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  if (n == 0) {
    crash_at_.reset();
    return;
  }
  crash_at_ = op_count_ + n;
  crash_mode_ = mode;
}

Status FaultInjectionFileSystem::CrashNow(CrashMode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  if (crashed_) return FailedPrecondition("CrashNow: the file system has already crashed");
  crash_at_.reset();
  snapshot_ = WorldCopier(mode).Copy(*world_);
  crashed_ = true;
  crashed_mode_ = mode;
  return Status::OK();
}

bool FaultInjectionFileSystem::crashed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return crashed_;
}

Status FaultInjectionFileSystem::Reboot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!crashed_) {
    std::string m = "Reboot: no simulated crash has happened";
    if (crash_at_.has_value()) {
      m += " (armed for op " + std::to_string(*crash_at_) + ", now at op " +
           std::to_string(op_count_) + ")";
    }
    return FailedPrecondition(std::move(m));
  }
  world_ = std::move(snapshot_);
  snapshot_.reset();
  crashed_ = false;
  if (crashed_mode_ == CrashMode::kPowerLoss) ++boots_;
  return Status::OK();
}

Result<std::string> FaultInjectionFileSystem::BootId() {
  std::lock_guard<std::mutex> lock(mu_);
  return "fault-boot-" + std::to_string(boots_);
}

void FaultInjectionFileSystem::FailOpAt(uint64_t n, int err) {
  std::lock_guard<std::mutex> lock(mu_);
  if (n == 0) {
    fail_at_.reset();
    return;
  }
  fail_at_ = op_count_ + n;
  fail_at_errno_ = err;
}

void FaultInjectionFileSystem::FailOpsOfKind(OpKind kind, int err) {
  std::lock_guard<std::mutex> lock(mu_);
  kind_failures_[kind] = err;
}

void FaultInjectionFileSystem::ClearFailures() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_.reset();
  kind_failures_.clear();
}

void FaultInjectionFileSystem::SetCapacityBytes(uint64_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = capacity;
}

void FaultInjectionFileSystem::SetCheckMappedWritesAllocated(bool check) {
  std::lock_guard<std::mutex> lock(mu_);
  check_mapped_writes_ = check;
}

namespace {

// Finds a regular file by path in `w`, for the test helpers.
Result<std::shared_ptr<Inode>> FindFile(const World& w, const std::string& path,
                                        std::string_view op) {
  RS_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitPath(path));
  int err = 0;
  std::shared_ptr<Inode> node = Walk(w, comps, comps.size(), &err);
  if (node == nullptr) return FsErrnoStatus(What(op, path), err);
  if (node->is_dir) return ErrnoStatus(What(op, path), EISDIR);
  return node;
}

}  // namespace

Result<std::string> FaultInjectionFileSystem::ReadWholeFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<Inode> f, FindFile(*world_, path, "read"));
  return std::string(reinterpret_cast<const char*>(f->buf), f->size);
}

Result<std::string> FaultInjectionFileSystem::ReadDurableFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<Inode> f, FindFile(*world_, path, "read durable"));
  return std::string(f->durable.begin(), f->durable.end());
}

Result<uint64_t> FaultInjectionFileSystem::AllocatedBytes(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<Inode> f, FindFile(*world_, path, "allocated bytes"));
  return f->allocated_blocks * kBlock;
}

Status FaultInjectionFileSystem::CorruptByte(const std::string& path, uint64_t offset,
                                             uint8_t xor_mask) {
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<Inode> f, FindFile(*world_, path, "corrupt"));
  if (offset >= f->size) {
    return OutOfRange("corrupt " + path + ": offset " + std::to_string(offset) +
                      " is past the file size " + std::to_string(f->size));
  }
  f->buf[offset] ^= xor_mask;
  if (offset < f->durable.size()) f->durable[offset] ^= xor_mask;
  // Data on disk lives in an allocated block (capacity is not enforced for the helper).
  if (!f->allocated[offset / kBlock]) {
    f->allocated[offset / kBlock] = true;
    ++f->allocated_blocks;
    if (f->nlink > 0) ++world_->used_blocks;
  }
  return Status::OK();
}

Status FaultInjectionFileSystem::TruncateTo(const std::string& path, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  RS_ASSIGN_OR_RETURN(std::shared_ptr<Inode> f, FindFile(*world_, path, "truncate"));
  RS_RETURN_IF_ERROR(ResizeLocked(*f, size, What("truncate", path)));
  f->durable.resize(size, 0);
  return Status::OK();
}

}  // namespace rocketstore
