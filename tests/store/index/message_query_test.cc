#include "store/index/message_query.h"

#include <gtest/gtest.h>

#include <map>

#include "base/crc32.h"
#include "index_test_util.h"
#include "store/dispatch/dispatcher.h"
#include "store/format/message_id.h"
#include "store/format/properties.h"

namespace rocketstore {
namespace {

using ::rocketstore::testing::SmallIndexOptions;
using ::rocketstore::testing::StatusIs;

constexpr int64_t kTs = 1700000000123;
constexpr int64_t kMax = INT64_MAX;
const format::HostAddress kStoreHost = format::HostAddress::V4(127, 0, 0, 1, 10911);

// An in-memory commit log: real encoded records at increasing offsets.
class FakeCommitLog {
 public:
  int64_t Append(const std::string& topic, const std::string& keys, const std::string& uniq,
                 int64_t store_timestamp) {
    format::PropertiesBuilder b;
    if (!keys.empty()) b.Put(format::kPropertyKeys, keys);
    if (!uniq.empty()) b.Put(format::kPropertyUniqKey, uniq);
    const std::string props = b.Build();
    format::MessageToStore m;
    m.topic = topic;
    m.body = "body";
    m.properties = props;
    m.born_timestamp = store_timestamp;
    m.born_host = format::HostAddress::V4(127, 0, 0, 1, 5555);
    m.store_host = kStoreHost;
    auto bytes = std::make_shared<std::vector<uint8_t>>(format::EncodedRecordSize(m));
    format::EncodeRecord(m, RocketMqCrc32(m.body.data(), m.body.size()), 0, next_, store_timestamp,
                         bytes->data());
    const int64_t offset = next_;
    records_[offset] = bytes;
    next_ += static_cast<int64_t>(bytes->size());
    return offset;
  }
  // Dispatches record `offset` to `index` the way the dispatcher does.
  Status DispatchTo(IndexService& index, int64_t offset) {
    auto& bytes = records_.at(offset);
    format::DecodeResult d = format::DecodeRecord(*bytes, true);
    if (d.outcome != format::DecodeOutcome::kRecord) return Corruption(d.error);
    DispatchRequest r;
    BuildDispatchRequest(PhysicalOffset(offset), d.record, TagsCodePolicy(), &r);
    return index.Dispatch(r);
  }
  void Remove(int64_t offset) { records_.erase(offset); }
  void FailWith(Status s) { fail_ = std::move(s); }

  RecordLoader Loader() {
    return [this](PhysicalOffset o) -> Result<LoadedRecord> {
      if (!fail_.ok()) return fail_;
      auto it = records_.find(o.value());
      if (it == records_.end()) return NotFound("no record at " + std::to_string(o.value()));
      return DecodeLoadedRecord(o, it->second, *it->second);
    };
  }

 private:
  std::map<int64_t, std::shared_ptr<std::vector<uint8_t>>> records_;
  int64_t next_ = 0;
  Status fail_;
};

std::vector<int64_t> Offsets(const std::vector<LoadedRecord>& v) {
  std::vector<int64_t> out;
  for (const auto& r : v) out.push_back(r.offset.value());
  return out;
}

class MessageQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = std::make_unique<IndexService>(fs_, clock_, SmallIndexOptions(64, 100));
    ASSERT_OK(index_->Load());
  }
  int64_t Add(const std::string& topic, const std::string& keys, const std::string& uniq = "",
              int64_t ts = kTs) {
    const int64_t o = log_.Append(topic, keys, uniq, ts);
    EXPECT_OK(log_.DispatchTo(*index_, o));
    return o;
  }

  FakeClock clock_{kTs};
  FaultInjectionFileSystem fs_{clock_};
  FakeCommitLog log_;
  std::unique_ptr<IndexService> index_;
};

TEST_F(MessageQueryTest, HashCollisionsAreDropped) {
  const int64_t aa = Add("T", "Aa");
  const int64_t bb = Add("T", "BB");  // same Java hash as "Aa"
  ASSERT_EQ(index_->QueryOffsets("T", "Aa", 64, 0, kMax).phy_offsets.size(), 2u);
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "T", "Aa", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{aa}));
  EXPECT_EQ(r.hash_collisions, 1);
  EXPECT_EQ(r.messages[0].record.topic, "T");
  ASSERT_OK_AND_ASSIGN(r, QueryMessage(*index_, log_.Loader(), "T", "BB", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{bb}));
  EXPECT_EQ(r.index_last_update_phy_offset, PhysicalOffset(bb));
}

// `topic#key` is ambiguous when either holds '#': the real topic decides.
TEST_F(MessageQueryTest, TopicAndKeyAreComparedSeparately) {
  const int64_t first = Add("A", "b#c");
  Add("A#b", "c");
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "A", "b#c", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{first}));
  EXPECT_EQ(r.hash_collisions, 1);
}

TEST_F(MessageQueryTest, ResultsAscendingEachOffsetOnce) {
  const int64_t a = Add("T", "d d");  // the same token twice: two index entries
  const int64_t b = Add("T", "x d", "d");
  const int64_t c = Add("T", "d");
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "T", "d", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{a, b, c}));
  ASSERT_OK_AND_ASSIGN(r, QueryMessage(*index_, log_.Loader(), "T", "d", 2, 0, kMax));
  // The chain of "d" is c, b (KEYS), b (UNIQ_KEY), a, a: the two newest are c and b.
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{b, c}));
}

TEST_F(MessageQueryTest, RetriesBehindCollisions) {
  const int64_t aa = Add("T", "Aa", "", kTs);
  Add("T", "BB", "", kTs + 10'000);
  Add("T", "BB", "", kTs + 20'000);
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "T", "Aa", 2, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{aa}));
  EXPECT_EQ(r.hash_collisions, 2);
}

TEST_F(MessageQueryTest, MissingKeyIsEmpty) {
  Add("T", "k");
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "T", "nope", 64, 0, kMax));
  EXPECT_TRUE(r.messages.empty());
  EXPECT_EQ(r.hash_collisions, 0);
}

TEST_F(MessageQueryTest, UnreadableCandidatesAreSkippedOtherErrorsReturned) {
  const int64_t gone = Add("T", "k");
  const int64_t kept = Add("T", "k");
  log_.Remove(gone);  // e.g. its segment was deleted by retention
  ASSERT_OK_AND_ASSIGN(QueryMessageResult r,
                       QueryMessage(*index_, log_.Loader(), "T", "k", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{kept}));
  EXPECT_EQ(r.unreadable, 1);
  log_.FailWith(ErrnoStatus("pread", EIO));
  EXPECT_THAT(QueryMessage(*index_, log_.Loader(), "T", "k", 64, 0, kMax),
              StatusIs(StatusCode::kIOError));
}

TEST_F(MessageQueryTest, LookupByUniqKey) {
  const int64_t mine = Add("T", "x", "7F00000112340BADCAFE0001E2400001");
  const int64_t other = Add("T", "7F00000112340BADCAFE0001E2400001");  // as a KEYS token
  Add("U", "", "7F00000112340BADCAFE0001E2400001");                    // another topic
  ASSERT_OK_AND_ASSIGN(
      std::vector<LoadedRecord> got,
      LookupByUniqKey(*index_, log_.Loader(), "T", "7F00000112340BADCAFE0001E2400001"));
  EXPECT_EQ(Offsets(got), (std::vector<int64_t>{mine}));
  ASSERT_OK_AND_ASSIGN(
      QueryMessageResult r,
      QueryMessage(*index_, log_.Loader(), "T", "7F00000112340BADCAFE0001E2400001", 64, 0, kMax));
  EXPECT_EQ(Offsets(r.messages), (std::vector<int64_t>{mine, other}));
  ASSERT_OK_AND_ASSIGN(got, LookupByUniqKey(*index_, log_.Loader(), "T", "absent"));
  EXPECT_TRUE(got.empty());
}

TEST_F(MessageQueryTest, LookupByOffsetMsgId) {
  Add("T", "a");
  const int64_t second = Add("T", "b");
  const std::string id = format::EncodeOffsetMsgId(kStoreHost, second);
  ASSERT_OK_AND_ASSIGN(LoadedRecord r, LookupByOffsetMsgId(log_.Loader(), id));
  EXPECT_EQ(r.offset.value(), second);
  EXPECT_EQ(format::FindProperty(r.record.properties, format::kPropertyKeys), "b");
  EXPECT_THAT(LookupByOffsetMsgId(log_.Loader(), "XYZ"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(LookupByOffsetMsgId(log_.Loader(), format::EncodeOffsetMsgId(kStoreHost, 5)),
              StatusIs(StatusCode::kNotFound));
}

TEST(RecordHasKeyTest, UniqKeyOrKeysToken) {
  format::RecordView r;
  r.topic = "T";
  const std::string props =
      "KEYS\x01"
      "a  b\x02UNIQ_KEY\x01u";
  r.properties = props;
  EXPECT_TRUE(RecordHasKey(r, "T", "a"));
  EXPECT_TRUE(RecordHasKey(r, "T", "b"));
  EXPECT_TRUE(RecordHasKey(r, "T", "u"));
  EXPECT_FALSE(RecordHasKey(r, "T", ""));
  EXPECT_FALSE(RecordHasKey(r, "T", "a  b"));
  EXPECT_FALSE(RecordHasKey(r, "X", "a"));
}

TEST(MessageQueryCommitLogTest, QueriesARealCommitLog) {
  FakeClock clock(kTs);
  FaultInjectionFileSystem fs(clock);
  StoreHealth health;
  CommitLogOptions o;
  o.dir = "/store/commitlog";
  o.segment_size = 4096;
  o.reserve_chunk_bytes = 4096;
  o.prefault_window_bytes = 4096;
  ASSERT_OK_AND_ASSIGN(auto log, CommitLog::Open(fs, o, clock, health));
  IndexService index(fs, clock, SmallIndexOptions(64, 100));
  ASSERT_OK(index.Load());
  const std::string props = "KEYS\x01order-1 order-2\x02UNIQ_KEY\x01U1";
  format::MessageToStore m;
  m.topic = "TopicTest";
  m.body = "hello";
  m.properties = props;
  m.born_host = format::HostAddress::V4(127, 0, 0, 1, 5555);
  m.store_host = kStoreHost;
  std::vector<int64_t> offsets;
  for (int i = 0; i < 3; ++i) {
    PutMessageResult put = log->Put(m);
    ASSERT_TRUE(put.ok()) << put.error;
    offsets.push_back(put.first.offset.value());
    ASSERT_OK_AND_ASSIGN(CommitLogBytes b, log->ReadRecord(put.first.offset));
    format::DecodeResult d = format::DecodeRecord(b.bytes, true);
    ASSERT_EQ(d.outcome, format::DecodeOutcome::kRecord);
    DispatchRequest r;
    BuildDispatchRequest(put.first.offset, d.record, TagsCodePolicy(), &r);
    ASSERT_OK(index.Dispatch(r));
  }
  const RecordLoader load = CommitLogRecordLoader(*log);
  ASSERT_OK_AND_ASSIGN(QueryMessageResult q,
                       QueryMessage(index, load, "TopicTest", "order-2", 64, 0, kMax));
  EXPECT_EQ(Offsets(q.messages), offsets);
  ASSERT_OK_AND_ASSIGN(std::vector<LoadedRecord> u,
                       LookupByUniqKey(index, load, "TopicTest", "U1"));
  EXPECT_EQ(u.size(), 3u);
  ASSERT_OK_AND_ASSIGN(LoadedRecord byid, LookupByOffsetMsgId(load, format::EncodeOffsetMsgId(
                                                                        kStoreHost, offsets[1])));
  EXPECT_EQ(byid.record.body, "hello");
}

}  // namespace
}  // namespace rocketstore
