// File: store/format/properties.h
//
// THE SPECIFICATION of the message properties string (PROPERTIES field of a CommitLog
// record, store/format/message_record.h), byte-compatible with RocketMQ's MessageDecoder.
//
// Grammar (bytes, UTF-8 text):
//   properties := "" | entry (0x02 entry)* [0x02]
//   entry      := name 0x01 value
// Writing (messageProperties2String): for every map entry, in java.util.HashMap iteration
// order, name 0x01 value 0x02. The trailing 0x02 is present in RocketMQ <= 4.9.0 and
// >= 5.2.0 and dropped in 4.9.1 .. 5.1.4 (4.9.8 baseline: no trailing separator). An empty
// map is the empty string.
//
// Reading (string2messageProperties): split on 0x02; a segment is used only if it is at
// least 3 bytes and its first 0x01 is neither its first nor its last byte, i.e. name and
// value are both non-empty; the name is everything before that first 0x01 (so a value may
// contain 0x01). Other segments are ignored. A duplicated name: the last value wins (at the
// position of its first occurrence, as HashMap.put does). Both trailing variants read the
// same. Example: "KEYS\1k1\2TAGS\1TagA" == "KEYS\1k1\2TAGS\1TagA\2".
//
// HashMap order (needed for byte-identical output, PropertiesBuilder):
//   h = JavaStringHash(name); bucket = (h ^ (h >>> 16)) & (capacity - 1);
//   iterate buckets 0..capacity-1, each in insertion order. Capacity starts at 16 (4.9.8;
//   5.x string2messageProperties: 128) and doubles when size > 0.75 * capacity, or when a
//   bucket reaches 9 entries while capacity < 64. Replacing a value keeps the position;
//   removing and re-adding moves the name to the end of its bucket.
//   Buckets at capacity 16: KEYS 7, UNIQ_KEY 12, CLUSTER 12, WAIT 13, DELAY 13, TAGS 14,
//   REAL_TOPIC 1, REAL_QID 15.
//   Not emulated: Java turns a bucket of 9+ entries into a red-black tree once capacity is
//   >= 64, which reorders that bucket; this needs 9 colliding names and never happens with
//   real property sets.
//
// Thread-safety: free functions are pure; a PropertiesBuilder is a value type without
// internal synchronisation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/uninit_array.h"

namespace rocketstore::format {

inline constexpr char kNameValueSeparator = '\x01';
inline constexpr char kPropertySeparator = '\x02';

// Standard property names (MessageConst). The store reads KEYS, TAGS, UNIQ_KEY, WAIT,
// DELAY, REAL_TOPIC and REAL_QID; the broker adds CLUSTER; the rest are opaque.
inline constexpr std::string_view kPropertyKeys = "KEYS";    // space-separated user keys
inline constexpr std::string_view kPropertyTags = "TAGS";    // tagsCode = JavaStringHash(TAGS)
inline constexpr std::string_view kPropertyWait = "WAIT";    // "true"/"false"; absent = true
inline constexpr std::string_view kPropertyDelay = "DELAY";  // delay level, decimal
inline constexpr std::string_view kPropertyRetryTopic = "RETRY_TOPIC";
inline constexpr std::string_view kPropertyRealTopic = "REAL_TOPIC";
inline constexpr std::string_view kPropertyRealQueueId = "REAL_QID";
inline constexpr std::string_view kPropertyTransactionPrepared = "TRAN_MSG";
inline constexpr std::string_view kPropertyProducerGroup = "PGROUP";
inline constexpr std::string_view kPropertyMinOffset = "MIN_OFFSET";
inline constexpr std::string_view kPropertyMaxOffset = "MAX_OFFSET";
inline constexpr std::string_view kPropertyBuyerId = "BUYER_ID";
inline constexpr std::string_view kPropertyOriginMessageId = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view kPropertyTransferFlag = "TRANSFER_FLAG";
inline constexpr std::string_view kPropertyCorrectionFlag = "CORRECTION_FLAG";
inline constexpr std::string_view kPropertyMq2Flag = "MQ2_FLAG";
inline constexpr std::string_view kPropertyReconsumeTime = "RECONSUME_TIME";
inline constexpr std::string_view kPropertyMsgRegion = "MSG_REGION";
inline constexpr std::string_view kPropertyTraceSwitch = "TRACE_ON";
inline constexpr std::string_view kPropertyUniqKey = "UNIQ_KEY";  // client unique id
inline constexpr std::string_view kPropertyMaxReconsumeTimes = "MAX_RECONSUME_TIMES";
inline constexpr std::string_view kPropertyConsumeStartTime = "CONSUME_START_TIME";
inline constexpr std::string_view kPropertyTransactionPreparedQueueOffset =
    "TRAN_PREPARED_QUEUE_OFFSET";
inline constexpr std::string_view kPropertyTransactionCheckTimes = "TRANSACTION_CHECK_TIMES";
inline constexpr std::string_view kPropertyCheckImmunityTimeInSeconds =
    "CHECK_IMMUNITY_TIME_IN_SECONDS";
inline constexpr std::string_view kPropertyInstanceId = "INSTANCE_ID";
inline constexpr std::string_view kPropertyCorrelationId = "CORRELATION_ID";
inline constexpr std::string_view kPropertyReplyToClient = "REPLY_TO_CLIENT";
inline constexpr std::string_view kPropertyTtl = "TTL";
inline constexpr std::string_view kPropertyArriveTime = "ARRIVE_TIME";
inline constexpr std::string_view kPropertyPushReplyTime = "PUSH_REPLY_TIME";
inline constexpr std::string_view kPropertyCluster = "CLUSTER";  // added by the broker
inline constexpr std::string_view kPropertyMsgType = "MSG_TYPE";
inline constexpr std::string_view kPropertyInnerMultiDispatch = "INNER_MULTI_DISPATCH";
inline constexpr std::string_view kPropertyInnerMultiQueueOffset = "INNER_MULTI_QUEUE_OFFSET";
// [5.x]
inline constexpr std::string_view kPropertyCrc32 = "__CRC32#";
inline constexpr std::string_view kPropertyInnerNum = "INNER_NUM";
inline constexpr std::string_view kPropertyInnerBase = "INNER_BASE";
inline constexpr std::string_view kPropertyDupInfo = "DUP_INFO";
inline constexpr std::string_view kPropertyTransactionId = "__transactionId__";
inline constexpr std::string_view kPropertyShardingKey = "__SHARDINGKEY";

// Separator between the keys in KEYS (MessageConst.KEY_SEPARATOR).
inline constexpr char kKeySeparator = ' ';

// THE splitter of a KEYS value (index building, key queries, inspect): the keys are the
// kKeySeparator-separated tokens, empty tokens skipped (RocketMQ's IndexService splits on
// the separator and indexes keys of length > 0). Takes the next key off the front of
// `rest` into `key`; false when no key is left. No allocation (the dispatcher's hot path).
inline bool NextKey(std::string_view& rest, std::string_view& key) {
  while (!rest.empty()) {
    const size_t sp = rest.find(kKeySeparator);
    key = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    if (!key.empty()) return true;
  }
  return false;
}
// All keys of a KEYS value, in order (views into `keys`).
std::vector<std::string_view> SplitKeys(std::string_view keys);

// Which RocketMQ the output must match.
struct PropertiesFormat {
  int initial_capacity = 16;        // HashMap capacity; rounded up to a power of two
  bool trailing_separator = false;  // end with 0x02 (<= 4.9.0, >= 5.2.0)

  static constexpr PropertiesFormat RocketMq4_9_8() { return {16, false}; }
  // A 5.2+ broker re-serialising a map from string2messageProperties (capacity 128).
  static constexpr PropertiesFormat RocketMq5Broker() { return {128, true}; }
};

// Builds a properties string byte-identical to messageProperties2String over a HashMap
// that received the same Put/Remove calls. Owns copies of names and values.
//
//   PropertiesBuilder b = PropertiesBuilder::FromString(producer_props);  // broker side
//   b.Put(kPropertyCluster, "DefaultCluster");
//   b.Remove(kPropertyWait);
//   std::string stored = b.Build();
class PropertiesBuilder {
 public:
  explicit PropertiesBuilder(PropertiesFormat format = {});

  // A map filled by string2messageProperties(props): Put of every readable entry, in order.
  static PropertiesBuilder FromString(std::string_view props, PropertiesFormat format = {});

  // HashMap.put: replaces the value in place if `name` is present, else appends.
  void Put(std::string_view name, std::string_view value);
  // HashMap.remove. Returns whether `name` was present.
  bool Remove(std::string_view name);
  std::optional<std::string_view> Get(std::string_view name) const;

  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  int capacity() const { return capacity_; }

  // The serialised string, and its exact length.
  std::string Build() const;
  size_t EncodedSize() const;
  void AppendTo(std::string* out) const;

  // HashMap bucket of `name` for a power-of-two `capacity`.
  static int BucketOf(std::string_view name, int capacity);

 private:
  // A copy of HashMap's own structure: one singly linked chain per bucket, new nodes at
  // the tail, resize splitting each chain in order. Removed entries stay as tombstones.
  struct Entry {
    std::string name;
    std::string value;
    uint32_t spread_hash;  // h ^ (h >>> 16)
    int32_t next;          // next entry index in the bucket chain, or -1
    bool live;
  };
  void Resize();
  int32_t Find(std::string_view name, uint32_t spread_hash) const;
  template <typename F>
  void ForEachInOrder(F&& f) const;

  PropertiesFormat format_;
  int capacity_ = 0;   // 0 until the first Put (Java allocates the table lazily)
  int threshold_ = 0;  // as HashMap.threshold
  size_t live_ = 0;
  std::vector<Entry> entries_;
  std::vector<int32_t> heads_;  // capacity_ chain heads, -1 = empty bucket
};

// One property of a parsed string: views into that string.
struct PropertyEntry {
  std::string_view name;
  std::string_view value;
};

// The readable entries of a properties string, parsed once (string2messageProperties'
// rules above: first-occurrence order, a duplicate resolved to its last value), so that
// several lookups cost one scan. Views point into the parsed string, which must outlive the
// index and stay unchanged. Up to kInline entries are held without allocation (a message's
// properties are a handful); more go to the heap, deduplicated through a hash index so a
// hostile string of thousands of entries stays linear.
//
// Thread-safety: a value type without internal synchronisation.
class PropertyIndex {
 public:
  static constexpr size_t kInline = 16;

  PropertyIndex() = default;
  explicit PropertyIndex(std::string_view props) { Parse(props); }
  // Replaces the index with the entries of `props`.
  void Parse(std::string_view props);
  // Replaces the index with `entries` (distinct names, at most kInline, in the order of the
  // string they view): the index of a string just written, without parsing it again.
  // An entry with an empty name or value is left out, as Parse cannot read it back.
  void Assign(std::span<const PropertyEntry> entries);

  // The value of `name`, or nullopt (= FindProperty(props, name)). Inline: most lookups
  // (the hooks ask for names a send rarely has) end at the mask.
  std::optional<std::string_view> Find(std::string_view name) const {
    if ((mask_ & MaskBit(name)) == 0) return std::nullopt;
    return FindListed(name);
  }
  std::span<const PropertyEntry> entries() const {
    return heap_.empty() ? std::span<const PropertyEntry>(inline_.data(), size_)
                         : std::span<const PropertyEntry>(heap_);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  // Find past the mask: the entries, one by one.
  std::optional<std::string_view> FindListed(std::string_view name) const;
  // One bit per name present, chosen by its length and last byte: most lookups of an
  // absent name (the hooks ask for several on every send) end at the mask.
  static uint64_t MaskBit(std::string_view name) {
    return name.empty()
               ? 1
               : uint64_t{1} << ((name.size() * 7 + static_cast<uint8_t>(name.back())) & 63);
  }
  void Add(const PropertyEntry& e) {
    inline_[size_++] = e;
    mask_ |= MaskBit(e.name);
  }

  UninitArray<PropertyEntry, kInline> inline_;  // the first size_ are set (no heap_)
  std::vector<PropertyEntry> heap_;             // every entry, once there are more than kInline
  size_t size_ = 0;
  uint64_t mask_ = 0;  // MaskBit of every name (all ones once on the heap)
};

// Appends to `out` the string messageProperties2String writes for a HashMap (of `format`)
// that received HashMap.put of each of `entries` in order (names distinct), and removals
// that left it holding at most `peak` entries at any time (peak >= entries.size()): put in
// insertion order, a HashMap iterates bucket by bucket (at its final capacity, which only
// the peak size decides) and in insertion order within a bucket. The exception is a bucket
// reaching TREEIFY_THRESHOLD names while the table is below 64, which resizes early: then
// nothing is appended and false is returned (use PropertiesBuilder, which models it); also
// for more than PropertyIndex::kInline entries. When `written` is given (room for
// entries.size()), it receives the entries in the order written, as views into *out
// (valid while *out is neither changed nor moved).
// The order of the last call on this thread is remembered (names, peak, format) and
// reused when they are the same: a producer sends the same names again and again. Past
// `out`, only remembering new names allocates (a per-thread string, kept).
bool AppendInHashMapOrder(std::span<const PropertyEntry> entries, size_t peak,
                          PropertiesFormat format, std::string* out,
                          std::span<PropertyEntry> written = {});

// All readable entries in first-occurrence order, duplicates resolved to the last value.
// Views point into `props`.
std::vector<std::pair<std::string_view, std::string_view>> ParseProperties(std::string_view props);

// The value of `name` (last readable occurrence), or nullopt. Allocation-free.
std::optional<std::string_view> FindProperty(std::string_view props, std::string_view name);

// FindProperty for several names in one pass over `props`: out[i] = FindProperty(props,
// names[i]) (out.size() == names.size()). Allocation-free; the dispatcher reads TAGS, KEYS
// and UNIQ_KEY of every record this way.
void FindProperties(std::string_view props, std::span<const std::string_view> names,
                    std::span<std::optional<std::string_view>> out);

// `props` without every readable entry named `name`; every other segment is kept byte for
// byte and in order, and a trailing 0x02 is kept if `props` had one.
std::string RemoveProperty(std::string_view props, std::string_view name);

}  // namespace rocketstore::format
