#include "broker/service/reply_service.h"

#include <utility>

#include "store/format/properties.h"

namespace rocketstore::broker {

// One reply between its check and its answer: owns what the request's views pointed at.
struct ReplyService::Pending {
  RequestContext context;
  SendRequest request;  // its views -> the strings below, request.messages -> &entry
  SendEntry entry;
  std::string producer_group, topic, default_topic, body, properties;
  Callback done;
  ReplyResult result;
};

ReplyPush ReplyService::BuildPush(const Pending& p, const std::string& store_host, int64_t now_ms) {
  const SendRequest& r = p.request;
  ReplyPush push;
  push.producer_group = r.producer_group;
  push.topic = r.topic;
  push.default_topic = r.default_topic;
  push.default_topic_queue_nums = r.default_topic_queue_nums;
  push.queue_id = r.queue_id;
  push.sys_flag = r.sys_flag;
  push.born_timestamp = r.born_timestamp;
  push.flag = p.entry.flag;
  push.reconsume_times = r.reconsume_times;
  push.unit_mode = r.unit_mode;
  push.born_host = p.context.born_host.ToString();
  push.store_host = store_host;
  push.store_timestamp = now_ms;
  push.body = p.body;
  format::PropertiesBuilder b;
  b.Put("PUSH_REPLY_TIME", std::to_string(now_ms));
  for (const auto& [name, value] : format::ParseProperties(p.properties)) {
    if (name != "PUSH_REPLY_TIME") b.Put(name, value);
  }
  push.properties = b.Build();
  return push;
}

void ReplyService::Reply(const RequestContext& context, const SendRequest& request, Callback done) {
  ReplyResult refused;
  if (request.messages.size() != 1) {
    refused.verdict = Verdict::Error(Outcome::kMessageIllegal, "a reply carries one message");
    return done(std::move(refused));
  }
  if (Verdict v = SendService::CheckTopic(request.topic); !v.ok()) {
    refused.verdict = std::move(v);
    return done(std::move(refused));
  }
  SendService::Resolved resolved;
  if (Verdict v = send_.ResolveTopic(request, &resolved); !v.ok()) {
    refused.verdict = std::move(v);
    return done(std::move(refused));
  }
  auto p = std::make_shared<Pending>();
  p->context = context;
  p->request = request;
  p->producer_group = std::string(request.producer_group);
  p->topic = std::string(request.topic);
  p->default_topic = std::string(request.default_topic);
  p->request.producer_group = p->producer_group;
  p->request.topic = p->topic;
  p->request.default_topic = p->default_topic;
  p->body = std::string(request.messages[0].body);
  p->properties = std::string(request.messages[0].properties);
  p->entry = SendEntry{request.messages[0].flag, p->body, p->properties};
  p->request.messages = std::span<const SendEntry>(&p->entry, 1);
  p->request.batch = false;
  p->done = std::move(done);
  p->result.checked = true;
  p->result.queue_id = resolved.queue_id;

  const auto to_client = format::FindProperty(p->properties, "REPLY_TO_CLIENT");
  if (!to_client) {
    const std::string why = "reply message properties[REPLY_TO_CLIENT] is null";
    return Finish(p, Verdict::Error(Outcome::kSystemError, why), InvalidArgument(why));
  }
  const std::string client_id(*to_client);
  ChannelPtr channel = producers_.FindChannel(client_id);
  if (!channel) {
    const std::string why = "push reply message fail, channel of <" + client_id + "> not found.";
    return Finish(p, Verdict::Error(Outcome::kSystemError, why), NotFound(why));
  }
  // Java pushes the replier's queue id as sent; the store gets the resolved one (Finish).
  ReplyPush push = BuildPush(*p, store_host_, clock_.NowMillis());
  channel->PushReplyMessage(std::move(push), [this, p, client_id](Status s) {
    if (s.ok()) return Finish(p, Verdict::Ok(), Status::OK());
    // Java's remark, without a space before "fail." (sic).
    Finish(p, Verdict::Error(Outcome::kSystemError, "push reply message to " + client_id + "fail."),
           s.WithContext("push reply message to " + client_id));
  });
}

void ReplyService::Finish(const std::shared_ptr<Pending>& p, Verdict push, Status push_status) {
  p->result.verdict = std::move(push);
  p->result.push_status = std::move(push_status);
  p->request.queue_id = p->result.queue_id;
  if (!options_.store_reply) return p->done(std::move(p->result));
  SendService::Callback later;
  if (send_.AnswersLater(p->request)) {
    later = [p](SendResult stored) {
      p->result.stored = std::move(stored);
      p->done(std::move(p->result));
    };
  }
  auto stored = send_.Send(p->context, p->request, std::move(later));
  if (stored) {
    p->result.stored = std::move(*stored);
    p->done(std::move(p->result));
  }
}

}  // namespace rocketstore::broker
