// SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/batch_body.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {

// What the Java broker adds to every send answer (MSG_REGION, TRACE_ON).
constexpr std::string_view kMsgRegion = "DefaultRegion";
constexpr bool kTraceOn = true;

// Takes the result's strings (moved into the header, not copied).
RemotingCommand BuildSendResponse(const RemotingCommand& request, SendResult&& result) {
  RemotingCommand resp = ReplyTo(request, result.verdict);
  if (!result.stored()) return resp;
  protocol::SendMessageResponseHeader h;
  h.msg_id = std::move(result.msg_id);
  h.queue_id = result.queue_id;
  h.queue_offset = result.queue_offset;
  if (!result.transaction_id.empty()) h.transaction_id = std::move(result.transaction_id);
  if (!result.recall_handle.empty()) h.recall_handle = std::move(result.recall_handle);
  h.msg_region = std::string(kMsgRegion);
  h.trace_on = kTraceOn;
  h.EncodeTo(resp);
  return resp;
}

// The answer of a send that stored its message and has no remark, written as a frame in
// one pass (protocol::EncodeSendAnswerFrame) when the request was JSON and it is answered
// on the connection's io thread: the same bytes as BuildSendResponse's command encoded.
// False when it does not apply (the caller answers with BuildSendResponse).
bool SendAnswerFrame(const net::ConnectionPtr& conn, const RemotingCommand& request,
                     const SendResult& result) {
  if (request.serialize_type != protocol::SerializeType::kJson || !result.stored() ||
      !result.verdict.remark.empty()) {
    return false;
  }
  protocol::SendAnswerFrame a;
  a.code = ToInt(ToResponseCode(result.verdict.outcome));
  a.opaque = request.opaque;
  a.msg_id = result.msg_id;
  a.queue_id = result.queue_id;
  a.queue_offset = result.queue_offset;
  if (!result.transaction_id.empty()) a.transaction_id = result.transaction_id;
  if (!result.recall_handle.empty()) a.recall_handle = result.recall_handle;
  a.msg_region = kMsgRegion;
  a.trace_on = kTraceOn;
  return conn->SendResponseFrame(request, a.code, [&a](std::vector<uint8_t>* head) {
    return protocol::EncodeSendAnswerFrame(a, head);
  });
}

}  // namespace

SendRequest SendRequestOf(const protocol::SendMessageRequestView& h) {
  SendRequest req;
  req.producer_group = h.producer_group;
  req.topic = h.topic;
  req.default_topic = h.default_topic;
  req.default_topic_queue_nums = h.default_topic_queue_nums;
  req.queue_id = h.queue_id;
  req.sys_flag = h.sys_flag;
  req.born_timestamp = h.born_timestamp;
  req.reconsume_times = h.reconsume_times.value_or(0);
  req.unit_mode = h.unit_mode;
  req.max_reconsume_times = h.max_reconsume_times;
  return req;
}

RemotingFrontend::Reply RemotingFrontend::OnSend(const Conn& conn, Cmd& r) {
  // Views into r's header: r outlives the send (the store copies what it keeps).
  auto h = protocol::SendMessageRequestView::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  SendRequest req = SendRequestOf(*h);
  req.batch = h->batch || r.code == ToInt(protocol::RequestCode::kSendBatchMessage);
  // Owned, or borrowed from the connection's read buffer (Limits::borrow_send_bodies): the
  // store has copied the message by the time this returns.
  const std::string_view body = r.body.leading_text();
  SendEntry single;
  std::vector<SendEntry> batch;
  if (req.batch) {
    auto entries = protocol::DecodeBatchBody(r.body.leading());
    if (!entries.ok()) {
      return protocol::MakeResponse(r, protocol::ResponseCode::kMessageIllegal,
                                    "bad batch body: " + entries.status().message());
    }
    batch.reserve(entries->size());
    for (const auto& e : *entries) {
      batch.push_back(SendEntry{
          e.flag, std::string_view(reinterpret_cast<const char*>(e.body.data()), e.body.size()),
          e.properties});
    }
    req.messages = batch;
  } else {
    single = SendEntry{h->flag, body, h->properties.value_or(std::string_view())};
    req.messages = std::span<const SendEntry>(&single, 1);
  }

  // Answered at once, or (SYNC_FLUSH with WAIT) by the thread that finishes the group
  // commit covering the message, through the connection's write queue. The callback is
  // built only when it may be needed.
  SendService::Callback later;
  if (s_.send->AnswersLater(req)) {
    later = [conn, stub = RequestStub(r)](SendResult result) {
      conn->SendResponse(stub, BuildSendResponse(stub, std::move(result)));
    };
  }
  auto answered = s_.send->Send(ContextOf(conn, r), req, std::move(later));
  if (!answered) return std::nullopt;
  if (SendAnswerFrame(conn, r, *answered)) return std::nullopt;
  return BuildSendResponse(r, std::move(*answered));
}

}  // namespace rocketstore::broker
