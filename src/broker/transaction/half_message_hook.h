// File: broker/transaction/half_message_hook.h
//
// HalfMessageHook: a producer's transaction half message (RocketMQ 4.9.8
// SendMessageProcessor + TransactionalMessageBridge.parseHalfMessageInner). A client send
// with TRAN_MSG=true is stored in RMQ_SYS_TRANS_HALF_TOPIC queue 0 with REAL_TOPIC /
// REAL_QID (its topic and queue) added to its properties (HashMap order, as Java) and the
// transaction bits of its sys flag reset to NOT_TYPE; consumers never see it. The send
// answers SEND_OK with the half's msgId and queue offset and the real queue id, as Java
// does. TransactionService settles it (END_TRANSACTION, check-backs).
//
// Other client sends:
//   TRAN_MSG=true in a batch                kMessageIllegal (Java's batch path refuses it).
//   sys flag PREPARED without TRAN_MSG      kMessageIllegal: it would be stored and never
//                                           dispatched (Java stores it silently).
//   sys flag COMMIT / ROLLBACK, no TRAN_MSG stored as sent, as Java does: COMMIT is an
//                                           ordinary message, ROLLBACK is never dispatched.
// The broker's own re-puts (PutContext::origin != kClient) are never touched: a commit
// keeps TRAN_MSG=true in its properties (Java does), a renewed half is already one.
//
// Thread-safety: stateless.
#pragma once

#include "broker/hooks/put_pipeline.h"

namespace rocketstore::broker {

class HalfMessageHook final : public PutHook {
 public:
  std::string_view name() const override { return "half-message"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override;
};

}  // namespace rocketstore::broker
