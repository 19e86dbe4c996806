#include "broker/hooks/message_check_hook.h"

#include <string>

namespace rocketstore::broker {

Verdict MessageCheckHook::BeforePut(const PutContext& context, DraftMessage& message) {
  if (message.body().size() > max_body_bytes_) {
    return Verdict::Error(Outcome::kMessageIllegal,
                          "message body size " + std::to_string(message.body().size()) +
                              " exceeds the maximum " + std::to_string(max_body_bytes_) +
                              " (maxMessageSize)");
  }
  if (message.properties().size() > kMaxPropertiesBytes) {
    return Verdict::Error(Outcome::kMessageIllegal,
                          "message properties size " + std::to_string(message.properties().size()) +
                              " exceeds 32767 bytes");
  }
  if (context.batch && message.topic().starts_with("%RETRY%")) {
    return Verdict::Error(Outcome::kMessageIllegal, "batch request does not support retry group");
  }
  return Verdict::Ok();
}

}  // namespace rocketstore::broker
