// END_TRANSACTION (37): a producer commits or rolls back a half message (Java sends it
// oneway: the server drops the answer then; a two-way request gets Java's answer).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/headers/send_headers.h"

namespace rocketstore::broker {

RemotingFrontend::Reply RemotingFrontend::OnEndTransaction(Cmd& r) {
  auto h = protocol::EndTransactionRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  EndTransactionRequest req;
  req.producer_group = std::move(h->producer_group);
  req.tran_state_table_offset = h->tran_state_table_offset;
  req.commit_log_offset = h->commit_log_offset;
  req.commit_or_rollback = h->commit_or_rollback;
  req.from_transaction_check = h->from_transaction_check;
  std::optional<Verdict> v = s_.transactions->EndTransaction(req);
  if (!v) return std::nullopt;  // UNKNOW: Java answers nothing
  return ReplyTo(r, *v);
}

}  // namespace rocketstore::broker
