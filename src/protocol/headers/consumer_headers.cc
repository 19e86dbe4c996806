#include "protocol/headers/consumer_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

Result<PullMessageRequestHeader> PullMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  PullMessageRequestHeader h;
  FieldReader r(cmd);
  r.Required("consumerGroup", &h.consumer_group);
  r.Required("topic", &h.topic);
  r.Required("queueId", &h.queue_id);
  r.Required("queueOffset", &h.queue_offset);
  r.Required("maxMsgNums", &h.max_msg_nums);
  r.Required("sysFlag", &h.sys_flag);
  r.Required("commitOffset", &h.commit_offset);
  r.Required("suspendTimeoutMillis", &h.suspend_timeout_millis);
  r.Optional("subscription", &h.subscription);
  r.Required("subVersion", &h.sub_version);
  r.Optional("expressionType", &h.expression_type);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

void PullMessageRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  cmd.SetField("topic", topic);
  cmd.SetIntField("queueId", queue_id);
  cmd.SetIntField("queueOffset", queue_offset);
  cmd.SetIntField("maxMsgNums", max_msg_nums);
  cmd.SetIntField("sysFlag", sys_flag);
  cmd.SetIntField("commitOffset", commit_offset);
  cmd.SetIntField("suspendTimeoutMillis", suspend_timeout_millis);
  PutOptional(cmd, "subscription", subscription);
  cmd.SetIntField("subVersion", sub_version);
  PutOptional(cmd, "expressionType", expression_type);
  PutOptional(cmd, "bname", broker_name);
}

Result<PullMessageResponseHeader> PullMessageResponseHeader::Decode(const RemotingCommand& cmd) {
  PullMessageResponseHeader h;
  FieldReader r(cmd);
  r.Required("suggestWhichBrokerId", &h.suggest_which_broker_id);
  r.Required("nextBeginOffset", &h.next_begin_offset);
  r.Required("minOffset", &h.min_offset);
  r.Required("maxOffset", &h.max_offset);
  r.Optional("topicSysFlag", &h.topic_sys_flag);
  r.Optional("groupSysFlag", &h.group_sys_flag);
  if (!r.status().ok()) return r.status();
  return h;
}

void PullMessageResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("suggestWhichBrokerId", suggest_which_broker_id);
  cmd.SetIntField("nextBeginOffset", next_begin_offset);
  cmd.SetIntField("minOffset", min_offset);
  cmd.SetIntField("maxOffset", max_offset);
  PutOptional(cmd, "topicSysFlag", topic_sys_flag);
  PutOptional(cmd, "groupSysFlag", group_sys_flag);
}

Result<QueryConsumerOffsetRequestHeader> QueryConsumerOffsetRequestHeader::Decode(
    const RemotingCommand& cmd) {
  QueryConsumerOffsetRequestHeader h;
  FieldReader r(cmd);
  r.Required("consumerGroup", &h.consumer_group);
  r.Required("topic", &h.topic);
  r.Required("queueId", &h.queue_id);
  r.Optional("setZeroIfNotFound", &h.set_zero_if_not_found);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

void QueryConsumerOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  cmd.SetField("topic", topic);
  cmd.SetIntField("queueId", queue_id);
  PutOptional(cmd, "setZeroIfNotFound", set_zero_if_not_found);
  PutOptional(cmd, "bname", broker_name);
}

Result<QueryConsumerOffsetResponseHeader> QueryConsumerOffsetResponseHeader::Decode(
    const RemotingCommand& cmd) {
  QueryConsumerOffsetResponseHeader h;
  FieldReader r(cmd);
  r.Required("offset", &h.offset);
  if (!r.status().ok()) return r.status();
  return h;
}

void QueryConsumerOffsetResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
}

Result<UpdateConsumerOffsetRequestHeader> UpdateConsumerOffsetRequestHeader::Decode(
    const RemotingCommand& cmd) {
  UpdateConsumerOffsetRequestHeader h;
  FieldReader r(cmd);
  r.Required("consumerGroup", &h.consumer_group);
  r.Required("topic", &h.topic);
  r.Required("queueId", &h.queue_id);
  r.Required("commitOffset", &h.commit_offset);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

void UpdateConsumerOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
  cmd.SetField("topic", topic);
  cmd.SetIntField("queueId", queue_id);
  cmd.SetIntField("commitOffset", commit_offset);
  PutOptional(cmd, "bname", broker_name);
}

Result<UnregisterClientRequestHeader> UnregisterClientRequestHeader::Decode(
    const RemotingCommand& cmd) {
  UnregisterClientRequestHeader h;
  FieldReader r(cmd);
  r.Required("clientID", &h.client_id);
  r.Optional("producerGroup", &h.producer_group);
  r.Optional("consumerGroup", &h.consumer_group);
  if (!r.status().ok()) return r.status();
  return h;
}

void UnregisterClientRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("clientID", client_id);
  PutOptional(cmd, "producerGroup", producer_group);
  PutOptional(cmd, "consumerGroup", consumer_group);
}

Result<GetConsumerListByGroupRequestHeader> GetConsumerListByGroupRequestHeader::Decode(
    const RemotingCommand& cmd) {
  GetConsumerListByGroupRequestHeader h;
  FieldReader r(cmd);
  r.Required("consumerGroup", &h.consumer_group);
  if (!r.status().ok()) return r.status();
  return h;
}

void GetConsumerListByGroupRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
}

Result<NotifyConsumerIdsChangedRequestHeader> NotifyConsumerIdsChangedRequestHeader::Decode(
    const RemotingCommand& cmd) {
  NotifyConsumerIdsChangedRequestHeader h;
  FieldReader r(cmd);
  r.Required("consumerGroup", &h.consumer_group);
  if (!r.status().ok()) return r.status();
  return h;
}

void NotifyConsumerIdsChangedRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("consumerGroup", consumer_group);
}

}  // namespace rocketstore::protocol
