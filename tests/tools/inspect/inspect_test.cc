// Tests of `rocketstore inspect` (tools/inspect/inspect.h): the subcommands on stores built
// by MessageStore and on the spec §12.3 example files written by hand; `verify` against
// each kind of injected corruption; and that no subcommand changes a byte.
#include "tools/inspect/inspect.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/coding.h"
#include "base/crc32.h"
#include "io/fault_injection_file_system.h"
#include "io/posix_file_system.h"
#include "store/format/consume_queue_unit.h"
#include "store/format/index_layout.h"
#include "store/format/message_record.h"
#include "store/message_store.h"
#include "testing/status_matchers.h"
#include "testing/store_messages.h"
#include "testing/temp_dir.h"

namespace rocketstore::tools::inspect {
namespace {

namespace fsys = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Output {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs `fn(out, err)` with both streams captured in memory.
Output Capture(const std::function<int(std::FILE*, std::FILE*)>& fn) {
  char* out_buf = nullptr;
  size_t out_len = 0;
  char* err_buf = nullptr;
  size_t err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  Output o;
  o.rc = fn(out, err);
  std::fclose(out);
  std::fclose(err);
  o.out.assign(out_buf, out_len);
  o.err.assign(err_buf, err_len);
  std::free(out_buf);
  std::free(err_buf);
  return o;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAt(const std::string& path, int64_t pos, const void* data, size_t n) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  ASSERT_TRUE(f.good()) << path;
  f.seekp(pos);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

void WriteFile(const std::string& path, const std::string& bytes) {
  fsys::create_directories(fsys::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every file under `dir` with its bytes (and the set of names).
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fsys::recursive_directory_iterator(dir)) {
    files[e.path().string()] = e.is_regular_file() ? ReadAll(e.path().string()) : "<dir>";
  }
  return files;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

class InspectTest : public ::testing::Test {
 protected:
  virtual InspectOptions Options(bool json = false) const {
    InspectOptions o;
    o.store_dir = dir_.path();
    o.json = json;
    o.index_slots = 256;
    o.index_entries = 4096;
    o.progress = false;
    return o;
  }

  // n messages (testing::MakeTestMessage) in 4 queues, 4 KiB commit-log segments.
  void BuildStore(int n) {
    StoreOptions so;
    so.root_dir = dir_.path();
    so.start_background_services = false;
    so.commit_log_segment_size = 4096;
    so.consume_queue_units_per_file = 1024;
    so.index_hash_slot_num = 256;
    so.index_num = 4096;
    FakeClock clock;
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(so, fs_, clock));
    for (int i = 0; i < n; ++i) {
      clock.AdvanceMillis(7);
      testing::TestMessage m = testing::MakeTestMessage(i);
      PutMessageResult r = store->PutMessage(m.View());
      ASSERT_TRUE(r.ok()) << r.error;
    }
    ASSERT_OK(store->RunDispatchStep());
    ASSERT_OK(store->Close());
  }

  Output Verify() {
    return Capture([&](std::FILE* o, std::FILE* e) { return RunVerify(fs_, Options(), o, e); });
  }

  std::string CommitLogFile(int64_t start) const {
    return dir_.path() + "/commitlog/" + fmt_name(start);
  }
  static std::string fmt_name(int64_t v) {
    std::string s = std::to_string(v);
    return std::string(20 - s.size(), '0') + s;
  }

  testing::TempDir dir_;
  PosixFileSystem fs_;
};

// ---- spec §12.3: 256-byte commit-log segments, record A, BLANK, record B ----------------------

constexpr int64_t kBornTs = 1700000000000;
constexpr int64_t kStoreTs = 1700000000123;

std::string EncodeExampleRecord(std::string_view props, int64_t queue_offset, int64_t phys) {
  format::MessageToStore m;
  m.topic = "TopicTest";
  m.queue_id = 0;
  m.body = "hello";
  m.properties = props;
  m.born_timestamp = kBornTs;
  m.born_host = format::HostAddress::V4(127, 0, 0, 1, 5555);
  m.store_host = format::HostAddress::V4(127, 0, 0, 1, 10911);
  std::string out(format::EncodedRecordSize(m), '\0');
  format::EncodeRecord(m, RocketMqCrc32(m.body), queue_offset, phys, kStoreTs,
                       reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

const std::string kPropsA = std::string("KEYS\x01k1\x02TAGS\x01TagA");
const std::string kPropsB = std::string(
    "KEYS\x01k1\x02UNIQ_KEY\x01"
    "7F00000112340BADCAFE0001E2400001\x02"
    "CLUSTER\x01"
    "DefaultCluster\x02TAGS\x01TagA");

class ExampleCTest : public InspectTest {
 protected:
  void SetUp() override {
    const std::string root = dir_.path();
    const std::string a = EncodeExampleRecord(kPropsA, 0, 0);
    const std::string b = EncodeExampleRecord(kPropsB, 1, 256);
    ASSERT_EQ(a.size(), 122u);
    ASSERT_EQ(b.size(), 187u);
    std::string seg0(256, '\0');
    seg0.replace(0, a.size(), a);
    format::EncodeBlank(reinterpret_cast<uint8_t*>(seg0.data()) + 122, 134);
    std::string seg1(256, '\0');
    seg1.replace(0, b.size(), b);
    WriteFile(root + "/commitlog/00000000000000000000", seg0);
    WriteFile(root + "/commitlog/00000000000000000256", seg1);

    std::string cq(20 * 16, '\0');
    const int64_t tags = JavaStringHash("TagA");
    format::EncodeConsumeQueueUnit({PhysicalOffset(0), 122, tags},
                                   reinterpret_cast<uint8_t*>(cq.data()));
    format::EncodeConsumeQueueUnit({PhysicalOffset(256), 187, tags},
                                   reinterpret_cast<uint8_t*>(cq.data()) + 20);
    WriteFile(root + "/consumequeue/TopicTest/0/00000000000000000000", cq);

    const format::IndexGeometry g{8, 16};
    std::string index(g.FileSize(), '\0');
    auto* p = reinterpret_cast<uint8_t*>(index.data());
    const int32_t hk1 = format::IndexKeyHash("TopicTest#k1");
    const int32_t huniq = format::IndexKeyHash("TopicTest#7F00000112340BADCAFE0001E2400001");
    ASSERT_EQ(hk1, 2746024);
    ASSERT_EQ(huniq, 1766377233);
    format::EncodeIndexEntry({hk1, 0, 0, 0}, p + g.EntryPosition(1));
    format::EncodeIndexEntry({huniq, 256, 0, 0}, p + g.EntryPosition(2));
    format::EncodeIndexEntry({hk1, 256, 0, 1}, p + g.EntryPosition(3));
    EncodeFixed32BE(p + g.SlotPosition(0), 3);
    EncodeFixed32BE(p + g.SlotPosition(1), 2);
    format::EncodeIndexHeader({kStoreTs, kStoreTs, 0, 256, 2, 4}, p);
    WriteFile(root + "/index/20231114221320123", index);

    std::string cp(4096, '\0');
    EncodeFixed64BE(cp.data(), static_cast<uint64_t>(kStoreTs));
    EncodeFixed64BE(cp.data() + 8, static_cast<uint64_t>(kStoreTs));
    WriteFile(root + "/checkpoint", cp);
  }

  InspectOptions Options(bool json = false) const override {
    InspectOptions o = InspectTest::Options(json);
    o.index_slots = 8;
    o.index_entries = 16;
    return o;
  }
};

TEST_F(ExampleCTest, CommitLogJsonMatchesSpec) {
  auto o = Capture([&](std::FILE* out, std::FILE* err) {
    return RunCommitLog(fs_, Options(true), -1, -1, out, err);
  });
  ASSERT_EQ(o.rc, 0) << o.err;
  auto lines = Lines(o.out);
  ASSERT_EQ(lines.size(), 3u) << o.out;
  EXPECT_EQ(lines[0],
            "{\"physicalOffset\":0,\"totalSize\":122,\"magicCode\":-626843481,"
            "\"bodyCRC\":907060870,\"queueId\":0,\"flag\":0,\"queueOffset\":0,\"sysFlag\":0,"
            "\"bornTimestamp\":1700000000000,\"bornHost\":\"127.0.0.1:5555\","
            "\"storeTimestamp\":1700000000123,\"storeHost\":\"127.0.0.1:10911\","
            "\"reconsumeTimes\":0,\"preparedTransactionOffset\":0,\"topic\":\"TopicTest\","
            "\"properties\":{\"KEYS\":\"k1\",\"TAGS\":\"TagA\"},"
            "\"msgId\":\"7F00000100002A9F0000000000000000\",\"body\":\"hello\"}");
  EXPECT_EQ(lines[1], "{\"physicalOffset\":122,\"blank\":true,\"length\":134}");
  EXPECT_THAT(lines[2], HasSubstr("\"physicalOffset\":256,\"totalSize\":187"));
  EXPECT_THAT(lines[2], HasSubstr("\"queueOffset\":1"));
  EXPECT_THAT(lines[2], HasSubstr("\"msgId\":\"7F00000100002A9F0000000000000100\""));
  EXPECT_THAT(lines[2], HasSubstr("\"CLUSTER\":\"DefaultCluster\""));
}

TEST_F(ExampleCTest, CommitLogFromAndCount) {
  auto o = Capture([&](std::FILE* out, std::FILE* err) {
    return RunCommitLog(fs_, Options(true), 256, 1, out, err);
  });
  ASSERT_EQ(o.rc, 0);
  auto lines = Lines(o.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("\"physicalOffset\":256"));
}

TEST_F(ExampleCTest, KeyWalksTheChain) {
  auto o = Capture([&](std::FILE* out, std::FILE* err) {
    return RunKey(fs_, Options(true), "TopicTest", "k1", 0, INT64_MAX, out, err);
  });
  ASSERT_EQ(o.rc, 0) << o.err;
  auto lines = Lines(o.out);
  ASSERT_EQ(lines.size(), 6u) << o.out;
  EXPECT_THAT(lines[0], HasSubstr("\"key\":\"TopicTest#k1\",\"keyHash\":2746024,"
                                  "\"hashSlotNum\":8,\"slot\":0"));
  EXPECT_THAT(lines[1], HasSubstr("\"slotValue\":3"));
  EXPECT_THAT(lines[2], HasSubstr("\"entryNumber\":3,\"keyHash\":2746024,\"physicalOffset\":256,"
                                  "\"timeDiff\":0,\"prevIndex\":1,\"matched\":true"));
  EXPECT_THAT(lines[3], HasSubstr("\"entryNumber\":1,\"keyHash\":2746024,\"physicalOffset\":0,"
                                  "\"timeDiff\":0,\"prevIndex\":0,\"matched\":true"));
  EXPECT_THAT(lines[4], HasSubstr("\"physicalOffset\":256,\"totalSize\":187"));
  EXPECT_THAT(lines[5], HasSubstr("\"physicalOffset\":0,\"totalSize\":122"));

  auto table = Capture([&](std::FILE* out, std::FILE* err) {
    return RunKey(fs_, Options(false), "TopicTest", "k1", 0, INT64_MAX, out, err);
  });
  EXPECT_THAT(table.out, HasSubstr("2 record(s)"));
}

TEST_F(ExampleCTest, MsgIdAndCq) {
  auto o = Capture([&](std::FILE* out, std::FILE* err) {
    return RunMsgId(fs_, Options(true), "7F00000100002A9F0000000000000100", out, err);
  });
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("\"storeHost\":\"127.0.0.1:10911\",\"physicalOffset\":256,"
                               "\"file\":\"00000000000000000256\",\"position\":0"));
  EXPECT_THAT(o.out, HasSubstr("\"totalSize\":187"));

  auto cq = Capture([&](std::FILE* out, std::FILE* err) {
    return RunCq(fs_, Options(true), "TopicTest", 0, -1, -1, true, out, err);
  });
  ASSERT_EQ(cq.rc, 0) << cq.err;
  auto lines = Lines(cq.out);
  ASSERT_EQ(lines.size(), 2u) << cq.out;
  EXPECT_THAT(lines[0], HasSubstr("{\"queueOffset\":0,\"physicalOffset\":0,\"size\":122,"
                                  "\"tagsCode\":2598919,\"record\":{\"physicalOffset\":0"));
  EXPECT_THAT(lines[1], HasSubstr("{\"queueOffset\":1,\"physicalOffset\":256,\"size\":187,"
                                  "\"tagsCode\":2598919"));
}

TEST_F(ExampleCTest, VerifyAndSummaryPassAndChangeNothing) {
  const auto before = Snapshot(dir_.path());
  auto v = Verify();
  EXPECT_EQ(v.rc, 0) << v.out << v.err;
  auto s = Capture(
      [&](std::FILE* out, std::FILE* err) { return RunSummary(fs_, Options(false), out, err); });
  EXPECT_EQ(s.rc, 0) << s.err;
  EXPECT_THAT(s.out, HasSubstr("2023-11-14T22:13:20.123Z"));
  EXPECT_THAT(s.out, HasSubstr("TopicTest"));
  for (bool json : {false, true}) {
    const InspectOptions o = Options(json);
    EXPECT_EQ(Capture([&](auto out, auto err) { return RunSummary(fs_, o, out, err); }).rc, 0);
    EXPECT_EQ(
        Capture([&](auto out, auto err) { return RunCommitLog(fs_, o, -1, -1, out, err); }).rc, 0);
    EXPECT_EQ(Capture([&](auto out, auto err) {
                return RunCq(fs_, o, "TopicTest", 0, -1, -1, true, out, err);
              }).rc,
              0);
    EXPECT_EQ(Capture([&](auto out, auto err) {
                return RunKey(fs_, o, "TopicTest", "7F00000112340BADCAFE0001E2400001", 0, INT64_MAX,
                              out, err);
              }).rc,
              0);
    EXPECT_EQ(Capture([&](auto out, auto err) {
                return RunMsgId(fs_, o, "7F00000100002A9F0000000000000000", out, err);
              }).rc,
              0);
  }
  EXPECT_EQ(Snapshot(dir_.path()), before);
}

TEST_F(ExampleCTest, VerifyDetectsBadBlankLength) {
  uint8_t len[4];
  EncodeFixed32BE(len, 100);
  WriteAt(CommitLogFile(0), 122, len, 4);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr(CommitLogFile(0) + " @ 122: BLANK record length 100, expected 134"));
}

// ---- stores built by MessageStore ----------------------------------------------------------

TEST_F(InspectTest, CleanStoreVerifiesAndEverySubcommandIsReadOnly) {
  BuildStore(200);
  const auto before = Snapshot(dir_.path());
  ASSERT_GT(before.size(), 5u);
  auto v = Verify();
  EXPECT_EQ(v.rc, 0) << v.out << v.err;
  EXPECT_THAT(v.out, HasSubstr("200 record(s)"));
  if (std::getenv("INSPECT_TEST_DUMP")) {  // for writing docs: show what the tool prints
    auto s = Capture([&](auto out, auto err) { return RunSummary(fs_, Options(), out, err); });
    std::fputs(s.out.c_str(), stdout);
    auto k = Capture([&](auto out, auto err) {
      return RunKey(fs_, Options(), "TopicTest", "k17", 0, INT64_MAX, out, err);
    });
    std::fputs(k.out.c_str(), stdout);
    auto c = Capture([&](auto out, auto err) {
      return RunCq(fs_, Options(), "TopicTest", 1, 0, 3, true, out, err);
    });
    std::fputs(c.out.c_str(), stdout);
  }
  for (bool json : {false, true}) {
    const InspectOptions o = Options(json);
    EXPECT_EQ(Capture([&](auto out, auto err) { return RunSummary(fs_, o, out, err); }).rc, 0);
    EXPECT_EQ(
        Capture([&](auto out, auto err) { return RunCommitLog(fs_, o, -1, -1, out, err); }).rc, 0);
    EXPECT_EQ(Capture([&](auto out, auto err) {
                return RunCq(fs_, o, "TopicTest", 1, -1, -1, true, out, err);
              }).rc,
              0);
    auto key = Capture([&](auto out, auto err) {
      return RunKey(fs_, o, "TopicTest", "k17", 0, INT64_MAX, out, err);
    });
    EXPECT_EQ(key.rc, 0);
    EXPECT_THAT(key.out, HasSubstr("message-17-"));
    auto id = Capture([&](auto out, auto err) {
      return RunMsgId(fs_, o, "7F00000100002A9F0000000000000000", out, err);
    });
    EXPECT_EQ(id.rc, 0) << id.err;
    EXPECT_THAT(id.out, HasSubstr("message-0-"));
  }
  EXPECT_EQ(Snapshot(dir_.path()), before);
}

TEST_F(InspectTest, BinaryBodyIsBase64AndIpv6HostsPrint) {
  StoreOptions so;
  so.root_dir = dir_.path();
  so.start_background_services = false;
  so.commit_log_segment_size = 4096;
  so.consume_queue_units_per_file = 1024;
  so.index_hash_slot_num = 256;
  so.index_num = 4096;
  FakeClock clock;
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(so, fs_, clock));
    testing::TestMessage m = testing::MakeTestMessage(0);
    m.body = std::string("\xff\x00\x01", 3);
    format::MessageToStore v = m.View();
    std::array<uint8_t, 16> ip{};
    ip[15] = 1;
    v.born_host = format::HostAddress::V6(ip, 5555);
    ASSERT_TRUE(store->PutMessage(v).ok());
    ASSERT_OK(store->RunDispatchStep());
    ASSERT_OK(store->Close());
  }
  auto o = Capture(
      [&](auto out, auto err) { return RunCommitLog(fs_, Options(true), -1, -1, out, err); });
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("\"bornHost\":\"[::1]:5555\""));
  EXPECT_THAT(o.out, HasSubstr("\"bodyBase64\":\"/wAB\""));
  EXPECT_THAT(o.out, Not(HasSubstr("\"body\":")));
  EXPECT_EQ(Verify().rc, 0);
}

// The offsets of the records and BLANKs of the commit log, by reading the files.
struct Layout {
  std::vector<int64_t> records;
  std::vector<int64_t> blanks;
};

Layout ReadLayout(const std::string& root, int64_t segment_size) {
  Layout l;
  for (int64_t start = 0;; start += segment_size) {
    std::string name = std::to_string(start);
    name = std::string(20 - name.size(), '0') + name;
    const std::string bytes = ReadAll(root + "/commitlog/" + name);
    if (bytes.empty()) break;
    size_t pos = 0;
    while (pos + 8 <= bytes.size()) {
      auto d = format::DecodeRecord(
          {reinterpret_cast<const uint8_t*>(bytes.data()) + pos, bytes.size() - pos}, true);
      if (d.outcome == format::DecodeOutcome::kRecord) {
        l.records.push_back(start + static_cast<int64_t>(pos));
        pos += static_cast<size_t>(d.record.total_size);
      } else if (d.outcome == format::DecodeOutcome::kBlank) {
        l.blanks.push_back(start + static_cast<int64_t>(pos));
        break;
      } else {
        break;
      }
    }
  }
  return l;
}

TEST_F(InspectTest, VerifyDetectsFlippedBodyByte) {
  BuildStore(60);
  const Layout l = ReadLayout(dir_.path(), 4096);
  ASSERT_GT(l.records.size(), 10u);
  const int64_t off = l.records[5];
  const std::string file = CommitLogFile(off / 4096 * 4096);
  const int64_t pos = off % 4096 + static_cast<int64_t>(format::kBodyOffsetV4);
  std::string b = ReadAll(file).substr(static_cast<size_t>(pos), 1);
  b[0] ^= 0x20;
  WriteAt(file, pos, b.data(), 1);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr("body CRC mismatch"));
  EXPECT_THAT(v.out, HasSubstr(file + " @ " + std::to_string(off % 4096)));
}

TEST_F(InspectTest, VerifyDetectsBadBlankLength) {
  BuildStore(150);
  const Layout l = ReadLayout(dir_.path(), 4096);
  ASSERT_FALSE(l.blanks.empty());
  const int64_t off = l.blanks[0];
  uint8_t len[4];
  EncodeFixed32BE(len, static_cast<uint32_t>(4096 - off % 4096 - 4));
  WriteAt(CommitLogFile(off / 4096 * 4096), off % 4096, len, 4);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr("BLANK record length"));
}

std::string CqFile(const std::string& root, int q) {
  return root + "/consumequeue/TopicTest/" + std::to_string(q) + "/00000000000000000000";
}

TEST_F(InspectTest, VerifyDetectsCqUnitPointingMidRecord) {
  BuildStore(40);
  const std::string cq = CqFile(dir_.path(), 1);
  std::string unit = ReadAll(cq).substr(20 * 3, 20);
  const int64_t phys = DecodeInt64BE(unit.data());
  uint8_t bad[8];
  EncodeFixed64BE(bad, static_cast<uint64_t>(phys + 10));
  WriteAt(cq, 20 * 3, bad, 8);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr(cq + " @ 60: CQ unit 3 points to commit-log offset"));
  EXPECT_THAT(v.out, HasSubstr("not the start of a record"));
}

TEST_F(InspectTest, VerifyDetectsCqGap) {
  BuildStore(40);
  const std::string cq = CqFile(dir_.path(), 2);
  const std::string zeros(20, '\0');
  WriteAt(cq, 20 * 4, zeros.data(), 20);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr("CQ gap: unit 4"));
  EXPECT_THAT(v.out, HasSubstr("has no CQ unit"));
  // `cq` shows the gap and the units after it.
  auto c = Capture([&](auto out, auto err) {
    return RunCq(fs_, Options(true), "TopicTest", 2, -1, -1, false, out, err);
  });
  ASSERT_EQ(c.rc, 0);
  auto lines = Lines(c.out);
  ASSERT_EQ(lines.size(), 10u) << c.out;
  EXPECT_THAT(lines[4], HasSubstr("\"queueOffset\":4,\"physicalOffset\":0,\"size\":0"));
  EXPECT_THAT(lines[4], HasSubstr("\"invalid\":true"));
}

TEST_F(InspectTest, VerifyDetectsIndexEntryPointingNowhere) {
  BuildStore(40);
  std::string index_dir = dir_.path() + "/index";
  std::string index_file;
  for (const auto& e : fsys::directory_iterator(index_dir)) index_file = e.path().string();
  ASSERT_FALSE(index_file.empty());
  const format::IndexGeometry g{256, 4096};
  uint8_t bad[8];
  EncodeFixed64BE(bad, 3);  // inside the first record
  WriteAt(index_file, static_cast<int64_t>(g.EntryPosition(2) + 4), bad, 8);
  auto v = Verify();
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr("index entry 2 points to commit-log offset 3"));
  EXPECT_THAT(v.out, HasSubstr(index_file + " @ " + std::to_string(g.EntryPosition(2))));
}

// Every file under `dir` of an in-memory file system, with its bytes.
void SnapshotFs(FaultInjectionFileSystem& fs, const std::string& dir,
                std::map<std::string, std::string>* out) {
  auto names = fs.ListDir(dir);
  if (!names.ok()) return;
  for (const std::string& n : *names) {
    const std::string path = JoinPath(dir, n);
    auto info = fs.Stat(path);
    ASSERT_TRUE(info.ok());
    if (info->is_directory) {
      SnapshotFs(fs, path, out);
    } else {
      auto bytes = fs.ReadWholeFile(path);
      ASSERT_TRUE(bytes.ok());
      (*out)[path] = *bytes;
    }
  }
}

// A store in `store/` of an in-memory file system, small files, steps driven by the test;
// and inspect options that read it.
StoreOptions InMemoryStoreOptions() {
  StoreOptions so;
  so.root_dir = "store";
  so.start_background_services = false;
  so.commit_log_segment_size = 4096;
  so.consume_queue_units_per_file = 1024;
  so.index_hash_slot_num = 256;
  so.index_num = 4096;
  return so;
}
InspectOptions InMemoryInspectOptions() {
  InspectOptions o;
  o.store_dir = "store";
  o.index_slots = 256;
  o.index_entries = 4096;
  o.progress = false;
  return o;
}

// The tool reads only through FileSystem: it works on the in-memory one too.
TEST(InspectFaultInjectionTest, VerifiesInMemoryStoreWithoutChangingIt) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  const StoreOptions so = InMemoryStoreOptions();
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(so, fs, clock));
    for (int i = 0; i < 50; ++i) {
      clock.AdvanceMillis(3);
      ASSERT_TRUE(store->PutMessage(testing::MakeTestMessage(i).View()).ok());
    }
    ASSERT_OK(store->RunDispatchStep());
    ASSERT_OK(store->Close());
  }
  InspectOptions o = InMemoryInspectOptions();
  std::map<std::string, std::string> before, after;
  SnapshotFs(fs, "store", &before);
  auto v = Capture([&](auto out, auto err) { return RunVerify(fs, o, out, err); });
  EXPECT_EQ(v.rc, 0) << v.out << v.err;
  o.json = true;
  EXPECT_EQ(Capture([&](auto out, auto err) { return RunSummary(fs, o, out, err); }).rc, 0);
  SnapshotFs(fs, "store", &after);
  EXPECT_EQ(before, after);

  // Flip a body byte of the first record through a writable handle: verify notices.
  ASSERT_OK_AND_ASSIGN(
      auto f, fs.OpenFile("store/commitlog/00000000000000000000", OpenOptions{.writable = true}));
  const char x = 'X';
  ASSERT_OK(f->PWrite(format::kBodyOffsetV4, &x, 1));
  o.json = false;
  v = Capture([&](auto out, auto err) { return RunVerify(fs, o, out, err); });
  EXPECT_EQ(v.rc, 1);
  EXPECT_THAT(v.out, HasSubstr("store/commitlog/00000000000000000000 @ 0: body CRC mismatch"));
}

// `summary` says whether the abort file comes from this boot (a running or crashed broker
// whose page cache survived) or not (a power loss, or RocketMQ's empty file).
TEST(InspectFaultInjectionTest, SummaryTellsWhichBootLeftTheAbortFile) {
  FakeClock clock;
  FaultInjectionFileSystem fs(clock);
  const StoreOptions so = InMemoryStoreOptions();
  InspectOptions o = InMemoryInspectOptions();
  auto summary = [&] {
    return Capture([&](auto out, auto err) { return RunSummary(fs, o, out, err); }).out;
  };
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(so, fs, clock));
    ASSERT_TRUE(store->PutMessage(testing::MakeTestMessage(0).View()).ok());
    ASSERT_OK(store->RunDispatchStep());
    EXPECT_THAT(summary(), HasSubstr("abort file  present, written in this boot"));
  }  // dropped without Close: a crash
  ASSERT_OK(fs.CrashNow(CrashMode::kProcessCrash));
  ASSERT_OK(fs.Reboot());
  EXPECT_THAT(summary(), HasSubstr("abort file  present, written in this boot"));
  ASSERT_OK(fs.CrashNow(CrashMode::kPowerLoss));
  ASSERT_OK(fs.Reboot());
  EXPECT_THAT(summary(), HasSubstr("abort file  present, from another boot"));
  o.json = true;
  EXPECT_THAT(summary(), HasSubstr("\"abort\":true,\"abortThisBoot\":false"));
}

// A RocketMQ 4.9.8 broker that ran on a rocketstore store rewrote the first 24 bytes of
// `checkpoint` (its own fields) and left our extension: the store is consistent, the
// extension merely stale. verify passes; summary shows RocketMQ's timestamps.
TEST_F(InspectTest, CheckpointRewrittenByRocketMqIsStaleNotCorrupt) {
  BuildStore(40);
  const std::string cp = dir_.path() + "/checkpoint";
  const std::string page = ReadAll(cp);
  ASSERT_EQ(page.size(), format::kCheckpointFileSize);
  const int64_t physic = DecodeInt64BE(reinterpret_cast<const uint8_t*>(page.data()));
  ASSERT_GT(physic, 7);
  uint8_t fields[24];
  EncodeFixed64BE(fields, static_cast<uint64_t>(physic - 7));
  EncodeFixed64BE(fields + 8, static_cast<uint64_t>(physic - 14));
  EncodeFixed64BE(fields + 16, 0);
  WriteAt(cp, 0, fields, sizeof(fields));

  auto v = Verify();
  EXPECT_EQ(v.rc, 0) << v.out << v.err;
  EXPECT_THAT(v.out, Not(HasSubstr("CRC mismatch")));
  auto text = Capture([&](auto out, auto err) { return RunSummary(fs_, Options(), out, err); });
  EXPECT_EQ(text.rc, 0);
  EXPECT_THAT(text.out, HasSubstr("rocketstore extension: stale"));
  EXPECT_THAT(text.out, HasSubstr(std::to_string(physic - 7)));
  auto json = Capture([&](auto out, auto err) { return RunSummary(fs_, Options(true), out, err); });
  EXPECT_THAT(json.out, HasSubstr("\"physicMsgTimestamp\":" + std::to_string(physic - 7)));
  EXPECT_THAT(json.out, HasSubstr("\"logicsMsgTimestamp\":" + std::to_string(physic - 14)));
  EXPECT_THAT(json.out, HasSubstr("\"extension\":\"stale\""));

  // The store trusts RocketMQ's fields again and rewrites a current extension.
  StoreOptions so;
  so.root_dir = dir_.path();
  so.start_background_services = false;
  so.commit_log_segment_size = 4096;
  so.consume_queue_units_per_file = 1024;
  so.index_hash_slot_num = 256;
  so.index_num = 4096;
  FakeClock clock;
  {
    ASSERT_OK_AND_ASSIGN(auto store, MessageStore::Open(so, fs_, clock));
    EXPECT_EQ(store->GetMaxOffsetInQueue("TopicTest", 0), QueueOffset(10));
    ASSERT_OK(store->Close());
  }
  json = Capture([&](auto out, auto err) { return RunSummary(fs_, Options(true), out, err); });
  EXPECT_THAT(json.out, HasSubstr("\"extension\":\"ok\""));
}

TEST_F(InspectTest, VerifyOnMissingStoreFails) {
  InspectOptions o = Options();
  o.store_dir = dir_.path() + "/nope";
  auto v = Capture([&](auto out, auto err) { return RunVerify(fs_, o, out, err); });
  EXPECT_EQ(v.rc, 2);
  EXPECT_THAT(v.err, Not(HasSubstr("consistent")));
}

}  // namespace
}  // namespace rocketstore::tools::inspect
