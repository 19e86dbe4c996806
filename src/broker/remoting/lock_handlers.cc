// LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42): an orderly consumer's queue locks, over
// RebalanceLockManager (4.9.8's AdminBrokerProcessor.lockBatchMQ / unlockBatchMQ).
// 41 answers SUCCESS, no remark, body LockBatchResponseBody {"lockOKMQSet":[...]} (the
// queues the caller holds now, in request order; Java's HashSet order differs, clients
// treat it as a set). 42 answers SUCCESS with no body, also when nothing was released;
// sent oneway its answer is dropped by the server. A body that does not decode, or one
// without consumerGroup / clientId, is SYSTEM_ERROR naming the body and the member.
#include <string_view>

#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/client_bodies.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;
using protocol::ResponseCode;

namespace {

std::vector<QueueRef> ToService(std::vector<protocol::MessageQueue>&& in) {
  std::vector<QueueRef> out;
  out.reserve(in.size());
  for (auto& q : in) out.push_back({std::move(q.topic), std::move(q.broker_name), q.queue_id});
  return out;
}

// The request's body decoded as B, or the SYSTEM_ERROR answer to send instead.
template <typename B>
Result<B> DecodeBody(const RemotingCommand& r) {
  const std::vector<uint8_t> body = r.body.Flatten();
  return B::Decode(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
}

Status Named(std::string_view body, const Status& s) {
  return InvalidArgument(std::string(body) + ": " + s.message());
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnLockBatch(Cmd& r) {
  auto body = DecodeBody<protocol::LockBatchRequestBody>(r);
  if (!body.ok()) return protocol::MakeSystemErrorResponse(r, body.status());
  const std::vector<QueueRef> queues = ToService(std::move(body->mq_set));
  auto locked = s_.locks->TryLockBatch(body->consumer_group, queues, body->client_id);
  if (!locked.ok()) {
    return protocol::MakeSystemErrorResponse(r, Named("LockBatchRequestBody", locked.status()));
  }
  protocol::LockBatchResponseBody answer;
  answer.lock_ok_mq_set.reserve(locked->size());
  for (QueueRef& q : *locked) {
    answer.lock_ok_mq_set.push_back({std::move(q.topic), std::move(q.broker_name), q.queue_id});
  }
  RemotingCommand resp = protocol::MakeResponse(r, ResponseCode::kSuccess);
  resp.body.Assign(answer.Encode());
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnUnlockBatch(Cmd& r) {
  auto body = DecodeBody<protocol::UnlockBatchRequestBody>(r);
  if (!body.ok()) return protocol::MakeSystemErrorResponse(r, body.status());
  const std::vector<QueueRef> queues = ToService(std::move(body->mq_set));
  if (Status s = s_.locks->UnlockBatch(body->consumer_group, queues, body->client_id); !s.ok()) {
    return protocol::MakeSystemErrorResponse(r, Named("UnlockBatchRequestBody", s));
  }
  return protocol::MakeResponse(r, ResponseCode::kSuccess);
}

}  // namespace rocketstore::broker
