// File: io/fault_injection_internal.h
//
// What the two halves of FaultInjectionFileSystem share (fault_injection_file_system.cc:
// the file system and its crash model; fault_injection_handles.cc: the File, MappedRegion
// and FileLock handles it gives out): the in-memory inode and world, and a few helpers.
// Internal to io/.
//
// Thread-safety: every field of Inode and World is guarded by the file system's mu_.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "io/fault_injection_file_system.h"

namespace rocketstore {

struct FaultInjectionFileSystem::Inode {
  explicit Inode(bool dir) : is_dir(dir) {}
  ~Inode() { std::free(buf); }
  Inode(const Inode&) = delete;
  Inode& operator=(const Inode&) = delete;

  const bool is_dir;
  int64_t mtime_millis = 0;
  uint32_t nlink = 0;  // live directory entries naming this inode

  // Files. buf holds `capacity` bytes (calloc); bytes in [size, capacity) are zero.
  uint8_t* buf = nullptr;
  uint64_t capacity = 0;
  uint64_t size = 0;
  std::vector<uint8_t> durable;      // durable content; its size is the durable size
  std::multiset<uint64_t> map_ends;  // end offsets (in the file) of live mappings
  // Disk blocks (kBlock bytes each) of [0, size): allocated[b] says whether block b is
  // allocated (Allocate, PWrite) or a hole (sparse). Always BlocksFor(size) entries.
  // Invariant: every byte of a hole reads zero unless it was written through a mapping.
  std::vector<bool> allocated;
  uint64_t allocated_blocks = 0;  // number of true entries in `allocated`
  // [wmap_lo, wmap_hi): the union of the ranges mapped writable since File::Sync last
  // found no write through a mapping into a hole (what File::Sync has to check).
  uint64_t wmap_lo = UINT64_MAX;
  uint64_t wmap_hi = 0;
  uint32_t writable_maps = 0;  // live writable mappings

  // Directories.
  std::map<std::string, std::shared_ptr<Inode>> entries;
  std::map<std::string, std::shared_ptr<Inode>> durable_entries;
};

struct FaultInjectionFileSystem::World {
  std::shared_ptr<Inode> root = std::make_shared<Inode>(/*dir=*/true);
  std::set<std::string> locks;  // normalised paths with a live FileLock
  uint64_t used_blocks = 0;     // sum of allocated_blocks of files with nlink > 0
};

namespace fault_injection_internal {

// The file system block size: the unit of allocation and of capacity accounting.
inline constexpr uint64_t kBlock = 4096;

// Number of blocks covering [0, size).
inline uint64_t BlocksFor(uint64_t size) { return size / kBlock + (size % kBlock != 0 ? 1 : 0); }

// Whether the n bytes at p are all zero.
bool IsZero(const uint8_t* p, uint64_t n);

// "op path", the prefix of every error message.
std::string What(std::string_view op, const std::string& path);

// kFailedPrecondition if a byte of [start, end) (clipped to the file size) in a hole is
// not zero: only a write through a mapping can have put it there (PWrite allocates, a
// hole reads zero), and on a real full disk that write would have raised SIGBUS.
Status CheckNoMappedWritesIntoHoles(const FaultInjectionFileSystem::Inode& f, uint64_t start,
                                    uint64_t end, const std::string& what);

// The handles (fault_injection_handles.cc).
std::unique_ptr<File> NewFaultFile(FaultInjectionFileSystem* fs,
                                   std::shared_ptr<FaultInjectionFileSystem::World> world,
                                   std::shared_ptr<FaultInjectionFileSystem::Inode> inode,
                                   std::string path, bool writable);
std::unique_ptr<FileLock> NewFaultFileLock(FaultInjectionFileSystem* fs,
                                           std::shared_ptr<FaultInjectionFileSystem::World> world,
                                           std::string key);

}  // namespace fault_injection_internal
}  // namespace rocketstore
