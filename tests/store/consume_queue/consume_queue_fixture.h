// The ConsumeQueue tests' shared workload and fixture (consume_queue_test.cc,
// consume_queue_recovery_test.cc): tiny files in a fault-injecting file system, unit q
// pointing at a 100-byte record at q * 100 with tag q.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/coding.h"
#include "io/fault_injection_file_system.h"
#include "store/consume_queue/consume_queue.h"
#include "store/segment/file_names.h"
#include "testing/status_matchers.h"

namespace rocketstore::consume_queue_testing {

using Unit = ConsumeQueue::Unit;

inline constexpr char kRoot[] = "/store";
inline constexpr char kTopic[] = "TopicTest";

inline ConsumeQueue::Options Tiny(int64_t units_per_file = 10) {
  ConsumeQueue::Options o;
  o.units_per_file = units_per_file;
  o.reserve_chunk_bytes = 4096;
  return o;
}

// The workload of most tests: unit q points at a 100-byte record at q * 100, tag q.
inline Unit Expected(int64_t q) { return Unit{PhysicalOffset(q * 100), 100, q}; }

inline Status PutExpected(ConsumeQueue& cq, int64_t q) {
  const Unit u = Expected(q);
  return cq.PutUnit(u.offset, u.size, u.tags_code, QueueOffset(q));
}

class ConsumeQueueTest : public ::testing::Test {
 protected:
  std::string Dir() const { return ConsumeQueueDir(kRoot, kTopic, 0); }
  std::string FilePath(int64_t start) const { return JoinPath(Dir(), SegmentFileName(start)); }

  std::unique_ptr<ConsumeQueue> OpenQueue(const ConsumeQueue::Options& options = Tiny()) {
    auto cq = ConsumeQueue::Open(fs_, kRoot, kTopic, 0, options);
    EXPECT_TRUE(cq.ok()) << cq.status();
    return cq.ok() ? std::move(cq).value() : nullptr;
  }
  // Reopens and recovers, as a restart does.
  std::unique_ptr<ConsumeQueue> Reopen(const ConsumeQueue::Options& options = Tiny()) {
    auto cq = OpenQueue(options);
    if (cq) {
      EXPECT_OK(cq->Recover());
    }
    return cq;
  }
  void PutRange(ConsumeQueue& cq, int64_t from, int64_t to) {
    for (int64_t q = from; q < to; ++q) ASSERT_OK(PutExpected(cq, q));
  }
  void ExpectUnits(const ConsumeQueue& cq, int64_t from, int64_t to) {
    for (int64_t q = from; q < to; ++q) {
      auto u = cq.GetUnit(QueueOffset(q));
      ASSERT_TRUE(u.ok()) << "queue offset " << q << ": " << u.status();
      EXPECT_EQ(*u, Expected(q)) << "queue offset " << q;
    }
  }
  // Overwrites bytes of a file in place (both the live and, once synced, durable content).
  void WriteBytes(const std::string& path, uint64_t offset, const std::string& bytes) {
    OpenOptions oo;
    oo.writable = true;
    ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile(path, oo));
    ASSERT_OK(f->PWrite(offset, bytes.data(), bytes.size()));
    ASSERT_OK(f->Sync());
  }
  std::string FileBytes(const std::string& path, size_t offset, size_t n) {
    auto content = fs_.ReadWholeFile(path);
    EXPECT_TRUE(content.ok()) << content.status();
    return content.ok() ? HexUpper(content->data() + offset, n) : "";
  }

  FaultInjectionFileSystem fs_;
};

// ---- failure paths ----------------------------------------------------------------------

}  // namespace rocketstore::consume_queue_testing
