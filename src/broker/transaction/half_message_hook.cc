#include "broker/transaction/half_message_hook.h"

#include <algorithm>
#include <cctype>

#include "broker/system_topics.h"
#include "store/format/message_record.h"
#include "store/format/properties.h"

namespace rocketstore::broker {

namespace {
// Boolean.parseBoolean of TRAN_MSG's value.
bool IsTrue(const std::optional<std::string_view>& v) {
  if (!v || v->size() != 4) return false;
  // Boolean.parseBoolean: "true", any case.
  return std::equal(v->begin(), v->end(), "true", [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}
}  // namespace

Verdict HalfMessageHook::BeforePut(const PutContext& context, DraftMessage& message) {
  if (context.origin != PutOrigin::kClient) return Verdict::Ok();
  const bool half = IsTrue(message.FindProperty(format::kPropertyTransactionPrepared));
  const int32_t tx = message.sys_flag & format::kSysFlagTransactionMask;
  if (!half) {
    if (tx == format::kTransactionPrepared) {
      return Verdict::Error(Outcome::kMessageIllegal,
                            "sysFlag TRANSACTION_PREPARED without property TRAN_MSG=true: the "
                            "message would never be delivered; send transaction halves with "
                            "TRAN_MSG=true and PGROUP");
    }
    return Verdict::Ok();
  }
  if (context.batch) {
    return Verdict::Error(Outcome::kMessageIllegal,
                          "batch message does not support transaction (TRAN_MSG=true)");
  }
  // parseHalfMessageInner: puts into the message's map (which still holds the producer's
  // WAIT: DraftMessage::PropertyMap), then messageProperties2String.
  format::PropertiesBuilder props = message.PropertyMap();
  props.Put(format::kPropertyRealTopic, message.topic());
  props.Put(format::kPropertyRealQueueId, std::to_string(message.queue_id));
  message.SetProperties(props.Build());
  message.sys_flag =
      (message.sys_flag & ~format::kSysFlagTransactionMask) | format::kTransactionNotType;
  message.SetTopic(std::string(kTransHalfTopic));
  message.queue_id = 0;
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
