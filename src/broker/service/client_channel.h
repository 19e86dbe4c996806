// File: broker/service/client_channel.h
//
// ClientChannel: the broker's handle on one client connection, as the services see it.
// A service keeps the channel of a consumer or producer (consumer groups, held pulls,
// transaction check-backs, later offset resets) and calls it without knowing the
// transport: the remoting front end implements it over a TCP connection
// (broker/remoting/remoting_channel.h); a gRPC front end would implement it over its
// stream. Each broker -> client request is a typed method, so that a transport can
// express it its own way.
//
// RequestContext: what a service knows about the caller of one request.
//
// Thread-safety: every method of a ClientChannel may be called from any thread; calls on
// a closed channel do nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "store/format/message_record.h"

namespace rocketstore::broker {

// A reply message on its way to the requester (PUSH_REPLY_MESSAGE_TO_CLIENT): the
// replier's send header fields, the broker's stamps and the body.
struct ReplyPush {
  std::string producer_group;  // the replier's
  std::string topic;           // <cluster>_REPLY_TOPIC
  std::string default_topic;
  int32_t default_topic_queue_nums = 0;
  int32_t queue_id = 0;  // as the replier sent it
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int32_t flag = 0;
  std::string properties;  // the replier's, with PUSH_REPLY_TIME in front
  std::optional<int32_t> reconsume_times;
  bool unit_mode = false;
  std::string born_host;   // the replier, "ip:port"
  std::string store_host;  // this broker, "ip:port"
  int64_t store_timestamp = 0;
  std::string body;
};

// How a broker -> client request that expects an answer ended: OK when the client
// answered SUCCESS; otherwise kInternal with the client's code and remark,
// kDeadlineExceeded when no answer came in time, kUnavailable when the connection closed
// (or was closed) first, kFailedPrecondition when the channel cannot wait for answers.
// Runs exactly once, on any thread.
using ClientAnswerCallback = std::function<void(Status)>;

// CHECK_TRANSACTION_STATE's content (Broker2Client.checkProducerTransactionState): the
// half copy's offsets and ids, and the copy encoded as MessageDecoder.encode does (its
// topic and queue shown as the real ones).
struct TransactionCheck {
  int64_t tran_state_table_offset = 0;  // the copy's queue offset in the half topic
  int64_t commit_log_offset = 0;        // the copy's commit-log offset
  std::string msg_id;                   // UNIQ_KEY
  std::string transaction_id;           // UNIQ_KEY (Java's transactionId)
  std::string offset_msg_id;            // the copy's offset message id
  std::string message;                  // the encoded message (the request body)
};

// --- admin part B: the broker -> consumer requests of the admin codes ---
// One queue's offset as a reset carries it (MessageQueue + offset).
struct QueueOffsetEntry {
  std::string topic;
  std::string broker_name;
  int32_t queue_id = 0;
  int64_t offset = 0;
};

// RESET_CONSUMER_CLIENT_OFFSET (220): the offsets the group's clients must seek to.
// isForce is written false, as 4.9.8's Broker2Client does (it does not copy it).
struct OffsetResetPush {
  std::string topic;
  std::string group;
  int64_t timestamp = 0;
  std::vector<QueueOffsetEntry> offsets;
  bool cpp_body = false;  // a CPP client: ResetOffsetBodyForC's list instead of the map
};

// A client's answer to a request the broker forwarded or made (code, remark, ext fields
// and body, as the client sent them): what 307 / 309 relay to the admin tool.
struct ClientAnswer {
  int32_t code = 0;
  std::optional<std::string> remark;
  std::vector<std::pair<std::string, std::string>> ext_fields;
  std::string body;
};
// The answer (any code), or kDeadlineExceeded / kUnavailable / kFailedPrecondition as
// for ClientAnswerCallback. Runs exactly once, on any thread.
using ClientReplyCallback = std::function<void(Result<ClientAnswer>)>;

using ConsumerStatusCallback = std::function<void(Result<std::vector<QueueOffsetEntry>>)>;

// A request forwarded to one client as the admin tool sent it (GET_CONSUMER_RUNNING_INFO
// 307, CONSUME_MESSAGE_DIRECTLY 309): its header fields and body.
struct ForwardedRequest {
  std::vector<std::pair<std::string, std::string>> ext_fields;
  std::string body;
};

class ClientChannel {
 public:
  virtual ~ClientChannel() = default;

  // Unique per connection for the process's lifetime (never reused).
  virtual uint64_t id() const = 0;
  // "ip:port" of the peer.
  virtual const std::string& remote_address() const = 0;
  virtual bool alive() const = 0;
  virtual void Close() = 0;

  // --- broker -> client requests ---
  // NOTIFY_CONSUMER_IDS_CHANGED: the members of `group` changed; rebalance now.
  virtual void NotifyConsumerIdsChanged(std::string_view group) = 0;
  // PUSH_REPLY_MESSAGE_TO_CLIENT: hands a reply to the requester and waits for its answer
  // (never blocking the caller: `done` runs when it comes, times out or the channel dies).
  virtual void PushReplyMessage(ReplyPush push, ClientAnswerCallback done) = 0;
  // CHECK_TRANSACTION_STATE (39, oneway): asks the producer to settle a half message.
  virtual void CheckTransactionState(const TransactionCheck& check) = 0;
  // RESET_CONSUMER_CLIENT_OFFSET (220, oneway).
  virtual void ResetConsumerOffset(const OffsetResetPush& push) = 0;
  // GET_CONSUMER_STATUS_FROM_CLIENT (221): the client's offsets (its answer's
  // messageQueueTable); an answer that is not SUCCESS with a body is kInternal.
  virtual void GetConsumerStatus(std::string_view topic, std::string_view group,
                                 ConsumerStatusCallback done) = 0;
  // GET_CONSUMER_RUNNING_INFO (307) / CONSUME_MESSAGE_DIRECTLY (309), forwarded.
  virtual void GetConsumerRunningInfo(ForwardedRequest request, ClientReplyCallback done) = 0;
  virtual void ConsumeMessageDirectly(ForwardedRequest request, ClientReplyCallback done) = 0;
};

using ChannelPtr = std::shared_ptr<ClientChannel>;

struct RequestContext {
  ChannelPtr channel;  // null for requests the broker makes itself
  // The caller's RocketMQ language code and MQVersion ordinal (from the request header).
  int32_t language = 0;
  int32_t version = 0;
  // The peer address as stored in BORNHOST.
  format::HostAddress born_host;
};

}  // namespace rocketstore::broker
