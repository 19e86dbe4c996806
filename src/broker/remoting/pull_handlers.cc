// PULL_MESSAGE (11): answered at once, or later when a held (long-polling) pull resumes.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/headers/consumer_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

namespace {

RemotingCommand BuildPullResponse(const RemotingCommand& request, PullResult& result) {
  Verdict v = result.verdict;
  // Java's remark on a pull answer is the store's status name (FOUND, OFFSET_FOUND_NULL...).
  if (v.remark.empty()) v.remark = result.status_name;
  RemotingCommand resp = ReplyTo(request, v);
  const Outcome o = result.verdict.outcome;
  const bool pull_state = o == Outcome::kOk || o == Outcome::kPullNotFound ||
                          o == Outcome::kPullRetryImmediately || o == Outcome::kPullOffsetMoved;
  if (!pull_state) return resp;
  protocol::PullMessageResponseHeader h;
  h.suggest_which_broker_id = result.suggest_which_broker_id;
  h.next_begin_offset = result.next_begin_offset;
  h.min_offset = result.min_offset;
  h.max_offset = result.max_offset;
  h.topic_sys_flag = result.topic_sys_flag;
  h.group_sys_flag = result.group_sys_flag;
  h.EncodeTo(resp);
  for (auto& m : result.messages) resp.body.AppendExternal(m.bytes, m.file);
  return resp;
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnPull(const Conn& conn, Cmd& r) {
  auto h = protocol::PullMessageRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  PullRequest req;
  req.consumer_group = std::move(h->consumer_group);
  req.topic = std::move(h->topic);
  req.queue_id = h->queue_id;
  req.queue_offset = h->queue_offset;
  req.max_msg_nums = h->max_msg_nums;
  req.sys_flag = h->sys_flag;
  req.commit_offset = h->commit_offset;
  req.suspend_timeout_millis = h->suspend_timeout_millis;
  if (h->subscription) req.subscription = std::move(*h->subscription);
  req.sub_version = h->sub_version;
  if (h->expression_type) req.expression_type = std::move(*h->expression_type);

  // A held pull answers through the connection when it resumes.
  auto answered =
      s_.pull->Pull(ContextOf(conn, r), req, [conn, stub = RequestStub(r)](PullResult result) {
        conn->SendResponse(stub, BuildPullResponse(stub, result));
      });
  if (answered) return BuildPullResponse(r, *answered);
  return std::nullopt;
}

}  // namespace rocketstore::broker
