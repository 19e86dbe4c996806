#include "protocol/headers/query_headers.h"

#include "protocol/internal/header_fields.h"

namespace rocketstore::protocol {

using internal::FieldReader;
using internal::PutOptional;

namespace {

// The request headers of 30, 31 and 32 share one field table.
template <typename H>
Result<H> DecodeTopicQueue(const RemotingCommand& cmd) {
  H h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  r.Required("queueId", &h.queue_id);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  return h;
}

template <typename H>
void EncodeTopicQueue(const H& h, RemotingCommand& cmd) {
  cmd.SetField("topic", h.topic);
  cmd.SetIntField("queueId", h.queue_id);
  PutOptional(cmd, "bname", h.broker_name);
}

// Response headers holding one required long.
template <typename H>
Result<H> DecodeOneLong(const RemotingCommand& cmd, std::string_view name, int64_t H::*field) {
  H h;
  FieldReader r(cmd);
  r.Required(name, &(h.*field));
  if (!r.status().ok()) return r.status();
  return h;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

Result<QueryMessageRequestHeader> QueryMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  QueryMessageRequestHeader h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  r.Required("key", &h.key);
  r.Required("maxNum", &h.max_num);
  r.Required("beginTimestamp", &h.begin_timestamp);
  r.Required("endTimestamp", &h.end_timestamp);
  r.OrKeep("_UNIQUE_KEY_QUERY", &h.unique_key_query);
  if (!r.status().ok()) return r.status();
  return h;
}

void QueryMessageRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetField("key", key);
  cmd.SetIntField("maxNum", max_num);
  cmd.SetIntField("beginTimestamp", begin_timestamp);
  cmd.SetIntField("endTimestamp", end_timestamp);
  if (unique_key_query) cmd.SetBoolField("_UNIQUE_KEY_QUERY", true);
}

Result<QueryMessageResponseHeader> QueryMessageResponseHeader::Decode(const RemotingCommand& cmd) {
  QueryMessageResponseHeader h;
  FieldReader r(cmd);
  r.Required("indexLastUpdateTimestamp", &h.index_last_update_timestamp);
  r.Required("indexLastUpdatePhyoffset", &h.index_last_update_phyoffset);
  if (!r.status().ok()) return r.status();
  return h;
}

void QueryMessageResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("indexLastUpdateTimestamp", index_last_update_timestamp);
  cmd.SetIntField("indexLastUpdatePhyoffset", index_last_update_phyoffset);
}

Result<ViewMessageRequestHeader> ViewMessageRequestHeader::Decode(const RemotingCommand& cmd) {
  return DecodeOneLong(cmd, "offset", &ViewMessageRequestHeader::offset);
}

void ViewMessageRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
}

Result<GetMaxOffsetRequestHeader> GetMaxOffsetRequestHeader::Decode(const RemotingCommand& cmd) {
  return DecodeTopicQueue<GetMaxOffsetRequestHeader>(cmd);
}
void GetMaxOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  EncodeTopicQueue(*this, cmd);
}

Result<GetMaxOffsetResponseHeader> GetMaxOffsetResponseHeader::Decode(const RemotingCommand& cmd) {
  return DecodeOneLong(cmd, "offset", &GetMaxOffsetResponseHeader::offset);
}
void GetMaxOffsetResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
}

Result<GetMinOffsetRequestHeader> GetMinOffsetRequestHeader::Decode(const RemotingCommand& cmd) {
  return DecodeTopicQueue<GetMinOffsetRequestHeader>(cmd);
}
void GetMinOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  EncodeTopicQueue(*this, cmd);
}

Result<GetMinOffsetResponseHeader> GetMinOffsetResponseHeader::Decode(const RemotingCommand& cmd) {
  return DecodeOneLong(cmd, "offset", &GetMinOffsetResponseHeader::offset);
}
void GetMinOffsetResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
}

Result<GetEarliestMsgStoretimeRequestHeader> GetEarliestMsgStoretimeRequestHeader::Decode(
    const RemotingCommand& cmd) {
  return DecodeTopicQueue<GetEarliestMsgStoretimeRequestHeader>(cmd);
}
void GetEarliestMsgStoretimeRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  EncodeTopicQueue(*this, cmd);
}

Result<GetEarliestMsgStoretimeResponseHeader> GetEarliestMsgStoretimeResponseHeader::Decode(
    const RemotingCommand& cmd) {
  return DecodeOneLong(cmd, "timestamp", &GetEarliestMsgStoretimeResponseHeader::timestamp);
}
void GetEarliestMsgStoretimeResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("timestamp", timestamp);
}

Result<SearchOffsetRequestHeader> SearchOffsetRequestHeader::Decode(const RemotingCommand& cmd) {
  SearchOffsetRequestHeader h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  r.Required("queueId", &h.queue_id);
  r.Required("timestamp", &h.timestamp);
  std::optional<std::string> boundary;
  r.Optional("boundaryType", &boundary);
  r.Optional("bname", &h.broker_name);
  if (!r.status().ok()) return r.status();
  if (boundary) {
    h.boundary_type =
        EqualsIgnoreAsciiCase(*boundary, "upper") ? BoundaryType::kUpper : BoundaryType::kLower;
  }
  return h;
}

void SearchOffsetRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetIntField("queueId", queue_id);
  cmd.SetIntField("timestamp", timestamp);
  if (boundary_type) {
    cmd.SetField("boundaryType", *boundary_type == BoundaryType::kUpper ? "UPPER" : "LOWER");
  }
  PutOptional(cmd, "bname", broker_name);
}

Result<SearchOffsetResponseHeader> SearchOffsetResponseHeader::Decode(const RemotingCommand& cmd) {
  return DecodeOneLong(cmd, "offset", &SearchOffsetResponseHeader::offset);
}
void SearchOffsetResponseHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetIntField("offset", offset);
}

Result<CreateTopicRequestHeader> CreateTopicRequestHeader::Decode(const RemotingCommand& cmd) {
  CreateTopicRequestHeader h;
  FieldReader r(cmd);
  r.Required("topic", &h.topic);
  r.Required("defaultTopic", &h.default_topic);
  r.Required("readQueueNums", &h.read_queue_nums);
  r.Required("writeQueueNums", &h.write_queue_nums);
  r.Required("perm", &h.perm);
  r.Required("topicFilterType", &h.topic_filter_type);
  r.Optional("topicSysFlag", &h.topic_sys_flag);
  r.Required("order", &h.order);
  if (!r.status().ok()) return r.status();
  if (h.topic_filter_type != "SINGLE_TAG" && h.topic_filter_type != "MULTI_TAG") {
    return InvalidArgument("topicFilterType = [" + h.topic_filter_type + "] value invalid");
  }
  return h;
}

void CreateTopicRequestHeader::EncodeTo(RemotingCommand& cmd) const {
  cmd.SetField("topic", topic);
  cmd.SetField("defaultTopic", default_topic);
  cmd.SetIntField("readQueueNums", read_queue_nums);
  cmd.SetIntField("writeQueueNums", write_queue_nums);
  cmd.SetIntField("perm", perm);
  cmd.SetField("topicFilterType", topic_filter_type);
  PutOptional(cmd, "topicSysFlag", topic_sys_flag);
  cmd.SetBoolField("order", order);
}

}  // namespace rocketstore::protocol
