// Admin part B, statistics: VIEW_BROKER_STATS_DATA (315) reads StatsSampler's windows.
#include "broker/remoting/remoting_frontend.h"
#include "broker/remoting/response_mapping.h"
#include "protocol/bodies/admin_consumer_bodies.h"
#include "protocol/headers/admin_consumer_headers.h"

namespace rocketstore::broker {

namespace {
protocol::BrokerStatsItemBody ItemOf(const StatsWindow& w) { return {w.sum, w.tps, w.avgpt}; }
}  // namespace

RemotingFrontend::Reply RemotingFrontend::OnViewBrokerStatsData(Cmd& r) {
  auto h = protocol::ViewBrokerStatsDataRequestHeader::Decode(r);
  if (!h.ok()) return protocol::MakeSystemErrorResponse(r, h.status());
  auto view = s_.stats_sampler->View(h->stats_name, h->stats_key);
  if (!view) {
    return ReplyTo(r, Verdict::Error(Outcome::kSystemError, "The stats <" + h->stats_name + "> <" +
                                                                h->stats_key + "> not exist"));
  }
  protocol::BrokerStatsDataBody body;
  body.stats_minute = ItemOf(view->minute);
  body.stats_hour = ItemOf(view->hour);
  body.stats_day = ItemOf(view->day);
  protocol::RemotingCommand resp = ReplyTo(r, Verdict::Ok());
  resp.body.Assign(body.Encode());
  return resp;
}

}  // namespace rocketstore::broker
