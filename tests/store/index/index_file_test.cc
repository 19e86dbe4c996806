#include "store/index/index_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/coding.h"
#include "io/fault_injection_file_system.h"
#include "testing/status_matchers.h"

namespace rocketstore {
namespace {

using format::IndexGeometry;
using ::rocketstore::testing::StatusIs;

constexpr int64_t kTs = 1700000000123;  // spec §12 store timestamp
const std::string kUniq = "TopicTest#7F00000112340BADCAFE0001E2400001";

std::vector<int64_t> Values(const std::vector<PhysicalOffset>& v) {
  std::vector<int64_t> out;
  for (PhysicalOffset o : v) out.push_back(o.value());
  return out;
}

class IndexFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(fs_.CreateDirs("/index")); }

  IndexFile::Options Opts(int32_t slots = 8, int32_t entries = 16) {
    IndexFile::Options o;
    o.geometry = IndexGeometry{slots, entries};
    o.reserve_chunk_bytes = 4096;
    return o;
  }
  std::unique_ptr<IndexFile> NewFile(const IndexFile::Options& o, int64_t prev_phy = 0,
                                     int64_t prev_ts = 0,
                                     const std::string& name = "20231114221320123") {
    auto f = IndexFile::Create(fs_, "/index", name, o, prev_phy, prev_ts);
    EXPECT_OK(f.status());
    return f.ok() ? std::move(f).value() : nullptr;
  }
  static void Put(IndexFile& f, const std::string& key, int64_t phy, int64_t ts) {
    Result<bool> r = f.PutKey(key, PhysicalOffset(phy), ts);
    ASSERT_OK(r.status());
    ASSERT_TRUE(*r) << "file full";
  }
  static std::vector<int64_t> Select(const IndexFile& f, const std::string& key, size_t max = 64,
                                     int64_t begin = 0, int64_t end = INT64_MAX) {
    std::vector<PhysicalOffset> out;
    f.SelectPhyOffsets(key, max, begin, end, &out);
    return Values(out);
  }
  std::string Hex(const uint8_t* p, size_t n) { return HexUpper(p, n); }
  // Entry i as "keyHash phyOffset timeDiff prevIndex" in hex.
  static std::string EntryHex(const IndexFile& f, int32_t i) {
    const uint8_t* e = f.data() + f.geometry().EntryPosition(i);
    return HexUpper(e, 4) + " " + HexUpper(e + 4, 8) + " " + HexUpper(e + 12, 4) + " " +
           HexUpper(e + 16, 4);
  }

  FaultInjectionFileSystem fs_;
};

// Spec §12.3: 8 slots, 16 entries; record A (KEYS=k1) at 0, record B (UNIQ_KEY, KEYS=k1)
// at 256, all stored at 1700000000123. Dispatch order: UNIQ_KEY first, then KEYS.
TEST_F(IndexFileTest, ExampleCByteForByte) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "TopicTest#k1", 0, kTs);
  Put(*f, kUniq, 256, kTs);
  Put(*f, "TopicTest#k1", 256, kTs);

  const uint8_t* d = f->data();
  EXPECT_EQ(Hex(d, 40),
            "0000018BCFE5687B"  // beginTimestamp
            "0000018BCFE5687B"  // endTimestamp
            "0000000000000000"  // beginPhyOffset
            "0000000000000100"  // endPhyOffset 256
            "00000002"          // hashSlotCount
            "00000004");        // indexCount
  EXPECT_EQ(Hex(d + 40, 32),
            "00000003"  // slot 0 -> entry 3
            "00000002"  // slot 1 -> entry 2
            "000000000000000000000000000000000000000000000000");
  EXPECT_EQ(Hex(d + 72, 20), std::string(40, '0'));  // entry 0 unused
  EXPECT_EQ(EntryHex(*f, 1), "0029E6A8 0000000000000000 00000000 00000000");
  EXPECT_EQ(EntryHex(*f, 2), "6948C711 0000000000000100 00000000 00000000");
  EXPECT_EQ(EntryHex(*f, 3), "0029E6A8 0000000000000100 00000000 00000001");
  for (size_t i = 152; i < f->geometry().FileSize(); ++i) ASSERT_EQ(d[i], 0) << i;

  EXPECT_EQ(f->hash_slot_count(), 2);
  EXPECT_EQ(f->index_count(), 4);
  EXPECT_EQ(f->entry_count(), 3);
  EXPECT_EQ(Select(*f, "TopicTest#k1"), (std::vector<int64_t>{256, 0}));
  EXPECT_EQ(Select(*f, kUniq), (std::vector<int64_t>{256}));
  EXPECT_TRUE(Select(*f, "TopicTest#k2").empty());

  // The same bytes reach the file (the page cache), and after Flush the disk.
  ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
  EXPECT_EQ(live, std::string(reinterpret_cast<const char*>(d), f->geometry().FileSize()));
  EXPECT_TRUE(f->dirty());
  ASSERT_OK(f->Flush());
  EXPECT_FALSE(f->dirty());
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(f->path()));
  EXPECT_EQ(durable, live);
}

TEST_F(IndexFileTest, NewFileHeaderStartsFromPreviousEndValues) {
  auto f = NewFile(Opts(), /*prev_phy=*/1000, /*prev_ts=*/kTs);
  ASSERT_NE(f, nullptr);
  // begin = end = previous end values; hashSlotCount and indexCount 0 until the first put.
  EXPECT_EQ(Hex(f->data(), 40),
            "0000018BCFE5687B0000018BCFE5687B00000000000003E800000000000003E8"
            "0000000000000000");
  EXPECT_EQ(f->index_count(), 1);
  EXPECT_EQ(f->begin_phy_offset(), 1000);
  EXPECT_EQ(f->end_timestamp(), kTs);
  // The header is durable at creation (before any flush).
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(f->path()));
  EXPECT_EQ(durable.size(), f->geometry().FileSize());
  EXPECT_EQ(HexUpper(durable.data(), 40), Hex(f->data(), 40));

  // Values <= 0 are not applied.
  auto g = NewFile(Opts(), 0, -1, "20231114221320124");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(Hex(g->data(), 40), std::string(80, '0'));
}

// The first entry's timeDiff is measured against the previous file's end timestamp; only
// then does beginTimestamp become the entry's own time (RocketMQ's quirk).
TEST_F(IndexFileTest, FirstEntryTimeDiffQuirk) {
  auto f = NewFile(Opts(), 500, kTs);
  ASSERT_NE(f, nullptr);
  Put(*f, "T#a", 600, kTs + 5500);
  Put(*f, "T#b", 700, kTs + 7600);
  EXPECT_EQ(f->Entry(1).time_diff, 5);  // (kTs + 5500 - kTs) / 1000
  EXPECT_EQ(f->begin_timestamp(), kTs + 5500);
  EXPECT_EQ(f->begin_phy_offset(), 600);
  EXPECT_EQ(f->Entry(2).time_diff, 2);  // against the new beginTimestamp
  // A lookup therefore dates the first entry 5 s late: [kTs+10500, kTs+10500] finds it.
  EXPECT_EQ(Select(*f, "T#a", 64, kTs + 10500, kTs + 10500), (std::vector<int64_t>{600}));
  EXPECT_TRUE(Select(*f, "T#a", 64, kTs + 5500, kTs + 6000).empty());
}

TEST_F(IndexFileTest, FirstFileHasZeroTimeDiffForItsFirstEntry) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "T#a", 0, kTs + 9999);
  EXPECT_EQ(f->Entry(1).time_diff, 0);  // beginTimestamp was 0
  EXPECT_EQ(f->begin_timestamp(), kTs + 9999);
}

// Keys whose hashes differ but share a slot form one chain; each lookup returns only its
// own key's entries, newest first.
TEST_F(IndexFileTest, SlotCollisionChain) {
  auto f = NewFile(Opts(8, 64));
  ASSERT_NE(f, nullptr);
  const std::string a = "T#k0";
  const int32_t slot = format::IndexSlotOf(format::IndexKeyHash(a), 8);
  std::string b;
  for (int i = 1; b.empty(); ++i) {
    std::string k = "T#k" + std::to_string(i);
    if (format::IndexSlotOf(format::IndexKeyHash(k), 8) == slot &&
        format::IndexKeyHash(k) != format::IndexKeyHash(a)) {
      b = k;
    }
  }
  Put(*f, a, 100, kTs);
  Put(*f, b, 200, kTs);
  Put(*f, a, 300, kTs);
  Put(*f, b, 400, kTs);
  EXPECT_EQ(f->Slot(slot), 4);
  EXPECT_EQ(f->Entry(4).prev_index, 3);
  EXPECT_EQ(f->Entry(3).prev_index, 2);
  EXPECT_EQ(f->Entry(2).prev_index, 1);
  EXPECT_EQ(f->Entry(1).prev_index, 0);
  EXPECT_EQ(f->hash_slot_count(), 1);
  EXPECT_EQ(Select(*f, a), (std::vector<int64_t>{300, 100}));
  EXPECT_EQ(Select(*f, b), (std::vector<int64_t>{400, 200}));
  EXPECT_EQ(Select(*f, a, 1), (std::vector<int64_t>{300}));
}

// Equal hashes ("Aa" / "BB") cannot be told apart: both are candidates.
TEST_F(IndexFileTest, EqualHashesAreBothCandidates) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "T#Aa", 100, kTs);
  Put(*f, "T#BB", 200, kTs);
  EXPECT_EQ(Select(*f, "T#Aa"), (std::vector<int64_t>{200, 100}));
  EXPECT_EQ(Select(*f, "T#BB"), (std::vector<int64_t>{200, 100}));
}

// The collision-chain walk-through of docs/format/index_file.md, byte for byte.
TEST_F(IndexFileTest, CollisionChainDocExample) {
  auto f = NewFile(Opts(8, 16));
  ASSERT_NE(f, nullptr);
  Put(*f, "T#Aa", 0, kTs);
  Put(*f, "T#BB", 100, kTs + 1000);
  Put(*f, "T#f", 200, kTs + 2000);
  Put(*f, "T#Aa", 300, kTs + 3000);
  const uint8_t* d = f->data();
  EXPECT_EQ(Hex(d, 40),
            "0000018BCFE5687B0000018BCFE574330000000000000000000000000000012C0000000100000005");
  EXPECT_EQ(Hex(d + 40, 32), std::string(56, '0') + "00000004");  // only slot 7 used
  EXPECT_EQ(EntryHex(*f, 1), "0026BACF 0000000000000000 00000000 00000000");
  EXPECT_EQ(EntryHex(*f, 2), "0026BACF 0000000000000064 00000001 00000001");
  EXPECT_EQ(EntryHex(*f, 3), "00013FF7 00000000000000C8 00000002 00000002");
  EXPECT_EQ(EntryHex(*f, 4), "0026BACF 000000000000012C 00000003 00000003");
  EXPECT_EQ(Select(*f, "T#Aa"), (std::vector<int64_t>{300, 100, 0}));  // BB is a candidate
  EXPECT_EQ(Select(*f, "T#f"), (std::vector<int64_t>{200}));
  EXPECT_EQ(Select(*f, "T#Aa", 64, kTs + 1000, kTs + 2500), (std::vector<int64_t>{100}));
}

TEST_F(IndexFileTest, HoldsIndexNumMinusOneEntries) {
  auto f = NewFile(Opts(4, 5));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 4; ++i) Put(*f, "T#k" + std::to_string(i), i * 10, kTs);
  EXPECT_TRUE(f->IsFull());
  EXPECT_EQ(f->index_count(), 5);
  ASSERT_OK_AND_ASSIGN(bool stored, f->PutKey("T#x", PhysicalOffset(99), kTs));
  EXPECT_FALSE(stored);
  EXPECT_EQ(f->index_count(), 5);
  EXPECT_EQ(f->end_phy_offset(), 30);
  EXPECT_EQ(Select(*f, "T#k3"), (std::vector<int64_t>{30}));
}

TEST_F(IndexFileTest, TimeRangeWithinAFile) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 5; ++i) Put(*f, "T#k", i * 100, kTs + i * 10'000);
  // Entry times are kTs + 10 s * i exactly.
  EXPECT_EQ(Select(*f, "T#k", 64, kTs + 10'000, kTs + 30'000),
            (std::vector<int64_t>{300, 200, 100}));
  EXPECT_EQ(Select(*f, "T#k", 64, kTs + 35'000, INT64_MAX), (std::vector<int64_t>{400}));
  EXPECT_TRUE(Select(*f, "T#k", 64, 0, kTs - 1).empty());
  // max_num counts what the caller's vector already holds.
  std::vector<PhysicalOffset> out = {PhysicalOffset(7)};
  f->SelectPhyOffsets("T#k", 3, 0, INT64_MAX, &out);
  EXPECT_EQ(Values(out), (std::vector<int64_t>{7, 400, 300}));
}

TEST_F(IndexFileTest, IsTimeMatched) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "T#a", 0, 1000);
  Put(*f, "T#a", 1, 2000);
  EXPECT_TRUE(f->IsTimeMatched(500, 2500));    // covers the file
  EXPECT_TRUE(f->IsTimeMatched(1500, 9000));   // begin inside
  EXPECT_TRUE(f->IsTimeMatched(0, 1000));      // end on the begin
  EXPECT_TRUE(f->IsTimeMatched(2000, 2000));   // begin on the end
  EXPECT_FALSE(f->IsTimeMatched(2001, 3000));  // after
  EXPECT_FALSE(f->IsTimeMatched(0, 999));      // before
}

TEST_F(IndexFileTest, ReopenGivesSameAnswers) {
  std::string path;
  {
    auto f = NewFile(Opts());
    ASSERT_NE(f, nullptr);
    Put(*f, "TopicTest#k1", 0, kTs);
    Put(*f, kUniq, 256, kTs);
    Put(*f, "TopicTest#k1", 256, kTs);
    path = f->path();
  }
  ASSERT_OK_AND_ASSIGN(auto f, IndexFile::Open(fs_, path, Opts()));
  EXPECT_EQ(f->name(), "20231114221320123");
  EXPECT_EQ(f->header().index_count, 4);
  EXPECT_EQ(f->end_phy_offset(), 256);
  EXPECT_EQ(Select(*f, "TopicTest#k1"), (std::vector<int64_t>{256, 0}));
  // Writing continues after the reopened entries.
  Put(*f, "TopicTest#k1", 512, kTs);
  EXPECT_EQ(Select(*f, "TopicTest#k1"), (std::vector<int64_t>{512, 256, 0}));
}

TEST_F(IndexFileTest, OpenRejectsOtherGeometry) {
  std::string path;
  {
    auto f = NewFile(Opts(8, 16));
    ASSERT_NE(f, nullptr);
    path = f->path();
  }
  Result<std::unique_ptr<IndexFile>> r = IndexFile::Open(fs_, path, Opts(8, 17));
  EXPECT_THAT(r, StatusIs(StatusCode::kCorruption));
  EXPECT_NE(r.status().message().find("392 bytes"), std::string::npos) << r.status();
}

TEST_F(IndexFileTest, CreateRefusesAnExistingName) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(IndexFile::Create(fs_, "/index", f->name(), Opts(), 0, 0),
              StatusIs(StatusCode::kAlreadyExists));
}

// A damaged file cannot send a reader outside the mapping or into a loop.
TEST_F(IndexFileTest, DamagedNumbersAreBounded) {
  std::string path;
  {
    auto f = NewFile(Opts(8, 16));
    ASSERT_NE(f, nullptr);
    Put(*f, "TopicTest#k1", 0, kTs);
    Put(*f, "TopicTest#k1", 10, kTs);
    path = f->path();
  }
  // indexCount = 1000 (past the geometry), entry 2's prev = 2 (a self loop).
  const IndexGeometry g{8, 16};
  for (int b = 0; b < 4; ++b) {
    const uint8_t want[4] = {0, 0, 0x03, 0xE8};
    const uint8_t have[4] = {0, 0, 0, 3};
    ASSERT_OK(fs_.CorruptByte(path, format::kIndexCountOffset + b, have[b] ^ want[b]));
  }
  ASSERT_OK(
      fs_.CorruptByte(path, g.EntryPosition(2) + format::kIndexEntryPrevIndexOffset + 3, 1 ^ 2));
  ASSERT_OK_AND_ASSIGN(auto f, IndexFile::Open(fs_, path, Opts()));
  EXPECT_EQ(f->index_count(), 16);  // clamped
  EXPECT_EQ(Select(*f, "TopicTest#k1"), (std::vector<int64_t>{10}));
}

TEST_F(IndexFileTest, FlushMakesEntriesThenHeaderDurable) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "T#a", 100, kTs);
  ASSERT_OK_AND_ASSIGN(std::string before, fs_.ReadDurableFile(f->path()));
  EXPECT_EQ(format::DecodeIndexHeader(reinterpret_cast<const uint8_t*>(before.data())).index_count,
            0);
  ASSERT_OK(f->Flush());
  ASSERT_OK_AND_ASSIGN(std::string after, fs_.ReadDurableFile(f->path()));
  EXPECT_EQ(format::DecodeIndexHeader(reinterpret_cast<const uint8_t*>(after.data())).index_count,
            2);
  ASSERT_OK(f->Flush());  // nothing to do
  EXPECT_FALSE(f->dirty());
}

TEST_F(IndexFileTest, FlushErrorIsReportedAndRetried) {
  auto f = NewFile(Opts());
  ASSERT_NE(f, nullptr);
  Put(*f, "T#a", 100, kTs);
  fs_.FailOpsOfKind(OpKind::kMapSync, EIO);
  EXPECT_THAT(f->Flush(), StatusIs(StatusCode::kIOError));
  EXPECT_TRUE(f->dirty());
  fs_.ClearFailures();
  ASSERT_OK(f->Flush());
  EXPECT_FALSE(f->dirty());
}

TEST_F(IndexFileTest, FullDiskIsAStatusNotACrash) {
  IndexFile::Options o = Opts(8, 1000);
  auto f = NewFile(o);
  ASSERT_NE(f, nullptr);
  ASSERT_OK_AND_ASSIGN(uint64_t allocated, fs_.AllocatedBytes(f->path()));
  fs_.SetCapacityBytes(allocated);  // nothing more can be reserved
  Status s;
  int stored = 0;
  for (int i = 0; i < 999 && s.ok(); ++i) {
    Result<bool> r = f->PutKey("T#k", PhysicalOffset(i), kTs);
    s = r.status();
    if (r.ok()) ++stored;
  }
  EXPECT_THAT(s, StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(f->entry_count(), stored);
  fs_.SetCapacityBytes(FaultInjectionFileSystem::kDefaultCapacityBytes);
  ASSERT_OK_AND_ASSIGN(bool ok, f->PutKey("T#k", PhysicalOffset(5000), kTs));
  EXPECT_TRUE(ok);
  ASSERT_OK(f->Flush());  // no write landed in an unallocated block
}

TEST_F(IndexFileTest, RebuildFromEntriesCutsAndRebuildsChains) {
  auto f = NewFile(Opts(8, 16));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 6; ++i) Put(*f, i % 2 ? "T#odd" : "T#even", i * 10, kTs + i * 1000);
  ASSERT_OK(f->RebuildFromEntries(4));  // keep entries 1..3 (offsets 0, 10, 20)
  EXPECT_EQ(f->index_count(), 4);
  EXPECT_EQ(f->end_phy_offset(), 20);
  EXPECT_EQ(f->end_timestamp(), kTs + 2000);
  EXPECT_EQ(Select(*f, "T#even"), (std::vector<int64_t>{20, 0}));
  EXPECT_EQ(Select(*f, "T#odd"), (std::vector<int64_t>{10}));
  for (int i = 4; i < 7; ++i) EXPECT_EQ(f->Entry(i), format::IndexEntry{}) << i;
  EXPECT_FALSE(f->dirty());
  ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(f->path()));
  ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
  EXPECT_EQ(durable, live);
  // Appending continues the rebuilt chains.
  Put(*f, "T#odd", 30, kTs + 3000);
  EXPECT_EQ(Select(*f, "T#odd"), (std::vector<int64_t>{30, 10}));
  EXPECT_THAT(f->RebuildFromEntries(9), StatusIs(StatusCode::kInvalidArgument));
}

// CutByUndo must leave exactly the bytes RebuildFromEntries would: two files built by the
// same puts (colliding keys, messages with several keys, times past the first second),
// one cut each way, compared whole — header, slot table and entries — and durable.
TEST_F(IndexFileTest, CutByUndoEqualsRebuildByteForByte) {
  const IndexFile::Options o = Opts(7, 200);
  for (int32_t keep : {1, 2, 37, 100, 149, 150}) {
    auto a = NewFile(o, 0, 0, "20231114221320001");
    auto b = NewFile(o, 0, 0, "20231114221320002");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    uint32_t rng = 12345;
    for (int i = 0; i < 149; ++i) {  // entries 1..149
      rng = rng * 1103515245u + 12345u;
      const std::string key = "T#k" + std::to_string((rng >> 16) % 23);
      Put(*a, key, 1000 + (i / 3) * 100, kTs + (i / 3) * 700);
      Put(*b, key, 1000 + (i / 3) * 100, kTs + (i / 3) * 700);
    }
    ASSERT_OK(a->Flush());
    ASSERT_OK(b->Flush());
    ASSERT_OK_AND_ASSIGN(bool undone, a->CutByUndo(keep));
    EXPECT_TRUE(undone) << keep;
    ASSERT_OK(b->RebuildFromEntries(keep));
    ASSERT_OK_AND_ASSIGN(std::string bytes_a, fs_.ReadWholeFile(a->path()));
    ASSERT_OK_AND_ASSIGN(std::string bytes_b, fs_.ReadWholeFile(b->path()));
    EXPECT_TRUE(bytes_a == bytes_b) << "keep " << keep;
    ASSERT_OK_AND_ASSIGN(std::string durable_a, fs_.ReadDurableFile(a->path()));
    EXPECT_TRUE(durable_a == bytes_a) << "keep " << keep << ": the cut is not flushed";
    EXPECT_EQ(a->index_count(), keep);
    EXPECT_EQ(a->hash_slot_count(), b->hash_slot_count());
    EXPECT_FALSE(a->dirty());
    ASSERT_OK(fs_.RemoveFile(a->path()));
    ASSERT_OK(fs_.RemoveFile(b->path()));
  }
}

// A slot table that does not match the entries (e.g. an entry's put reached the file but
// its slot update did not): CutByUndo says so and leaves the entries for the rebuild.
TEST_F(IndexFileTest, CutByUndoRefusesATableThatDoesNotMatch) {
  auto f = NewFile(Opts(8, 16));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 6; ++i) Put(*f, i % 2 ? "T#odd" : "T#even", i * 10, kTs + i * 1000);
  ASSERT_OK(f->Flush());
  // Point the slot of entry 6's key back at entry 4, as if entry 6's slot write was lost.
  const format::IndexEntry last = f->Entry(6);
  const size_t slot =
      f->geometry().SlotPosition(format::IndexSlotOf(last.key_hash, f->geometry().hash_slot_num));
  ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenFile(f->path(), OpenOptions{.writable = true}));
  uint8_t four[4];
  EncodeFixed32BE(four, 4);
  ASSERT_OK(file->PWrite(slot, four, 4));
  ASSERT_OK_AND_ASSIGN(bool undone, f->CutByUndo(5));
  EXPECT_FALSE(undone);
  EXPECT_EQ(f->index_count(), 7);  // nothing the rebuild reads was changed
  ASSERT_OK(f->RebuildFromEntries(5));
  EXPECT_EQ(Select(*f, "T#even"), (std::vector<int64_t>{20, 0}));
  EXPECT_EQ(Select(*f, "T#odd"), (std::vector<int64_t>{30, 10}));
}

// A process crash inside PutKey, past the slot store and before the count: entry
// index_count() is complete and its slot points at it; the header may be half stored
// (here its end values and slot count, not its count). After the crash the file is opened
// from its bytes, as the store does. CutByUndo(keep, torn_put_possible) undoes that put
// too and recounts the slots: exactly the bytes of a file that never saw the torn put,
// rebuilt. Also when the writer died before the slot store (entry only).
TEST_F(IndexFileTest, CutByUndoAfterAProcessCrashUndoesATornPut) {
  const IndexFile::Options o = Opts(7, 200);
  enum Torn { kEntryOnly, kEntryAndSlot, kEntrySlotAndHalfHeader };
  for (Torn torn : {kEntryOnly, kEntryAndSlot, kEntrySlotAndHalfHeader}) {
    for (int32_t keep : {1, 50, 97}) {  // entries 97..99 are the last message's
      const std::string context = "torn " + std::to_string(torn) + " keep " + std::to_string(keep);
      auto a = NewFile(o, 0, 0, "20231114221320001");
      auto b = NewFile(o, 0, 0, "20231114221320002");
      ASSERT_NE(a, nullptr);
      ASSERT_NE(b, nullptr);
      uint32_t rng = 4242;
      std::string key;
      for (int i = 0; i < 100; ++i) {  // 99 entries in both, the 100th torn in `a`
        rng = rng * 1103515245u + 12345u;
        key = "T#k" + std::to_string((rng >> 16) % 23);
        if (i == 99) break;
        Put(*a, key, 1000 + (i / 3) * 100, kTs + (i / 3) * 700);
        Put(*b, key, 1000 + (i / 3) * 100, kTs + (i / 3) * 700);
      }
      ASSERT_EQ(a->index_count(), 100);
      // The torn put of `key`, written as PutKeyHash does, straight into the file.
      const format::IndexGeometry g = a->geometry();  // a copy: `a` is reopened below
      const int32_t hash = format::IndexKeyHash(key);
      const size_t slot_pos = g.SlotPosition(format::IndexSlotOf(hash, g.hash_slot_num));
      format::IndexEntry e;
      e.key_hash = hash;
      e.phy_offset = 1000 + 33 * 100;
      e.time_diff = format::IndexTimeDiff(kTs + 33 * 700, a->begin_timestamp());
      e.prev_index = DecodeInt32BE(a->data() + slot_pos);
      ASSERT_GT(e.prev_index, 0);
      const std::string path = a->path();
      a.reset();
      ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenFile(path, OpenOptions{.writable = true}));
      uint8_t bytes[format::kIndexHeaderSize];
      format::EncodeIndexEntry(e, bytes);
      ASSERT_OK(file->PWrite(g.EntryPosition(100), bytes, format::kIndexEntrySize));
      if (torn != kEntryOnly) {
        EncodeFixed32BE(bytes, 100);
        ASSERT_OK(file->PWrite(slot_pos, bytes, 4));
      }
      if (torn == kEntrySlotAndHalfHeader) {
        ASSERT_OK(file->PRead(0, bytes, sizeof bytes));
        format::IndexHeader h = format::DecodeIndexHeader(bytes);
        h.end_timestamp = kTs + 33 * 700;
        h.end_phy_offset = e.phy_offset;
        h.hash_slot_count += 1;  // as if the put had taken a new slot
        format::EncodeIndexHeader(h, bytes);
        ASSERT_OK(file->PWrite(format::kIndexEndTimestampOffset,
                               bytes + format::kIndexEndTimestampOffset,
                               format::kIndexCountOffset - format::kIndexEndTimestampOffset));
      }
      file.reset();
      ASSERT_OK_AND_ASSIGN(a, IndexFile::Open(fs_, path, o));
      ASSERT_EQ(a->index_count(), 100);
      ASSERT_OK_AND_ASSIGN(bool undone, a->CutByUndo(keep, /*torn_put_possible=*/true));
      EXPECT_TRUE(undone) << context;
      ASSERT_OK(b->RebuildFromEntries(keep));
      ASSERT_OK_AND_ASSIGN(std::string bytes_a, fs_.ReadWholeFile(a->path()));
      ASSERT_OK_AND_ASSIGN(std::string bytes_b, fs_.ReadWholeFile(b->path()));
      EXPECT_TRUE(bytes_a == bytes_b) << context;
      EXPECT_EQ(a->hash_slot_count(), b->hash_slot_count()) << context;
      a.reset();
      ASSERT_OK(fs_.RemoveFile(path));
      ASSERT_OK(fs_.RemoveFile(b->path()));
    }
  }
}

// After a process crash a slot may point only at kept entries once the puts are undone;
// one pointing anywhere else (here past every entry) means the table does not match.
TEST_F(IndexFileTest, CutByUndoAfterAProcessCrashRefusesADanglingSlot) {
  auto f = NewFile(Opts(8, 16));
  ASSERT_NE(f, nullptr);
  for (int i = 0; i < 6; ++i) Put(*f, "T#k" + std::to_string(i), i * 10, kTs + i * 1000);
  ASSERT_OK_AND_ASSIGN(auto file, fs_.OpenFile(f->path(), OpenOptions{.writable = true}));
  // Slot 0..7: find one no key uses and point it past the count.
  for (int32_t s = 0; s < 8; ++s) {
    const size_t pos = f->geometry().SlotPosition(s);
    if (DecodeInt32BE(f->data() + pos) != 0) continue;
    uint8_t v[4];
    EncodeFixed32BE(v, 12);
    ASSERT_OK(file->PWrite(pos, v, 4));
    break;
  }
  ASSERT_OK_AND_ASSIGN(bool undone, f->CutByUndo(5, /*torn_put_possible=*/true));
  EXPECT_FALSE(undone);
  ASSERT_OK(f->RebuildFromEntries(5));
  EXPECT_EQ(Select(*f, "T#k3"), (std::vector<int64_t>{30}));
  EXPECT_EQ(Select(*f, "T#k5"), (std::vector<int64_t>{}));
}

TEST(IndexFileNameTest, LocalTimeAndShape) {
  const char* old = getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "UTC0", 1);
  tzset();
  EXPECT_EQ(FormatIndexFileName(1700000000123), "20231114221320123");
  EXPECT_EQ(FormatIndexFileName(0), "19700101000000000");
  setenv("TZ", "CST-8", 1);  // UTC+8, no tzdata needed
  tzset();
  EXPECT_EQ(FormatIndexFileName(1700000000123), "20231115061320123");
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  EXPECT_TRUE(IsIndexFileName("20231114221320123"));
  EXPECT_FALSE(IsIndexFileName("2023111422132012"));
  EXPECT_FALSE(IsIndexFileName("20231114221320123.tmp"));
  EXPECT_FALSE(IsIndexFileName("2023111422132012x"));
}

}  // namespace
}  // namespace rocketstore
