#include "protocol/headers/admin_consumer_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

// Decode: reads the fields listed, in order; the first error wins.
#define RS_DECODE_BEGIN(T)                          \
  Result<T> T::Decode(const RemotingCommand& cmd) { \
    T h;                                            \
    FieldReader r(cmd);
#define RS_DECODE_END                      \
  if (!r.status().ok()) return r.status(); \
  return h;                                \
  }

RS_DECODE_BEGIN(GetConsumerConnectionListRequestHeader)
r.Required("consumerGroup", &h.consumer_group);
RS_DECODE_END
void GetConsumerConnectionListRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
}

RS_DECODE_BEGIN(GetProducerConnectionListRequestHeader)
r.Required("producerGroup", &h.producer_group);
RS_DECODE_END
void GetProducerConnectionListRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("producerGroup", producer_group);
}

RS_DECODE_BEGIN(GetConsumeStatsRequestHeader)
r.Required("consumerGroup", &h.consumer_group);
r.Optional("topic", &h.topic);
RS_DECODE_END
void GetConsumeStatsRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  PutOptional(cmd, "topic", topic);
}

RS_DECODE_BEGIN(GetConsumeStatsInBrokerHeader)
r.Required("isOrder", &h.is_order);
RS_DECODE_END
void GetConsumeStatsInBrokerHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetBoolField("isOrder", is_order);
}

RS_DECODE_BEGIN(QueryTopicConsumeByWhoRequestHeader)
r.Required("topic", &h.topic);
RS_DECODE_END
void QueryTopicConsumeByWhoRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
}

RS_DECODE_BEGIN(QueryConsumeTimeSpanRequestHeader)
r.Required("topic", &h.topic);
r.Required("group", &h.group);
RS_DECODE_END
void QueryConsumeTimeSpanRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetField("group", group);
}

RS_DECODE_BEGIN(ViewBrokerStatsDataRequestHeader)
r.Required("statsName", &h.stats_name);
r.Required("statsKey", &h.stats_key);
RS_DECODE_END
void ViewBrokerStatsDataRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("statsName", stats_name);
  cmd.SetField("statsKey", stats_key);
}

RS_DECODE_BEGIN(ResetOffsetRequestHeader)
r.Required("topic", &h.topic);
r.Required("group", &h.group);
r.Required("timestamp", &h.timestamp);
r.Required("isForce", &h.is_force);
RS_DECODE_END
void ResetOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetField("group", group);
  cmd.SetIntField("timestamp", timestamp);
  cmd.SetBoolField("isForce", is_force);
}

RS_DECODE_BEGIN(GetConsumerStatusRequestHeader)
r.Required("topic", &h.topic);
r.Required("group", &h.group);
r.Optional("clientAddr", &h.client_addr);
RS_DECODE_END
void GetConsumerStatusRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetField("group", group);
  PutOptional(cmd, "clientAddr", client_addr);
}

RS_DECODE_BEGIN(GetConsumerRunningInfoRequestHeader)
r.Required("consumerGroup", &h.consumer_group);
r.Required("clientId", &h.client_id);
r.Optional("jstackEnable", &h.jstack_enable);
RS_DECODE_END
void GetConsumerRunningInfoRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  cmd.SetField("clientId", client_id);
  if (jstack_enable) cmd.SetBoolField("jstackEnable", *jstack_enable);
}

RS_DECODE_BEGIN(ConsumeMessageDirectlyResultRequestHeader)
r.Required("consumerGroup", &h.consumer_group);
r.Optional("clientId", &h.client_id);
r.Optional("msgId", &h.msg_id);
r.Optional("brokerName", &h.broker_name);
RS_DECODE_END
void ConsumeMessageDirectlyResultRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  PutOptional(cmd, "clientId", client_id);
  PutOptional(cmd, "msgId", msg_id);
  PutOptional(cmd, "brokerName", broker_name);
}

#undef RS_DECODE_BEGIN
#undef RS_DECODE_END

}  // namespace rocketstore::protocol
