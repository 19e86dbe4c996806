// File: console/console_api.h
//
// ConsoleApi: the web console's JSON API (`/api/...`), transport-neutral: an HttpRequest
// in (method, path, decoded query/form parameters), an HttpReply out (status + JSON). The
// HTTP adapter (console/http_server.h) only moves bytes; every rule lives here, so the
// tests drive the API directly with tables of requests.
//
// Rules: every answer is JSON. Bad input is a 4xx with {"error": "<what is wrong and
// what to do>"} (400 bad parameter, 404 unknown path or object, 405 wrong method, 409
// conflict with the broker's state, 403 a mutating call in read-only mode); a failure of
// the broker is a 5xx with the same shape. Nothing here throws or aborts on input.
// Every change asked (create/delete topic, a real reset offset, DLQ resend; refused ones
// too, dry runs not) leaves one INFO log line: `console: change who=<peer> what=<change>
// <its parameters> outcome=ok|refused|failed status=<http> [error="..."]`.
//
// The numbers come from the broker's own services and managers (the same the remoting
// front end answers from): a group's lag is computed as GET_CONSUME_STATS (208) defines
// it in RocketMQ 4.9.8 (console/group_stats.h).
//
// Ownership: the broker, the sampler and the clock must outlive the API.
// Thread-safety: Handle may be called from any number of threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/clock.h"
#include "broker/broker.h"
#include "console/rate_sampler.h"

namespace rocketstore::console {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // "/api/topics"
  std::map<std::string, std::string> params;
  std::string remote;  // the peer's "ip:port" ("" when not over HTTP): "who" in the audit log
};

struct HttpReply {
  int status = 200;
  std::string body;  // JSON
};

struct ConsoleOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0 = no console
  bool read_only = false;
  std::string version;          // shown on the Cluster screen
  std::string cluster_name;     // as the broker registers
  std::string namesrv_address;  // the in-process name server, if any
};

// The readings RateSampler keeps for the console (console/rate_sampler.h), from the
// broker's own counters (BrokerStats, what SendService and PullService count): per topic
// "put:<topic>" (messages put) and "get:<topic>" (messages pulled), counters; per group
// "lag:<group>" (GET_CONSUME_STATS's diffTotal), a gauge; "cluster:put", "cluster:get"
// (all topics' messages put / pulled) and "cluster:putBytes" (bytes put), counters.
RateSampler::Source ConsoleReadings(broker::Broker& broker);

class ClusterProbe;

class ConsoleApi {
 public:
  // `probe`: where the Cluster screen's other brokers come from (console/cluster_probe.h);
  // nullptr shows the in-process broker only.
  ConsoleApi(broker::Broker& broker, const RateSampler& rates, Clock& clock, ConsoleOptions options,
             const ClusterProbe* probe = nullptr)
      : broker_(broker),
        rates_(rates),
        clock_(clock),
        options_(std::move(options)),
        probe_(probe) {}

  HttpReply Handle(const HttpRequest& request);

  const ConsoleOptions& options() const { return options_; }

 private:
  HttpReply ConsoleInfo();
  HttpReply Cluster();
  HttpReply Topics();
  HttpReply TopicDetail(const HttpRequest& r);
  HttpReply CreateTopic(const HttpRequest& r);
  HttpReply DeleteTopic(const HttpRequest& r);
  HttpReply Groups();
  HttpReply GroupDetail(const HttpRequest& r);
  HttpReply ResetOffset(const HttpRequest& r);
  HttpReply MessagesByKey(const HttpRequest& r);
  HttpReply MessageById(const HttpRequest& r);
  HttpReply MessagesByTime(const HttpRequest& r);
  HttpReply MessageDetail(const HttpRequest& r);
  HttpReply ResendDlq(const HttpRequest& r);

  broker::Broker& broker_;
  const RateSampler& rates_;
  Clock& clock_;
  const ConsoleOptions options_;
  const ClusterProbe* const probe_;
};

}  // namespace rocketstore::console
