// RECALL_MESSAGE (370): cancel a pending timer message by its recall handle.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

RemotingFrontend::Reply RemotingFrontend::OnRecall(const Conn& conn, Cmd& r) {
  auto h = protocol::RecallMessageRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  RecallRequest req;
  req.topic = std::move(h->topic);
  req.recall_handle = std::move(h->recall_handle);
  req.producer_group = h->producer_group.value_or("");
  req.born_host = ContextOf(conn, r).born_host;
  RecallResult res = s_.timers->Recall(req, s_.timers->now_ms());
  protocol::RemotingCommand resp = ReplyTo(r, res.verdict);
  if (res.verdict.ok()) protocol::RecallMessageResponseHeader{res.msg_id}.EncodeTo(resp);
  return resp;
}

}  // namespace rocketstore::broker
