// File: store/format/index_layout.h
//
// THE SPECIFICATION of an index file (`<root>/index/<yyyyMMddHHmmssSSS>`), byte-compatible
// with RocketMQ 4.9.8's IndexFile / IndexHeader (spec §4). docs/format/index_file.md adds
// worked examples (a collision chain, spec §12.3); this comment is authoritative.
//
// Byte order: every integer is BIG-ENDIAN; "int" = signed 32-bit, "long" = signed 64-bit.
// Geometry: S = hashSlotNum (maxHashSlotNum, default 5,000,000), N = indexNum
// (maxIndexNum, default 20,000,000). Neither is stored in the file: a reader must be
// configured with the geometry the writer used (the file size is 40 + 4*S + 20*N).
//
//   Region      Offset            Size
//   header      0                 40
//   slot table  40                4*S   slot s: int, number of the newest entry whose
//                                       keyHash % S == s; 0 = empty
//   entries     40 + 4*S          20*N  entry i at 40 + 4*S + 20*i; entry 0 is never used
//
//   Header      Offset  Size  Field
//               0       8     long beginTimestamp  store time of the first entry (ms)
//               8       8     long endTimestamp    store time of the last entry (ms)
//               16      8     long beginPhyOffset  commit-log offset of the first entry
//               24      8     long endPhyOffset    commit-log offset of the last entry
//               32      4     int  hashSlotCount   slots that ever became non-empty
//               36      4     int  indexCount      next entry number; starts at 1; a
//                                                  value <= 0 on disk reads as 1
//
//   Entry       Offset  Size  Field
//               0       4     int  keyHash    IndexKeyHash(key) (>= 0)
//               4       8     long phyOffset  commit-log offset of the message
//               12      4     int  timeDiff   seconds since header.beginTimestamp
//               16      4     int  prevIndex  previous entry of the same slot; 0 = end
//
// Key and hash (spec §4.2): the key is `topic + "#" + key` (UNIQ_KEY or a KEYS token);
// keyHash = |JavaStringHash(key)|, and 0 for Integer.MIN_VALUE; slot = keyHash % S.
// Different keys can share a keyHash ("Aa"/"BB"), so a lookup returns candidates and the
// caller compares the real key with the message.
//
// putKey(key, phyOffset, storeTimestamp) (spec §4.3), with c = indexCount:
//   1. c >= N: the file is full (it holds at most N - 1 entries).
//   2. v = slot[keyHash % S]; v <= 0 or v > c reads as 0.
//   3. timeDiff = IndexTimeDiff(storeTimestamp, beginTimestamp).
//   4. entry c = {keyHash, phyOffset, timeDiff, v}; 5. slot = c.
//   6. if c <= 1: beginPhyOffset = phyOffset, beginTimestamp = storeTimestamp.
//   7. if v == 0: hashSlotCount += 1.   8. indexCount = c + 1; end* = this entry's values.
// A new file's header starts from the previous file's endPhyOffset / endTimestamp (each
// only when > 0) as both begin and end, with hashSlotCount and indexCount 0 on disk. So
// the first entry's timeDiff is measured from the PREVIOUS file's end timestamp, and only
// then is beginTimestamp replaced (a RocketMQ quirk, reproduced).
//
// Lookup (spec §4.4): from slot[keyHash % S] follow prevIndex; an entry's time is
// beginTimestamp + 1000 * timeDiff; results come newest first.
//
// File name: the creation time in the broker's LOCAL time zone, `yyyyMMddHHmmssSSS`
// (17 digits). RocketMQ loads index files sorted by name and never parses the name.
//
// Thread-safety: pure functions and constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/coding.h"
#include "base/java_hash.h"

namespace rocketstore::format {

inline constexpr size_t kIndexHeaderSize = 40;
inline constexpr size_t kIndexSlotSize = 4;
inline constexpr size_t kIndexEntrySize = 20;

// Header field offsets.
inline constexpr size_t kIndexBeginTimestampOffset = 0;
inline constexpr size_t kIndexEndTimestampOffset = 8;
inline constexpr size_t kIndexBeginPhyOffsetOffset = 16;
inline constexpr size_t kIndexEndPhyOffsetOffset = 24;
inline constexpr size_t kIndexHashSlotCountOffset = 32;
inline constexpr size_t kIndexCountOffset = 36;

// Entry field offsets.
inline constexpr size_t kIndexEntryKeyHashOffset = 0;
inline constexpr size_t kIndexEntryPhyOffsetOffset = 4;
inline constexpr size_t kIndexEntryTimeDiffOffset = 12;
inline constexpr size_t kIndexEntryPrevIndexOffset = 16;

// Entry numbers: 0 means "none" (an empty slot, the end of a chain); the first entry is 1.
inline constexpr int32_t kIndexInvalidEntry = 0;
inline constexpr int32_t kIndexFirstEntry = 1;

// RocketMQ defaults: maxHashSlotNum, maxIndexNum, maxMsgsNumBatch (the per-query cap).
inline constexpr int32_t kDefaultIndexHashSlotNum = 5'000'000;
inline constexpr int32_t kDefaultIndexNum = 20'000'000;
inline constexpr int kDefaultMaxIndexQueryResults = 64;

inline constexpr size_t kIndexFileNameLength = 17;  // yyyyMMddHHmmssSSS
inline constexpr char kIndexKeySeparator = '#';     // topic#key

// The size of one file and where its regions start.
struct IndexGeometry {
  int32_t hash_slot_num = kDefaultIndexHashSlotNum;
  int32_t index_num = kDefaultIndexNum;

  constexpr size_t SlotPosition(int32_t slot) const {
    return kIndexHeaderSize + static_cast<size_t>(slot) * kIndexSlotSize;
  }
  constexpr size_t EntriesStart() const {
    return kIndexHeaderSize + static_cast<size_t>(hash_slot_num) * kIndexSlotSize;
  }
  constexpr size_t EntryPosition(int32_t entry) const {
    return EntriesStart() + static_cast<size_t>(entry) * kIndexEntrySize;
  }
  // 40 + 4*S + 20*N: 420,000,040 bytes for the defaults.
  constexpr size_t FileSize() const { return EntryPosition(index_num); }
  constexpr bool Valid() const { return hash_slot_num > 0 && index_num > kIndexFirstEntry; }
  friend constexpr bool operator==(const IndexGeometry&, const IndexGeometry&) = default;
};

struct IndexHeader {
  int64_t begin_timestamp = 0;
  int64_t end_timestamp = 0;
  int64_t begin_phy_offset = 0;
  int64_t end_phy_offset = 0;
  int32_t hash_slot_count = 0;
  int32_t index_count = 0;  // as stored; see NormalizedIndexCount
  friend bool operator==(const IndexHeader&, const IndexHeader&) = default;
};

struct IndexEntry {
  int32_t key_hash = 0;
  int64_t phy_offset = 0;
  int32_t time_diff = 0;
  int32_t prev_index = 0;
  friend bool operator==(const IndexEntry&, const IndexEntry&) = default;
};

// Writes / reads the 40 header bytes at `p`.
inline void EncodeIndexHeader(const IndexHeader& h, uint8_t* p) {
  EncodeFixed64BE(p + kIndexBeginTimestampOffset, static_cast<uint64_t>(h.begin_timestamp));
  EncodeFixed64BE(p + kIndexEndTimestampOffset, static_cast<uint64_t>(h.end_timestamp));
  EncodeFixed64BE(p + kIndexBeginPhyOffsetOffset, static_cast<uint64_t>(h.begin_phy_offset));
  EncodeFixed64BE(p + kIndexEndPhyOffsetOffset, static_cast<uint64_t>(h.end_phy_offset));
  EncodeFixed32BE(p + kIndexHashSlotCountOffset, static_cast<uint32_t>(h.hash_slot_count));
  EncodeFixed32BE(p + kIndexCountOffset, static_cast<uint32_t>(h.index_count));
}
inline IndexHeader DecodeIndexHeader(const uint8_t* p) {
  IndexHeader h;
  h.begin_timestamp = DecodeInt64BE(p + kIndexBeginTimestampOffset);
  h.end_timestamp = DecodeInt64BE(p + kIndexEndTimestampOffset);
  h.begin_phy_offset = DecodeInt64BE(p + kIndexBeginPhyOffsetOffset);
  h.end_phy_offset = DecodeInt64BE(p + kIndexEndPhyOffsetOffset);
  h.hash_slot_count = DecodeInt32BE(p + kIndexHashSlotCountOffset);
  h.index_count = DecodeInt32BE(p + kIndexCountOffset);
  return h;
}

// IndexHeader.load(): a stored indexCount <= 0 means 1 (a file without entries).
inline int32_t NormalizedIndexCount(int32_t stored) {
  return stored <= 0 ? kIndexFirstEntry : stored;
}

// Writes / reads the 20 bytes of one entry at `p`.
inline void EncodeIndexEntry(const IndexEntry& e, uint8_t* p) {
  EncodeFixed32BE(p + kIndexEntryKeyHashOffset, static_cast<uint32_t>(e.key_hash));
  EncodeFixed64BE(p + kIndexEntryPhyOffsetOffset, static_cast<uint64_t>(e.phy_offset));
  EncodeFixed32BE(p + kIndexEntryTimeDiffOffset, static_cast<uint32_t>(e.time_diff));
  EncodeFixed32BE(p + kIndexEntryPrevIndexOffset, static_cast<uint32_t>(e.prev_index));
}
inline IndexEntry DecodeIndexEntry(const uint8_t* p) {
  IndexEntry e;
  e.key_hash = DecodeInt32BE(p + kIndexEntryKeyHashOffset);
  e.phy_offset = DecodeInt64BE(p + kIndexEntryPhyOffsetOffset);
  e.time_diff = DecodeInt32BE(p + kIndexEntryTimeDiffOffset);
  e.prev_index = DecodeInt32BE(p + kIndexEntryPrevIndexOffset);
  return e;
}

// keyHash of a full key (`topic#key`): IndexFile.indexKeyHashMethod, |JavaStringHash|
// (Integer.MIN_VALUE -> 0). IndexKeyHashFrom continues from a seed: with
// IndexKeySeed(topic) (the hash of "topic#", which ends with an ASCII byte, computed once
// per record) and a key, it equals IndexKeyHash(BuildIndexKey(topic, key)).
inline int32_t IndexKeyHashFrom(int32_t seed, std::string_view key) {
  const int32_t h = JavaStringHash(key, seed);
  return h == std::numeric_limits<int32_t>::min() ? 0 : (h < 0 ? -h : h);
}
inline int32_t IndexKeyHash(std::string_view full_key) { return IndexKeyHashFrom(0, full_key); }
inline int32_t IndexKeySeed(std::string_view topic) {
  return JavaStringHash(std::string_view(&kIndexKeySeparator, 1), JavaStringHash(topic));
}

inline int32_t IndexSlotOf(int32_t key_hash, int32_t hash_slot_num) {
  return key_hash % hash_slot_num;
}

// IndexService.buildKey: topic + "#" + key.
inline std::string BuildIndexKey(std::string_view topic, std::string_view key) {
  std::string k;
  k.reserve(topic.size() + 1 + key.size());
  k.append(topic);
  k.push_back(kIndexKeySeparator);
  k.append(key);
  return k;
}

// putKey step 3: whole seconds (truncated toward zero) since `begin_timestamp`; 0 when the
// header has no begin time yet (<= 0) or the difference is negative; capped at INT32_MAX.
inline int32_t IndexTimeDiff(int64_t store_timestamp, int64_t begin_timestamp) {
  if (begin_timestamp <= 0) return 0;
  const int64_t d = (store_timestamp - begin_timestamp) / 1000;
  if (d > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (d < 0) return 0;
  return static_cast<int32_t>(d);
}

// The time a lookup attributes to an entry (selectPhyOffset's timeRead).
inline int64_t IndexEntryTime(int64_t begin_timestamp, int32_t time_diff) {
  return begin_timestamp + static_cast<int64_t>(time_diff) * 1000;
}

}  // namespace rocketstore::format
