// File: namesrv/handlers.h  (internal to the name server)
//
// The name server's request handlers, registered on its RemotingServer by family:
//   broker_handlers.cc  REGISTER_BROKER 103, UNREGISTER_BROKER 104, QUERY_DATA_VERSION 322,
//                       GET_ROUTEINFO_BY_TOPIC 105, GET_BROKER_CLUSTER_INFO 106
//   admin_handlers.cc   topic lists (206, 224, 304, 311-313), DELETE_TOPIC_IN_NAMESRV 216,
//                       WIPE / ADD_WRITE_PERM_OF_BROKER 205 / 327, KV config 100-102 / 219,
//                       GET / UPDATE_NAMESRV_CONFIG 319 / 318
// Semantics and bodies: 4.9.8's DefaultRequestProcessor (docs/protocol.md "Name server
// admin codes"). Ownership: the state must outlive the server. Thread-safety: the
// handlers run on the server's I/O threads; the state objects lock themselves.
#pragma once

#include <functional>

#include "namesrv/kv_config.h"
#include "namesrv/namesrv_config.h"
#include "namesrv/route_table.h"
#include "net/remoting_server.h"

namespace rocketstore::namesrv {

struct NamesrvState {
  RouteTable& routes;
  KvConfigStore& kv;
  NamesrvRuntimeConfig& config;
  std::function<int64_t()> now_ms;
};

void RegisterBrokerHandlers(net::RemotingServer& server, const NamesrvState& state);
void RegisterAdminHandlers(net::RemotingServer& server, const NamesrvState& state);

}  // namespace rocketstore::namesrv
