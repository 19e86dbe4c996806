// File: broker/hooks/message_check_hook.h
//
// MessageCheckHook: the first hook of the put pipeline — the per-message checks RocketMQ
// makes before a put (SendMessageProcessor.msgCheck / checkBeforePutMessage):
//   - body larger than maxMessageSize                 -> kMessageIllegal
//   - properties longer than 32767 bytes (a short)    -> kMessageIllegal
//   - a batch to a %RETRY% topic                      -> kMessageIllegal
// Topic name and permission checks are request-level (SendService::CheckTopic).
//
// Thread-safety: stateless after construction.
#pragma once

#include <cstddef>

#include "broker/hooks/put_pipeline.h"

namespace rocketstore::broker {

class MessageCheckHook final : public PutHook {
 public:
  static constexpr size_t kMaxPropertiesBytes = 32767;
  explicit MessageCheckHook(size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}
  std::string_view name() const override { return "message-check"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override;

 private:
  const size_t max_body_bytes_;
};

}  // namespace rocketstore::broker
