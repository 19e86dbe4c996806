// File: protocol/bodies/batch_body.h
//
// The body of SEND_BATCH_MESSAGE (320): the messages of one batch, each encoded by the
// Java client's MessageDecoder.encodeMessage and concatenated (encodeMessages).
// Big-endian, one record after another, nothing before, between or after:
//
//   offset        size      field
//   0             4         totalSize   int32, = 22 + bodyLen + propsLen (the whole record)
//   4             4         magicCode   int32, the client writes 0; not checked
//   8             4         bodyCRC     int32, the client writes 0; not checked
//   12            4         flag        int32, the message's user flag
//   16            4         bodyLen     int32, >= 0
//   20            bodyLen   body
//   20+bodyLen    2         propsLen    int16, >= 0 (properties bytes)
//   22+bodyLen    propsLen  properties  name\x01value\x02... (store-format.md)
//
// Java's broker walks the records by their inner lengths and ignores totalSize; this
// decoder requires totalSize to agree, so a corrupt length is an error rather than a
// silently re-framed batch. Every decoded record is a view into the input.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rocketstore::protocol {

inline constexpr size_t kBatchRecordFixedSize = 22;  // totalSize .. bodyLen + propsLen

// One message of a batch. `body` and `properties` point into the decoded span: valid as
// long as its bytes are.
struct BatchMessageView {
  int32_t flag = 0;
  std::span<const uint8_t> body;
  std::string_view properties;
};

// All records of `body`. Errors (kInvalidArgument) name the record index, its byte
// position and the field: an empty body, a record shorter than the fixed part, a
// negative bodyLen/propsLen, lengths that run past the end, a totalSize that disagrees
// with the inner lengths.
Result<std::vector<BatchMessageView>> DecodeBatchBody(std::span<const uint8_t> body);

// Appends the record of one message (what the Java client writes; magic and CRC 0).
// `properties` must be at most 32767 bytes (Java's Short.MAX_VALUE), `body` at most
// INT32_MAX - 22 - 32767 bytes; larger inputs are the caller's bug.
void AppendBatchRecord(int32_t flag, std::span<const uint8_t> body, std::string_view properties,
                       std::vector<uint8_t>* out);

}  // namespace rocketstore::protocol
