#include "protocol/headers/admin_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

Result<GetBrokerConfigResponseHeader> GetBrokerConfigResponseHeader::Decode(
    const RemotingCommand& cmd) {
  GetBrokerConfigResponseHeader h;
  FieldReader r(cmd);
  r.Required("version", &h.version);
  if (!r.status().ok()) return r.status();
  return h;
}
void GetBrokerConfigResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("version", version);
}

Result<TopicRequestHeader> TopicRequestHeader::Decode(const RemotingCommand& cmd) {
  TopicRequestHeader h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  if (!r.status().ok()) return r.status();
  return h;
}
void TopicRequestHeader::EncodeTo(RemotingCommand& cmd) const { cmd.SetField("topic", topic); }

Result<DeleteSubscriptionGroupRequestHeader> DeleteSubscriptionGroupRequestHeader::Decode(
    const RemotingCommand& cmd) {
  DeleteSubscriptionGroupRequestHeader h;
  FieldReader r(cmd);
  r.Required("groupName", &h.group_name);
  r.OrKeep("removeOffset", &h.remove_offset);
  if (!r.status().ok()) return r.status();
  return h;
}
void DeleteSubscriptionGroupRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("groupName", group_name);
  cmd.SetBoolField("removeOffset", remove_offset);
}

Result<CloneGroupOffsetRequestHeader> CloneGroupOffsetRequestHeader::Decode(
    const RemotingCommand& cmd) {
  CloneGroupOffsetRequestHeader h;
  FieldReader r(cmd);
  r.Required("srcGroup", &h.src_group);
  r.Required("destGroup", &h.dest_group);
  r.Optional("topic", &h.topic);
  r.OrKeep("offline", &h.offline);
  if (!r.status().ok()) return r.status();
  return h;
}
void CloneGroupOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("srcGroup", src_group);
  cmd.SetField("destGroup", dest_group);
  PutOptional(cmd, "topic", topic);
  cmd.SetBoolField("offline", offline);
}

Result<QueryConsumeQueueRequestHeader> QueryConsumeQueueRequestHeader::Decode(
    const RemotingCommand& cmd) {
  QueryConsumeQueueRequestHeader h;
  FieldReader r(cmd);
  std::optional<std::string> topic;
  std::optional<int64_t> index;
  r.Optional("topic", &topic);
  r.OrKeep("queueId", &h.queue_id);
  r.Optional("index", &index);
  r.OrKeep("count", &h.count);
  r.Optional("consumerGroup", &h.consumer_group);
  if (!r.status().ok()) return r.status();
  h.topic = topic.value_or("");
  h.index = index.value_or(0);
  return h;
}
void QueryConsumeQueueRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetIntField("queueId", queue_id);
  cmd.SetIntField("index", index);
  cmd.SetIntField("count", count);
  PutOptional(cmd, "consumerGroup", consumer_group);
}

}  // namespace rocketstore::protocol
