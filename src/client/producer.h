// File: client/producer.h
//
// Producer: sends messages the way RocketMQ 4.9.8's DefaultMQProducer does.
//   * Routes come from the name servers (GET_ROUTEINFO_BY_TOPIC 105), cached and refreshed
//     after route_refresh_ms, and at once after a failed send (a network error or one of
//     the retried refusals): the next attempt and the next sends use the name server's
//     current route (kept as it was when no name server answers). A cached route without
//     a writable queue is asked for again before a send gives up (Java's
//     tryToFindTopicPublishInfo). A topic without a route is sent with the route of TBW102
//     (auto-create) when the name server has that.
//   * Queue selection: round-robin over the writable queues; a retry picks a queue of
//     another broker than the one that just failed, and a failed broker is skipped for
//     isolate_ms while others are available.
//   * Sync Send retries retry_times_when_send_failed times on network errors and on the
//     refusals DefaultMQProducer 4.9.8 retries (retryResponseCodes: TOPIC_NOT_EXIST,
//     SERVICE_NOT_AVAILABLE, SYSTEM_ERROR, NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT);
//     any other refusal ends the send at once. SendAsync retries network errors only (as
//     Java's sendMessageAsync: a broker's answer goes to the callback); SendOneway never
//     waits nor retries. SendBatch sends one SEND_BATCH_MESSAGE (320).
//   * Errors: a broker's refusal is kFailedPrecondition naming the broker, the response
//     code and its remark ("NO_PERMISSION (16): the topic[T] sending message is
//     forbidden"); SYSTEM_BUSY is kUnavailable (try again later), TOPIC_NOT_EXIST
//     kNotFound; a route without a writable queue is kFailedPrecondition naming each
//     broker's permission; a network failure is kUnavailable. After the last retry the
//     error is the last attempt's, with its code.
//   * Each message gets a UNIQ_KEY (SendResult::msg_id); offset_msg_id is the broker's.
//   * Heartbeats (HEART_BEAT 34 with producerDataSet [{groupName}], client id "ip@instance"
//     as Java's buildMQClientId) go to a broker as soon as a route names it (async, so the
//     producer shows in GET_PRODUCER_CONNECTION_LIST 204 at once), then to every known
//     broker each heartbeat_interval_ms: RunOnce(now_ms) is that step, driven by a
//     ServiceRunner after Start() (tests call it with a fake clock). Shutdown sends
//     UNREGISTER_CLIENT (35) with the producer group to those brokers.
//
// Ownership: owns its connections (client/transport.h) and its route cache.
// Thread-safety: Send*, from any number of threads after Start(); Shutdown once, last.
// Async callbacks run on the I/O thread and must not call the blocking Send.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/service_runner.h"
#include "client/message.h"
#include "client/route.h"
#include "client/transport.h"
#include "client/unique_id.h"

namespace rocketstore::client {

struct ProducerOptions {
  std::string group = "DEFAULT_PRODUCER";
  std::vector<std::string> namesrv_addrs;
  int64_t send_timeout_ms = 3000;
  int retry_times_when_send_failed = 2;        // sync: 1 + 2 attempts
  int retry_times_when_send_async_failed = 2;  // async
  std::string default_topic = "TBW102";
  int32_t default_topic_queue_nums = 4;
  int64_t route_refresh_ms = 30000;
  int64_t isolate_ms = 5000;              // how long a broker that failed is avoided
  std::string instance_name;              // "" → "<pid>#<n>" (client id "ip@instance")
  int64_t heartbeat_interval_ms = 30000;  // Java's heartbeatBrokerInterval
  bool start_runner = true;               // false: the caller drives RunOnce
  Clock* clock = nullptr;                 // nullptr: Clock::Real()
};

class Producer {
 public:
  using SendCallback = std::function<void(Result<SendResult>)>;

  explicit Producer(ProducerOptions options);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  Status Start();
  void Shutdown();

  Result<SendResult> Send(const Message& m);
  // To one queue, no retry on another (as Java's send(msg, mq)).
  Result<SendResult> SendToQueue(const Message& m, const MessageQueue& queue);
  // If it returns OK, cb runs exactly once (on the I/O thread).
  Status SendAsync(const Message& m, SendCallback cb);
  Status SendOneway(const Message& m);
  // All messages must have the same topic, no delay level; one SEND_BATCH_MESSAGE.
  Result<SendResult> SendBatch(const std::vector<Message>& messages);

  // The queues a send of `topic` chooses from (after a route lookup).
  Result<std::vector<MessageQueue>> WritableQueues(const std::string& topic);
  RouteCache& routes() { return *routes_; }
  Transport& transport() { return *transport_; }
  const std::string& client_id() const { return client_id_; }

  // The background step: a heartbeat to every broker of a cached route when
  // heartbeat_interval_ms has passed since the last one (now_ms: monotonic ms). Returns
  // the first broker's error; the others are still tried.
  Status RunOnce(int64_t now_ms);
  // The HEART_BEAT body: clientID and producerDataSet [{groupName}].
  std::vector<uint8_t> HeartbeatBody() const;

 private:
  struct Prepared;  // one request ready to send (header fields, body)
  struct AsyncState;
  // What a send chooses from: the writable queues of a route (the topic's own, or the
  // default topic's for auto-create) and that route, which gives the brokers' addresses.
  struct Publish {
    std::shared_ptr<const TopicRoute> route;
    std::vector<MessageQueue> queues;
    std::string AddrOf(const std::string& broker_name) const;
  };

  Result<Publish> PublishFor(const std::string& topic);
  MessageQueue Select(const std::vector<MessageQueue>& queues, const std::string& last_broker);
  void MarkFailed(const std::string& broker);
  Result<Prepared> Prepare(const Message& m);
  protocol::RemotingCommand BuildRequest(const Prepared& p, const MessageQueue& q) const;
  Result<SendResult> Decode(const Prepared& p, const MessageQueue& q, const std::string& addr,
                            const protocol::RemotingCommand& resp) const;
  // fixed_queue: SendToQueue's one queue, never re-chosen from a refreshed route.
  Result<SendResult> SendWithRetry(const Prepared& p, Publish pub, int attempts,
                                   bool fixed_queue = false);
  void AsyncAttempt(std::shared_ptr<AsyncState> st);
  // DefaultMQProducer 4.9.8's retryResponseCodes.
  static bool Retryable(int32_t code);
  // A store status the send still returns (SUCCESS, FLUSH_DISK_TIMEOUT, ...).
  static bool Stored(int32_t code);
  // Heartbeats (async) the brokers of `pub` that have not had one yet.
  void HeartbeatNewBrokers(const Publish& pub);

  ProducerOptions options_;
  Clock& clock_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<RouteCache> routes_;
  UniqueIdGenerator ids_;
  std::atomic<uint32_t> next_queue_{0};
  std::mutex fault_mu_;
  std::map<std::string, int64_t> isolated_until_ms_;
  std::atomic<bool> started_{false};
  std::string client_id_;
  std::mutex hb_mu_;
  std::set<std::string> heartbeated_;  // broker addresses that had a heartbeat
  int64_t last_heartbeat_ms_ = -1;
  std::unique_ptr<ServiceRunner> runner_;
};

}  // namespace rocketstore::client
