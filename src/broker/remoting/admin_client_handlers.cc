// Admin part B, calls on a group's clients: INVOKE_BROKER_TO_RESET_OFFSET (222, pushes
// 220), INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223, asks 221), GET_CONSUMER_RUNNING_INFO
// (307) and CONSUME_MESSAGE_DIRECTLY (309), forwarded and relayed. 223 / 307 / 309
// answer later, through Connection::SendResponse, once the clients answered.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/headers/admin_consumer_headers.h"
#include "store/format/message_id.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {

// Java's createResponseCommand(null) leaves this remark on answers that only set the
// code afterwards (Broker2Client's resetOffset and getConsumeStatus).
constexpr std::string_view kNotSetRemark = "not set any response code";

protocol::QueueOffsetTable TableOf(const std::vector<QueueOffsetEntry>& entries) {
  protocol::QueueOffsetTable t;
  for (const auto& e : entries) {
    t[protocol::MessageQueueKey{e.topic, e.broker_name, e.queue_id}] = e.offset;
  }
  return t;
}

ForwardedRequest ForwardOf(const RemotingCommand& r) {
  ForwardedRequest f;
  r.ForEachField([&f](std::string_view k, std::string_view v) {
    f.ext_fields.emplace_back(k, v);
    return true;
  });
  f.body = std::string(r.body.owned_text());
  return f;
}

// The admin tool's answer: the client's (code, remark, fields, body), or the broker's
// error.
RemotingCommand RelayOf(const RemotingCommand& stub, ForwardResult&& res) {
  if (!res.verdict.ok()) return ReplyTo(stub, res.verdict);
  ClientAnswer& a = *res.answer;
  RemotingCommand resp = a.remark ? protocol::MakeResponse(stub, a.code, *a.remark)
                                  : protocol::MakeResponse(stub, a.code);
  for (const auto& [k, v] : a.ext_fields) resp.SetField(k, v);
  if (!a.body.empty()) resp.body.Assign(std::string_view(a.body));
  return resp;
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnInvokeResetOffset(Cmd& r) {
  auto h = protocol::ResetOffsetRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  const bool cpp = r.language == protocol::LanguageCode::kCpp;
  ResetOffsetResult res =
      s_.client_admin->ResetOffset(h->topic, h->group, h->timestamp, h->is_force, cpp);
  if (!res.verdict.ok()) return ReplyTo(r, res.verdict);
  RemotingCommand resp = protocol::MakeResponse(r, 0, std::string(kNotSetRemark));
  resp.body.Assign(protocol::ResetOffsetBody{TableOf(res.offsets)}.Encode());
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnInvokeConsumerStatus(const Conn& c, Cmd& r) {
  auto h = protocol::GetConsumerStatusRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  s_.client_admin->ConsumerStatus(
      h->topic, h->group, h->client_addr, [c, stub = RequestStub(r)](ConsumerStatusResult res) {
        if (!res.verdict.ok()) return c->SendResponse(stub, ReplyTo(stub, res.verdict));
        protocol::GetConsumerStatusBody body;
        for (const auto& [client, entries] : res.by_client) {
          body.consumer_table[client] = TableOf(entries);
        }
        RemotingCommand resp = protocol::MakeResponse(stub, 0, std::string(kNotSetRemark));
        resp.body.Assign(body.Encode());
        c->SendResponse(stub, std::move(resp));
      });
  return std::nullopt;
}

RemotingFrontend::Reply RemotingFrontend::OnConsumerRunningInfo(const Conn& c, Cmd& r) {
  auto h = protocol::GetConsumerRunningInfoRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  s_.client_admin->CallConsumer(ConsumerCall::kRunningInfo, h->consumer_group, h->client_id,
                                ForwardOf(r), [c, stub = RequestStub(r)](ForwardResult res) {
                                  c->SendResponse(stub, RelayOf(stub, std::move(res)));
                                });
  return std::nullopt;
}

RemotingFrontend::Reply RemotingFrontend::OnConsumeMessageDirectly(const Conn& c, Cmd& r) {
  auto h = protocol::ConsumeMessageDirectlyResultRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  // As Java: the broker names itself and sends the stored message as the body.
  r.SetField("brokerName", s_.consume_stats->broker_name());
  auto id = format::DecodeOffsetMsgId(h->msg_id.value_or(""));
  if (!id.ok()) {
    return ReplyTo(r, Verdict::Error(Outcome::kSystemError,
                                     "msgId <" + h->msg_id.value_or("") +
                                         "> is not an offset message id of this broker: " +
                                         id.status().message()));
  }
  QueryResult found = s_.query->ViewByOffset(id->physical_offset);
  if (!found.verdict.ok() || found.records.empty()) {
    return ReplyTo(r,
                   Verdict::Error(Outcome::kSystemError, "no message at commit-log offset " +
                                                             std::to_string(id->physical_offset) +
                                                             " (msgId " + *h->msg_id + ")"));
  }
  ForwardedRequest f = ForwardOf(r);
  const auto& bytes = found.records.front().bytes;
  f.body.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  s_.client_admin->CallConsumer(ConsumerCall::kConsumeDirectly, h->consumer_group,
                                h->client_id.value_or(""), std::move(f),
                                [c, stub = RequestStub(r)](ForwardResult res) {
                                  c->SendResponse(stub, RelayOf(stub, std::move(res)));
                                });
  return std::nullopt;
}

}  // namespace rocketstore::broker
