// File: broker/service/offset_service.h
//
// OffsetService: consumer offsets (RocketMQ's ConsumerManageProcessor).
//   Query: the committed offset; for a queue the group never committed, 0 when the
//     queue's min offset is 0 and its first message is not "on disk" (inside the
//     accessMessageInMemoryMaxRatio window, or the queue is empty) — a new group starts
//     there — and kQueryNotFound otherwise, so that a CONSUME_FROM_LAST_OFFSET client
//     starts at the end instead of reading a whole on-disk backlog. (5.x's
//     setZeroIfNotFound=false turns the 0 answer into kQueryNotFound too.)
//   Update: commits in memory; the config persister writes consumerOffset.json.
//   Neither looks the subscription group up nor creates it (as 4.9.8's
//   updateConsumerOffset / queryConsumerOffset), whatever autoCreateSubscriptionGroup says.
//
// Thread-safety: any thread.
#pragma once

#include <string>

#include "broker/metadata.h"
#include "broker/service/outcome.h"
#include "store/message_store.h"

namespace rocketstore::broker {

struct OffsetResult {
  Verdict verdict;
  int64_t offset = 0;
};

class OffsetService {
 public:
  OffsetService(MessageStore& store, ConsumerOffsetManager& offsets)
      : store_(store), offsets_(offsets) {}

  OffsetResult Query(const std::string& group, const std::string& topic, int32_t queue_id,
                     bool set_zero_if_not_found = true) const;
  Verdict Update(const std::string& group, const std::string& topic, int32_t queue_id,
                 int64_t offset);

 private:
  MessageStore& store_;
  ConsumerOffsetManager& offsets_;
};

}  // namespace rocketstore::broker
