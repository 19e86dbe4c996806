// Admin part A, consumer groups and offsets: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200),
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), DELETE_SUBSCRIPTIONGROUP (207),
// GET_ALL_CONSUMER_OFFSET (43), CLONE_GROUP_OFFSET (314).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

// Body: SubscriptionGroupConfig. Java decodes it with fastjson and fails with an
// exception (SYSTEM_ERROR) on a missing or bad body; here the decoder's message says why.
RemotingFrontend::Reply RemotingFrontend::OnUpdateAndCreateSubscriptionGroup(Cmd& r) {
  const std::vector<uint8_t> bytes = r.body.Flatten();
  if (bytes.empty()) {
    return protocol::MakeResponse(r, protocol::ResponseCode::kSystemError,
                                  "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP needs a "
                                  "SubscriptionGroupConfig JSON body; the request has none");
  }
  auto body = protocol::SubscriptionGroupConfigBody::Decode(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (!body.ok()) return protocol::MakeSystemErrorResponse(r, body.status());
  SubscriptionGroupConfig c;
  c.name = body->group_name;
  c.retry_queue_nums = body->retry_queue_nums;
  c.retry_max_times = body->retry_max_times;
  c.consume_enable = body->consume_enable;
  c.consume_from_min_enable = body->consume_from_min_enable;
  c.consume_broadcast_enable = body->consume_broadcast_enable;
  c.broker_id = body->broker_id;
  c.which_broker_when_consume_slowly = body->which_broker_when_consume_slowly;
  c.notify_consumer_ids_changed_enable = body->notify_consumer_ids_changed_enable;
  return ReplyTo(r, s_.admin->group_admin->Upsert(c));
}

// Body: subscriptionGroup.json's text (SubscriptionGroupWrapper).
RemotingFrontend::Reply RemotingFrontend::OnGetAllSubscriptionGroup(Cmd& r) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(s_.admin->groups->ToJson());
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnDeleteSubscriptionGroup(Cmd& r) {
  auto h = protocol::DeleteSubscriptionGroupRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  return ReplyTo(r, s_.admin->group_admin->Delete(h->group_name, h->remove_offset));
}

// Body: consumerOffset.json's text (ConsumerOffsetSerializeWrapper, {"offsetTable":..}).
RemotingFrontend::Reply RemotingFrontend::OnGetAllConsumerOffset(Cmd& r) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(s_.admin->offsets->ToJson());
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnCloneGroupOffset(Cmd& r) {
  auto h = protocol::CloneGroupOffsetRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  return ReplyTo(r,
                 s_.admin->group_admin->Clone(h->src_group, h->dest_group, h->topic, h->offline));
}

}  // namespace rocketstore::broker
