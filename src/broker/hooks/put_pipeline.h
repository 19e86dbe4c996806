// File: broker/hooks/put_pipeline.h
//
// The put pipeline: an ordered list of hooks that every message passes between the send
// service and MessageStore::Put* (RocketMQ 5's PutMessageHook list, registered by
// BrokerController.registerMessageStoreHook). A hook may validate a message, rewrite it
// (topic, queue, properties, flags) or refuse it with a Verdict; the first refusal stops
// the pipeline and nothing of the request is stored. The store stays feature-agnostic:
// delay levels and timers, half (transaction) messages and retry/DLQ routing are hooks.
//
//   PutPipeline pipeline;
//   pipeline.Add(std::make_unique<MessageCheckHook>(limits));   // today's checks
//   pipeline.Add(std::make_unique<DelayLevelHook>(...));        // a later feature
//   Verdict v = pipeline.Run(context, messages);
//
// DraftMessage: a message on its way to the store. Its string fields are views; the
// request's bytes (topic, body, the producer's properties) back them until the put has
// been handed to the store. A hook that rewrites a field stores the new bytes in the
// draft itself through the Set* methods, so no copy is made unless something changes.
// Hooks read properties through FindProperty, which parses the string once per change.
//
// Thread-safety: Add before the broker starts; Run from any number of threads (hooks
// must be thread-safe; the ones here are stateless or internally locked).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker/service/client_channel.h"
#include "broker/service/outcome.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

class DraftMessage {
 public:
  std::string_view topic() const { return topic_; }
  std::string_view properties() const { return properties_; }
  std::string_view body() const { return body_; }

  void SetTopic(std::string topic) {
    topic_storage_ = std::move(topic);
    topic_ = topic_storage_;
  }
  void SetProperties(std::string properties) {
    properties_storage_ = std::move(properties);
    properties_ = properties_storage_;
    index_valid_ = false;
  }
  // Sets the properties to the string format::AppendInHashMapOrder writes for `entries`
  // and `peak` (4.9.8's format), indexed as it is written: the hooks' lookups need no
  // parse. False, leaving the draft unchanged, when that function declines. `entries`
  // must not view this draft's own properties.
  bool SetPropertiesInHashMapOrder(std::span<const format::PropertyEntry> entries, size_t peak);
  // Views: the caller keeps the bytes alive until the put was handed to the store.
  void ViewTopic(std::string_view topic) { topic_ = topic; }
  void ViewProperties(std::string_view properties) {
    properties_ = properties;
    index_valid_ = false;
  }
  void ViewBody(std::string_view body) { body_ = body; }

  // A property of the current properties string: the string is parsed once (at the first
  // lookup after it was set) and every hook's lookups read that index, instead of each
  // scanning the string again. Views into properties(), valid until it changes.
  std::optional<std::string_view> FindProperty(std::string_view name) const {
    return Index().Find(name);
  }
  // out[i] = FindProperty(names[i]).
  void FindProperties(std::span<const std::string_view> names,
                      std::span<std::optional<std::string_view>> out) const {
    const format::PropertyIndex& index = Index();
    for (size_t i = 0; i < names.size(); ++i) out[i] = index.Find(names[i]);
  }

  int32_t queue_id = 0;
  int32_t flag = 0;
  int32_t sys_flag = 0;
  int64_t born_timestamp = 0;
  format::HostAddress born_host;
  int32_t reconsume_times = 0;
  // A committed transaction's half (its commit-log offset); 0 otherwise.
  int64_t prepared_transaction_offset = 0;
  // The producer's WAIT property, which 4.9.8's SendMessageProcessor leaves out of the
  // stored properties string but keeps in the message's property map (it removes it, builds
  // the string, and puts it back). A hook that builds the string again from the map puts
  // it back first, so its record carries WAIT as Java's does: the delay levels (CommitLog),
  // transaction halves (TransactionalMessageBridge) and 5.x timers. Unset: none.
  std::optional<std::string> wait_in_map;

  // The message's property map as Java's broker holds it when it puts into it and writes
  // the string again (delay levels, transaction halves, 5.x timers): the properties, with
  // the producer's WAIT put back (wait_in_map).
  format::PropertiesBuilder PropertyMap() const;

  // The store's view of this draft (valid while the draft is unchanged and alive).
  format::MessageToStore ToStore(const format::HostAddress& store_host) const;

  DraftMessage() = default;
  // Copies re-point the views at their own storage where the original owned the bytes.
  DraftMessage(const DraftMessage& other);
  DraftMessage& operator=(const DraftMessage& other);

 private:
  const format::PropertyIndex& Index() const {
    if (!index_valid_) {
      index_.Parse(properties_);
      index_valid_ = true;
    }
    return index_;
  }

  std::string_view topic_, properties_, body_;
  std::string topic_storage_, properties_storage_;
  // The parse of properties_ (a cache: not copied, rebuilt on demand).
  mutable format::PropertyIndex index_;
  mutable bool index_valid_ = false;
};

// Why a message is being put. Hooks act on client sends and on some of the broker's own
// re-puts: a consumer's send-back may be delayed (DelayLevelHook), while a delay or timer
// message falling due keeps its DELAY / TIMER_* properties, as RocketMQ's re-put does, and
// must not be scheduled again.
enum class PutOrigin {
  kClient,     // a producer's send (SendService)
  kSendBack,   // CONSUMER_SEND_MSG_BACK: to %RETRY% (possibly delayed) or %DLQ%
  kScheduled,  // a delay level or timer fell due: to the real topic, as is
  kSystem,     // other broker-internal puts (transaction op records, ...)
};

struct PutContext {
  const RequestContext* request = nullptr;  // null for the broker's own re-puts
  std::string_view producer_group;
  bool batch = false;
  PutOrigin origin = PutOrigin::kClient;
  // The send's maxReconsumeTimes header (a client's fallback send to %RETRY%<group>).
  std::optional<int32_t> max_reconsume_times;
};

class PutHook {
 public:
  virtual ~PutHook() = default;
  virtual std::string_view name() const = 0;
  // Called once per message, in pipeline order. Anything but Verdict::Ok() refuses the
  // whole request.
  virtual Verdict BeforePut(const PutContext& context, DraftMessage& message) = 0;
};

class PutPipeline {
 public:
  void Add(std::unique_ptr<PutHook> hook) { hooks_.push_back(std::move(hook)); }
  // Runs every hook over every message; stops at the first refusal.
  Verdict Run(const PutContext& context, std::span<DraftMessage> messages) const;
  size_t size() const { return hooks_.size(); }

 private:
  std::vector<std::unique_ptr<PutHook>> hooks_;
};

}  // namespace rocketstore::broker
