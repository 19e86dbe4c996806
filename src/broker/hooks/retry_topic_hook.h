// File: broker/hooks/retry_topic_hook.h
//
// RetryTopicHook: a producer's plain send to `%RETRY%<group>` — what a RocketMQ consumer
// does itself when its CONSUMER_SEND_MSG_BACK failed — follows the send-back's rules
// (4.9.8 handleRetryAndDLQ): the group must exist, and once the send's reconsumeTimes
// reaches the max (its maxReconsumeTimes header, else the group's retryMaxTimes) the
// message goes to `%DLQ%<group>` queue 0 with DELAY=0. The rules live in RetryService
// (broker/service/retry_service.h); the broker's own re-puts pass unchanged.
//
// Ownership: the service must outlive the hook. Thread-safety: as RetryService.
#pragma once

#include "broker/hooks/put_pipeline.h"
#include "broker/service/retry_service.h"

namespace rocketstore::broker {

class RetryTopicHook final : public PutHook {
 public:
  explicit RetryTopicHook(RetryService& retry) : retry_(retry) {}
  std::string_view name() const override { return "retry-topic"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override {
    return retry_.RouteRetrySend(context, message);
  }

 private:
  RetryService& retry_;
};

}  // namespace rocketstore::broker
