// File: broker/config/data_version_json.h  (internal to the config managers' .cc files)
//
// The "dataVersion" member of topics.json and subscriptionGroup.json.
#pragma once

#include <rapidjson/document.h>

#include "broker/config/config_json.h"
#include "broker/config/config_manager.h"

namespace rocketstore::broker {

// root["dataVersion"] (missing or mistyped members: 0).
inline DataVersion DecodeDataVersion(const rapidjson::Value& root) {
  DataVersion v;
  if (const rapidjson::Value* dv = config_json::ObjectMember(root, "dataVersion")) {
    v.counter = config_json::Int64Or(*dv, "counter", 0);
    v.timestamp = config_json::Int64Or(*dv, "timestamp", 0);
    v.state_version = config_json::Int64Or(*dv, "stateVersion", 0);
  }
  return v;
}

}  // namespace rocketstore::broker
