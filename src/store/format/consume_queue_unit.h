// File: store/format/consume_queue_unit.h
//
// THE SPECIFICATION of the ConsumeQueue (CQ) unit, byte-compatible with Apache RocketMQ's
// ConsumeQueue (CQ_STORE_UNIT_SIZE = 20; 4.9.8 and 5.x identical). The writer, recovery,
// truncation, readers and tests take sizes and offsets from the constants below.
// docs/format/consume_queue.md adds a worked example; this comment is authoritative.
//
// Byte order: BIG-ENDIAN (Java ByteBuffer). "int" = signed 32-bit, "long" = signed 64-bit.
//
//   Offset  Size  Field
//   0       8     PHYSICAL OFFSET  long, commit-log offset of the record's first byte
//   8       4     SIZE             int, the record's TOTALSIZE
//   12      8     TAGS CODE        long, JavaStringHash(TAGS) sign-extended, 0 without
//                                  tags; for SCHEDULE_TOPIC_XXXX the delivery time (ms);
//                                  with ConsumeQueueExt (not supported) an ext address
//   20            end
//
// Unit n of a queue (queue offset n) sits at logical byte offset n * 20, in the file named
// by the 20-digit logical byte offset of its first unit (store/segment/file_names.h) at
// position (n * 20) mod file_size. A file holds `units_per_file` units (default 300,000,
// i.e. 6,000,000 bytes; RocketMQ rounds a configured byte size up to a multiple of 20).
//
// Kinds of 20-byte slots:
//   valid   physical offset >= 0 && size > 0 (RocketMQ's recovery rule). Everything a
//           writer puts is valid.
//   blank   (0, 0x7FFFFFFF, 0): "pre-fill". When the first file of a queue is created for
//           a first unit whose queue offset k is not a multiple of units_per_file, every
//           slot of that file before k is filled with blank units. Blank units are VALID
//           for recovery (they are part of the file's written prefix) but point at no
//           message: readers never return them (the queue's min offset is past them).
//   invalid anything else; in particular the all-zero slot of the sparse, never written
//           tail of a file. Recovery ends a queue at its first invalid slot.
//
// Thread-safety: pure functions over caller-owned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "base/coding.h"
#include "base/offsets.h"

namespace rocketstore::format {

inline constexpr size_t kConsumeQueueUnitSize = 20;
inline constexpr size_t kCqPhysicalOffsetOffset = 0;
inline constexpr size_t kCqSizeOffset = 8;
inline constexpr size_t kCqTagsCodeOffset = 12;  // RocketMQ's MSG_TAG_OFFSET_INDEX

// mappedFileSizeConsumeQueue default: 300,000 units = 6,000,000 bytes per file.
inline constexpr int64_t kDefaultConsumeQueueUnitsPerFile = 300000;

// The SIZE of a blank (pre-fill) unit: Integer.MAX_VALUE.
inline constexpr int32_t kBlankUnitSize = std::numeric_limits<int32_t>::max();

// RocketMQ's MessageStoreConfig.getMappedFileSizeConsumeQueue(): a configured file size in
// bytes is rounded UP to whole units. Returns the number of units per file.
constexpr int64_t ConsumeQueueUnitsPerFile(int64_t configured_file_bytes) {
  constexpr auto unit = static_cast<int64_t>(kConsumeQueueUnitSize);
  return (configured_file_bytes + unit - 1) / unit;
}

// isExtAddr: a tags code at or below Integer.MIN_VALUE - 1 is a ConsumeQueueExt address,
// never a sign-extended 32-bit tag hash. rocketstore writes no ext files.
constexpr bool IsConsumeQueueExtAddress(int64_t tags_code) {
  return tags_code <= int64_t{std::numeric_limits<int32_t>::min()} - 1;
}

struct ConsumeQueueUnit {
  PhysicalOffset offset;  // commit-log offset of the record
  int32_t size = 0;       // the record's TOTALSIZE
  int64_t tags_code = 0;

  // RocketMQ's recovery rule; blank units are valid.
  constexpr bool IsValid() const { return offset.value() >= 0 && size > 0; }
  constexpr bool IsBlank() const {
    return offset.value() == 0 && size == kBlankUnitSize && tags_code == 0;
  }
  // One past the record's last byte (maxPhysicOffset after this unit).
  constexpr PhysicalOffset end() const { return offset + size; }

  friend constexpr bool operator==(const ConsumeQueueUnit&, const ConsumeQueueUnit&) = default;
};

inline constexpr ConsumeQueueUnit kBlankUnit{PhysicalOffset(0), kBlankUnitSize, 0};

// Writes kConsumeQueueUnitSize bytes at dst.
inline void EncodeConsumeQueueUnit(const ConsumeQueueUnit& unit, uint8_t* dst) {
  EncodeFixed64BE(dst + kCqPhysicalOffsetOffset, static_cast<uint64_t>(unit.offset.value()));
  EncodeFixed32BE(dst + kCqSizeOffset, static_cast<uint32_t>(unit.size));
  EncodeFixed64BE(dst + kCqTagsCodeOffset, static_cast<uint64_t>(unit.tags_code));
}

// Reads kConsumeQueueUnitSize bytes at src. Never fails: validity is IsValid()/IsBlank().
inline ConsumeQueueUnit DecodeConsumeQueueUnit(const uint8_t* src) {
  return ConsumeQueueUnit{PhysicalOffset(DecodeInt64BE(src + kCqPhysicalOffsetOffset)),
                          DecodeInt32BE(src + kCqSizeOffset),
                          DecodeInt64BE(src + kCqTagsCodeOffset)};
}

}  // namespace rocketstore::format
