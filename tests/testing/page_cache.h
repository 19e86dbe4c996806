// File: testing/page_cache.h
//
// What the page cache holds, for tests of code that must drop pages (the commit log's
// resident window) or must not read them in (recovery past the end of the log).
#pragma once

#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rocketstore::testing {

// How many pages of the mapping [p, p + len) are in the page cache (mincore); SIZE_MAX
// if mincore fails.
inline size_t ResidentPages(const uint8_t* p, size_t len) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((len + page - 1) / page);
  if (::mincore(const_cast<uint8_t*>(p), len, vec.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char v : vec) n += v & 1;
  return n;
}

// Whether `dir` is on tmpfs, whose pages are the files themselves (never dropped).
inline bool OnTmpfs(const std::string& dir) {
  struct statfs st {};
  constexpr long kTmpfsMagic = 0x01021994;
  return ::statfs(dir.c_str(), &st) == 0 && st.f_type == kTmpfsMagic;
}

}  // namespace rocketstore::testing
