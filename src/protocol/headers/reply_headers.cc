#include "protocol/headers/reply_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

Result<ReplyMessageRequestHeader> ReplyMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  ReplyMessageRequestHeader h;
  FieldReader r(cmd);
  r.Required("producerGroup", &h.producer_group);
  r.Required("topic", &h.topic);
  r.Required("defaultTopic", &h.default_topic);
  r.Required("defaultTopicQueueNums", &h.default_topic_queue_nums);
  r.Required("queueId", &h.queue_id);
  r.Required("sysFlag", &h.sys_flag);
  r.Required("bornTimestamp", &h.born_timestamp);
  r.Required("flag", &h.flag);
  r.Optional("properties", &h.properties);
  r.Optional("reconsumeTimes", &h.reconsume_times);
  r.OrKeep("unitMode", &h.unit_mode);
  r.Required("bornHost", &h.born_host);
  r.Required("storeHost", &h.store_host);
  r.Required("storeTimestamp", &h.store_timestamp);
  if (!r.status().ok()) return r.status();
  return h;
}

void ReplyMessageRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("producerGroup", producer_group);
  cmd.SetField("topic", topic);
  cmd.SetField("defaultTopic", default_topic);
  cmd.SetIntField("defaultTopicQueueNums", default_topic_queue_nums);
  cmd.SetIntField("queueId", queue_id);
  cmd.SetIntField("sysFlag", sys_flag);
  cmd.SetIntField("bornTimestamp", born_timestamp);
  cmd.SetIntField("flag", flag);
  PutOptional(cmd, "properties", properties);
  PutOptional(cmd, "reconsumeTimes", reconsume_times);
  cmd.SetBoolField("unitMode", unit_mode);
  cmd.SetField("bornHost", born_host);
  cmd.SetField("storeHost", store_host);
  cmd.SetIntField("storeTimestamp", store_timestamp);
}

}  // namespace rocketstore::protocol
