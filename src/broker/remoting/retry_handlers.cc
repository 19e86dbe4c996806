// CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

RemotingFrontend::Reply RemotingFrontend::OnConsumerSendMsgBack(const Conn& conn, Cmd& r) {
  auto h = protocol::ConsumerSendMsgBackRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  SendBackRequest req;
  req.offset = h->offset;
  req.group = std::move(h->group);
  req.delay_level = h->delay_level;
  req.unit_mode = h->unit_mode;
  req.max_reconsume_times = h->max_reconsume_times;
  // The re-put is appended without waiting for the flush (as Java's): answered at once.
  return ReplyTo(r, s_.retry->SendBack(ContextOf(conn, r), req).verdict);
}

}  // namespace rocketstore::broker
