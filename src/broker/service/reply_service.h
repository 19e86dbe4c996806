// File: broker/service/reply_service.h
//
// ReplyService: the broker's part of request-reply (RocketMQ 4.9.8's
// ReplyMessageProcessor, SEND_REPLY_MESSAGE 324 / _V2 325). A responder that consumed a
// request (a message with CORRELATION_ID and REPLY_TO_CLIENT = the requester's client id)
// sends its reply to <cluster>_REPLY_TOPIC; the broker
//
//   1. checks the send as any send (topic name, auto-creation, write permission, queue
//      id; a negative queue id picks one) — a refusal is the answer, nothing is pushed;
//   2. pushes the reply to the requester: the channel of the producer whose client id is
//      REPLY_TO_CLIENT (ProducerManager::FindChannel), PUSH_REPLY_MESSAGE_TO_CLIENT with
//      PUSH_REPLY_TIME added, and waits for its answer (ClientChannel::PushReplyMessage,
//      10 s as Java's callClient);
//   3. stores the reply in the reply topic through SendService (its pipeline and store),
//      whatever the push's outcome, unless Options::store_reply is false
//      (storeReplyMessageEnable);
//   4. answers (ReplyResult): the push decides the code — kOk once the requester took the
//      reply, else kSystemError with Java's remark (see ReplyResult::verdict); the stored
//      record's msg id / queue / offset when it was stored, else msg id "0" and offset 0.
//      As in Java, a store failure after a successful push does not change the code.
//
// Ownership: the send service and the producer manager must outlive the service; so must
// the service every push still in flight (the broker fails them when it stops the server).
// Thread-safety: Reply from any thread; `done` runs exactly once, on the caller's thread,
// the requester's io thread (its answer), a runner's (timeout) or the flush thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "broker/service/producer_manager.h"
#include "broker/service/send_service.h"

namespace rocketstore::broker {

struct ReplyResult {
  // kOk: the requester has the reply. kSystemError: it does not — "reply message
  // properties[REPLY_TO_CLIENT] is null", "push reply message fail, channel of <id> not
  // found." or "push reply message to <id>fail." (sic). Any other error: the send check
  // refused the reply (nothing pushed or stored).
  Verdict verdict;
  bool checked = false;              // the send check passed (the fields below mean something)
  Status push_status;                // why the push failed, for the log (OK when pushed)
  int32_t queue_id = 0;              // the queue the reply was (or would have been) stored in
  std::optional<SendResult> stored;  // the store's result, when storing was tried
  bool pushed() const { return checked && verdict.ok(); }
};

class ReplyService {
 public:
  struct Options {
    bool store_reply = true;  // storeReplyMessageEnable
  };
  using Callback = std::function<void(ReplyResult)>;

  ReplyService(Options options, Clock& clock, SendService& send, ProducerManager& producers)
      : options_(options), clock_(clock), send_(send), producers_(producers) {}

  // `request` carries exactly one message (its body/properties views are copied before
  // Reply returns).
  void Reply(const RequestContext& context, const SendRequest& request, Callback done);

  // "ip:port" stamped as storeHost on pushes (known once the server listens).
  void set_store_host(const format::HostAddress& host) { store_host_ = host.ToString(); }

 private:
  struct Pending;
  static ReplyPush BuildPush(const Pending& p, const std::string& store_host, int64_t now_ms);
  void Finish(const std::shared_ptr<Pending>& p, Verdict push, Status push_status);

  const Options options_;
  Clock& clock_;
  SendService& send_;
  ProducerManager& producers_;
  std::string store_host_ = "127.0.0.1:10911";
};

}  // namespace rocketstore::broker
