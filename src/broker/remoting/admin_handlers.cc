// Offsets (14, 15), topic creation (17), queue metadata (29-32), queries (12, 33), delay
// offsets (45).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/headers/consumer_headers.h"
#include "protocol/headers/query_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

#define RS_DECODE_OR_REPLY(var, Header, cmd) \
  auto var = protocol::Header::Decode(cmd);  \
  if (!var.ok()) return protocol::MakeSystemErrorResponse(cmd, var.status())

RemotingFrontend::Reply RemotingFrontend::OnQueryOffset(Cmd& r) {
  RS_DECODE_OR_REPLY(h, QueryConsumerOffsetRequestHeader, r);
  OffsetResult res = s_.offsets->Query(h->consumer_group, h->topic, h->queue_id,
                                       h->set_zero_if_not_found.value_or(true));
  RemotingCommand resp = ReplyTo(r, res.verdict);
  if (res.verdict.ok()) protocol::QueryConsumerOffsetResponseHeader{res.offset}.EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnUpdateOffset(Cmd& r) {
  RS_DECODE_OR_REPLY(h, UpdateConsumerOffsetRequestHeader, r);
  return ReplyTo(r, s_.offsets->Update(h->consumer_group, h->topic, h->queue_id, h->commit_offset));
}

// Answered once the registration round that includes the topic has ended (as Java's
// registerIncrementBrokerData, which waits for the name servers), from the registrar's
// thread: a route lookup right after the answer finds the topic.
RemotingFrontend::Reply RemotingFrontend::OnCreateTopic(const Conn& conn, Cmd& r) {
  RS_DECODE_OR_REPLY(h, CreateTopicRequestHeader, r);
  TopicConfig c;
  c.name = std::move(h->topic);
  c.read_queue_nums = h->read_queue_nums;
  c.write_queue_nums = h->write_queue_nums;
  c.perm = h->perm;
  c.sys_flag = h->topic_sys_flag.value_or(0);
  c.filter_type = std::move(h->topic_filter_type);
  c.order = h->order;
  auto now = s_.topics->CreateOrUpdate(
      c, [conn, stub = RequestStub(r)](Verdict v) { conn->SendResponse(stub, ReplyTo(stub, v)); });
  if (now) return ReplyTo(r, *now);
  return std::nullopt;
}

RemotingFrontend::Reply RemotingFrontend::OnMaxOffset(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetMaxOffsetRequestHeader, r);
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  protocol::GetMaxOffsetResponseHeader{s_.query->MaxOffset(h->topic, h->queue_id)}.EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnMinOffset(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetMinOffsetRequestHeader, r);
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  protocol::GetMinOffsetResponseHeader{s_.query->MinOffset(h->topic, h->queue_id)}.EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnEarliestStoreTime(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetEarliestMsgStoretimeRequestHeader, r);
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  protocol::GetEarliestMsgStoretimeResponseHeader{
      s_.query->EarliestStoreTime(h->topic, h->queue_id)}
      .EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnSearchOffset(Cmd& r) {
  RS_DECODE_OR_REPLY(h, SearchOffsetRequestHeader, r);
  const TimeBoundary boundary = !h->boundary_type ? TimeBoundary::kNone
                                : *h->boundary_type == protocol::BoundaryType::kUpper
                                    ? TimeBoundary::kUpper
                                    : TimeBoundary::kLower;
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  protocol::SearchOffsetResponseHeader{
      s_.query->SearchOffset(h->topic, h->queue_id, h->timestamp, boundary)}
      .EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnQueryMessage(Cmd& r) {
  RS_DECODE_OR_REPLY(h, QueryMessageRequestHeader, r);
  QueryByKeyRequest q;
  q.topic = std::move(h->topic);
  q.key = std::move(h->key);
  q.max_num = h->max_num;
  q.begin_timestamp = h->begin_timestamp;
  q.end_timestamp = h->end_timestamp;
  q.unique_key = h->unique_key_query;
  QueryResult res = s_.query->QueryByKey(q);
  RemotingCommand resp = ReplyTo(r, res.verdict);
  if (!res.verdict.ok()) return resp;
  for (auto& rec : res.records) resp.body.AppendExternal(rec.bytes, rec.file);
  protocol::QueryMessageResponseHeader{res.index_last_update_timestamp,
                                       res.index_last_update_phy_offset}
      .EncodeTo(resp);
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnViewMessage(Cmd& r) {
  RS_DECODE_OR_REPLY(h, ViewMessageRequestHeader, r);
  QueryResult res = s_.query->ViewByOffset(h->offset);
  RemotingCommand resp = ReplyTo(r, res.verdict);
  for (auto& rec : res.records) resp.body.AppendExternal(rec.bytes, rec.file);
  return resp;
}

// AdminBrokerProcessor.getAllDelayOffset: the body is delayOffset.json's text
// ({"offsetTable":{1:5,...}}, fastjson's bare keys), SUCCESS with no remark.
RemotingFrontend::Reply RemotingFrontend::OnGetAllDelayOffset(Cmd& r) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(s_.delay_offsets->ToJson());
  return resp;
}

#undef RS_DECODE_OR_REPLY

}  // namespace rocketstore::broker
