// HEART_BEAT (34), UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38),
// CHECK_CLIENT_CONFIG (46).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/client_bodies.h"
#include "protocol/headers/consumer_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {

ConsumerData ToService(protocol::ConsumerData&& in) {
  ConsumerData out;
  out.group = std::move(in.group_name);
  if (!in.consume_type.empty()) out.consume_type = std::move(in.consume_type);
  if (!in.message_model.empty()) out.message_model = std::move(in.message_model);
  if (!in.consume_from_where.empty()) out.consume_from_where = std::move(in.consume_from_where);
  out.unit_mode = in.unit_mode;
  for (auto& s : in.subscription_data_set) {
    SubscriptionData sub;
    sub.topic = std::move(s.topic);
    sub.sub_string = std::move(s.sub_string);
    if (!s.expression_type.empty()) sub.expression_type = std::move(s.expression_type);
    sub.tags.insert(s.tags_set.begin(), s.tags_set.end());
    sub.codes.insert(s.code_set.begin(), s.code_set.end());
    sub.sub_version = s.sub_version;
    out.subscriptions.push_back(std::move(sub));
  }
  return out;
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnHeartbeat(const Conn& c, Cmd& r) {
  const std::vector<uint8_t> body = r.body.Flatten();
  auto hb = protocol::HeartbeatData::Decode(
      std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  if (!hb.ok()) return protocol::MakeSystemErrorResponse(r, hb.status());
  HeartbeatRequest req;
  req.client_id = std::move(hb->client_id);
  for (auto& p : hb->producer_data_set) req.producer_groups.push_back(std::move(p.group_name));
  for (auto& cd : hb->consumer_data_set) req.consumers.push_back(ToService(std::move(cd)));
  return ReplyTo(r, s_.clients->Heartbeat(ContextOf(c, r), req));
}

RemotingFrontend::Reply RemotingFrontend::OnUnregisterClient(const Conn& c, Cmd& r) {
  auto h = protocol::UnregisterClientRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  return ReplyTo(
      r, s_.clients->Unregister(ContextOf(c, r), h->client_id, h->producer_group.value_or(""),
                                h->consumer_group.value_or("")));
}

// As ClientManageProcessor.checkClientConfig: no subscription, or a TAG one, is fine;
// otherwise the pull service's check (enablePropertyFilter, the expression compiles).
RemotingFrontend::Reply RemotingFrontend::OnCheckClientConfig(Cmd& r) {
  const std::vector<uint8_t> body = r.body.Flatten();
  auto req = protocol::CheckClientRequestBody::Decode(
      std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
  if (!req.ok()) return protocol::MakeSystemErrorResponse(r, req.status());
  if (!req->subscription_data) return ReplyTo(r, Verdict::Ok());
  const protocol::SubscriptionData& s = *req->subscription_data;
  return ReplyTo(r, s_.pull->CheckSubscription(req->group, s.topic, s.expression_type, s.sub_string,
                                               s.sub_version));
}

RemotingFrontend::Reply RemotingFrontend::OnConsumerList(Cmd& r) {
  auto h = protocol::GetConsumerListByGroupRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  ConsumerIdsResult ids = s_.clients->ConsumerIds(h->consumer_group);
  RemotingCommand resp = ReplyTo(r, ids.verdict);
  if (ids.verdict.ok()) {
    protocol::ConsumerListBody body;
    body.consumer_id_list = std::move(ids.client_ids);
    resp.body.Assign(body.Encode());
  }
  return resp;
}

}  // namespace rocketstore::broker
