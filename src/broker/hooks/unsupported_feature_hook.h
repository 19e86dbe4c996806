// File: broker/hooks/unsupported_feature_hook.h
//
// UnsupportedFeatureHook: refuses, with a clear error, messages whose semantics the broker
// does not implement yet, instead of storing them and answering SEND_OK for something that
// will never be delivered as the producer asked. Today: transaction half messages
// (TRAN_MSG=true or sysFlag TRANSACTION_PREPARED): stored as PREPARED they would never be
// dispatched, and the producer's commit (END_TRANSACTION, oneway) would be lost silently.
// The transaction feature replaces this rule with its half-message hook.
//
// Thread-safety: stateless.
#pragma once

#include "broker/hooks/put_pipeline.h"

namespace rocketstore::broker {

class UnsupportedFeatureHook final : public PutHook {
 public:
  std::string_view name() const override { return "unsupported-feature"; }
  Verdict BeforePut(const PutContext& context, DraftMessage& message) override;
};

}  // namespace rocketstore::broker
