// Admin part A, the store: QUERY_CONSUME_QUEUE (321), CLEAN_EXPIRED_CONSUMEQUEUE (306),
// DELETE_EXPIRED_COMMITLOG (329).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {
protocol::SubscriptionData ToWire(const SubscriptionData& s) {
  protocol::SubscriptionData w;
  w.topic = s.topic;
  w.sub_string = s.sub_string;
  w.expression_type = s.expression_type;
  w.sub_version = s.sub_version;
  w.tags_set.assign(s.tags.begin(), s.tags.end());
  w.code_set.assign(s.codes.begin(), s.codes.end());
  return w;
}
}  // namespace

// Body: QueryConsumeQueueResponseBody; none when the index is outside the queue (the
// remark says so, code SUCCESS, as Java).
RemotingFrontend::Reply RemotingFrontend::OnQueryConsumeQueue(Cmd& r) {
  auto h = protocol::QueryConsumeQueueRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  StoreAdminService::ConsumeQueueView view;
  Verdict v = s_.admin->store_admin->QueryConsumeQueue(h->topic, h->queue_id, h->index, h->count,
                                                       h->consumer_group, &view);
  RemotingCommand resp = ReplyTo(r, v);
  if (!v.ok()) return resp;
  if (!view.units) {
    resp.remark = view.remark;
    return resp;
  }
  protocol::QueryConsumeQueueResponseBody body;
  body.max_queue_index = view.max_queue_index;
  body.min_queue_index = view.min_queue_index;
  body.filter_data = view.filter_data;
  if (view.subscription) body.subscription_data = ToWire(*view.subscription);
  auto& units = body.queue_data.emplace();
  for (const StoreAdminService::Unit& u : *view.units) {
    protocol::ConsumeQueueData d;
    d.physic_offset = u.physic_offset;
    d.physic_size = u.physic_size;
    d.tags_code = u.tags_code;
    units.push_back(std::move(d));
  }
  resp.body.Assign(body.Encode());
  return resp;
}

// Answered after the retention round that removed the files (on the retention thread).
RemotingFrontend::Reply RemotingFrontend::OnCleanExpiredConsumeQueue(const Conn& conn, Cmd& r) {
  s_.admin->store_admin->CleanExpiredConsumeQueue(
      [conn, stub = RequestStub(r)](Verdict v) { conn->SendResponse(stub, ReplyTo(stub, v)); });
  return std::nullopt;
}

RemotingFrontend::Reply RemotingFrontend::OnDeleteExpiredCommitLog(Cmd& r) {
  s_.admin->store_admin->DeleteExpiredCommitLog();
  return ReplyTo(r, Verdict::Ok());
}

}  // namespace rocketstore::broker
