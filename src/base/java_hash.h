// File: base/java_hash.h
//
// Java's String.hashCode() for text held as UTF-8: RocketMQ hashes tags (tagsCode in
// the ConsumeQueue) and index keys this way, over UTF-16 code units:
//   h = 0; for each UTF-16 unit c: h = 31*h + c   (32-bit wrap-around, signed result)
// Characters above U+FFFF count as two units (a surrogate pair), exactly as in Java.
// Malformed UTF-8 bytes each count as U+FFFD, as Java's decoder replaces them.
//
// Examples: JavaStringHash("TagA") == 2598919; JavaStringHash("TopicTest#k1") == 2746024.
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string_view>

namespace rocketstore {

int32_t JavaStringHash(std::string_view utf8);
// The hash continued from `seed`: JavaStringHash(p + utf8) when seed == JavaStringHash(p)
// and p is empty or ends with an ASCII byte (no UTF-8 sequence spans the joint, so each
// side decodes as it does alone). The index hashes `topic#key` this way without
// building it (format::IndexKeySeed).
int32_t JavaStringHash(std::string_view utf8, int32_t seed);

// Number of UTF-16 units of `utf8`: Java's String.length(), which RocketMQ uses for
// some limits (topic length, properties length in 4.9.8's checks).
size_t JavaStringLength(std::string_view utf8);

}  // namespace rocketstore
