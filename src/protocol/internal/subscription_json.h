// File: protocol/internal/subscription_json.h
//
// The JSON writer of SubscriptionData shared by the bodies that embed one (HeartbeatData,
// QueryConsumeQueueResponseBody): fastjson's member order (sorted by name).
// Thread-safety: pure function.
#pragma once

#include "protocol/bodies/client_bodies.h"
#include "protocol/internal/json_tree.h"

namespace rocketstore::protocol::internal {

void WriteSubscriptionData(JsonWriter& w, const SubscriptionData& s);

}  // namespace rocketstore::protocol::internal
