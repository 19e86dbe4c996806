// IndexService::RecoverTo: making the index consistent with a recovered commit log
// without throwing away keys of messages that survived.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include "index_test_util.h"
#include "store/index/index_service.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::IndexRecord;
using ::rocketstore::testing::OffsetValues;
using ::rocketstore::testing::SmallIndexOptions;

constexpr int64_t kTs = 1700000000123;

// Record i: offset 100*i, stored 700 ms apart, keys "k<i>" and "s<i % 3>" (two entries).
std::vector<IndexRecord> MakeRecords(int n) {
  std::vector<IndexRecord> v;
  for (int i = 0; i < n; ++i) {
    IndexRecord r;
    r.offset = 100 * i;
    r.store_timestamp = kTs + 700 * i;
    r.keys = "k" + std::to_string(i) + " s" + std::to_string(i % 3);
    v.push_back(r);
  }
  return v;
}

std::vector<std::string> Tokens(const std::string& keys) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= keys.size()) {
    size_t sp = keys.find(' ', pos);
    if (sp == std::string::npos) sp = keys.size();
    if (sp > pos) out.push_back(keys.substr(pos, sp - pos));
    pos = sp + 1;
  }
  return out;
}

// Every key of every record below `end` is found exactly at its records' offsets (newest
// first, each once), and nothing at or past `end` is ever returned.
void ExpectIndexMatches(const IndexService& s, const std::vector<IndexRecord>& records, int64_t end,
                        const std::string& context) {
  std::map<std::string, std::vector<int64_t>> want;
  for (const IndexRecord& r : records) {
    for (const std::string& k : Tokens(r.keys)) {
      auto& v = want[k];
      if (r.offset < end) v.insert(v.begin(), r.offset);
    }
  }
  for (auto& [key, offsets] : want) {
    if (offsets.size() > 64) offsets.resize(64);
    EXPECT_EQ(OffsetValues(s.QueryOffsets("TopicTest", key, 64, 0, INT64_MAX).phy_offsets), offsets)
        << context << " key " << key;
  }
}

void DispatchAll(IndexService& s, const std::vector<IndexRecord>& records, int64_t end) {
  for (const IndexRecord& r : records) {
    if (r.offset >= end) break;
    ASSERT_OK(s.Dispatch(r.Request()));
  }
}

class IndexRecoveryTest : public ::testing::Test {
 protected:
  std::unique_ptr<IndexService> Open() {
    auto s = std::make_unique<IndexService>(fs_, clock_, options_);
    EXPECT_OK(s->Load());
    return s;
  }

  IndexOptions options_ = SmallIndexOptions(16, 8);  // 7 entries per file
  FakeClock clock_{kTs};
  FaultInjectionFileSystem fs_{clock_};
};

TEST_F(IndexRecoveryTest, CutsEntriesAtOrPastTheEnd) {
  const auto records = MakeRecords(20);  // 40 entries, 6 files; records span files
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  ASSERT_EQ(s->file_count(), 6u);

  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(1050)));
  // Records 0..10 survive; the entries of the last one (1000) are dropped as possibly
  // incomplete, so the index ends at 900.
  EXPECT_EQ(rep.last_indexed, PhysicalOffset(900));
  EXPECT_EQ(s->last_indexed_offset(), PhysicalOffset(900));
  EXPECT_EQ(rep.entries_dropped, 40 - 20);
  EXPECT_EQ(rep.files_deleted, 3);  // entries 21..40: files 4..6 hold only those
  EXPECT_EQ(s->file_count(), 3u);
  for (int i = 0; i < 20; ++i) {
    const auto got = s->QueryOffsets("TopicTest", "k" + std::to_string(i), 64, 0, INT64_MAX);
    for (PhysicalOffset o : got.phy_offsets) EXPECT_LT(o.value(), 1000);
    EXPECT_EQ(got.phy_offsets.size(), i < 10 ? 1u : 0u) << i;
  }
  // The store re-dispatches from last_indexed; earlier records are skipped.
  DispatchAll(*s, records, 1050);
  ExpectIndexMatches(*s, records, 1050, "after re-dispatch");
  // The commit log goes on from its recovered end.
  std::vector<IndexRecord> more = MakeRecords(30);
  for (size_t i = 11; i < more.size(); ++i) more[i].offset += 50;  // new records after 1050
  for (size_t i = 11; i < more.size(); ++i) ASSERT_OK(s->Dispatch(more[i].Request()));
  ExpectIndexMatches(*s, more, INT64_MAX, "after new appends");
}

TEST_F(IndexRecoveryTest, EverythingSurvivedKeepsAllButTheLastMessage) {
  const auto records = MakeRecords(10);
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(5000)));
  EXPECT_EQ(rep.last_indexed, PhysicalOffset(800));
  EXPECT_EQ(rep.entries_dropped, 2);
  EXPECT_EQ(rep.files_deleted, 0);
  DispatchAll(*s, records, INT64_MAX);
  ExpectIndexMatches(*s, records, INT64_MAX, "re-dispatched");
}

// After a clean shutdown (index flushed, everything dispatched) the cut of the last
// message is an undo, not a rebuild; a message whose keys straddle two files is cut in
// both; the result answers queries exactly as the rebuild does.
TEST_F(IndexRecoveryTest, CleanShutdownCutsByUndoWithTheRebuildsResult) {
  const auto records = MakeRecords(10);  // 20 entries: the last record's keys are 20, 21
  const IndexFilesState kStates[] = {IndexFilesState::kUnknown, IndexFilesState::kWritten,
                                     IndexFilesState::kComplete};
  for (IndexFilesState state : kStates) {
    const bool undo = state != IndexFilesState::kUnknown;
    FaultInjectionFileSystem fs(clock_);
    auto s = std::make_unique<IndexService>(fs, clock_, options_);
    ASSERT_OK(s->Load());
    DispatchAll(*s, records, INT64_MAX);
    ASSERT_OK(s->Flush());
    ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep,
                         s->RecoverTo(PhysicalOffset(5000), /*trusted_timestamp=*/0, state));
    EXPECT_EQ(rep.last_indexed, PhysicalOffset(800)) << undo;
    EXPECT_EQ(rep.entries_dropped, 2) << undo;
    // All three files were checked (timestamp 0 trusts none): all go through the undo,
    // only the last one loses entries.
    EXPECT_EQ(rep.files_cut_by_undo, undo ? 3 : 0);
    DispatchAll(*s, records, INT64_MAX);
    ExpectIndexMatches(*s, records, INT64_MAX, undo ? "undo" : "rebuild");
  }
  // Keys straddling files: 7 entries per file, record 3's keys are entries 7 and 8.
  for (IndexFilesState state : kStates) {
    const bool undo = state != IndexFilesState::kUnknown;
    FaultInjectionFileSystem fs(clock_);
    auto s = std::make_unique<IndexService>(fs, clock_, options_);
    ASSERT_OK(s->Load());
    DispatchAll(*s, records, 400);  // records 0..3: entries 1..8
    ASSERT_OK(s->Flush());
    ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep,
                         s->RecoverTo(PhysicalOffset(5000), /*trusted_timestamp=*/0, state));
    EXPECT_EQ(rep.last_indexed, PhysicalOffset(200)) << undo;
    EXPECT_EQ(rep.entries_dropped, 2) << undo;
    DispatchAll(*s, records, INT64_MAX);
    ExpectIndexMatches(*s, records, INT64_MAX, undo ? "undo, straddling" : "rebuild, straddling");
  }
}

TEST_F(IndexRecoveryTest, EndBeforeEverythingDeletesAllFiles) {
  const auto records = MakeRecords(10);
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(0)));
  EXPECT_EQ(rep.last_indexed, std::nullopt);
  EXPECT_EQ(s->file_count(), 0u);
  ASSERT_OK_AND_ASSIGN(auto names, fs_.ListDir(options_.dir));
  EXPECT_TRUE(names.empty());
  DispatchAll(*s, records, INT64_MAX);
  ExpectIndexMatches(*s, records, INT64_MAX, "rebuilt from scratch");
}

TEST_F(IndexRecoveryTest, EmptyIndexRecoversToNothing) {
  auto s = Open();
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(100)));
  EXPECT_EQ(rep.last_indexed, std::nullopt);
  EXPECT_EQ(rep.files_checked, 0);
}

// A damaged entry ends the index there: later entries and files are dropped and rebuilt by
// re-dispatch; earlier ones are kept.
TEST_F(IndexRecoveryTest, DamagedEntryEndsTheIndexThere) {
  const auto records = MakeRecords(20);
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  const auto files = s->Files();
  // File 2, entry 3 (the 10th entry overall: record 4's second key) gets a negative offset.
  const auto& g = files[1]->geometry();
  ASSERT_OK(fs_.CorruptByte(files[1]->path(),
                            g.EntryPosition(3) + format::kIndexEntryPhyOffsetOffset, 0x80));
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(5000)));
  // Entries 1..9 are valid; record 4 (entry 9 = its first key) is the last surviving
  // message and is dropped with it: the index ends at record 3.
  EXPECT_EQ(rep.last_indexed, PhysicalOffset(300));
  EXPECT_EQ(s->file_count(), 2u);
  EXPECT_EQ(rep.files_deleted, 4);
  for (PhysicalOffset o : s->QueryOffsets("TopicTest", "s1", 64, 0, INT64_MAX).phy_offsets) {
    EXPECT_LE(o.value(), 300);
  }
  DispatchAll(*s, records, INT64_MAX);
  ExpectIndexMatches(*s, records, INT64_MAX, "after re-dispatch");
}

// Slots that did not reach the disk are rebuilt from the entries.
TEST_F(IndexRecoveryTest, StaleSlotTableIsRebuilt) {
  const auto records = MakeRecords(3);
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  auto f = s->Files().back();
  const int32_t slot = format::IndexSlotOf(format::IndexKeyHash("TopicTest#k1"), 16);
  const int32_t v = f->Slot(slot);
  ASSERT_GT(v, 0);
  for (int b = 0; b < 4; ++b) {
    const uint8_t byte = static_cast<uint8_t>(static_cast<uint32_t>(v) >> (24 - 8 * b));
    if (byte) ASSERT_OK(fs_.CorruptByte(f->path(), f->geometry().SlotPosition(slot) + b, byte));
  }
  EXPECT_TRUE(s->QueryOffsets("TopicTest", "k1", 64, 0, INT64_MAX).phy_offsets.empty());
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(300)));
  EXPECT_EQ(rep.files_checked, 1);
  DispatchAll(*s, records, 300);
  ExpectIndexMatches(*s, records, 300, "slots rebuilt");
}

// A stale header (count lower than the entries written) only costs re-dispatch.
TEST_F(IndexRecoveryTest, LostHeaderUpdateDropsOnlyUncountedEntries) {
  const auto records = MakeRecords(3);
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);  // 6 entries, count 7
  auto f = s->Files().back();
  ASSERT_OK(fs_.CorruptByte(f->path(), format::kIndexCountOffset + 3, 7 ^ 4));  // count 4
  s.reset();
  s = Open();
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(300)));
  EXPECT_EQ(rep.last_indexed, PhysicalOffset(0));  // entries 1..3: record 0, record 1 half
  // The stale entries past the cut are zeroed so no later recovery can revive them.
  auto g = s->Files().back();
  for (int i = 3; i < 7; ++i) EXPECT_EQ(g->Entry(i), format::IndexEntry{}) << i;
  DispatchAll(*s, records, 300);
  ExpectIndexMatches(*s, records, 300, "after re-dispatch");
}

TEST_F(IndexRecoveryTest, FlushedFullFilesAreTrusted) {
  const auto records = MakeRecords(12);  // 24 entries: 3 full files + 3 entries
  auto s = Open();
  DispatchAll(*s, records, INT64_MAX);
  ASSERT_OK(s->Flush());
  const int64_t checkpoint = s->flushed_full_file_timestamp();
  EXPECT_EQ(checkpoint, s->Files()[2]->end_timestamp());
  s.reset();
  s = Open();
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(1200), checkpoint));
  // Files 1 and 2 end before the checkpoint time; file 3 ends exactly at it (it could have
  // a same-millisecond unflushed successor in general), so it is checked like file 4.
  EXPECT_EQ(rep.files_trusted, 2);
  EXPECT_EQ(rep.files_checked, 2);
  EXPECT_EQ(rep.last_indexed, PhysicalOffset(1000));
  DispatchAll(*s, records, INT64_MAX);
  ExpectIndexMatches(*s, records, INT64_MAX, "trusted");
}

// Crash at every file-system operation of a workload (dispatch, rolls, periodic flushes),
// lose everything that was not durable, recover, re-dispatch: every key of every surviving
// record is found exactly once and nothing past the commit-log end is returned.
class IndexCrashLoopTest : public IndexRecoveryTest,
                           public ::testing::WithParamInterface<CrashMode> {};

TEST_P(IndexCrashLoopTest, EveryCrashPointRecovers) {
  const auto records = MakeRecords(24);
  const int64_t ends[] = {INT64_MAX, 1250};  // whole log survived / log cut at 1250
  int points = 0;
  int kept_some = 0;  // crash points after which recovery kept indexed entries
  int undone = 0;     // files cut by undo
  for (uint64_t n = 1;; ++n) {
    FakeClock clock(kTs);
    FaultInjectionFileSystem fs(clock);
    fs.CrashAtOp(n, GetParam());
    int64_t checkpoint = 0;  // the checkpoint's indexMsgTimestamp, as the store keeps it
    {
      IndexService s(fs, clock, options_);
      Status st = s.Load();
      for (size_t i = 0; st.ok() && i < records.size(); ++i) {
        clock.AdvanceMillis(700);
        st = s.Dispatch(records[i].Request());
        if (st.ok() && i % 5 == 4) {
          st = s.Flush();
          if (st.ok()) checkpoint = s.flushed_full_file_timestamp();
        }
      }
    }
    if (!fs.crashed()) break;
    ++points;
    ASSERT_OK(fs.Reboot());
    for (int64_t end : ends) {
      // Each end on its own copy of the crashed state would need a snapshot; instead the
      // smaller end is applied after the larger one, which is also a valid sequence.
      IndexService s(fs, clock_, options_);
      ASSERT_OK(s.Load());
      // A process crash leaves every written byte (the page cache survives): the store
      // recovers such files by undo.
      const IndexFilesState state = GetParam() == CrashMode::kProcessCrash
                                        ? IndexFilesState::kWritten
                                        : IndexFilesState::kUnknown;
      ASSERT_OK_AND_ASSIGN(
          IndexRecoveryReport rep,
          s.RecoverTo(PhysicalOffset(end == INT64_MAX ? 1 << 30 : end), checkpoint, state));
      undone += rep.files_cut_by_undo;
      if (state == IndexFilesState::kWritten && end == INT64_MAX) {
        // Nothing lost and nothing cut short by the end: no table needs recomputing.
        EXPECT_EQ(rep.files_rebuilt, 0) << "crash at op " << n;
      }
      if (rep.last_indexed) {
        EXPECT_LT(rep.last_indexed->value(), end);
        if (end == INT64_MAX) ++kept_some;
      }
      DispatchAll(s, records, end);
      ExpectIndexMatches(s, records, end, "crash at op " + std::to_string(n));
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(points, 50);
  // Not a degenerate "delete everything": most crash points keep indexed keys.
  EXPECT_GT(kept_some, points / 2) << kept_some << " of " << points;
  // After a process crash the undo does the cutting (falling back to a rebuild only when
  // a table does not match); after a power loss it never runs.
  if (GetParam() == CrashMode::kProcessCrash) {
    EXPECT_GT(undone, points / 2) << undone << " files cut by undo at " << points << " points";
  } else {
    EXPECT_EQ(undone, 0);
  }
}

// Recovery after a clean shutdown cuts by undo, and runs with no abort file: a crash in
// the middle of it is followed by another "clean" recovery of half-undone files. Crash at
// every operation of the first recovery, recover again (clean), re-dispatch: the index
// still matches exactly.
TEST_P(IndexCrashLoopTest, CrashDuringARecoveryAfterACleanShutdown) {
  const auto records = MakeRecords(24);
  int points = 0;
  for (int64_t end : {int64_t{1} << 30, int64_t{1250}}) {
    for (uint64_t n = 1;; ++n) {
      FakeClock clock(kTs);
      FaultInjectionFileSystem fs(clock);
      int64_t checkpoint = 0;
      {
        IndexService s(fs, clock, options_);
        ASSERT_OK(s.Load());
        for (const IndexRecord& r : records) {
          clock.AdvanceMillis(700);
          ASSERT_OK(s.Dispatch(r.Request()));
        }
        ASSERT_OK(s.Flush());  // the clean shutdown
        checkpoint = s.flushed_full_file_timestamp();
      }
      fs.CrashAtOp(n, GetParam());
      {
        IndexService s(fs, clock, options_);
        Status st = s.Load();
        if (st.ok()) {
          st = s.RecoverTo(PhysicalOffset(end), checkpoint, IndexFilesState::kComplete).status();
        }
      }
      if (!fs.crashed()) break;
      ++points;
      ASSERT_OK(fs.Reboot());
      IndexService s(fs, clock, options_);
      ASSERT_OK(s.Load());
      ASSERT_OK(s.RecoverTo(PhysicalOffset(end), checkpoint, IndexFilesState::kComplete).status());
      DispatchAll(s, records, end);
      ExpectIndexMatches(s, records, end, "crash at op " + std::to_string(n));
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(points, 4);
  std::printf("crash points during recovery after a clean shutdown: %d\n", points);
}

INSTANTIATE_TEST_SUITE_P(Modes, IndexCrashLoopTest,
                         ::testing::Values(CrashMode::kPowerLoss, CrashMode::kProcessCrash),
                         [](const auto& info) {
                           return info.param == CrashMode::kPowerLoss ? "PowerLoss"
                                                                      : "ProcessCrash";
                         });

}  // namespace
}  // namespace rocketstore
