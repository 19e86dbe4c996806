#include "store/index/index_service.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "base/coding.h"
#include "index_test_util.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::IndexRecord;
using ::rocketstore::testing::OffsetValues;
using ::rocketstore::testing::SmallIndexOptions;
using ::rocketstore::testing::StatusIs;

constexpr int64_t kTs = 1700000000123;
constexpr int64_t kMax = INT64_MAX;

class IndexServiceTest : public ::testing::Test {
 protected:
  std::unique_ptr<IndexService> Open(const IndexOptions& o) {
    auto s = std::make_unique<IndexService>(fs_, clock_, o);
    EXPECT_OK(s->Load());
    return s;
  }
  static void Dispatch(IndexService& s, const IndexRecord& r) {
    ASSERT_OK(s.Dispatch(r.Request()));
  }
  static void DispatchKey(IndexService& s, int64_t offset, const std::string& keys,
                          int64_t ts = kTs) {
    IndexRecord r;
    r.offset = offset;
    r.keys = keys;
    r.store_timestamp = ts;
    Dispatch(s, r);
  }
  static std::vector<int64_t> Query(const IndexService& s, const std::string& key, int max = 64,
                                    int64_t begin = 0, int64_t end = kMax,
                                    const std::string& topic = "TopicTest") {
    return OffsetValues(s.QueryOffsets(topic, key, max, begin, end).phy_offsets);
  }
  int64_t TotalEntries(const IndexService& s) {
    int64_t n = 0;
    for (const auto& f : s.Files()) n += f->entry_count();
    return n;
  }
  std::vector<std::string> DirNames() {
    auto names = fs_.ListDir("/store/index");
    EXPECT_OK(names.status());
    std::vector<std::string> v = names.ok() ? *names : std::vector<std::string>{};
    std::sort(v.begin(), v.end());
    return v;
  }

  FakeClock clock_{kTs};
  FaultInjectionFileSystem fs_{clock_};
};

// Spec §12.3 through the dispatcher: UNIQ_KEY before KEYS, same bytes as the IndexFile test.
TEST_F(IndexServiceTest, ExampleCThroughDispatch) {
  auto s = Open(SmallIndexOptions(8, 16));
  IndexRecord a;
  a.offset = 0;
  a.keys = "k1";
  IndexRecord b;
  b.offset = 256;
  b.keys = "k1";
  b.uniq_key = "7F00000112340BADCAFE0001E2400001";
  Dispatch(*s, a);
  Dispatch(*s, b);
  ASSERT_EQ(s->file_count(), 1u);
  const auto f = s->Files()[0];
  EXPECT_EQ(f->name(), FormatIndexFileName(kTs));
  EXPECT_EQ(f->path(), "/store/index/" + f->name());
  EXPECT_EQ(HexUpper(f->data(), 40),
            "0000018BCFE5687B0000018BCFE5687B000000000000000000000000000001000000000200000004");
  EXPECT_EQ(HexUpper(f->data() + 40, 8), "0000000300000002");
  EXPECT_EQ(HexUpper(f->data() + 132, 20),  // entry 3
            "0029E6A800000000000001000000000000000001");
  EXPECT_EQ(Query(*s, "k1"), (std::vector<int64_t>{256, 0}));
  EXPECT_EQ(Query(*s, "7F00000112340BADCAFE0001E2400001"), (std::vector<int64_t>{256}));
  EXPECT_EQ(s->last_indexed_offset(), PhysicalOffset(256));
}

TEST_F(IndexServiceTest, FirstDispatchCreatesAFileEvenWithoutKeys) {
  auto s = Open(SmallIndexOptions());
  EXPECT_EQ(s->file_count(), 0u);
  DispatchKey(*s, 0, "");
  EXPECT_EQ(s->file_count(), 1u);
  EXPECT_EQ(TotalEntries(*s), 0);
  EXPECT_EQ(s->last_indexed_offset(), std::nullopt);
  EXPECT_EQ(DirNames(), (std::vector<std::string>{FormatIndexFileName(kTs)}));
}

TEST_F(IndexServiceTest, KeysSplitOnSingleSpaces) {
  auto s = Open(SmallIndexOptions(64, 100));
  DispatchKey(*s, 0, "a  b");  // Java split(" "): "a", "", "b"
  EXPECT_EQ(TotalEntries(*s), 2);
  DispatchKey(*s, 100, " a");
  DispatchKey(*s, 200, "a ");
  DispatchKey(*s, 300, "   ");
  DispatchKey(*s, 400, "a\tb");  // only the ASCII space separates
  EXPECT_EQ(TotalEntries(*s), 5);
  EXPECT_EQ(Query(*s, "a"), (std::vector<int64_t>{200, 100, 0}));
  EXPECT_EQ(Query(*s, "b"), (std::vector<int64_t>{0}));
  EXPECT_EQ(Query(*s, "a\tb"), (std::vector<int64_t>{400}));
  EXPECT_TRUE(Query(*s, "").empty());
}

TEST_F(IndexServiceTest, RollbackIsSkippedOtherTransactionTypesIndexed) {
  auto s = Open(SmallIndexOptions(64, 100));
  const int32_t types[] = {0x0, 0x4, 0x8, 0xC};  // NOT, PREPARED, COMMIT, ROLLBACK
  for (int i = 0; i < 4; ++i) {
    IndexRecord r;
    r.offset = i * 100;
    r.keys = "tx";
    r.uniq_key = "U" + std::to_string(i);
    r.sys_flag = types[i] | 0x2;  // other bits do not matter
    Dispatch(*s, r);
  }
  EXPECT_EQ(Query(*s, "tx"), (std::vector<int64_t>{200, 100, 0}));
  EXPECT_TRUE(Query(*s, "U3").empty());
  EXPECT_EQ(TotalEntries(*s), 6);
}

TEST_F(IndexServiceTest, AlreadyIndexedRecordsAreSkipped) {
  auto s = Open(SmallIndexOptions(64, 100));
  for (int i = 0; i < 3; ++i) DispatchKey(*s, i * 100, "k");
  DispatchKey(*s, 100, "k");
  DispatchKey(*s, 200, "k");  // the last one too: no duplicate keys on re-dispatch
  EXPECT_EQ(Query(*s, "k"), (std::vector<int64_t>{200, 100, 0}));
  DispatchKey(*s, 300, "k");
  EXPECT_EQ(Query(*s, "k"), (std::vector<int64_t>{300, 200, 100, 0}));
}

TEST_F(IndexServiceTest, FullFileRollsWithPresetHeaderAndTimeDiffQuirk) {
  auto s = Open(SmallIndexOptions(4, 4));  // 3 entries per file
  for (int i = 0; i < 3; ++i) DispatchKey(*s, i * 100, "k" + std::to_string(i), kTs + i * 1500);
  ASSERT_EQ(s->file_count(), 1u);
  // A record without keys still takes the "get or create the last file" step.
  DispatchKey(*s, 250, "");
  ASSERT_EQ(s->file_count(), 2u);
  auto files = s->Files();
  const auto& first = files[0];
  const auto& second = files[1];
  EXPECT_TRUE(first->IsFull());
  format::IndexHeader preset = format::DecodeIndexHeader(second->data());
  EXPECT_EQ(preset.begin_phy_offset, 200);
  EXPECT_EQ(preset.end_phy_offset, 200);
  EXPECT_EQ(preset.begin_timestamp, kTs + 3000);
  EXPECT_EQ(preset.end_timestamp, kTs + 3000);
  EXPECT_EQ(preset.index_count, 0);
  // The clock did not move: the name is made strictly greater than the previous one.
  EXPECT_EQ(first->name(), FormatIndexFileName(kTs));
  EXPECT_GT(second->name(), first->name());
  EXPECT_EQ(second->name().size(), 17u);

  DispatchKey(*s, 300, "k3", kTs + 4500);
  // timeDiff against the previous file's end (kTs + 3000): 1 s, then begin = kTs + 4500.
  EXPECT_EQ(second->Entry(1).time_diff, 1);
  EXPECT_EQ(second->begin_timestamp(), kTs + 4500);
  EXPECT_EQ(second->begin_phy_offset(), 300);
  EXPECT_EQ(Query(*s, "k3"), (std::vector<int64_t>{300}));
  // ... so the entry reads as stored at kTs + 5500, outside the file's own time range
  // [kTs + 4500, kTs + 4500]: a window must overlap the file AND contain 5500.
  EXPECT_EQ(Query(*s, "k3", 64, kTs + 4500, kTs + 5500), (std::vector<int64_t>{300}));
  EXPECT_TRUE(Query(*s, "k3", 64, kTs + 4500, kTs + 5000).empty());
  EXPECT_TRUE(Query(*s, "k3", 64, kTs + 5500, kTs + 5500).empty());

  clock_.AdvanceMillis(60'000);
  for (int i = 4; i < 7; ++i) DispatchKey(*s, i * 100, "k" + std::to_string(i), kTs + i * 1500);
  ASSERT_EQ(s->file_count(), 3u);
  EXPECT_EQ(s->Files()[2]->name(), FormatIndexFileName(kTs + 60'000));
}

TEST_F(IndexServiceTest, FileNamesIncreaseWhenTheClockStepsBack) {
  auto s = Open(SmallIndexOptions(4, 2));  // one entry per file
  DispatchKey(*s, 0, "a");
  clock_.AdvanceMillis(-3'600'000);
  DispatchKey(*s, 100, "b");
  DispatchKey(*s, 200, "c");
  auto names = DirNames();
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], FormatIndexFileName(kTs));
  EXPECT_LT(names[0], names[1]);
  EXPECT_LT(names[1], names[2]);
  EXPECT_EQ(Query(*s, "a"), (std::vector<int64_t>{0}));
  EXPECT_EQ(Query(*s, "c"), (std::vector<int64_t>{200}));
}

class MultiFileTest : public IndexServiceTest {
 protected:
  // Nine records with key "k" at offsets 0..800 stored 10 s apart, three per file.
  void SetUp() override {
    s_ = Open(SmallIndexOptions(16, 4));
    for (int i = 0; i < 9; ++i) DispatchKey(*s_, i * 100, "k", kTs + i * 10'000);
    ASSERT_EQ(s_->file_count(), 3u);
  }
  std::unique_ptr<IndexService> s_;
};

TEST_F(MultiFileTest, NewestFirstAcrossFiles) {
  EXPECT_EQ(Query(*s_, "k"), (std::vector<int64_t>{800, 700, 600, 500, 400, 300, 200, 100, 0}));
  QueryOffsetResult r = s_->QueryOffsets("TopicTest", "k", 64, 0, kMax);
  EXPECT_EQ(r.index_last_update_timestamp, kTs + 80'000);
  EXPECT_EQ(r.index_last_update_phy_offset, PhysicalOffset(800));
}

TEST_F(MultiFileTest, TimeRangeSelectsOneSeveralOrNoFiles) {
  // File ranges: [0 s, 20 s], [30 s, 50 s], [60 s, 80 s] (after kTs). By the first-entry
  // quirk, offset 300 (stored at 30 s) reads as 40 s and offset 600 (60 s) as 70 s.
  EXPECT_EQ(Query(*s_, "k", 64, kTs + 30'000, kTs + 50'000), (std::vector<int64_t>{500, 400, 300}));
  EXPECT_EQ(Query(*s_, "k", 64, kTs + 35'000, kTs + 45'000), (std::vector<int64_t>{400, 300}));
  EXPECT_TRUE(Query(*s_, "k", 64, kTs + 60'000, kTs + 65'000).empty());  // 600 reads 70 s
  // Spanning two files.
  EXPECT_EQ(Query(*s_, "k", 64, kTs + 15'000, kTs + 45'000), (std::vector<int64_t>{400, 300, 200}));
  // All files.
  EXPECT_EQ(Query(*s_, "k", 64, kTs - 1, kTs + 90'000).size(), 9u);
  // None: before the first file, after the last, or a window without entries.
  EXPECT_TRUE(Query(*s_, "k", 64, 0, kTs - 1).empty());
  EXPECT_TRUE(Query(*s_, "k", 64, kTs + 80'001, kMax).empty());
  EXPECT_TRUE(Query(*s_, "k", 64, kTs + 41'000, kTs + 49'000).empty());
}

TEST_F(MultiFileTest, MaxNumStopsEarly) {
  EXPECT_EQ(Query(*s_, "k", 4), (std::vector<int64_t>{800, 700, 600, 500}));
  EXPECT_EQ(Query(*s_, "k", 1), (std::vector<int64_t>{800}));
  EXPECT_TRUE(Query(*s_, "k", 0).empty());
  EXPECT_TRUE(Query(*s_, "k", -5).empty());
}

TEST_F(MultiFileTest, DeleteFilesBelowNeverTheLast) {
  const auto files = s_->Files();                        // ends 200, 500, 800
  ASSERT_OK(s_->DeleteFilesBelow(PhysicalOffset(200)));  // first end 200 is not < 200
  EXPECT_EQ(s_->file_count(), 3u);
  ASSERT_OK(s_->DeleteFilesBelow(PhysicalOffset(300)));
  EXPECT_EQ(s_->file_count(), 2u);
  EXPECT_FALSE(fs_.Exists(files[0]->path()));
  EXPECT_EQ(Query(*s_, "k"), (std::vector<int64_t>{800, 700, 600, 500, 400, 300}));
  ASSERT_OK(s_->DeleteFilesBelow(PhysicalOffset(1'000'000)));
  EXPECT_EQ(s_->file_count(), 1u);  // the last file stays
  EXPECT_EQ(DirNames(), (std::vector<std::string>{files[2]->name()}));
  EXPECT_EQ(Query(*s_, "k"), (std::vector<int64_t>{800, 700, 600}));
  // A file removed while a reader holds it stays readable for that reader.
  EXPECT_EQ(files[1]->entry_count(), 3);
}

TEST_F(MultiFileTest, ReloadGivesIdenticalAnswers) {
  ASSERT_OK(s_->Flush());
  std::vector<std::vector<int64_t>> before;
  const std::pair<int64_t, int64_t> ranges[] = {
      {0, kMax}, {kTs + 35'000, kTs + 45'000}, {kTs + 40'000, kTs + 60'000}, {0, kTs - 1}};
  for (auto [b, e] : ranges) {
    for (int max : {1, 4, 64}) before.push_back(Query(*s_, "k", max, b, e));
  }
  const auto last = s_->last_indexed_offset();
  s_.reset();
  auto again = Open(SmallIndexOptions(16, 4));
  std::vector<std::vector<int64_t>> after;
  for (auto [b, e] : ranges) {
    for (int max : {1, 4, 64}) after.push_back(Query(*again, "k", max, b, e));
  }
  EXPECT_EQ(after, before);
  EXPECT_EQ(again->last_indexed_offset(), last);
  EXPECT_EQ(again->file_count(), 3u);
  // Dispatching the last record again adds nothing; the next one continues.
  DispatchKey(*again, 800, "k", kTs + 80'000);
  DispatchKey(*again, 900, "k", kTs + 90'000);
  EXPECT_EQ(Query(*again, "k", 3), (std::vector<int64_t>{900, 800, 700}));
  EXPECT_EQ(again->file_count(), 4u);
  EXPECT_EQ(again->flushed_full_file_timestamp(), kTs + 80'000);
}

TEST_F(IndexServiceTest, QueryCapIs64) {
  auto s = Open(SmallIndexOptions(256, 1000));
  for (int i = 0; i < 100; ++i) DispatchKey(*s, i * 100, "hot");
  std::vector<int64_t> all = Query(*s, "hot", 1000);
  ASSERT_EQ(all.size(), 64u);
  EXPECT_EQ(all.front(), 9900);
  EXPECT_EQ(all.back(), 3600);
  EXPECT_EQ(Query(*s, "hot", 10).size(), 10u);

  IndexOptions o = SmallIndexOptions(256, 1000);
  o.max_query_results = 5;
  s.reset();
  auto capped = Open(o);
  EXPECT_EQ(Query(*capped, "hot", 64), (std::vector<int64_t>{9900, 9800, 9700, 9600, 9500}));
}

TEST_F(IndexServiceTest, MissingKeyAndOtherTopic) {
  auto s = Open(SmallIndexOptions());
  QueryOffsetResult none = s->QueryOffsets("TopicTest", "k", 64, 0, kMax);
  EXPECT_TRUE(none.phy_offsets.empty());
  EXPECT_EQ(none.index_last_update_timestamp, 0);
  DispatchKey(*s, 0, "k", kTs);
  DispatchKey(*s, 100, "j", kTs + 5);
  QueryOffsetResult r = s->QueryOffsets("TopicTest", "missing", 64, 0, kMax);
  EXPECT_TRUE(r.phy_offsets.empty());
  EXPECT_EQ(r.index_last_update_timestamp, kTs + 5);
  EXPECT_EQ(r.index_last_update_phy_offset, PhysicalOffset(100));
  EXPECT_TRUE(Query(*s, "k", 64, 0, kMax, "OtherTopic").empty());
}

TEST_F(IndexServiceTest, GeometryComesFromOptions) {
  auto s = Open(SmallIndexOptions(10, 7));
  DispatchKey(*s, 0, "k");
  const auto f = s->Files()[0];
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs_.Stat(f->path()));
  EXPECT_EQ(info.size, 40u + 4u * 10u + 20u * 7u);
  EXPECT_EQ(f->geometry(), (format::IndexGeometry{10, 7}));
  s.reset();
  IndexService other(fs_, clock_, SmallIndexOptions(10, 8));
  EXPECT_THAT(other.Load(), StatusIs(StatusCode::kCorruption));
  IndexService bad(fs_, clock_, SmallIndexOptions(0, 8));
  EXPECT_THAT(bad.Load(), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(IndexOptions().geometry().FileSize(), 420'000'040u);
}

TEST_F(IndexServiceTest, LoadRemovesUnfinishedCreationsAndIgnoresOtherNames) {
  ASSERT_OK(fs_.CreateDirs("/store/index"));
  OpenOptions oo;
  oo.create = oo.writable = true;
  for (const char* n : {"20231114221320123.tmp", "README", "2023111422132012"}) {
    ASSERT_OK_AND_ASSIGN(auto f, fs_.OpenFile(std::string("/store/index/") + n, oo));
    ASSERT_OK(f->Truncate(10));
  }
  auto s = Open(SmallIndexOptions());
  EXPECT_EQ(s->file_count(), 0u);
  EXPECT_EQ(DirNames(), (std::vector<std::string>{"2023111422132012", "README"}));
}

// A Dispatch that fails part-way through a record's keys continues with the rest.
TEST_F(IndexServiceTest, FailedRollResumesWithoutDuplicates) {
  auto s = Open(SmallIndexOptions(8, 4));  // 3 entries per file
  fs_.FailOpsOfKind(OpKind::kOpen, ENOSPC);
  IndexRecord first;
  first.keys = "a";
  EXPECT_THAT(s->Dispatch(first.Request()), StatusIs(StatusCode::kNoSpace));
  fs_.ClearFailures();
  DispatchKey(*s, 0, "a");
  IndexRecord r;
  r.offset = 100;
  r.keys = "b c d e";
  fs_.FailOpsOfKind(OpKind::kOpen, ENOSPC);  // the roll after 3 keys fails
  EXPECT_THAT(s->Dispatch(r.Request()), StatusIs(StatusCode::kNoSpace));
  EXPECT_EQ(TotalEntries(*s), 3);
  EXPECT_EQ(s->last_indexed_offset(), PhysicalOffset(0));
  fs_.ClearFailures();
  Dispatch(*s, r);
  EXPECT_EQ(s->file_count(), 2u);
  for (const char* k : {"a", "b", "c", "d", "e"}) EXPECT_EQ(Query(*s, k).size(), 1u) << k;
  EXPECT_EQ(TotalEntries(*s), 5);
  EXPECT_EQ(s->last_indexed_offset(), PhysicalOffset(100));
}

// A failed directory sync after a creation: the retry (same clock millisecond) takes a
// new name; the orphan holds no entries and recovery removes it.
TEST_F(IndexServiceTest, FailedDirectorySyncDoesNotWedgeCreation) {
  auto s = Open(SmallIndexOptions());
  fs_.FailOpsOfKind(OpKind::kSyncDir, EIO);
  IndexRecord r;
  r.keys = "a";
  EXPECT_THAT(s->Dispatch(r.Request()), StatusIs(StatusCode::kIOError));
  fs_.ClearFailures();
  Dispatch(*s, r);
  EXPECT_EQ(s->file_count(), 1u);
  EXPECT_EQ(DirNames().size(), 2u);
  EXPECT_EQ(Query(*s, "a"), (std::vector<int64_t>{0}));
  s.reset();
  s = Open(SmallIndexOptions());
  EXPECT_EQ(s->file_count(), 2u);
  EXPECT_EQ(Query(*s, "a"), (std::vector<int64_t>{0}));
  ASSERT_OK_AND_ASSIGN(IndexRecoveryReport rep, s->RecoverTo(PhysicalOffset(100)));
  EXPECT_EQ(rep.files_deleted, 2);  // the orphan, and the file of the (dropped) last message
  EXPECT_EQ(rep.last_indexed, std::nullopt);
  Dispatch(*s, r);
  EXPECT_EQ(Query(*s, "a"), (std::vector<int64_t>{0}));
}

TEST_F(IndexServiceTest, FlushMakesEveryFileDurable) {
  auto s = Open(SmallIndexOptions(16, 4));
  for (int i = 0; i < 7; ++i) DispatchKey(*s, i * 100, "k", kTs + i * 1000);
  EXPECT_EQ(s->flushed_full_file_timestamp(), 0);
  ASSERT_OK(s->Flush());
  EXPECT_EQ(s->flushed_full_file_timestamp(), kTs + 5000);  // the second file is full
  for (const auto& f : s->Files()) {
    EXPECT_FALSE(f->dirty());
    ASSERT_OK_AND_ASSIGN(std::string live, fs_.ReadWholeFile(f->path()));
    ASSERT_OK_AND_ASSIGN(std::string durable, fs_.ReadDurableFile(f->path()));
    EXPECT_EQ(live, durable) << f->name();
  }
}

// Readers run concurrently with the writer and only ever see complete entries.
TEST_F(IndexServiceTest, ConcurrentQueriesSeeCompleteEntries) {
  auto s = Open(SmallIndexOptions(64, 300));
  constexpr int kKeys = 40;
  constexpr int kRecords = 3000;
  std::map<int32_t, int> hash_owner;
  for (int k = 0; k < kKeys; ++k) {
    const int32_t h = format::IndexKeyHash("TopicTest#key" + std::to_string(k));
    ASSERT_TRUE(hash_owner.emplace(h, k).second) << "pick keys with distinct hashes";
  }
  std::atomic<bool> done{false};
  std::atomic<int64_t> checked{0};
  std::atomic<int> bad{0};
  std::atomic<int> started{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 rng(t);
      started.fetch_add(1);
      do {
        const int k = static_cast<int>(rng() % kKeys);
        auto got = s->QueryOffsets("TopicTest", "key" + std::to_string(k), 64, 0, kMax);
        int64_t prev = INT64_MAX;
        for (PhysicalOffset o : got.phy_offsets) {
          if (o.value() % 10 != 0 || (o.value() / 10) % kKeys != k || o.value() >= prev) {
            bad.fetch_add(1);
          }
          prev = o.value();
        }
        checked.fetch_add(1);
      } while (!done.load(std::memory_order_acquire));
    });
  }
  // The readers must be running while the writer dispatches (not scheduled after it).
  while (started.load() < 2) std::this_thread::yield();
  for (int i = 0; i < kRecords; ++i) {
    IndexRecord r;
    r.offset = i * 10;
    r.keys = "key" + std::to_string(i % kKeys);
    r.store_timestamp = kTs + i;
    ASSERT_OK(s->Dispatch(r.Request()));
    if (i % 500 == 0) ASSERT_OK(s->Flush());
  }
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(checked.load(), 0);
  EXPECT_EQ(Query(*s, "key7", 3), (std::vector<int64_t>{(kRecords - 33) * 10, (kRecords - 73) * 10,
                                                        (kRecords - 113) * 10}));
}

}  // namespace
}  // namespace rocketstore
