// File: broker/service/store_admin_service.h
//
// StoreAdminService: the admin codes that look into or clean the store
// (AdminBrokerProcessor, 4.9.8):
//   QueryConsumeQueue  QUERY_CONSUME_QUEUE (321): the queue's min/max offsets and up to
//       `count` units from `index` (never past the end of the consume-queue file holding
//       `index`, as Java's getIndexBuffer). With a consumer group: its subscription of the
//       topic and its filter data ("<group>@<topic> is not online!" when the group has no
//       subscription of it). An index outside the queue answers SUCCESS with only the
//       remark "Index <i> of <id>@<topic> is not exist!" and no units (Java sends no body
//       then). So does a queue of a configured topic (queueId < max(read, write) queue
//       nums) that holds no message yet: Java's consume queue of it exists in memory as
//       soon as anything looked at the queue (a pull, topic stats), and its index buffer
//       is null. A queue of no configured topic, or past the topic's queues, with no
//       consume queue, is SYSTEM_ERROR "<id>@<topic> is not exist!".
//       rocketstore has no consume-queue extension, so `eval`, `bitMap`, `extendDataJson`
//       are never set (eval false), as in Java for units without an ext address.
//   CleanExpiredConsumeQueue  CLEAN_EXPIRED_CONSUMEQUEUE (306): a retention round now, on
//       the store's retention thread, that removes every consume-queue and index file
//       below the commit log's minimum (MessageStore::CleanConsumeQueuesNow); answered
//       through `later` once that round has ended (Java's 306 is synchronous too): SUCCESS,
//       or SYSTEM_ERROR naming the file that could not be removed. Java 4.9.8's
//       cleanExpiredConsumerQueue also destroys whole queues whose last message lies below
//       the minimum (their offsets restart at 0); rocketstore keeps such a queue's last
//       file and its offsets, so consumers' positions stay valid.
//   DeleteExpiredCommitLog  DELETE_EXPIRED_COMMITLOG (329): asks the store's retention
//       service for a round now and arms RocketMQ's manual deletion (expired segments go
//       whatever the hour and disk usage, for the next 20 rounds). The round runs on the
//       retention thread; the answer does not wait for it (Java's 329 does not either).
//
// Thread-safety: any thread. Ownership: the store, the consumer manager and the topic
// configs must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/config/topic_config_manager.h"
#include "broker/service/consumer_manager.h"
#include "broker/service/outcome.h"
#include "broker/service/route_registration.h"
#include "store/message_store.h"

namespace rocketstore::broker {

class StoreAdminService {
 public:
  StoreAdminService(MessageStore& store, const ConsumerManager& consumers,
                    const TopicConfigManager& topics)
      : store_(store), consumers_(consumers), topics_(topics) {}

  struct Unit {
    int64_t physic_offset = 0;
    int32_t physic_size = 0;
    int64_t tags_code = 0;
  };
  struct ConsumeQueueView {
    int64_t min_queue_index = 0;
    int64_t max_queue_index = 0;
    std::optional<SubscriptionData> subscription;  // with a group that subscribes
    std::optional<std::string> filter_data;        // with a group
    std::optional<std::vector<Unit>> units;        // nullopt: the index is not in the queue
    std::string remark;                            // set when `units` is nullopt
  };
  Verdict QueryConsumeQueue(const std::string& topic, int32_t queue_id, int64_t index,
                            int32_t count, const std::optional<std::string>& group,
                            ConsumeQueueView* out) const;

  void CleanExpiredConsumeQueue(AnswerLater later);
  void DeleteExpiredCommitLog() { store_.RequestRetentionNow(true); }

 private:
  MessageStore& store_;
  const ConsumerManager& consumers_;
  const TopicConfigManager& topics_;
};

}  // namespace rocketstore::broker
