// File: broker/service/send_service.h
//
// SendService: a producer's send, from a typed request to a stored message and a result
// (RocketMQ's SendMessageProcessor without the wire).
//
//   1. CheckTopic: the topic name is valid and not a system topic clients may not write.
//   2. ResolveTopic: the topic's config; an unknown topic is auto-created from the
//      request's default topic (TBW102) when autoCreateTopicEnable; a %RETRY%<group> topic
//      always, with the group's retryQueueNums queues (RW); then the write permission and the queue
//      id (a negative id picks one).
//   3. The drafts (one per message; a batch's entries come decoded) get the broker's
//      properties (CLUSTER, UNIQ_KEY when missing, WAIT removed) and run through the put
//      pipeline (broker/hooks/put_pipeline.h), which may refuse or rewrite them.
//   4. MessageStore::Put*(Async). Under SYNC_FLUSH with WAIT the result comes from the
//      thread that finished the group commit covering the message: `later` runs there.
//
// Ownership: the store, the topic manager and the pipeline must outlive the service.
// `request.messages` and its entries' body/properties are views that must stay valid until Send
// returns (the store copies the bytes into the commit log before that).
// Thread-safety: Send from any number of threads.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/hooks/put_pipeline.h"
#include "broker/metadata.h"
#include "broker/service/broker_permission.h"
#include "broker/service/client_channel.h"
#include "broker/service/outcome.h"
#include "broker/stats/broker_stats.h"
#include "store/message_store.h"

namespace rocketstore::broker {

// One message of a send: the single message of SEND_MESSAGE(_V2), or one entry of a
// SEND_BATCH_MESSAGE body.
struct SendEntry {
  int32_t flag = 0;
  std::string_view body;
  std::string_view properties;
};

// Its strings are views, as the messages are: the caller keeps the bytes alive until Send
// returns (the send path copies none of them out of the request's frame).
struct SendRequest {
  std::string_view producer_group;
  std::string_view topic;
  std::string_view default_topic = "TBW102";
  int32_t default_topic_queue_nums = 4;
  int32_t queue_id = -1;  // < 0: the broker picks one
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  int32_t reconsume_times = 0;
  bool unit_mode = false;
  bool batch = false;
  std::optional<int32_t> max_reconsume_times;
  std::span<const SendEntry> messages;  // exactly one unless batch (the caller's storage)
};

struct SendResult {
  Verdict verdict;     // kOk, or kFlushDiskTimeout & co (stored), or an error (not stored)
  std::string msg_id;  // offset msg ids, comma-separated for a batch
  int32_t queue_id = 0;
  int64_t queue_offset = 0;
  std::string transaction_id;  // the UNIQ_KEY of a single message
  // RocketMQ 5.3: a single timer message's recall handle (timer/recall_handle.h), else "".
  std::string recall_handle;
  bool stored() const;
};

class SendService {
 public:
  struct Options {
    std::string cluster_name = "DefaultCluster";
    std::string broker_name = "broker-a";  // named in recall handles
    bool auto_create_topic = true;
    format::HostAddress store_host;
    // When set, an unknown %RETRY%<group> topic gets the group's retryQueueNums queues
    // (else 1). Must outlive the service.
    const SubscriptionGroupManager* groups = nullptr;
    // When set, every stored send is counted (per topic and message type). Must outlive
    // the service.
    BrokerStats* stats = nullptr;
    // brokerPermission (null: read and write): without write, sends to order topics are
    // refused (broker/service/broker_permission.h). Must outlive the service.
    const BrokerPermission* permission = nullptr;
  };
  using Callback = std::function<void(SendResult)>;

  // `on_topic_created` runs after a send created a topic (the broker re-registers).
  SendService(Options options, MessageStore& store, TopicConfigManager& topics,
              const PutPipeline& pipeline, std::function<void()> on_topic_created);

  // Whether Send may answer through `later` (SYNC_FLUSH; a message with WAIT=false is still
  // answered at once). When false, Send always returns the result and `later` may be
  // empty — so the ASYNC_FLUSH path builds no callback.
  bool AnswersLater(const SendRequest& request) const;
  // The result, when known at once (refusals, ASYNC_FLUSH, WAIT=false); otherwise
  // nullopt, and `later` runs exactly once with it — on the thread that finished the group
  // commit, or on this thread before Send returns.
  std::optional<SendResult> Send(const RequestContext& context, const SendRequest& request,
                                 Callback later);

  // The store host stamped into records and msg ids (known once the server listens).
  void set_store_host(const format::HostAddress& host) { options_.store_host = host; }
  // autoCreateTopicEnable changed at run time (UPDATE_BROKER_CONFIG).
  void set_auto_create_topic(bool on) { auto_create_topic_.store(on, std::memory_order_relaxed); }

  static Verdict CheckTopic(std::string_view topic);
  // Step 2 on its own: the topic's config (auto-created as a send would) and the queue
  // id (picked when the request's is negative). Send does it again; a reply resolves
  // first because it is checked before it is pushed (ReplyService).
  struct Resolved {
    int32_t queue_id = 0;
    bool order = false;      // the topic's config is an order topic
    bool multi_tag = false;  // its filter type is MULTI_TAG
  };
  Verdict ResolveTopic(const SendRequest& request, Resolved* out);

 private:
  // Sets `draft`'s properties to a single message's stored ones: the producer's (parsed in
  // `producer`, the text in `producer_text`) with the broker's changes, byte-identical to a
  // Java broker's.
  void SetBrokerProperties(const format::PropertyIndex& producer, std::string_view producer_text,
                           std::string_view uniq, bool add_uniq, DraftMessage* draft) const;
  // `uniq` becomes the result's transaction id (moved, not copied).
  // Counts a stored put in options_.stats (when set).
  void Count(std::string_view topic, MessageType type, bool timer,
             const PutMessageResult& put) const;
  // The same, for a key resolved on the sending thread (BrokerStats::ResolvePut).
  void Count(const BrokerStats::PutKey& key, bool timer, const PutMessageResult& put) const;
  SendResult BuildResult(const PutMessageResult& put, int32_t queue_id, bool batch,
                         std::string uniq, const std::vector<int64_t>& sizes) const;

  Options options_;
  std::atomic<bool> auto_create_topic_{options_.auto_create_topic};
  MessageStore& store_;
  TopicConfigManager& topics_;
  const PutPipeline& pipeline_;
  const std::function<void()> on_topic_created_;
};

}  // namespace rocketstore::broker
