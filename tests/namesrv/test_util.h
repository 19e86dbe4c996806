// Test helpers for the name server: Java's compressed RegisterBrokerBody layout
// (RegisterBrokerBody.encode(true), written here from its description in
// namesrv/register_body.h) and JSON parsing of reply bodies.
#pragma once

#include <rapidjson/document.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "protocol/json_util.h"

namespace rocketstore::namesrv::testing {

inline std::string Be32(int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  return {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
          static_cast<char>(u)};
}

struct JavaTopicConfig {
  std::string name;
  int read = 16, write = 16, perm = 6;
  std::string filter_type = "SINGLE_TAG";
  std::string Encode() const {  // TopicConfig.encode(): space-separated
    return name + " " + std::to_string(read) + " " + std::to_string(write) + " " +
           std::to_string(perm) + " " + filter_type;
  }
};

// The inflated payload: len+DataVersion JSON, count, len+topic lines, len+filter list JSON.
inline std::string CompressedPayload(const std::string& data_version_json,
                                     const std::vector<JavaTopicConfig>& topics,
                                     const std::string& filter_list_json = "[]") {
  std::string raw = Be32(static_cast<int32_t>(data_version_json.size())) + data_version_json;
  raw += Be32(static_cast<int32_t>(topics.size()));
  for (const auto& t : topics) {
    const std::string line = t.Encode();
    raw += Be32(static_cast<int32_t>(line.size())) + line;
  }
  raw += Be32(static_cast<int32_t>(filter_list_json.size())) + filter_list_json;
  return raw;
}

// Deflater(BEST_COMPRESSION) through DeflaterOutputStream: a zlib stream.
inline std::vector<uint8_t> Deflate(const std::string& raw) {
  uLongf n = compressBound(raw.size());
  std::vector<uint8_t> out(n);
  if (compress2(out.data(), &n, reinterpret_cast<const Bytef*>(raw.data()), raw.size(),
                Z_BEST_COMPRESSION) != Z_OK) {
    return {};
  }
  out.resize(n);
  return out;
}

inline rapidjson::Document ParseJson(std::string_view text) {
  std::string quoted = protocol::QuoteBareIntegerKeys(text);
  rapidjson::Document d;
  d.Parse(quoted.data(), quoted.size());
  return d;
}

}  // namespace rocketstore::namesrv::testing
