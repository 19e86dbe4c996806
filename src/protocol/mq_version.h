// File: protocol/mq_version.h
//
// Names of RocketMQ's MQVersion ordinals (the `version` field of every remoting header).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace rocketstore::protocol {

// MQVersion.getVersionDesc of RocketMQ 4.9.8: the name of a version ordinal ("V4_9_8" for
// 409, "V5_3_3" for 479); an ordinal past 4.9.8's table is "HIGHER_VERSION", as Java
// answers; a negative one "version ordinal N" (Java would throw).
std::string VersionDesc(int32_t version);

}  // namespace rocketstore::protocol
