// File: base/thread_name.h
//
// Names the calling thread for the operating system, so that `top -H`, `perf`, `gdb` and
// /proc/<pid>/task/*/comm tell rocketstore's threads apart ("rs-io", "dispatch", ...).
// Linux keeps at most 15 bytes; longer names are cut. Best effort: a failure is harmless
// and ignored (the name is a debugging aid, never used for logic).
//
// Thread-safety: names only the calling thread.
#pragma once

#include <pthread.h>

#include <string>
#include <string_view>

namespace rocketstore {

inline void SetCurrentThreadName(std::string_view name) {
  constexpr size_t kMaxLinuxThreadName = 15;
  const std::string cut(name.substr(0, kMaxLinuxThreadName));
  (void)pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace rocketstore
