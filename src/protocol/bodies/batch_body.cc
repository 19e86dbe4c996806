#include "protocol/bodies/batch_body.h"

#include <string>

#include "base/coding.h"
#include "base/status.h"

namespace rocketstore::protocol {

namespace {

Status BadRecord(size_t index, size_t pos, const std::string& what) {
  return InvalidArgument("batch body: message " + std::to_string(index) + " at byte " +
                         std::to_string(pos) + ": " + what);
}

}  // namespace

Result<std::vector<BatchMessageView>> DecodeBatchBody(std::span<const uint8_t> body) {
  if (body.empty()) return InvalidArgument("batch body: empty (no messages)");
  std::vector<BatchMessageView> out;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t index = out.size();
    const size_t left = body.size() - pos;
    if (left < kBatchRecordFixedSize) {
      return BadRecord(index, pos,
                       std::to_string(left) + " bytes left, fewer than the " +
                           std::to_string(kBatchRecordFixedSize) + " of a record's fixed part");
    }
    const uint8_t* p = body.data() + pos;
    const int32_t total = DecodeInt32BE(p);
    const int32_t flag = DecodeInt32BE(p + 12);
    const int32_t body_len = DecodeInt32BE(p + 16);
    if (body_len < 0) return BadRecord(index, pos, "negative bodyLen " + std::to_string(body_len));
    // left >= 22 here, so this subtraction cannot wrap.
    if (static_cast<size_t>(body_len) > left - kBatchRecordFixedSize) {
      return BadRecord(index, pos,
                       "bodyLen " + std::to_string(body_len) + " runs past the end of the body (" +
                           std::to_string(left) + " bytes left)");
    }
    const size_t props_at = 20 + static_cast<size_t>(body_len);
    const int32_t props_len = DecodeInt16BE(p + props_at);
    if (props_len < 0) {
      return BadRecord(index, pos, "negative propsLen " + std::to_string(props_len));
    }
    const size_t size =
        kBatchRecordFixedSize + static_cast<size_t>(body_len) + static_cast<size_t>(props_len);
    if (size > left) {
      return BadRecord(index, pos,
                       "propsLen " + std::to_string(props_len) +
                           " runs past the end of the body (" + std::to_string(left) +
                           " bytes left)");
    }
    if (total < 0 || static_cast<size_t>(total) != size) {
      return BadRecord(index, pos,
                       "totalSize " + std::to_string(total) + " disagrees with its lengths (" +
                           std::to_string(size) + ")");
    }
    BatchMessageView m;
    m.flag = flag;
    m.body = body.subspan(pos + 20, static_cast<size_t>(body_len));
    m.properties = std::string_view(reinterpret_cast<const char*>(p + props_at + 2),
                                    static_cast<size_t>(props_len));
    out.push_back(m);
    pos += size;
  }
  return out;
}

void AppendBatchRecord(int32_t flag, std::span<const uint8_t> body, std::string_view properties,
                       std::vector<uint8_t>* out) {
  const size_t total = kBatchRecordFixedSize + body.size() + properties.size();
  const size_t at = out->size();
  out->resize(at + 20);
  uint8_t* p = out->data() + at;
  EncodeFixed32BE(p, static_cast<uint32_t>(total));
  EncodeFixed32BE(p + 4, 0);  // magic
  EncodeFixed32BE(p + 8, 0);  // body CRC
  EncodeFixed32BE(p + 12, static_cast<uint32_t>(flag));
  EncodeFixed32BE(p + 16, static_cast<uint32_t>(body.size()));
  out->insert(out->end(), body.begin(), body.end());
  uint8_t len[2];
  EncodeFixed16BE(len, static_cast<uint16_t>(properties.size()));
  out->insert(out->end(), len, len + 2);
  out->insert(out->end(), properties.begin(), properties.end());
}

}  // namespace rocketstore::protocol
