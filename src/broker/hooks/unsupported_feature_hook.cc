#include "broker/hooks/unsupported_feature_hook.h"

#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

Verdict UnsupportedFeatureHook::BeforePut(const PutContext& context, DraftMessage& message) {
  // The broker's own re-puts (a send-back of a message that once was a transaction's) are
  // not half messages.
  if (context.origin != PutOrigin::kClient) return Verdict::Ok();
  // A PREPARED (or ROLLBACK) record takes no queue offset: no consumer would ever see it.
  const bool half = !format::TakesQueueOffset(message.sys_flag) ||
                    format::FindProperty(message.properties(), "TRAN_MSG").value_or("") == "true";
  if (half) {
    return Verdict::Error(Outcome::kMessageIllegal,
                          "transaction messages are not supported by this broker yet: the "
                          "half message would never be delivered; send it as a normal message");
  }
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
