#include "store/format/message_record.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/coding.h"
#include "base/crc32.h"

namespace rocketstore::format {
namespace {

bool IsMessageMagic(uint32_t magic) { return magic == kMessageMagicV1 || magic == kMessageMagicV2; }

size_t TopicLengthSize(uint32_t magic) { return magic == kMessageMagicV2 ? 2 : 1; }

int32_t WithHostFlags(const MessageToStore& m) {
  int32_t sys_flag = m.sys_flag & ~(kSysFlagBornHostV6 | kSysFlagStoreHostV6);
  if (m.born_host.v6) sys_flag |= kSysFlagBornHostV6;
  if (m.store_host.v6) sys_flag |= kSysFlagStoreHostV6;
  return sys_flag;
}

HostAddress DecodeHost(const uint8_t* p, bool v6) {
  HostAddress h;
  h.v6 = v6;
  const size_t n = v6 ? 16 : 4;
  std::memcpy(h.ip.data(), p, n);
  h.port = DecodeInt32BE(p + n);
  return h;
}

// printf into a std::string; only used to describe errors.
__attribute__((format(printf, 1, 2))) std::string Format(const char* fmt, ...) {
  char buf[256];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  if (n < 0) return fmt;
  return std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof(buf) - 1));
}

DecodeResult Fail(DecodeOutcome outcome, std::string error) {
  DecodeResult r;
  r.outcome = outcome;
  r.error = std::move(error);
  return r;
}

}  // namespace

// ---- HostAddress ----------------------------------------------------------------------------

HostAddress HostAddress::V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, int32_t port) {
  HostAddress h;
  h.ip[0] = a;
  h.ip[1] = b;
  h.ip[2] = c;
  h.ip[3] = d;
  h.port = port;
  return h;
}

HostAddress HostAddress::V6(const std::array<uint8_t, 16>& ip, int32_t port) {
  static constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (std::memcmp(ip.data(), kMappedPrefix, sizeof(kMappedPrefix)) == 0) {
    return V4(ip[12], ip[13], ip[14], ip[15], port);  // Java: an Inet4Address
  }
  HostAddress h;
  h.ip = ip;
  h.v6 = true;
  h.port = port;
  return h;
}

Result<HostAddress> HostAddress::Parse(std::string_view text) {
  const std::string quoted = "\"" + std::string(text.substr(0, 80)) + "\"";
  std::string_view addr;
  std::string_view port_text;
  bool v6 = false;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return InvalidArgument("host address " + quoted + ": missing ']' after IPv6 address");
    }
    if (close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("host address " + quoted + ": expected ':port' after ']'");
    }
    addr = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    v6 = true;
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return InvalidArgument("host address " + quoted + ": expected 'ip:port'");
    }
    addr = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (addr.find(':') != std::string_view::npos) {
      return InvalidArgument("host address " + quoted +
                             ": an IPv6 address must be written as [addr]:port");
    }
  }
  if (addr.empty() || addr.size() > 45 || addr.find('\0') != std::string_view::npos) {
    return InvalidArgument("host address " + quoted + ": bad IP address");
  }
  int port = -1;
  const char* pb = port_text.data();
  const char* pe = pb + port_text.size();
  auto [ptr, ec] = std::from_chars(pb, pe, port);
  if (port_text.empty() || ec != std::errc() || ptr != pe || port < 0 || port > 65535) {
    return InvalidArgument("host address " + quoted + ": port must be a number in 0..65535");
  }
  std::array<uint8_t, 16> ip{};
  const std::string addr_z(addr);  // inet_pton needs a terminated string
  if (inet_pton(v6 ? AF_INET6 : AF_INET, addr_z.c_str(), ip.data()) != 1) {
    return InvalidArgument("host address " + quoted + ": bad " + (v6 ? "IPv6" : "IPv4") +
                           " address");
  }
  return v6 ? V6(ip, port) : V4(ip[0], ip[1], ip[2], ip[3], port);
}

std::string HostAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, ip.data(), buf, sizeof(buf));
  std::string out;
  if (v6) {
    out = "[" + std::string(buf) + "]";
  } else {
    out = buf;
  }
  out += ":" + std::to_string(port);
  return out;
}

void EncodeHost(const HostAddress& host, uint8_t* dst) {
  const size_t n = host.AddressSize();
  std::memcpy(dst, host.ip.data(), n);
  EncodeFixed32BE(dst + n, static_cast<uint32_t>(host.port));
}

// ---- Encoding -------------------------------------------------------------------------------

size_t EncodedRecordSize(const MessageToStore& m, uint32_t magic) {
  const size_t overhead = magic == kMessageMagicV2 ? kRecordOverheadV2 : kRecordOverheadV1;
  return overhead + m.born_host.EncodedSize() + m.store_host.EncodedSize() + m.body.size() +
         m.topic.size() + m.properties.size();
}

void EncodeRecord(const MessageToStore& m, uint32_t body_crc, int64_t queue_offset,
                  int64_t physical_offset, int64_t store_timestamp, uint8_t* dst, uint32_t magic) {
  const size_t total = EncodedRecordSize(m, magic);
  EncodeFixed32BE(dst + kTotalSizeOffset, static_cast<uint32_t>(total));
  EncodeFixed32BE(dst + kMagicOffset, magic);
  EncodeFixed32BE(dst + kBodyCrcOffset, body_crc);
  EncodeFixed32BE(dst + kQueueIdOffset, static_cast<uint32_t>(m.queue_id));
  EncodeFixed32BE(dst + kFlagOffset, static_cast<uint32_t>(m.flag));
  EncodeFixed64BE(dst + kQueueOffsetOffset, static_cast<uint64_t>(queue_offset));
  EncodeFixed64BE(dst + kPhysicalOffsetOffset, static_cast<uint64_t>(physical_offset));
  EncodeFixed32BE(dst + kSysFlagOffset, static_cast<uint32_t>(WithHostFlags(m)));
  EncodeFixed64BE(dst + kBornTimestampOffset, static_cast<uint64_t>(m.born_timestamp));
  EncodeHost(m.born_host, dst + kBornHostOffset);
  const size_t bh = m.born_host.EncodedSize();
  const size_t sh = m.store_host.EncodedSize();
  EncodeFixed64BE(dst + StoreTimestampOffset(bh), static_cast<uint64_t>(store_timestamp));
  EncodeHost(m.store_host, dst + StoreHostOffset(bh));
  EncodeFixed32BE(dst + ReconsumeTimesOffset(bh, sh), static_cast<uint32_t>(m.reconsume_times));
  EncodeFixed64BE(dst + PreparedTransactionOffsetOffset(bh, sh),
                  static_cast<uint64_t>(m.prepared_transaction_offset));
  EncodeFixed32BE(dst + BodyLengthOffset(bh, sh), static_cast<uint32_t>(m.body.size()));
  uint8_t* p = dst + BodyOffset(bh, sh);
  if (!m.body.empty()) std::memcpy(p, m.body.data(), m.body.size());
  p += m.body.size();
  if (magic == kMessageMagicV2) {
    EncodeFixed16BE(p, static_cast<uint16_t>(m.topic.size()));
    p += 2;
  } else {
    *p++ = static_cast<uint8_t>(m.topic.size());
  }
  if (!m.topic.empty()) std::memcpy(p, m.topic.data(), m.topic.size());
  p += m.topic.size();
  EncodeFixed16BE(p, static_cast<uint16_t>(m.properties.size()));
  p += 2;
  if (!m.properties.empty()) std::memcpy(p, m.properties.data(), m.properties.size());
}

void PatchQueueOffset(uint8_t* record, int64_t queue_offset) {
  EncodeFixed64BE(record + kQueueOffsetOffset, static_cast<uint64_t>(queue_offset));
}

void PatchPhysicalOffset(uint8_t* record, int64_t physical_offset) {
  EncodeFixed64BE(record + kPhysicalOffsetOffset, static_cast<uint64_t>(physical_offset));
}

void PatchStoreTimestamp(uint8_t* record, int64_t store_timestamp) {
  const int32_t sys_flag = DecodeInt32BE(record + kSysFlagOffset);
  const size_t bh = (sys_flag & kSysFlagBornHostV6) ? kHostV6Size : kHostV4Size;
  EncodeFixed64BE(record + StoreTimestampOffset(bh), static_cast<uint64_t>(store_timestamp));
}

Status ValidateForStore(const MessageToStore& m, size_t max_body_bytes, uint32_t magic) {
  if (!IsMessageMagic(magic)) {
    return InvalidArgument(Format("unknown message magic 0x%08X", magic));
  }
  if (m.topic.empty()) return InvalidArgument("topic is empty");
  const size_t topic_limit = magic == kMessageMagicV2 ? kMaxTopicLengthV2 : kMaxTopicLength;
  if (m.topic.size() > topic_limit) {
    return InvalidArgument(Format("topic is %zu bytes, more than the %s limit of %zu",
                                  m.topic.size(), magic == kMessageMagicV2 ? "V2" : "V1",
                                  topic_limit));
  }
  if (m.properties.size() > kMaxPropertiesLength) {
    return InvalidArgument(Format("properties are %zu bytes, more than the limit of %zu",
                                  m.properties.size(), kMaxPropertiesLength));
  }
  if (m.body.size() > max_body_bytes) {
    return ResourceExhausted(
        Format("body is %zu bytes, more than maxMessageSize %zu", m.body.size(), max_body_bytes));
  }
  const size_t total = EncodedRecordSize(m, magic);
  if (total > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return ResourceExhausted(Format("record would be %zu bytes, more than INT32_MAX", total));
  }
  return Status::OK();
}

void EncodeBlank(uint8_t* dst, int32_t length) {
  EncodeFixed32BE(dst + kTotalSizeOffset, static_cast<uint32_t>(length));
  EncodeFixed32BE(dst + kMagicOffset, kBlankMagic);
}

// ---- Decoding -------------------------------------------------------------------------------

MessageToStore ToMessageToStore(const RecordView& r) {
  MessageToStore m;
  m.topic = r.topic;
  m.queue_id = r.queue_id;
  m.flag = r.flag;
  m.body = r.body;
  m.properties = r.properties;
  m.sys_flag = r.sys_flag;
  m.born_timestamp = r.born_timestamp;
  m.born_host = r.born_host;
  m.store_host = r.store_host;
  m.reconsume_times = r.reconsume_times;
  m.prepared_transaction_offset = r.prepared_transaction_offset;
  return m;
}

bool HeaderIsZero(std::span<const uint8_t> bytes) {
  const size_t n = std::min<size_t>(bytes.size(), kBlankRecordSize);
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

DecodeResult DecodeRecord(std::span<const uint8_t> bytes, bool check_crc) {
  const size_t avail = bytes.size();
  if (avail < kBlankRecordSize) {
    return Fail(DecodeOutcome::kTruncated,
                Format("need 8 bytes for TOTALSIZE and MAGIC, have %zu", avail));
  }
  const uint8_t* const p = bytes.data();
  const int32_t total_size = DecodeInt32BE(p + kTotalSizeOffset);
  const uint32_t magic = DecodeFixed32BE(p + kMagicOffset);

  if (magic == kBlankMagic) {
    if (total_size < kEndFileMinBlankLength) {
      return Fail(DecodeOutcome::kCorrupt, Format("BLANK record with TOTALSIZE %d, less than %d",
                                                  total_size, kEndFileMinBlankLength));
    }
    DecodeResult r;
    r.outcome = DecodeOutcome::kBlank;
    r.blank_length = total_size;
    return r;
  }
  if (!IsMessageMagic(magic)) {
    return Fail(DecodeOutcome::kCorrupt,
                Format("bad magic 0x%08X (TOTALSIZE %d)%s", magic, total_size,
                       magic == 0 && total_size == 0 ? ": zero-filled, never written" : ""));
  }
  const size_t min_size = magic == kMessageMagicV2 ? kMinRecordSizeV2 : kMinRecordSizeV1;
  if (total_size < 0 || static_cast<size_t>(total_size) < min_size) {
    return Fail(DecodeOutcome::kCorrupt,
                Format("TOTALSIZE %d is below the minimum record size %zu", total_size, min_size));
  }
  const size_t total = static_cast<size_t>(total_size);

  // Every field must lie inside TOTALSIZE (else the record is inconsistent: kCorrupt) and
  // inside `bytes` (else it is torn: kTruncated). The first check wins, so a valid prefix
  // is always kTruncated and a damaged length is kCorrupt even at the end of the data.
  const char* missing = nullptr;  // first field found beyond the available bytes
  size_t missing_end = 0;
  auto need = [&](size_t pos, size_t n, const char* field) -> const char* {
    if (n > total || pos > total - n) return field;  // past TOTALSIZE
    if (pos + n > avail && missing == nullptr) {
      missing = field;
      missing_end = pos + n;
    }
    return nullptr;
  };
  auto past_total = [&](const char* field, size_t pos, size_t n) {
    return Fail(
        DecodeOutcome::kCorrupt,
        Format("%s at offset %zu (%zu bytes) runs past TOTALSIZE %zu", field, pos, n, total));
  };
  auto truncated = [&]() {
    return Fail(DecodeOutcome::kTruncated,
                Format("record of TOTALSIZE %zu is cut short: %s needs %zu bytes, have %zu", total,
                       missing, missing_end, avail));
  };

  // The fixed fields up to BODY LENGTH (at most 68 + 20 + 20 + 4 = 112 bytes). SYSFLAG
  // (offset 36) is always inside the minimum size, but may not be available yet.
  if (avail < kSysFlagOffset + 4) {
    missing = "SYSFLAG";
    missing_end = kSysFlagOffset + 4;
    return truncated();
  }
  RecordView v;
  v.total_size = total_size;
  v.magic = magic;
  v.sys_flag = DecodeInt32BE(p + kSysFlagOffset);
  const bool born_v6 = (v.sys_flag & kSysFlagBornHostV6) != 0;
  const bool store_v6 = (v.sys_flag & kSysFlagStoreHostV6) != 0;
  const size_t bh = born_v6 ? kHostV6Size : kHostV4Size;
  const size_t sh = store_v6 ? kHostV6Size : kHostV4Size;
  const size_t body_len_pos = BodyLengthOffset(bh, sh);
  if (const char* f = need(0, body_len_pos + 4, "fixed header")) {
    return past_total(f, 0, body_len_pos + 4);
  }
  if (missing != nullptr) return truncated();

  v.body_crc = DecodeFixed32BE(p + kBodyCrcOffset);
  v.queue_id = DecodeInt32BE(p + kQueueIdOffset);
  v.flag = DecodeInt32BE(p + kFlagOffset);
  v.queue_offset = DecodeInt64BE(p + kQueueOffsetOffset);
  v.physical_offset = DecodeInt64BE(p + kPhysicalOffsetOffset);
  v.born_timestamp = DecodeInt64BE(p + kBornTimestampOffset);
  v.born_host = DecodeHost(p + kBornHostOffset, born_v6);
  v.store_timestamp = DecodeInt64BE(p + StoreTimestampOffset(bh));
  v.store_host = DecodeHost(p + StoreHostOffset(bh), store_v6);
  v.reconsume_times = DecodeInt32BE(p + ReconsumeTimesOffset(bh, sh));
  v.prepared_transaction_offset = DecodeInt64BE(p + PreparedTransactionOffsetOffset(bh, sh));

  const int32_t body_len = DecodeInt32BE(p + body_len_pos);
  if (body_len < 0) {
    return Fail(DecodeOutcome::kCorrupt, Format("negative BODY LENGTH %d", body_len));
  }
  size_t pos = BodyOffset(bh, sh);
  if (const char* f = need(pos, static_cast<size_t>(body_len), "BODY")) {
    return past_total(f, pos, static_cast<size_t>(body_len));
  }
  const size_t body_pos = pos;
  pos += static_cast<size_t>(body_len);

  const size_t tl_size = TopicLengthSize(magic);
  if (const char* f = need(pos, tl_size, "TOPIC LENGTH")) return past_total(f, pos, tl_size);
  if (missing != nullptr) return truncated();
  const int topic_len =
      magic == kMessageMagicV2 ? DecodeInt16BE(p + pos) : static_cast<int8_t>(p[pos]);
  if (topic_len < 0) {
    return Fail(DecodeOutcome::kCorrupt, Format("negative TOPIC LENGTH %d", topic_len));
  }
  pos += tl_size;
  if (const char* f = need(pos, static_cast<size_t>(topic_len), "TOPIC")) {
    return past_total(f, pos, static_cast<size_t>(topic_len));
  }
  const size_t topic_pos = pos;
  pos += static_cast<size_t>(topic_len);

  if (const char* f = need(pos, 2, "PROPERTIES LENGTH")) return past_total(f, pos, 2);
  if (missing != nullptr) return truncated();
  const int props_len = DecodeInt16BE(p + pos);
  if (props_len < 0) {
    return Fail(DecodeOutcome::kCorrupt, Format("negative PROPERTIES LENGTH %d", props_len));
  }
  pos += 2;
  if (const char* f = need(pos, static_cast<size_t>(props_len), "PROPERTIES")) {
    return past_total(f, pos, static_cast<size_t>(props_len));
  }
  const size_t props_pos = pos;
  pos += static_cast<size_t>(props_len);

  if (pos != total) {
    return Fail(DecodeOutcome::kCorrupt,
                Format("TOTALSIZE %zu but the fields end at %zu (body %d, topic %d, "
                       "properties %d bytes)",
                       total, pos, body_len, topic_len, props_len));
  }
  if (missing != nullptr) return truncated();

  const auto* chars = reinterpret_cast<const char*>(p);
  v.body = std::string_view(chars + body_pos, static_cast<size_t>(body_len));
  v.topic = std::string_view(chars + topic_pos, static_cast<size_t>(topic_len));
  v.properties = std::string_view(chars + props_pos, static_cast<size_t>(props_len));
  if (check_crc) {
    const uint32_t computed = RocketMqCrc32(v.body);
    if (computed != v.body_crc) {
      return Fail(DecodeOutcome::kCorrupt,
                  Format("body CRC mismatch: stored 0x%08X computed 0x%08X", v.body_crc, computed));
    }
  }
  DecodeResult r;
  r.outcome = DecodeOutcome::kRecord;
  r.record = v;
  return r;
}

}  // namespace rocketstore::format
