// File: store/segment/file_names.h
//
// Segment file naming, one place for it. CommitLog and ConsumeQueue files are named by
// the offset of their first byte, in decimal, zero-padded to 20 digits
// (RocketMQ's UtilAll.offset2FileName):
//   offset 0          -> "00000000000000000000"
//   offset 1073741824 -> "00000000001073741824"
// Files of one queue all have the same size S, so file k starts at k*S past the first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rocketstore {

inline constexpr size_t kSegmentNameLength = 20;

std::string SegmentFileName(int64_t start_offset);

// Parses a 20-digit segment name; nullopt for anything else (temp files, other names).
std::optional<int64_t> ParseSegmentFileName(std::string_view name);

}  // namespace rocketstore
