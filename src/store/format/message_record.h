// File: store/format/message_record.h
//
// THE SPECIFICATION of the CommitLog message record, byte-compatible with Apache RocketMQ
// (4.9.8 baseline, 5.x differences marked). Encoder, decoder, recovery, the dispatcher and
// the tests all take offsets and limits from the constants below; nobody writes "84".
// docs/format/commitlog.md adds a hex-dump walk-through; this comment is authoritative.
//
// Byte order: every multi-byte integer is BIG-ENDIAN (Java ByteBuffer). "int" = signed
// 32-bit, "long" = signed 64-bit, "short" = signed 16-bit.
//
// V1 record (magic 0xDAA320A7). BH / SH = born / store host field size: 8 for IPv4
// (4 address bytes + int port), 20 for IPv6 (16 + 4), chosen by sysFlag bits 0x10 / 0x20.
// B = body bytes, T = topic bytes (UTF-8), P = properties bytes.
//
//   Offset      Offset               Size  Field
//   IPv4/IPv4   general
//   0           0                    4     TOTALSIZE        int, whole record incl. itself
//   4           4                    4     MAGICCODE        0xDAA320A7 (V1) / 0xDAA320AB (V2)
//   8           8                    4     BODYCRC          RocketMqCrc32(body), top bit clear
//   12          12                   4     QUEUEID          int
//   16          16                   4     FLAG             int, opaque producer flag
//   20          20                   8     QUEUEOFFSET      long, consume-queue index
//   28          28                   8     PHYSICALOFFSET   long, commit-log offset of byte 0
//   36          36                   4     SYSFLAG          int, bits below
//   40          40                   8     BORNTIMESTAMP    long, producer ms since epoch
//   48          48                   BH    BORNHOST         address bytes + int port
//   56          48+BH                8     STORETIMESTAMP   long, broker ms (in-lock time)
//   64          56+BH                SH    STOREHOST        address bytes + int port
//   72          56+BH+SH             4     RECONSUMETIMES   int
//   76          60+BH+SH             8     PREPARED TX OFF  long, half-message offset or 0
//   84          68+BH+SH             4     BODY LENGTH      int B
//   88          72+BH+SH             B     BODY             raw (compressed if sysFlag 0x1)
//   88+B        72+BH+SH+B           1     TOPIC LENGTH     V1: signed byte T (V2: short)
//   89+B        73+BH+SH+B           T     TOPIC            UTF-8
//   89+B+T      73+BH+SH+B+T         2     PROPERTIES LEN   short P
//   91+B+T      75+BH+SH+B+T         P     PROPERTIES       see store/format/properties.h
//
//   TOTALSIZE (V1) = 75 + BH + SH + B + T + P  (91 + B + T + P for IPv4/IPv4,
//   103 + ... with one IPv6 host, 115 + ... with two).
//
// V2 [5.x] (magic 0xDAA320AB): identical except TOPIC LENGTH is a 2-byte signed short,
// so every field after it moves by one and TOTALSIZE is one byte larger. 5.x writes V2
// only for topics longer than 127; 4.x readers reject V2.
//
// BLANK record (end of a segment): 8 bytes, int `remaining`, int 0xCBD43194, where
// remaining = segment size - write position. A record of L bytes goes into the current
// segment only if L + kEndFileMinBlankLength <= remaining; otherwise the BLANK is written,
// the rest of the segment is left untouched (zeros), and the unchanged record (apart from
// PHYSICALOFFSET) goes to offset 0 of the next segment. So every full segment ends with a
// BLANK whose TOTALSIZE reaches exactly to the segment end (>= 8).
//
// SYSFLAG bits (MessageSysFlag):
//   0x001 compressed body        0x002 multi-tags (no store effect)
//   0x00C transaction type: 0x0 none, 0x4 prepared, 0x8 commit, 0xC rollback
//   0x010 born host is IPv6      0x020 store host is IPv6
//   0x040 need-unwrap (batch)    0x080 inner batch [5.x]
//   0x700 compression type: 0x100 LZ4, 0x200 ZSTD, 0x300 ZLIB
//
// Limits: V1 topic <= 127 bytes (the reader takes the length byte as signed); properties
// <= 32767 bytes (signed short). RocketMQ checks both on Java String.length(); bytes are
// stricter and the only choice that cannot produce a record RocketMQ then misreads.
//
// Thread-safety: pure functions over caller-owned memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"

namespace rocketstore::format {

// ---- Magic codes and sizes ----------------------------------------------------------------
inline constexpr uint32_t kMessageMagicV1 = 0xDAA320A7u;  // int -626843481
inline constexpr uint32_t kMessageMagicV2 = 0xDAA320ABu;  // int -626843477 [5.x]
inline constexpr uint32_t kBlankMagic = 0xCBD43194u;      // int -875286124
inline constexpr int32_t kEndFileMinBlankLength = 8;      // BLANK size; gap kept after a record
inline constexpr size_t kBlankRecordSize = 8;

inline constexpr size_t kHostV4Size = 8;   // 4 address bytes + int port
inline constexpr size_t kHostV6Size = 20;  // 16 address bytes + int port

// 75 = every fixed-size field of a V1 record except the two hosts (incl. the 1-byte topic
// length, the 2-byte properties length and the 4-byte body length).
inline constexpr size_t kRecordOverheadV1 = 75;
inline constexpr size_t kRecordOverheadV2 = 76;
inline constexpr size_t kMinRecordSizeV1 = kRecordOverheadV1 + 2 * kHostV4Size;  // 91
inline constexpr size_t kMinRecordSizeV2 = kRecordOverheadV2 + 2 * kHostV4Size;  // 92

// ---- Field offsets ------------------------------------------------------------------------
// Fixed positions (independent of the host sizes).
inline constexpr size_t kTotalSizeOffset = 0;
inline constexpr size_t kMagicOffset = 4;
inline constexpr size_t kBodyCrcOffset = 8;
inline constexpr size_t kQueueIdOffset = 12;
inline constexpr size_t kFlagOffset = 16;
inline constexpr size_t kQueueOffsetOffset = 20;
inline constexpr size_t kPhysicalOffsetOffset = 28;
inline constexpr size_t kSysFlagOffset = 36;
inline constexpr size_t kBornTimestampOffset = 40;
inline constexpr size_t kBornHostOffset = 48;

// Positions after the born host, for host field sizes bh / sh (kHostV4Size or kHostV6Size).
constexpr size_t StoreTimestampOffset(size_t bh) { return 48 + bh; }
constexpr size_t StoreHostOffset(size_t bh) { return 56 + bh; }
constexpr size_t ReconsumeTimesOffset(size_t bh, size_t sh) { return 56 + bh + sh; }
constexpr size_t PreparedTransactionOffsetOffset(size_t bh, size_t sh) { return 60 + bh + sh; }
constexpr size_t BodyLengthOffset(size_t bh, size_t sh) { return 68 + bh + sh; }
constexpr size_t BodyOffset(size_t bh, size_t sh) { return 72 + bh + sh; }
// TOPIC LENGTH sits right after the body: BodyOffset(bh, sh) + B.

// The IPv4/IPv4 values, as RocketMQ's tests and MessageDecoder use them.
inline constexpr size_t kStoreTimestampOffsetV4 = StoreTimestampOffset(kHostV4Size);       // 56
inline constexpr size_t kStoreHostOffsetV4 = StoreHostOffset(kHostV4Size);                 // 64
inline constexpr size_t kBodyLengthOffsetV4 = BodyLengthOffset(kHostV4Size, kHostV4Size);  // 84
inline constexpr size_t kBodyOffsetV4 = BodyOffset(kHostV4Size, kHostV4Size);              // 88
static_assert(kStoreTimestampOffsetV4 == 56 && kStoreHostOffsetV4 == 64 &&
              kBodyLengthOffsetV4 == 84 && kBodyOffsetV4 == 88 && kMinRecordSizeV1 == 91);

// ---- SYSFLAG bits -------------------------------------------------------------------------
inline constexpr int32_t kSysFlagCompressed = 0x1;
inline constexpr int32_t kSysFlagMultiTags = 0x2;
inline constexpr int32_t kSysFlagTransactionMask = 0xC;
inline constexpr int32_t kTransactionNotType = 0x0;
inline constexpr int32_t kTransactionPrepared = 0x4;
inline constexpr int32_t kTransactionCommit = 0x8;
inline constexpr int32_t kTransactionRollback = 0xC;
// Whether a record with this SYSFLAG takes a queue offset and gets a consume-queue unit:
// non-transactional and COMMIT records do; PREPARED and ROLLBACK records do not (RocketMQ's
// CommitLog.doAppend / DefaultMessageStore.doDispatch transaction-type switch).
constexpr bool TakesQueueOffset(int32_t sys_flag) {
  const int32_t tx = sys_flag & kSysFlagTransactionMask;
  return tx == kTransactionNotType || tx == kTransactionCommit;
}
inline constexpr int32_t kSysFlagBornHostV6 = 0x10;
inline constexpr int32_t kSysFlagStoreHostV6 = 0x20;
inline constexpr int32_t kSysFlagNeedUnwrap = 0x40;
inline constexpr int32_t kSysFlagInnerBatch = 0x80;
inline constexpr int32_t kSysFlagCompressionTypeMask = 0x700;
inline constexpr int32_t kCompressionLz4 = 0x100;
inline constexpr int32_t kCompressionZstd = 0x200;
inline constexpr int32_t kCompressionZlib = 0x300;

// ---- Limits -------------------------------------------------------------------------------
inline constexpr size_t kMaxTopicLength = 127;           // V1, bytes
inline constexpr size_t kMaxTopicLengthV2 = 32767;       // V2 format limit, bytes
inline constexpr size_t kMaxPropertiesLength = 32767;    // bytes
inline constexpr size_t kDefaultMaxBodyBytes = 4194304;  // maxMessageSize default (4 MiB)

// ---- Host address (§2.2) ------------------------------------------------------------------
// IPv4 (ip[0..3], rest zero) or IPv6 (ip[0..15]) plus port; encoded as the raw address
// bytes in network order followed by the port as a big-endian int.
struct HostAddress {
  std::array<uint8_t, 16> ip{};
  bool v6 = false;
  int32_t port = 0;

  static HostAddress V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, int32_t port);
  // An IPv4-mapped address (::ffff:a.b.c.d) yields an IPv4 HostAddress, as Java's
  // InetAddress does; the record then uses the 8-byte host encoding.
  static HostAddress V6(const std::array<uint8_t, 16>& ip, int32_t port);
  // "127.0.0.1:10911" or "[::1]:5555" (port 0..65535; IPv4-mapped as in V6).
  // InvalidArgument otherwise.
  static Result<HostAddress> Parse(std::string_view text);
  std::string ToString() const;  // same forms as Parse accepts
  size_t EncodedSize() const { return v6 ? kHostV6Size : kHostV4Size; }
  size_t AddressSize() const { return v6 ? 16 : 4; }

  friend bool operator==(const HostAddress&, const HostAddress&) = default;
};

// Writes host.EncodedSize() bytes at dst.
void EncodeHost(const HostAddress& host, uint8_t* dst);

// ---- Encoding -----------------------------------------------------------------------------
// Everything a producer supplies for one record; views are not owned and must stay valid
// for the duration of the call that reads them.
struct MessageToStore {
  std::string_view topic;
  int32_t queue_id = 0;
  int32_t flag = 0;
  std::string_view body;
  std::string_view properties;  // already serialised (PropertiesBuilder / producer string)
  int32_t sys_flag = 0;         // the encoder sets/clears the born/store host V6 bits
  int64_t born_timestamp = 0;
  HostAddress born_host;
  HostAddress store_host;
  int32_t reconsume_times = 0;
  int64_t prepared_transaction_offset = 0;
};

// Exact encoded size: V1 75 + BH + SH + B + T + P; V2 one byte more.
// REQUIRES: magic is kMessageMagicV1 or kMessageMagicV2.
size_t EncodedRecordSize(const MessageToStore& m, uint32_t magic = kMessageMagicV1);

// Writes the whole record (EncodedRecordSize(m, magic) bytes) into dst in one pass, with
// no allocation. body_crc is RocketMqCrc32(m.body), computed by the caller outside any lock.
// Performs no validation: call ValidateForStore first.
void EncodeRecord(const MessageToStore& m, uint32_t body_crc, int64_t queue_offset,
                  int64_t physical_offset, int64_t store_timestamp, uint8_t* dst,
                  uint32_t magic = kMessageMagicV1);

// In-place patches of an encoded record (the fields RocketMQ fills in inside the append
// lock). `record` points at TOTALSIZE of a well-formed record.
void PatchQueueOffset(uint8_t* record, int64_t queue_offset);
void PatchPhysicalOffset(uint8_t* record, int64_t physical_offset);
void PatchStoreTimestamp(uint8_t* record, int64_t store_timestamp);  // reads SYSFLAG for BH

// The checks the store performs before encoding:
//   InvalidArgument   topic empty, or longer than kMaxTopicLength (V1) / kMaxTopicLengthV2;
//                     properties longer than kMaxPropertiesLength.
//   ResourceExhausted body longer than max_body_bytes, or the record would exceed INT32_MAX.
// The message names the limit and the offending size.
Status ValidateForStore(const MessageToStore& m, size_t max_body_bytes,
                        uint32_t magic = kMessageMagicV1);

// Writes the 8-byte BLANK record: int length, int kBlankMagic.
void EncodeBlank(uint8_t* dst, int32_t length);

// ---- Decoding -----------------------------------------------------------------------------
// One decoded record. All views point into the buffer given to DecodeRecord.
struct RecordView {
  int32_t total_size = 0;
  uint32_t magic = 0;
  uint32_t body_crc = 0;
  int32_t queue_id = 0;
  int32_t flag = 0;
  int64_t queue_offset = 0;
  int64_t physical_offset = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  HostAddress born_host;
  int64_t store_timestamp = 0;
  HostAddress store_host;
  int32_t reconsume_times = 0;
  int64_t prepared_transaction_offset = 0;
  std::string_view body;
  std::string_view topic;
  std::string_view properties;

  int TransactionType() const { return sys_flag & kSysFlagTransactionMask; }
};

// The MessageToStore that re-encodes `r` byte for byte with
//   EncodeRecord(m, r.body_crc, r.queue_offset, r.physical_offset, r.store_timestamp, dst,
//                r.magic).
MessageToStore ToMessageToStore(const RecordView& r);

enum class DecodeOutcome { kRecord, kBlank, kTruncated, kCorrupt };

struct DecodeResult {
  DecodeOutcome outcome = DecodeOutcome::kCorrupt;
  RecordView record;         // for kRecord
  int32_t blank_length = 0;  // for kBlank: the BLANK's TOTALSIZE (bytes to segment end)
  std::string error;         // for kTruncated / kCorrupt: what is wrong (empty otherwise)
};

// Decodes the record at the start of `bytes` (which may extend past it). Never reads
// outside `bytes`; allocates only to describe an error.
//   kRecord     a V1 or V2 record with IPv4/IPv6 hosts; record.total_size bytes consumed.
//   kBlank      BLANK magic; blank_length = its TOTALSIZE (>= kEndFileMinBlankLength).
//   kTruncated  `bytes` ends before the record does, and every field that IS present is
//               consistent with TOTALSIZE: a torn tail. Every proper prefix of a valid
//               record (including fewer than 8 bytes) decodes as kTruncated.
//   kCorrupt    bad magic; TOTALSIZE below the minimum; a negative length; a field that
//               runs past TOTALSIZE; fields ending before TOTALSIZE (recomputed length !=
//               TOTALSIZE); a BLANK shorter than 8; or, if check_crc, a body CRC mismatch.
// Zero-filled (never written) space decodes as kCorrupt (magic 0); see HeaderIsZero.
DecodeResult DecodeRecord(std::span<const uint8_t> bytes, bool check_crc);

// True if the first min(8, bytes.size()) bytes are all zero: unwritten, preallocated space
// (a clean end for recovery) rather than damaged data.
bool HeaderIsZero(std::span<const uint8_t> bytes);

}  // namespace rocketstore::format
