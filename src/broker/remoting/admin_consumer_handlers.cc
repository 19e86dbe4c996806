// Admin part B, consumers and producers: connections (203, 204), all producers (328),
// consume stats (208, 317), who consumes a topic (300), consume time span (303). The
// numbers come from ConsumeStatsService; these adapters only shape the bodies.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/headers/admin_consumer_headers.h"

namespace rocketstore::broker {

using protocol::RemotingCommand;

#define RS_DECODE_OR_REPLY(var, Header, cmd) \
  auto var = protocol::Header::Decode(cmd);  \
  if (!var.ok()) return protocol::MakeSystemErrorResponse(cmd, var.status())

namespace {

protocol::ConnectionInfo ConnectionOf(const ClientChannelInfo& m) {
  protocol::ConnectionInfo c;
  c.client_id = m.client_id;
  c.client_addr = m.channel ? m.channel->remote_address() : std::string();
  c.language = std::string(protocol::LanguageName(static_cast<protocol::LanguageCode>(m.language)));
  c.version = m.version;
  return c;
}

protocol::SubscriptionData WireSubscription(const SubscriptionData& s) {
  protocol::SubscriptionData w;
  w.topic = s.topic;
  w.sub_string = s.sub_string;
  w.expression_type = s.expression_type;
  w.tags_set.assign(s.tags.begin(), s.tags.end());
  w.code_set.assign(s.codes.begin(), s.codes.end());
  w.sub_version = s.sub_version;
  return w;
}

protocol::ConsumeStatsBody WireStats(const GroupConsumeStats& s, const std::string& broker) {
  protocol::ConsumeStatsBody b;
  b.consume_tps = s.consume_tps;
  for (const auto& q : s.queues) {
    b.offset_table[protocol::MessageQueueKey{q.topic, broker, q.queue_id}] =
        protocol::OffsetWrapperBody{q.broker_offset, q.consumer_offset, q.last_timestamp};
  }
  return b;
}

RemotingCommand Success(const RemotingCommand& r, std::vector<uint8_t> body) {
  RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(std::move(body));
  return resp;
}

}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnConsumerConnectionList(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetConsumerConnectionListRequestHeader, r);
  auto g = s_.consumers->Find(h->consumer_group);
  if (!g) {
    return ReplyTo(r, Verdict::Error(Outcome::kConsumerNotOnline,
                                     "the consumer group[" + h->consumer_group + "] not online"));
  }
  protocol::ConsumerConnectionBody body;
  body.consume_type = g->consume_type;
  body.message_model = g->message_model;
  body.consume_from_where = g->consume_from_where;
  for (const auto& [topic, sub] : g->subscriptions) {
    body.subscription_table[topic] = WireSubscription(sub);
  }
  for (const auto& m : g->members) body.connection_set.push_back(ConnectionOf(m));
  return Success(r, body.Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnProducerConnectionList(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetProducerConnectionListRequestHeader, r);
  const auto members = s_.producers->Members(h->producer_group);
  if (members.empty()) {
    return ReplyTo(r, Verdict::Error(Outcome::kSystemError,
                                     "the producer group[" + h->producer_group + "] not exist"));
  }
  protocol::ProducerConnectionBody body;
  for (const auto& m : members) body.connection_set.push_back(ConnectionOf(m));
  return Success(r, body.Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnAllProducerInfo(Cmd& r) {
  protocol::ProducerTableInfoBody body;
  for (const auto& group : s_.producers->Groups()) {
    auto& list = body.data[group];
    for (const auto& m : s_.producers->Members(group)) {
      protocol::ProducerInfoBody p;
      p.client_id = m.client_id;
      p.remote_ip = m.channel ? m.channel->remote_address() : std::string();
      p.language =
          std::string(protocol::LanguageName(static_cast<protocol::LanguageCode>(m.language)));
      p.version = m.version;
      p.last_update_timestamp = m.last_update_ms;
      list.push_back(std::move(p));
    }
  }
  return Success(r, body.Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnConsumeStats(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetConsumeStatsRequestHeader, r);
  const GroupConsumeStats stats = s_.consume_stats->ConsumeStats(h->consumer_group, h->topic);
  return Success(r, WireStats(stats, s_.consume_stats->broker_name()).Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnBrokerConsumeStats(Cmd& r) {
  RS_DECODE_OR_REPLY(h, GetConsumeStatsInBrokerHeader, r);
  const BrokerConsumeStats all = s_.consume_stats->BrokerWide(h->is_order);
  protocol::ConsumeStatsListBody body;
  body.broker_addr = s_.consume_stats->broker_addr();
  body.total_diff = all.total_diff;
  for (const auto& [group, per_topic] : all.groups) {
    std::vector<protocol::ConsumeStatsBody> list;
    for (const auto& s : per_topic) list.push_back(WireStats(s, s_.consume_stats->broker_name()));
    body.consume_stats_list.emplace_back(group, std::move(list));
  }
  return Success(r, body.Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnTopicConsumeByWho(Cmd& r) {
  RS_DECODE_OR_REPLY(h, QueryTopicConsumeByWhoRequestHeader, r);
  protocol::GroupListBody body;
  for (const auto& g : s_.consume_stats->ConsumedBy(h->topic)) body.group_list.push_back(g);
  return Success(r, body.Encode());
}

RemotingFrontend::Reply RemotingFrontend::OnConsumeTimeSpan(Cmd& r) {
  RS_DECODE_OR_REPLY(h, QueryConsumeTimeSpanRequestHeader, r);
  const TimeSpanResult res =
      s_.consume_stats->TimeSpans(h->topic, h->group, s_.consume_stats->NowMs());
  if (!res.verdict.ok()) return ReplyTo(r, res.verdict);
  protocol::QueryConsumeTimeSpanBody body;
  for (const auto& s : res.spans) {
    protocol::QueueTimeSpanBody b;
    b.message_queue = {h->topic, s_.consume_stats->broker_name(), s.queue_id};
    b.min_time_stamp = s.min_time_stamp;
    b.max_time_stamp = s.max_time_stamp;
    b.consume_time_stamp = s.consume_time_stamp;
    b.delay_time = s.delay_time;
    body.consume_time_span_set.push_back(b);
  }
  return Success(r, body.Encode());
}

#undef RS_DECODE_OR_REPLY

}  // namespace rocketstore::broker
