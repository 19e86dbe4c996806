// File: namesrv/register_body.h
//
// Decoding of REGISTER_BROKER (103) bodies (4.9.8's RegisterBrokerBody) into a
// BrokerRegistration's data version, topic queue data and filter server list.
//
//   plain (header compressed=false): the JSON object {"filterServerList":[..],
//     "topicConfigSerializeWrapper":{"dataVersion":{..},"topicConfigTable":{name:{..}}}};
//     fastjson's bare integer keys are accepted.
//   compressed (compressed=true, RegisterBrokerBody.encode(true)): a zlib stream (Java's
//     DeflaterOutputStream) holding, big-endian int32 lengths:
//       len, DataVersion JSON | count | count × (len, "name read write perm filterType")
//       | len, filterServerList JSON array
//     TopicConfig's text form carries no topicSysFlag; it decodes as 0, as in Java.
//
// Errors: kInvalidArgument naming what is wrong (not JSON, a truncated or corrupt zlib
// stream, a length past the end, a topic line without five fields). `reg` may be
// partly filled on error; callers discard it.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"
#include "namesrv/route_table.h"

namespace rocketstore::namesrv {

Status ParseRegisterBody(std::string_view body, BrokerRegistration& reg);
Status DecodeCompressedRegisterBody(std::span<const uint8_t> body, BrokerRegistration& reg);

// zlib-inflates `data` whole; kInvalidArgument on a corrupt or truncated stream, or when
// the output would pass `max_size` bytes.
Result<std::string> Inflate(std::span<const uint8_t> data, size_t max_size);

}  // namespace rocketstore::namesrv
