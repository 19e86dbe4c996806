// File: store/format/checkpoint_record.h
//
// The `checkpoint` file (spec §6.1): exactly 4096 bytes, big-endian.
//
//   offset size field
//   0      8    physicMsgTimestamp  store timestamp of the last commit-log message known flushed
//   8      8    logicsMsgTimestamp  store timestamp of the last message dispatched to a CQ
//   16     8    indexMsgTimestamp   end timestamp of the last full and flushed index file
//   24     8    masterFlushedOffset [5.x]
//   32     8    confirmPhyOffset    [5.x]
//   40..4063    zero (RocketMQ reads nothing here)
//   --- rocketstore extension, in bytes RocketMQ ignores (version 2) ---
//   4064   4    magic 0x52534B31 ("RSK1")
//   4068   4    extension version (2)
//   4072   8    durableCommitLogOffset  every commit-log byte below it was flushed when this
//                                       checkpoint was written (recovery never drops them)
//   4080   8    dispatchedCommitLogOffset  commit-log offset the consume queues were built to
//                                          and flushed when this checkpoint was written
//   4088   4    fieldsCrc: crc32 (RocketMQ's masked CRC) of bytes [0, 40) as written
//                          together with this extension
//   4092   4    extensionCrc: masked crc32 of bytes [4064, 4092)
//
// Decoding:
//   * magic absent: a file RocketMQ wrote (or all zero); its fields are taken as they are.
//   * extensionCrc does not match: the extension was torn or damaged; the values cannot be
//     trusted and the store treats the start as dirty (full recovery).
//   * extensionCrc matches but fieldsCrc does not: the extension is STALE, not corrupt —
//     a RocketMQ broker ran on the store since and rewrote its own fields in place (4.9.8
//     rewrites bytes [0, 24), 5.x [0, 40)), leaving our tail alone. The extension describes
//     an older state: it is ignored and RocketMQ's fields are used, as RocketMQ would.
//   * version 1 (written by rocketstore before version 2): one crc32 at 4088 over [0, 40)
//     followed by [4064, 4088), zero at 4092. A mismatch cannot tell a rewrite from damage
//     and is treated as corrupt.
//   * another version: corrupt (not ours to interpret).
// Derived (RocketMQ): minTimestamp = max(0, min(physic, logics) - 3000).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

#include "base/coding.h"
#include "base/crc32.h"

namespace rocketstore::format {

inline constexpr size_t kCheckpointFileSize = 4096;
inline constexpr size_t kCheckpointExtensionOffset = 4064;
inline constexpr uint32_t kCheckpointExtensionMagic = 0x52534B31;  // "RSK1"
inline constexpr uint32_t kCheckpointExtensionVersion = 2;
inline constexpr uint32_t kCheckpointExtensionVersion1 = 1;
inline constexpr size_t kCheckpointRocketMqFieldsSize = 40;  // [0, 40): RocketMQ's fields

struct CheckpointRecord {
  int64_t physic_msg_timestamp = 0;
  int64_t logics_msg_timestamp = 0;
  int64_t index_msg_timestamp = 0;
  int64_t master_flushed_offset = 0;
  int64_t confirm_phy_offset = 0;
  // Extension (0 when absent).
  int64_t durable_commit_log_offset = 0;
  int64_t dispatched_commit_log_offset = 0;

  // RocketMQ's StoreCheckpoint.getMinTimestamp().
  int64_t MinTimestamp() const {
    return std::max<int64_t>(0, std::min(physic_msg_timestamp, logics_msg_timestamp) - 3000);
  }
  friend bool operator==(const CheckpointRecord&, const CheckpointRecord&) = default;
};

enum class CheckpointDecode {
  kWithExtension,     // ours, CRCs verified
  kRocketMqOnly,      // no extension (written by RocketMQ, or all zero)
  kStaleExtension,    // ours, but RocketMQ rewrote its fields since: RocketMQ's values only
  kCorruptExtension,  // extension present, CRC mismatch: do not trust any value
};

inline uint32_t MaskedCrc(const uint8_t* p, size_t n, uint32_t crc = 0) {
  return Crc32(p, n, crc) & 0x7FFFFFFFu;
}
// Version 1's single CRC over the fields and the extension.
inline uint32_t CheckpointCrcV1(const uint8_t* page) {
  uint32_t crc = Crc32(page, kCheckpointRocketMqFieldsSize);
  crc = Crc32(page + kCheckpointExtensionOffset, 24, crc);
  return crc & 0x7FFFFFFFu;
}

// Writes the whole 4096-byte page.
inline void EncodeCheckpoint(const CheckpointRecord& r, uint8_t* page) {
  std::memset(page, 0, kCheckpointFileSize);
  EncodeFixed64BE(page + 0, static_cast<uint64_t>(r.physic_msg_timestamp));
  EncodeFixed64BE(page + 8, static_cast<uint64_t>(r.logics_msg_timestamp));
  EncodeFixed64BE(page + 16, static_cast<uint64_t>(r.index_msg_timestamp));
  EncodeFixed64BE(page + 24, static_cast<uint64_t>(r.master_flushed_offset));
  EncodeFixed64BE(page + 32, static_cast<uint64_t>(r.confirm_phy_offset));
  uint8_t* ext = page + kCheckpointExtensionOffset;
  EncodeFixed32BE(ext + 0, kCheckpointExtensionMagic);
  EncodeFixed32BE(ext + 4, kCheckpointExtensionVersion);
  EncodeFixed64BE(ext + 8, static_cast<uint64_t>(r.durable_commit_log_offset));
  EncodeFixed64BE(ext + 16, static_cast<uint64_t>(r.dispatched_commit_log_offset));
  EncodeFixed32BE(ext + 24, MaskedCrc(page, kCheckpointRocketMqFieldsSize));
  EncodeFixed32BE(ext + 28, MaskedCrc(ext, 28));
}

// Decodes a page of at least 40 bytes (a short or long file is the caller's concern).
inline CheckpointDecode DecodeCheckpoint(std::span<const uint8_t> page, CheckpointRecord* out) {
  CheckpointRecord r;
  if (page.size() >= 40) {
    r.physic_msg_timestamp = DecodeInt64BE(page.data() + 0);
    r.logics_msg_timestamp = DecodeInt64BE(page.data() + 8);
    r.index_msg_timestamp = DecodeInt64BE(page.data() + 16);
    r.master_flushed_offset = DecodeInt64BE(page.data() + 24);
    r.confirm_phy_offset = DecodeInt64BE(page.data() + 32);
  }
  if (page.size() < kCheckpointFileSize ||
      DecodeFixed32BE(page.data() + kCheckpointExtensionOffset) != kCheckpointExtensionMagic) {
    *out = r;
    return CheckpointDecode::kRocketMqOnly;
  }
  const uint8_t* ext = page.data() + kCheckpointExtensionOffset;
  const uint32_t version = DecodeFixed32BE(ext + 4);
  bool intact = false;   // the extension itself
  bool current = false;  // written together with the fields as they are now
  if (version == kCheckpointExtensionVersion1) {
    intact = current = DecodeFixed32BE(ext + 24) == CheckpointCrcV1(page.data());
  } else if (version == kCheckpointExtensionVersion) {
    intact = DecodeFixed32BE(ext + 28) == MaskedCrc(ext, 28);
    current = DecodeFixed32BE(ext + 24) == MaskedCrc(page.data(), kCheckpointRocketMqFieldsSize);
  }
  if (!intact) {
    *out = CheckpointRecord{};
    return CheckpointDecode::kCorruptExtension;
  }
  if (!current) {
    *out = r;  // RocketMQ's fields, no extension values
    return CheckpointDecode::kStaleExtension;
  }
  r.durable_commit_log_offset = DecodeInt64BE(ext + 8);
  r.dispatched_commit_log_offset = DecodeInt64BE(ext + 16);
  *out = r;
  return CheckpointDecode::kWithExtension;
}

}  // namespace rocketstore::format
