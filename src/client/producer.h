// File: client/producer.h
//
// Producer: sends messages the way RocketMQ 4.9.8's DefaultMQProducer does.
//   * Routes come from the name servers (GET_ROUTEINFO_BY_TOPIC 105), cached and refreshed
//     after route_refresh_ms; a topic without a route is sent with the route of TBW102
//     (auto-create) when the name server has that.
//   * Queue selection: round-robin over the writable queues; a retry picks a queue of
//     another broker than the one that just failed, and a failed broker is skipped for
//     isolate_ms while others are available.
//   * Sync Send retries retry_times_when_send_failed times on network errors and the codes
//     Java retries (TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR, NO_PERMISSION,
//     NO_BUYER_ID, NOT_IN_CURRENT_UNIT); SendAsync retries the same way from the I/O thread;
//     SendOneway never waits nor retries. SendBatch sends one SEND_BATCH_MESSAGE (320).
//   * Each message gets a UNIQ_KEY (SendResult::msg_id); offset_msg_id is the broker's.
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
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
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
  int64_t isolate_ms = 5000;  // how long a broker that failed is avoided
  Clock* clock = nullptr;     // nullptr: Clock::Real()
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

 private:
  struct Prepared;  // one request ready to send (header fields, body)
  struct AsyncState;

  Result<std::vector<MessageQueue>> QueuesFor(const std::string& topic);
  MessageQueue Select(const std::vector<MessageQueue>& queues, const std::string& last_broker);
  void MarkFailed(const std::string& broker);
  Result<Prepared> Prepare(const Message& m);
  protocol::RemotingCommand BuildRequest(const Prepared& p, const MessageQueue& q) const;
  Result<SendResult> Decode(const Prepared& p, const MessageQueue& q, const std::string& addr,
                            const protocol::RemotingCommand& resp) const;
  Result<SendResult> SendWithRetry(const Prepared& p, const std::vector<MessageQueue>& queues,
                                   int attempts);
  void AsyncAttempt(std::shared_ptr<AsyncState> st);
  static bool Retryable(int32_t code);

  ProducerOptions options_;
  Clock& clock_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<RouteCache> routes_;
  UniqueIdGenerator ids_;
  std::atomic<uint32_t> next_queue_{0};
  std::mutex fault_mu_;
  std::map<std::string, int64_t> isolated_until_ms_;
  std::atomic<bool> started_{false};
};

}  // namespace rocketstore::client
