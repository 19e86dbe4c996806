// Admin part A, topics: GET_ALL_TOPIC_CONFIG (21), GET_TOPIC_STATS_INFO (202),
// DELETE_TOPIC_IN_BROKER (215), GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305).
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_bodies.h"
#include "protocol/headers/admin_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

// Body: topics.json's text (TopicConfigSerializeWrapper). Java answers SYSTEM_ERROR "No
// topic in this broker" for an empty encoding, which never happens (the wrapper always
// has its dataVersion); so here.
RemotingFrontend::Reply RemotingFrontend::OnGetAllTopicConfig(Cmd& r) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(s_.admin->topic_configs->ToJson());
  return resp;
}

RemotingFrontend::Reply RemotingFrontend::OnGetTopicStatsInfo(Cmd& r) {
  auto h = protocol::TopicRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  std::vector<TopicService::QueueStats> stats;
  Verdict v = s_.topics->Stats(h->topic, &stats);
  RemotingCommand resp = ReplyTo(r, v);
  if (!v.ok()) return resp;
  protocol::TopicStatsTable table;
  for (const TopicService::QueueStats& q : stats) {
    table.offset_table.push_back(
        {protocol::MessageQueue{h->topic, s_.admin->broker_name, q.queue_id},
         protocol::TopicOffset{q.min_offset, q.max_offset, q.last_update_timestamp}});
  }
  resp.body.Assign(table.Encode());
  return resp;
}

// Answered after the registration round that drops the topic from the routes.
RemotingFrontend::Reply RemotingFrontend::OnDeleteTopicInBroker(const Conn& conn, Cmd& r) {
  auto h = protocol::TopicRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  auto now = s_.topics->Delete(h->topic, [conn, stub = RequestStub(r)](Verdict v) {
    conn->SendResponse(stub, ReplyTo(stub, v));
  });
  if (now) return ReplyTo(r, *now);
  return std::nullopt;
}

// Body: TopicList {"topicList":[...]} (no brokerAddr).
RemotingFrontend::Reply RemotingFrontend::OnGetSystemTopicList(Cmd& r) {
  protocol::TopicList list;
  list.topic_list = s_.topics->SystemTopics();
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(list.Encode());
  return resp;
}

}  // namespace rocketstore::broker
