#include "store/format/properties.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "testing/xorshift.h"

namespace rocketstore::format {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

// Expected strings below were produced by java.util.HashMap (OpenJDK 17) and
// messageProperties2String, written with '=' for 0x01 and ';' for 0x02 (each entry
// followed by ';', the trailing-separator form). J() converts them to the real bytes;
// J498() drops the trailing separator, as 4.9.8 does.
std::string J(std::string_view readable) {
  std::string out(readable);
  for (char& c : out) {
    if (c == '=') c = kNameValueSeparator;
    if (c == ';') c = kPropertySeparator;
  }
  return out;
}
std::string J498(std::string_view readable) {
  std::string out = J(readable);
  if (!out.empty()) out.pop_back();
  return out;
}

constexpr std::string_view kUniqKey = "7F00000112340BADCAFE0001E2400001";

// ---- Reading: failure paths first ---------------------------------------------------------

TEST(ParsePropertiesTest, IgnoresUnreadableSegments) {
  EXPECT_THAT(ParseProperties(""), IsEmpty());
  EXPECT_THAT(ParseProperties(J(";;;")), IsEmpty());
  EXPECT_THAT(ParseProperties(J("a=")), IsEmpty());      // shorter than 3
  EXPECT_THAT(ParseProperties(J("=ab")), IsEmpty());     // empty name
  EXPECT_THAT(ParseProperties(J("ab=")), IsEmpty());     // empty value
  EXPECT_THAT(ParseProperties(J("abc")), IsEmpty());     // no 0x01
  EXPECT_THAT(ParseProperties(J("==;=x=")), IsEmpty());  // first 0x01 first / last
  EXPECT_THAT(ParseProperties(J("ab;a=b;;=c;k=v")), ElementsAre(Pair("a", "b"), Pair("k", "v")));
}

TEST(ParsePropertiesTest, NameEndsAtFirstSeparatorValueMayHoldMore) {
  EXPECT_THAT(ParseProperties(J("a=b=c")), ElementsAre(Pair("a",
                                                            "b\x01"
                                                            "c")));
  EXPECT_THAT(ParseProperties(J("a==")), ElementsAre(Pair("a", "\x01")));
}

TEST(ParsePropertiesTest, DuplicatesLastValueWinsAtFirstPosition) {
  EXPECT_THAT(ParseProperties(J("A=1;B=2;A=3")), ElementsAre(Pair("A", "3"), Pair("B", "2")));
  EXPECT_EQ(FindProperty(J("A=1;B=2;A=3"), "A"), "3");
}

TEST(ParsePropertiesTest, BothTrailingVariantsReadTheSame) {
  const std::string with = J("KEYS=k1;TAGS=TagA;");
  const std::string without = J("KEYS=k1;TAGS=TagA");
  EXPECT_EQ(ParseProperties(with), ParseProperties(without));
  EXPECT_THAT(ParseProperties(without), ElementsAre(Pair("KEYS", "k1"), Pair("TAGS", "TagA")));
  for (const std::string& s : {with, without}) {
    EXPECT_EQ(FindProperty(s, kPropertyTags), "TagA");
    EXPECT_EQ(FindProperty(s, kPropertyKeys), "k1");
  }
}

// The readers cut the text in one pass over its separators (16 bytes at a time). Random
// texts of separators and a few letters, at every length up to 80 (so every position of a
// separator against the 16-byte blocks), read as the rules say: cut at each 0x02; a piece
// of 3 or more bytes whose first 0x01 is neither its first nor its last byte is an entry.
// Checked through ParseProperties (the views themselves: same bytes of the same text),
// FindProperty and PropertyIndex.
TEST(ParsePropertiesTest, OnePassReadsRandomTextsAsTheRulesSay) {
  auto rules = [](std::string_view props) {
    std::vector<std::pair<std::string_view, std::string_view>> out;
    size_t index = 0;
    while (index < props.size()) {
      size_t end = props.find('\x02', index);
      if (end == std::string_view::npos) end = props.size();
      const std::string_view piece = props.substr(index, end - index);
      const size_t kv = piece.find('\x01');
      if (piece.size() >= 3 && kv != std::string_view::npos && kv > 0 && kv < piece.size() - 1) {
        const std::string_view name = piece.substr(0, kv), value = piece.substr(kv + 1);
        bool seen = false;
        for (auto& [n, v] : out) {
          if (n == name) {
            v = value;
            seen = true;
          }
        }
        if (!seen) out.emplace_back(name, value);
      }
      index = end + 1;
    }
    return out;
  };
  testing::XorShift64 next(0x9E3779B97F4A7C15ull);
  const char alphabet[] = {'\x01', '\x02', 'a', 'b', 'c', '\x01', '\x02', 'a'};
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text(static_cast<size_t>(iter % 81), ' ');
    for (char& c : text) c = alphabet[next() % sizeof(alphabet)];
    const auto want = rules(text);
    const auto got = ParseProperties(text);
    ASSERT_EQ(got.size(), want.size()) << "iteration " << iter;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].first.data(), want[i].first.data()) << "iteration " << iter;
      EXPECT_EQ(got[i].first.size(), want[i].first.size()) << "iteration " << iter;
      EXPECT_EQ(got[i].second.data(), want[i].second.data()) << "iteration " << iter;
      EXPECT_EQ(got[i].second.size(), want[i].second.size()) << "iteration " << iter;
      EXPECT_EQ(FindProperty(text, want[i].first), want[i].second) << "iteration " << iter;
    }
    const PropertyIndex index(text);
    ASSERT_EQ(index.size(), want.size()) << "iteration " << iter;
    for (const auto& [name, value] : want) EXPECT_EQ(index.Find(name), value);
    EXPECT_FALSE(FindProperty(text, "zz").has_value());
  }
}

TEST(FindPropertyTest, MatchesWholeNamesOnly) {
  const std::string props = J("KEYSX=1;xKEYS=2;TAGS=KEYS;K=3");
  EXPECT_EQ(FindProperty(props, "KEYS"), std::nullopt);
  EXPECT_EQ(FindProperty(props, "KEY"), std::nullopt);
  EXPECT_EQ(FindProperty(props, ""), std::nullopt);
  EXPECT_EQ(FindProperty(props, "K"), "3");
  EXPECT_EQ(FindProperty(props, "TAGS"), "KEYS");
  EXPECT_EQ(FindProperty("", "TAGS"), std::nullopt);
  EXPECT_EQ(FindProperty(J("TAGS="), "TAGS"), std::nullopt);  // empty value is unreadable
  EXPECT_EQ(FindProperty(J("WAIT=false;WAIT=true"), kPropertyWait), "true");
}

TEST(FindPropertiesTest, EqualsFindPropertyPerName) {
  // Duplicates (last wins), a name listed twice, unreadable segments, both trailing forms,
  // names that are prefixes of others, values holding separators or other names.
  const std::string cases[] = {
      "",
      J("KEYS=k1;TAGS=TagA"),
      J("KEYS=k1;TAGS=TagA;"),
      J("TAGS=a;KEYS=k1 k2;TAGS=b;UNIQ_KEY=u"),
      J("KEYSX=1;xKEYS=2;TAGS=KEYS;K=3"),
      J("TAGS=;KEYS=;=v;UNIQ_KEY"),
      // Values holding 0x01: KEYS = "a\x01b", TAGS = "\x01" (split literals: "\x01a" would be
      // one byte, 0x1a).
      std::string("KEYS\x01"
                  "a\x01"
                  "b\x02"
                  "TAGS\x01\x01\x02"
                  "UNIQ_KEY\x01"
                  "u\x02"),
      J(";;;TAGS=t;;"),
  };
  const std::string_view names[] = {
      kPropertyKeys, kPropertyUniqKey, kPropertyTags, kPropertyKeys, "K", "", "NOPE"};
  for (const std::string& props : cases) {
    std::optional<std::string_view> out[std::size(names)];
    out[2] = "stale";  // every slot is (re)set, found or not
    FindProperties(props, names, out);
    for (size_t i = 0; i < std::size(names); ++i) {
      EXPECT_EQ(out[i], FindProperty(props, names[i]))
          << "props #" << &props - cases << " name " << names[i];
    }
  }
}

TEST(RemovePropertyTest, RemovesEveryReadableOccurrence) {
  EXPECT_EQ(RemoveProperty(J("A=1;WAIT=true;B=2"), kPropertyWait), J("A=1;B=2"));
  EXPECT_EQ(RemoveProperty(J("WAIT=true;B=2"), kPropertyWait), J("B=2"));
  EXPECT_EQ(RemoveProperty(J("A=1;WAIT=true"), kPropertyWait), J("A=1"));
  EXPECT_EQ(RemoveProperty(J("A=1;WAIT=true;"), kPropertyWait), J("A=1;"));
  EXPECT_EQ(RemoveProperty(J("WAIT=true;A=1;WAIT=false;"), kPropertyWait), J("A=1;"));
  EXPECT_EQ(RemoveProperty(J("WAIT=true"), kPropertyWait), "");
  EXPECT_EQ(RemoveProperty(J("WAIT=true;"), kPropertyWait), "");
  // Absent, or present only in an unreadable segment: unchanged.
  EXPECT_EQ(RemoveProperty(J("A=1;B=2;"), kPropertyWait), J("A=1;B=2;"));
  EXPECT_EQ(RemoveProperty(J("WAIT=;x"), kPropertyWait), J("WAIT=;x"));
  EXPECT_EQ(RemoveProperty("", kPropertyWait), "");
  // Other segments stay byte for byte, readable or not.
  EXPECT_EQ(RemoveProperty(J("zz;WAIT=1;=q"), kPropertyWait), J("zz;=q"));
}

// ---- HashMap order ------------------------------------------------------------------------

TEST(PropertiesBuilderTest, SpecBucketClaimsAtCapacity16) {
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyKeys, 16), 7);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyUniqKey, 16), 12);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyCluster, 16), 12);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyWait, 16), 13);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyDelay, 16), 13);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyTags, 16), 14);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyRealTopic, 16), 1);
  EXPECT_EQ(PropertiesBuilder::BucketOf(kPropertyRealQueueId, 16), 15);
}

TEST(PropertiesBuilderTest, ExampleAProperties) {
  PropertiesBuilder b;  // 4.9.8
  b.Put(kPropertyTags, "TagA");
  b.Put(kPropertyKeys, "k1");
  EXPECT_EQ(b.Build(), "KEYS\x01k1\x02TAGS\x01TagA");
  EXPECT_EQ(b.Build().size(), 17u);
  EXPECT_EQ(b.EncodedSize(), 17u);
  PropertiesBuilder t(PropertiesFormat{16, true});
  t.Put(kPropertyTags, "TagA");
  t.Put(kPropertyKeys, "k1");
  EXPECT_EQ(t.Build(), "KEYS\x01k1\x02TAGS\x01TagA\x02");
  EXPECT_EQ(t.EncodedSize(), 18u);
}

TEST(PropertiesBuilderTest, ExampleCBrokerRewrite) {
  // The producer's HashMap iteration order, as it arrives on the wire.
  PropertiesBuilder producer;
  producer.Put(kPropertyKeys, "k1");
  producer.Put(kPropertyTags, "TagA");
  producer.Put(kPropertyUniqKey, kUniqKey);
  producer.Put(kPropertyWait, "true");
  const std::string wire = producer.Build();
  EXPECT_EQ(wire, J498("KEYS=k1;UNIQ_KEY=7F00000112340BADCAFE0001E2400001;WAIT=true;TAGS=TagA;"));

  // 4.9.8 SendMessageProcessor: parse, put CLUSTER, remove WAIT, serialise.
  PropertiesBuilder broker = PropertiesBuilder::FromString(wire);
  broker.Put(kPropertyCluster, "DefaultCluster");
  EXPECT_TRUE(broker.Remove(kPropertyWait));
  EXPECT_FALSE(broker.Remove(kPropertyWait));
  const std::string stored = broker.Build();
  EXPECT_EQ(stored,
            "KEYS\x01k1\x02UNIQ_KEY\x01"
            "7F00000112340BADCAFE0001E2400001\x02"
            "CLUSTER\x01"
            "DefaultCluster\x02TAGS\x01TagA");
  EXPECT_EQ(stored.size(), 82u);
  EXPECT_EQ(broker.EncodedSize(), 82u);
  EXPECT_EQ(FindProperty(stored, kPropertyUniqKey), kUniqKey);
  EXPECT_EQ(FindProperty(stored, kPropertyWait), std::nullopt);
}

TEST(PropertiesBuilderTest, ReplaceKeepsPositionRemoveAndReAddMovesToBucketEnd) {
  PropertiesBuilder b(PropertiesFormat{16, true});
  b.Put("UNIQ_KEY", "u");
  b.Put("CLUSTER", "c");
  b.Put("KEYS", "k");
  b.Remove("UNIQ_KEY");
  b.Put("UNIQ_KEY", "u2");
  b.Put("KEYS", "k2");
  EXPECT_EQ(b.Build(), J("KEYS=k2;CLUSTER=c;UNIQ_KEY=u2;"));
  EXPECT_EQ(b.Get("KEYS"), "k2");
  EXPECT_EQ(b.Get("WAIT"), std::nullopt);
  EXPECT_EQ(b.size(), 3u);
}

TEST(PropertiesBuilderTest, ResizeAtLoadFactor) {
  PropertiesBuilder b(PropertiesFormat{16, true});
  for (int i = 0; i < 12; ++i) b.Put("P" + std::to_string(i), "v" + std::to_string(i));
  EXPECT_EQ(b.capacity(), 16);
  EXPECT_EQ(b.Build(), J("P0=v0;P1=v1;P11=v11;P2=v2;P3=v3;P4=v4;P5=v5;P6=v6;P7=v7;P8=v8;P9=v9;"
                         "P10=v10;"));
  b.Put("P12", "v12");  // 13 > 0.75 * 16
  EXPECT_EQ(b.capacity(), 32);
  EXPECT_EQ(b.Build(), J("P0=v0;P1=v1;P2=v2;P3=v3;P4=v4;P5=v5;P6=v6;P7=v7;P8=v8;P9=v9;P10=v10;"
                         "P12=v12;P11=v11;"));
}

TEST(PropertiesBuilderTest, LongChainResizesSmallTable) {
  // c3, c20, ... all hash to bucket 0 at capacity 16 (checked first).
  const std::vector<std::string> names = {"c3",  "c20", "c31", "c42", "c53",
                                          "c64", "c75", "c86", "c97", "c110"};
  for (const auto& n : names) ASSERT_EQ(PropertiesBuilder::BucketOf(n, 16), 0) << n;
  PropertiesBuilder b(PropertiesFormat{16, true});
  for (size_t i = 0; i < 8; ++i) b.Put(names[i], "x");
  EXPECT_EQ(b.capacity(), 16);
  EXPECT_EQ(b.Build(), J("c3=x;c20=x;c31=x;c42=x;c53=x;c64=x;c75=x;c86=x;"));
  b.Put(names[8], "x");  // 9th in one bucket: treeifyBin resizes instead (capacity < 64)
  EXPECT_EQ(b.capacity(), 32);
  EXPECT_EQ(b.Build(), J("c20=x;c31=x;c42=x;c53=x;c64=x;c75=x;c86=x;c97=x;c3=x;"));
  b.Put(names[9], "x");
  EXPECT_EQ(b.capacity(), 64);
  EXPECT_EQ(b.Build(), J("c31=x;c53=x;c75=x;c97=x;c20=x;c42=x;c64=x;c86=x;c110=x;c3=x;"));
}

const std::vector<std::string_view> kTwentyNames = {"KEYS",
                                                    "UNIQ_KEY",
                                                    "WAIT",
                                                    "TAGS",
                                                    "CLUSTER",
                                                    "DELAY",
                                                    "REAL_TOPIC",
                                                    "REAL_QID",
                                                    "PGROUP",
                                                    "TRAN_MSG",
                                                    "MIN_OFFSET",
                                                    "MAX_OFFSET",
                                                    "RETRY_TOPIC",
                                                    "ORIGIN_MESSAGE_ID",
                                                    "RECONSUME_TIME",
                                                    "MAX_RECONSUME_TIMES",
                                                    "CONSUME_START_TIME",
                                                    "TRACE_ON",
                                                    "MSG_REGION",
                                                    "BUYER_ID"};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

TEST(PropertiesBuilderTest, TwentyStandardNamesAtCapacity16And128) {
  PropertiesBuilder b16(PropertiesFormat{16, true});
  PropertiesBuilder b128(PropertiesFormat::RocketMq5Broker());
  for (std::string_view n : kTwentyNames) {
    b16.Put(n, Lower(n));
    b128.Put(n, Lower(n));
  }
  EXPECT_EQ(b16.capacity(), 32);
  EXPECT_EQ(b128.capacity(), 128);
  EXPECT_EQ(b16.Build(),
            J("RECONSUME_TIME=reconsume_time;TRACE_ON=trace_on;TRAN_MSG=tran_msg;"
              "CONSUME_START_TIME=consume_start_time;MAX_RECONSUME_TIMES=max_reconsume_times;"
              "MIN_OFFSET=min_offset;REAL_TOPIC=real_topic;ORIGIN_MESSAGE_ID=origin_message_id;"
              "RETRY_TOPIC=retry_topic;MAX_OFFSET=max_offset;BUYER_ID=buyer_id;KEYS=keys;"
              "MSG_REGION=msg_region;UNIQ_KEY=uniq_key;CLUSTER=cluster;WAIT=wait;DELAY=delay;"
              "PGROUP=pgroup;TAGS=tags;REAL_QID=real_qid;"));
  EXPECT_EQ(b128.Build(),
            J("CONSUME_START_TIME=consume_start_time;ORIGIN_MESSAGE_ID=origin_message_id;"
              "RETRY_TOPIC=retry_topic;BUYER_ID=buyer_id;MSG_REGION=msg_region;"
              "UNIQ_KEY=uniq_key;CLUSTER=cluster;PGROUP=pgroup;RECONSUME_TIME=reconsume_time;"
              "MIN_OFFSET=min_offset;DELAY=delay;TAGS=tags;TRAN_MSG=tran_msg;KEYS=keys;"
              "WAIT=wait;TRACE_ON=trace_on;MAX_RECONSUME_TIMES=max_reconsume_times;"
              "REAL_TOPIC=real_topic;MAX_OFFSET=max_offset;REAL_QID=real_qid;"));
}

TEST(PropertiesBuilderTest, HundredNamesThroughSeveralResizes) {
  PropertiesBuilder b(PropertiesFormat{16, true});
  for (int i = 0; i < 100; ++i) b.Put("name" + std::to_string(i * 7919 % 1000), std::to_string(i));
  EXPECT_EQ(b.capacity(), 256);
  EXPECT_EQ(
      b.Build(),
      J("name196=84;name193=47;name595=5;name112=48;name352=8;name115=85;name358=82;name355=45;"
        "name872=88;name598=42;name757=3;name514=6;name517=43;name34=86;name919=1;name31=49;"
        "name221=59;name464=56;name981=99;name461=19;name467=93;name224=96;name109=11;"
        "name626=54;name28=12;name623=17;name866=14;name6=74;name629=91;name869=51;name3=37;"
        "name0=0;name190=10;name492=68;name651=29;name137=23;name654=66;name897=63;name894=26;"
        "name411=69;name813=27;name59=61;name816=64;name56=24;name760=40;name489=31;name520=80;"
        "name246=34;name763=77;name922=38;name249=71;name408=32;name925=75;name271=9;"
        "name277=83;name274=46;name791=89;name676=4;name710=90;name433=7;name950=50;"
        "name439=81;name436=44;name953=87;name679=41;name838=2;name140=60;name383=57;"
        "name380=20;name386=94;name143=97;name302=58;name545=55;name542=18;name785=15;"
        "name548=92;name788=52;name305=95;name707=53;name704=16;name947=13;name62=98;"
        "name570=30;name573=67;name299=21;name330=70;name732=28;name218=22;name735=65;"
        "name978=62;name975=25;name165=35;name682=78;name841=39;name168=72;name601=79;"
        "name327=33;name844=76;name87=73;name84=36;"));
}

TEST(PropertiesBuilderTest, TinyInitialCapacities) {
  for (int cap : {0, 1, 3}) {
    PropertiesBuilder b(PropertiesFormat{cap, true});
    for (int i = 0; i < 5; ++i) b.Put("P" + std::to_string(i), "v");
    EXPECT_EQ(b.Build(), J("P0=v;P1=v;P2=v;P3=v;P4=v;")) << cap;
  }
}

TEST(PropertiesBuilderTest, NonAsciiNamesHashAsUtf16) {
  PropertiesBuilder b(PropertiesFormat{16, true});
  const std::string ete = "\xC3\xA9t\xC3\xA9";                 // été
  const std::string smile = "\xF0\x9F\x98\x80";                // U+1F600, a surrogate pair
  const std::string key = "\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87";  // ключ
  b.Put(ete, "1");
  b.Put(smile, "2");
  b.Put(key, "3");
  b.Put("KEYS", "4");
  EXPECT_EQ(b.Build(), J(key + "=3;KEYS=4;" + smile + "=2;" + ete + "=1;"));
}

TEST(PropertiesBuilderTest, EmptyAndFromStringRoundTrip) {
  PropertiesBuilder empty;
  EXPECT_EQ(empty.Build(), "");
  EXPECT_EQ(empty.EncodedSize(), 0u);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.capacity(), 0);  // lazily allocated, like HashMap

  PropertiesBuilder dup = PropertiesBuilder::FromString(J("TAGS=a;KEYS=k;TAGS=b;junk;"));
  EXPECT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup.Build(), J498("KEYS=k;TAGS=b;"));
  std::string appended = "prefix";
  dup.AppendTo(&appended);
  EXPECT_EQ(appended, "prefix" + J498("KEYS=k;TAGS=b;"));
}

TEST(SplitKeysTest, EmptyTokensAreSkipped) {
  EXPECT_THAT(SplitKeys(""), IsEmpty());
  EXPECT_THAT(SplitKeys("   "), IsEmpty());
  EXPECT_THAT(SplitKeys("k1"), ElementsAre("k1"));
  EXPECT_THAT(SplitKeys("k1 k2"), ElementsAre("k1", "k2"));
  EXPECT_THAT(SplitKeys(" k1  k2 "), ElementsAre("k1", "k2"));
  // Only the space separates (MessageConst.KEY_SEPARATOR): tabs are part of a key.
  EXPECT_THAT(SplitKeys("a\tb c"), ElementsAre("a\tb", "c"));
}

TEST(SplitKeysTest, NextKeyConsumesTheInput) {
  std::string_view rest = "a  b";
  std::string_view key;
  ASSERT_TRUE(NextKey(rest, key));
  EXPECT_EQ(key, "a");
  ASSERT_TRUE(NextKey(rest, key));
  EXPECT_EQ(key, "b");
  EXPECT_TRUE(rest.empty());
  EXPECT_FALSE(NextKey(rest, key));
}

// ---- PropertyIndex and AppendInHashMapOrder: the send path's one-parse shortcuts, checked
// against FindProperty and PropertiesBuilder (the models of Java's behaviour).

TEST(PropertyIndexTest, FindsWhatFindPropertyFinds) {
  const std::string props = J498("KEYS=k1 k2;;x;=v;n=;UNIQ_KEY=u;KEYS=k3;WAIT=true;TAGS=T=A");
  PropertyIndex idx(props);
  EXPECT_EQ(idx.size(), 4u);  // KEYS, UNIQ_KEY, WAIT, TAGS (the rest unreadable)
  for (std::string_view name : {"KEYS", "UNIQ_KEY", "WAIT", "TAGS", "x", "", "n", "KEY"}) {
    EXPECT_EQ(idx.Find(name), FindProperty(props, name)) << name;
  }
  EXPECT_EQ(idx.entries()[0].name, "KEYS");  // first position, last value
  EXPECT_EQ(idx.entries()[0].value, "k3");
  PropertyIndex empty("");
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.Find("KEYS"));
}

// The index of a string just written holds what a parse of it reads: an entry with an
// empty value (a broker whose cluster name is empty) is written but cannot be read back.
TEST(PropertyIndexTest, AssignLeavesOutWhatParseCannotRead) {
  const std::vector<PropertyEntry> entries = {{"CLUSTER", ""}, {"UNIQ_KEY", "u"}};
  std::string out;
  std::vector<PropertyEntry> written(entries.size());
  ASSERT_TRUE(AppendInHashMapOrder(entries, 2, PropertiesFormat::RocketMq4_9_8(), &out, written));
  PropertyIndex assigned;
  assigned.Assign(written);
  const PropertyIndex parsed(out);
  EXPECT_EQ(assigned.size(), parsed.size());
  EXPECT_EQ(assigned.Find("CLUSTER"), FindProperty(out, "CLUSTER"));
  EXPECT_EQ(assigned.Find("UNIQ_KEY"), "u");
}

// Find's first test is a 64-bit mask of the names present (by length and last byte):
// names that share a bit, or differ only elsewhere, are still told apart.
TEST(PropertyIndexTest, NamesSharingAMaskBitAreToldApart) {
  // Same length and last byte: "KEYS" / "TAGS" / "XXXS"; lengths 1 and 10 with the same
  // last byte land 63 apart (7 * 9), i.e. not on the same bit, but every name is checked.
  const std::string props = J498("KEYS=k;a=1;ABCDEFGHIa=2");
  PropertyIndex idx(props);
  for (std::string_view name : {"KEYS", "TAGS", "XXXS", "a", "ABCDEFGHIa", "b", "KEY", "KEYSS"}) {
    EXPECT_EQ(idx.Find(name), FindProperty(props, name)) << name;
  }
}

// Names of 4 to 8 bytes are compared in two overlapping 4-byte loads: a name differing
// from another of its length in any one byte, at every length around that range, is
// told apart by the index and by FindProperties as by FindProperty.
TEST(PropertyIndexTest, NamesDifferingInOneByteAreToldApartAtEveryLength) {
  for (size_t len = 1; len <= 12; ++len) {
    const std::string base = std::string("UNIQ_KEYSXYZ").substr(0, len);
    for (size_t at = 0; at < len; ++at) {
      std::string other = base;
      other[at] = static_cast<char>(other[at] + 1);
      const std::string props =
          base + "\x01" + "b" + "\x02" + other + "\x01" + "o" + "\x02" + "Z\x01z";
      const PropertyIndex idx(props);
      const std::string_view names[] = {base, other, "Z"};
      std::optional<std::string_view> found[std::size(names)];
      FindProperties(props, names, found);
      for (size_t i = 0; i < std::size(names); ++i) {
        EXPECT_EQ(idx.Find(names[i]), FindProperty(props, names[i])) << len << " " << at;
        EXPECT_EQ(found[i], FindProperty(props, names[i])) << len << " " << at;
      }
      EXPECT_EQ(idx.Find(base), "b");
      EXPECT_EQ(idx.Find(other), "o");
      EXPECT_EQ(idx.size(), 3u);  // never taken for a duplicate of the other
    }
  }
}

TEST(PropertyIndexTest, ManyEntriesAndDuplicatesPastTheInlineRoom) {
  std::string props;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 1000; ++i) {
      props += "n" + std::to_string(i) + "\x01v" + std::to_string(round) + "\x02";
    }
  }
  PropertyIndex idx(props);
  ASSERT_EQ(idx.size(), 1000u);
  EXPECT_EQ(idx.entries()[999].name, "n999");
  EXPECT_EQ(idx.Find("n0"), "v1");
  EXPECT_EQ(idx.Find("n999"), "v1");
  EXPECT_EQ(ParseProperties(props).size(), idx.size());
  idx.Parse("a\001b");  // re-parse replaces, back to inline storage (octal: 3 digits at most)
  EXPECT_EQ(idx.size(), 1u);
  EXPECT_EQ(idx.Find("a"), "b");
  EXPECT_FALSE(idx.Find("n0"));
}

// The send path: a producer's properties, WAIT removed, CLUSTER and UNIQ_KEY added, as
// PropertiesBuilder does it, for random property sets (names drawn from the standard ones,
// which collide at capacity 16, and the c3/c20/... chain that forces a treeify resize).
TEST(AppendInHashMapOrderTest, MatchesPropertiesBuilderOnRandomSendPaths) {
  std::vector<std::string_view> pool(kTwentyNames.begin(), kTwentyNames.end());
  for (std::string_view c : {"c3", "c20", "c31", "c42", "c53", "c64", "c75", "c86", "c97"}) {
    pool.push_back(c);
  }
  testing::XorShift64 next(88172645463325252ull);
  int shortcut = 0, fallback = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const PropertiesFormat format =
        iter % 3 == 0 ? PropertiesFormat::RocketMq5Broker() : PropertiesFormat::RocketMq4_9_8();
    std::string producer;
    const size_t n = next() % 15;
    for (size_t i = 0; i < n; ++i) {
      producer += std::string(pool[next() % pool.size()]) + "\x01v" + std::to_string(i) + "\x02";
    }
    PropertiesBuilder model = PropertiesBuilder::FromString(producer, format);
    model.Remove("WAIT");
    model.Put("CLUSTER", "DefaultCluster");
    if (!model.Get("UNIQ_KEY")) model.Put("UNIQ_KEY", "ABCDEF");

    PropertyIndex idx(producer);
    size_t peak = idx.size();
    // CLUSTER keeps its position when the producer sent it (a replace); else it is new.
    std::vector<PropertyEntry> ordered;
    for (const PropertyEntry& e : idx.entries()) {
      if (e.name == "WAIT") continue;
      ordered.push_back(e.name == "CLUSTER" ? PropertyEntry{"CLUSTER", "DefaultCluster"} : e);
    }
    if (!idx.Find("CLUSTER")) ordered.push_back({"CLUSTER", "DefaultCluster"});
    if (!idx.Find("UNIQ_KEY")) ordered.push_back({"UNIQ_KEY", "ABCDEF"});
    peak = std::max(peak, ordered.size());
    std::string out;
    std::vector<PropertyEntry> written(ordered.size());
    if (AppendInHashMapOrder(ordered, peak, format, &out, written)) {
      ++shortcut;
      EXPECT_EQ(out, model.Build()) << "iteration " << iter;
      // The entries as written index the output as a parse of it does (the send path's
      // drafts take that index instead of parsing).
      PropertyIndex assigned;
      assigned.Assign(written);
      const PropertyIndex parsed(out);
      ASSERT_EQ(assigned.size(), parsed.size()) << "iteration " << iter;
      for (size_t i = 0; i < parsed.size(); ++i) {
        EXPECT_EQ(assigned.entries()[i].name, parsed.entries()[i].name);
        EXPECT_EQ(assigned.entries()[i].value, parsed.entries()[i].value);
        EXPECT_EQ(assigned.entries()[i].name.data(), parsed.entries()[i].name.data());
      }
      for (std::string_view name : pool) EXPECT_EQ(assigned.Find(name), parsed.Find(name));
      for (std::string_view name : {"WAIT", "CLUSTER", "UNIQ_KEY", "", "X"}) {
        EXPECT_EQ(assigned.Find(name), FindProperty(out, name)) << name;
      }
    } else {
      ++fallback;
      EXPECT_TRUE(out.empty());
    }
  }
  EXPECT_GT(shortcut, 2500);
  EXPECT_GT(fallback, 0);  // the chain of c names forced some
}

// AppendInHashMapOrder remembers the last order it computed on the thread (producers send
// the same names again and again). Cases that share much with the one before — the same
// names with other values, another peak or format, one name changed at the same length,
// the same names in another order, a name too long to remember — each against a
// PropertiesBuilder that received the same puts (and removals, for the peak).
TEST(AppendInHashMapOrderTest, ARememberedOrderIsReusedOnlyForTheSameNamesPeakAndFormat) {
  struct Case {
    std::vector<std::string> names;
    size_t peak;
    PropertiesFormat format;
  };
  const std::string long_name(300, 'L');
  std::vector<std::string> twelve;
  for (size_t i = 0; i < 12; ++i) twelve.emplace_back(kTwentyNames[i]);
  std::vector<std::string> reversed(twelve.rbegin(), twelve.rend());
  std::vector<std::string> one_changed = twelve;
  one_changed[3] = "TAGZ";  // kTwentyNames[3] is "TAGS": the same length
  const PropertiesFormat v4 = PropertiesFormat::RocketMq4_9_8();
  const PropertiesFormat v5 = PropertiesFormat::RocketMq5Broker();
  // Each case follows one it differs from in one respect (and whose order differs too).
  const std::vector<Case> cases = {
      {twelve, 12, v4},
      {twelve, 12, v4},  // the same names again: reused
      {twelve, 12, v5},  // capacity 128
      {twelve, 12, v4},
      {twelve, 13, v4},  // a peak past the threshold: capacity 32
      {twelve, 12, v4},
      {one_changed, 12, v4},  // "TAGZ" for "TAGS": same length, another bucket
      {reversed, 12, v4},
      {{"KEYS", "UNIQ_KEY", "TAGS", "CLUSTER"}, 5, v4},
      {{"KEYS", "UNIQ_KEY", "TAGS", "CLUSTEQ"}, 5, v4},  // the last byte: another bucket
      {{"KEYS", "UNIQ_KEY", "TAGS"}, 5, v4},             // a prefix of the names before
      {{long_name, "KEYS"}, 2, v4},
      {{long_name, "KEYS"}, 2, v4},  // too long to remember
      {{"KEYS", "UNIQ_KEY", "TAGS", "CLUSTER"}, 5, v4},
  };
  for (int round = 0; round < 3; ++round) {
    for (size_t c = 0; c < cases.size(); ++c) {
      const Case& k = cases[c];
      std::vector<PropertyEntry> entries;
      std::vector<std::string> values;
      values.reserve(k.names.size());
      PropertiesBuilder model(k.format);
      for (size_t i = 0; i < k.names.size(); ++i) {
        values.push_back("v" + std::to_string(round) + "_" + std::to_string(c) + "_" +
                         std::to_string(i));
        model.Put(k.names[i], values.back());
      }
      for (size_t i = 0; i < values.size(); ++i) entries.push_back({k.names[i], values[i]});
      // The peak: names put and removed again after the others.
      for (size_t i = k.names.size(); i < k.peak; ++i) model.Put("pad" + std::to_string(i), "x");
      for (size_t i = k.names.size(); i < k.peak; ++i) model.Remove("pad" + std::to_string(i));
      std::string out;
      ASSERT_TRUE(AppendInHashMapOrder(entries, k.peak, k.format, &out))
          << "round " << round << " case " << c;
      EXPECT_EQ(out, model.Build()) << "round " << round << " case " << c;
    }
  }
  // The changed name really is the same length.
  EXPECT_EQ(one_changed[3].size(), twelve[3].size());
}

TEST(AppendInHashMapOrderTest, ResizesAtThePeakAndAppendsToWhatIsThere) {
  // 13 names: the table doubles to 32 (threshold 12), also when one was removed after.
  std::vector<PropertyEntry> entries;
  PropertiesBuilder b(PropertiesFormat::RocketMq4_9_8());
  for (int i = 0; i < 13; ++i) {
    entries.push_back({kTwentyNames[static_cast<size_t>(i)], "x"});
    b.Put(kTwentyNames[static_cast<size_t>(i)], "x");
  }
  b.Remove(kTwentyNames[12]);
  entries.pop_back();
  std::string out = "prefix|";
  ASSERT_TRUE(AppendInHashMapOrder(entries, 13, PropertiesFormat::RocketMq4_9_8(), &out));
  EXPECT_EQ(b.capacity(), 32);
  EXPECT_EQ(out, "prefix|" + b.Build());
  std::string none;
  EXPECT_TRUE(AppendInHashMapOrder({}, 0, PropertiesFormat::RocketMq4_9_8(), &none));
  EXPECT_TRUE(none.empty());
  std::vector<PropertyEntry> too_many(PropertyIndex::kInline + 1, PropertyEntry{"a", "b"});
  EXPECT_FALSE(
      AppendInHashMapOrder(too_many, too_many.size(), PropertiesFormat::RocketMq4_9_8(), &none));
}

}  // namespace
}  // namespace rocketstore::format
