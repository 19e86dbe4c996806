// The FaultInjectionFileSystem tests' fixture (fault_injection_file_system_test.cc,
// fault_injection_resources_test.cc): a fault-injecting file system on a fake clock with
// a directory /d, and helpers to create, read and crash.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/clock.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore::fault_injection_testing {

class FaultInjectionFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_.CreateDirs("/d")); }

  std::unique_ptr<File> Create(const std::string& path) {
    OpenOptions o;
    o.create = true;
    auto f = fs_.OpenFile(path, o);
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? std::move(f).value() : nullptr;
  }

  // Creates `path` with `content`, fully durable (data synced, entry synced).
  void CreateDurable(const std::string& path, const std::string& content) {
    auto f = Create(path);
    ASSERT_NE(f, nullptr);
    ASSERT_OK(f->PWrite(0, content.data(), content.size()));
    ASSERT_OK(f->Sync());
    ASSERT_OK(fs_.SyncDir("/d"));
  }

  std::string Read(const std::string& path) {
    auto r = fs_.ReadWholeFile(path);
    return r.ok() ? *r : "<" + r.status().ToString() + ">";
  }

  // Bytes allocated to a file; UINT64_MAX (with a failure) if it cannot be found.
  uint64_t Allocated(const std::string& path) {
    auto r = fs_.AllocatedBytes(path);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : UINT64_MAX;
  }

  void Crash(CrashMode mode) {
    ASSERT_OK(fs_.CrashNow(mode));
    EXPECT_TRUE(fs_.crashed());
    ASSERT_OK(fs_.Reboot());
    EXPECT_FALSE(fs_.crashed());
  }

  FakeClock clock_;
  FaultInjectionFileSystem fs_{clock_};
};

}  // namespace rocketstore::fault_injection_testing
