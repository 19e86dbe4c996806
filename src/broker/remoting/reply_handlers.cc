// SEND_REPLY_MESSAGE (324), SEND_REPLY_MESSAGE_V2 (325): a responder's reply, pushed to
// the requester (PUSH_REPLY_MESSAGE_TO_CLIENT, 326) and stored in the reply topic.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "log/log.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {

// As RocketMQ's ReplyMessageProcessor: MSG_REGION / TRACE_ON on every answer; once the
// send check passed, msg id "0" / offset 0 for a pushed reply, replaced by the stored
// record's when the reply was stored (whatever the code).
RemotingCommand BuildReplyResponse(const RemotingCommand& request, ReplyResult&& result) {
  RemotingCommand resp = ReplyTo(request, result.verdict);
  protocol::SendMessageResponseHeader h;
  h.msg_region = "DefaultRegion";
  h.trace_on = true;
  bool fields = false;
  if (result.pushed()) {
    h.msg_id = "0";
    h.queue_id = result.queue_id;
    h.queue_offset = 0;
    fields = true;
  }
  if (result.stored && result.stored->stored()) {
    h.msg_id = std::move(result.stored->msg_id);
    h.queue_id = result.stored->queue_id;
    h.queue_offset = result.stored->queue_offset;
    fields = true;
  }
  if (fields) {
    h.EncodeTo(resp);
  } else {
    resp.SetField("MSG_REGION", *h.msg_region);
    resp.SetBoolField("TRACE_ON", *h.trace_on);
  }
  return resp;
}

void LogFailures(const ReplyResult& result, const std::string& topic) {
  if (!result.checked) return;
  if (!result.push_status.ok()) {
    RS_LOG_WARN("reply: not delivered topic={} error=\"{}\"", topic, result.push_status.ToString());
  }
  if (result.stored && !result.stored->stored()) {
    RS_LOG_WARN("reply: not stored topic={} error=\"{}\"", topic, result.stored->verdict.remark);
  }
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnSendReply(const Conn& conn, Cmd& r) {
  // Views into r's header, valid during Reply (which copies what it keeps).
  auto h = protocol::SendMessageRequestView::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  SendRequest req = SendRequestOf(*h);
  const SendEntry entry{h->flag, r.body.leading_text(), h->properties.value_or(std::string_view())};
  req.messages = std::span<const SendEntry>(&entry, 1);
  // Answered once the requester took the reply (or did not) and it is stored: from the
  // requester's io thread, the timeout runner, the flush thread, or right here.
  s_.reply->Reply(
      ContextOf(conn, r), req,
      [conn, stub = RequestStub(r), topic = std::string(req.topic)](ReplyResult result) {
        LogFailures(result, topic);
        conn->SendResponse(stub, BuildReplyResponse(stub, std::move(result)));
      });
  return std::nullopt;
}

}  // namespace rocketstore::broker
