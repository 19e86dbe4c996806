// File: testing/heartbeat_data.h
//
// The HEART_BEAT body of one consumer, as a RocketMQ push consumer sends it
// (CONSUME_PASSIVELY, CLUSTERING), with no subscriptions yet: broker tests add theirs to
// consumer_data_set[0].
//
// Thread-safety: a free function; no shared state.
#pragma once

#include <string>

#include "protocol/bodies/client_bodies.h"

namespace rocketstore::testing {

inline protocol::HeartbeatData ConsumerHeartbeatData(
    const std::string& client_id, const std::string& group,
    const std::string& from_where = "CONSUME_FROM_FIRST_OFFSET") {
  protocol::HeartbeatData hb;
  hb.client_id = client_id;
  protocol::ConsumerData cd;
  cd.group_name = group;
  cd.consume_type = "CONSUME_PASSIVELY";
  cd.message_model = "CLUSTERING";
  cd.consume_from_where = from_where;
  hb.consumer_data_set.push_back(cd);
  return hb;
}

}  // namespace rocketstore::testing
