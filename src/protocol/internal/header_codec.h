// File: protocol/internal/header_codec.h
//
// The two header codecs behind protocol/frame_codec.h (whose comment specifies both
// formats). Internal to protocol/; tests and fuzzers may use them directly.
//
// Decoders fill the header fields of `*command` (code, language, version, opaque, flag,
// remark, ext_fields) and leave the rest alone. Encoders append to `*out`.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/frame_codec.h"
#include "protocol/remoting_command.h"

namespace rocketstore::protocol::internal {

Status DecodeJsonHeader(std::span<const uint8_t> header, const Limits& limits,
                        RemotingCommand* command);
// DecodeJsonHeader's two halves, exposed for the differential test and fuzzer.
// The fast path decodes the JSON subset real clients send (printable ASCII, escapes of
// ASCII characters only, integers without fraction or exponent) from `header`; for anything
// else it returns nullopt, having possibly changed `*command` part way. The RapidJSON
// path decodes any input, with the error messages the codec documents. On every input
// the fast path accepts, both give the same status and the same fields.
std::optional<Status> TryDecodeJsonHeaderFast(std::span<const uint8_t> header, const Limits& limits,
                                              RemotingCommand* command);
// The fast path's first stage: only the exact text fastjson writes (its key order, no
// whitespace, string extFields values; see fastjson_header.cc). True: `*command` holds the
// header (the same fields the other paths would give). False: nothing was changed.
bool TryDecodeFastjsonHeader(std::string_view text, const Limits& limits, RemotingCommand* command);
Status DecodeJsonHeaderWithRapidJson(std::span<const uint8_t> header, const Limits& limits,
                                     RemotingCommand* command);
Status DecodeBinaryHeader(std::span<const uint8_t> header, const Limits& limits,
                          RemotingCommand* command);

void EncodeJsonHeader(const RemotingCommand& command, std::vector<uint8_t>* out);
Status EncodeBinaryHeader(const RemotingCommand& command, std::vector<uint8_t>* out);

// Appends `text` as a JSON string literal (with quotes): escapes '"', '\\' and control
// characters, copies valid UTF-8, and writes \ufffd for each byte that does not start a
// valid UTF-8 sequence (so the output is always valid JSON in valid UTF-8).
void AppendJsonString(std::string_view text, std::vector<uint8_t>* out);

}  // namespace rocketstore::protocol::internal
