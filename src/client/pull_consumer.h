// File: client/pull_consumer.h
//
// PullConsumer: a consumer in the model of RocketMQ 4.9.8's DefaultLitePullConsumer.
//   * Subscribe(topic, "TagA || TagB") for a group (CLUSTERING): the consumer heartbeats
//     (HEART_BEAT 34, CONSUME_ACTIVELY) to the topic's brokers, reads the group's members
//     (GET_CONSUMER_LIST_BY_GROUP 38) and takes its share of the queues with
//     AllocateAveragely (client/allocate.h): the same split as Java members compute.
//     Or Assign(queues, expression): fixed queues, no heartbeat, no rebalance (a raw
//     reader). Nothing is ever committed in this mode unless the application calls Commit:
//     not by Shutdown, not by auto_commit (a commit would make the broker create the
//     group, which tools then list and count lag for).
//   * A queue's first position: the group's committed offset (14); without one,
//     consume_from: kLast = the queue's max offset, kFirst = its min, kTimestamp = the
//     offset of consume_timestamp_ms (29).
//   * Poll(timeout) keeps one long-polling PULL_MESSAGE (11, FLAG_SUSPEND, broker suspend
//     long_poll_ms) in flight per assigned queue and returns what arrived (tag-filtered on
//     the client as Java does); PULL_OFFSET_MOVED moves to the broker's next offset.
//   * Commit() writes the positions Poll has returned past (UPDATE_CONSUMER_OFFSET 15);
//     in group mode with auto_commit the step function does it every
//     auto_commit_interval_ms, and Shutdown does it once more.
//   * Seek / SeekToBegin / SeekToEnd / SeekToTime move a queue (and drop what was buffered).
//   * SendBack(msg, delay_level) asks the broker to redeliver via %RETRY%<group> (36).
//   * Answers the broker's calls to a client as 4.9.8's ClientRemotingProcessor: a reset by
//     an admin (RESET_CONSUMER_CLIENT_OFFSET 220) moves the listed queues like Seek; its
//     positions (GET_CONSUMER_STATUS_FROM_CLIENT 221) and running info (307: properties,
//     subscriptions, per-queue commit offset and buffer) are reported; a direct
//     consumption (309) is refused: a pull consumer consumes only when polled.
//   * RunOnce(now_ms): the background step (heartbeat, rebalance, auto-commit), on a
//     ServiceRunner after Start(); tests call it directly.
//
// Ownership: owns its connections and route cache.
// Thread-safety: Poll / Commit / Seek* from one consumer thread; RunOnce from the runner;
// both may run at once (internally locked). Shutdown once, last (group mode: commits and
// unregisters; Assign mode: neither).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "base/service_runner.h"
#include "client/broker_calls.h"
#include "client/message.h"
#include "client/route.h"
#include "client/transport.h"
#include "protocol/bodies/client_bodies.h"

namespace rocketstore::client {

enum class ConsumeFrom { kLast, kFirst, kTimestamp };

struct PullConsumerOptions {
  std::string group;
  std::vector<std::string> namesrv_addrs;
  std::string instance_name;  // "" : pid + a process-unique counter
  ConsumeFrom consume_from = ConsumeFrom::kLast;
  int64_t consume_timestamp_ms = 0;  // for kTimestamp
  int32_t pull_batch_size = 32;
  int64_t long_poll_ms = 5000;  // broker suspend (Java: brokerSuspendMaxTimeMillis)
  int64_t request_timeout_ms = 3000;
  int64_t heartbeat_interval_ms = 30000;
  int64_t rebalance_interval_ms = 20000;
  bool auto_commit = true;  // group mode only: Assign mode commits only on Commit()
  int64_t auto_commit_interval_ms = 5000;
  int32_t max_reconsume_times = 16;
  // Group mode: also consume %RETRY%<group>, where SendBack'ed messages come back (their
  // topic reset to the original, as Java's consumer does).
  bool subscribe_retry = true;
  size_t max_buffered_per_queue = 1024;
  bool start_runner = true;  // false: the owner calls RunOnce (tests with a fake clock)
  Clock* clock = nullptr;
};

class PullConsumer {
 public:
  explicit PullConsumer(PullConsumerOptions options);
  ~PullConsumer();
  PullConsumer(const PullConsumer&) = delete;
  PullConsumer& operator=(const PullConsumer&) = delete;

  // Before Start. expression: "*" or "TagA || TagB".
  Status Subscribe(const std::string& topic, const std::string& expression = "*");
  // Before Start, instead of Subscribe: read exactly these queues (no group membership),
  // keeping the messages whose tag matches expression ("*" or "TagA || TagB"; the broker
  // filters by tag hash and the client by tag, as for Subscribe).
  Status Assign(std::vector<MessageQueue> queues, const std::string& expression = "*");
  Status Start();
  void Shutdown();

  // Up to max_messages, waiting at most timeout_ms for the first. Empty = nothing arrived.
  Result<std::vector<MessageExt>> Poll(int64_t timeout_ms, size_t max_messages = 256);
  Status Commit();
  Status Seek(const MessageQueue& q, int64_t offset);
  Status SeekToBegin(const MessageQueue& q);
  Status SeekToEnd(const MessageQueue& q);
  Status SeekToTime(const MessageQueue& q, int64_t timestamp_ms);
  Status SendBack(const MessageExt& m, int32_t delay_level);

  std::vector<MessageQueue> Assignment() const;
  // The next offset Poll will return from q, if known.
  std::optional<int64_t> Position(const MessageQueue& q) const;
  const std::string& client_id() const { return client_id_; }

  // One round of background work (heartbeat, rebalance, auto-commit) as due at now_ms.
  Status RunOnce(int64_t now_ms);
  // Rebalance now (also part of RunOnce).
  Status Rebalance();
  Status SendHeartbeat();

 private:
  struct QueueState {
    MessageQueue queue;
    std::optional<int64_t> next_pull;  // where the next pull starts
    std::optional<int64_t> consumed;   // position after what Poll returned
    int64_t committed = -1;
    bool in_flight = false;
    uint64_t epoch = 0;  // bumped by Seek/revoke: late pull answers are dropped
    std::deque<MessageExt> buffer;
  };
  struct Sub {
    std::string topic, expression;
    std::vector<std::string> tags;
    int64_t version = 0;
    bool retry = false;  // %RETRY%<group>: may have no route yet
  };

  std::string Key(const MessageQueue& q) const;
  std::string AddrOf(const std::string& broker_name);
  BrokerCall Broker(const std::string& broker_name);
  Result<int64_t> InitialOffset(const MessageQueue& q);
  void KickPulls();
  void OnPull(const std::string& key, uint64_t epoch, Result<protocol::RemotingCommand> resp);
  bool Accept(const MessageExt& m, const std::string& topic) const;
  void SetAssignment(const std::vector<MessageQueue>& queues);
  std::vector<uint8_t> HeartbeatBody() const;
  std::vector<protocol::SubscriptionData> Subscriptions() const;
  void OnServerRequest(const std::string& addr, protocol::RemotingCommand cmd);

  PullConsumerOptions options_;
  Clock& clock_;
  std::string client_id_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<RouteCache> routes_;
  std::vector<Sub> subs_;
  bool manual_ = false;
  bool started_ = false;
  int64_t start_ms_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, QueueState> queues_;  // key: topic/broker/queue
  uint64_t next_epoch_ = 1;
  Status pull_error_;
  int64_t last_heartbeat_ms_ = -1, last_rebalance_ms_ = -1, last_commit_ms_ = -1;
  std::unique_ptr<ServiceRunner> runner_;
};

}  // namespace rocketstore::client
