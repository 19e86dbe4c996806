#include "console/console.h"

#include <chrono>

namespace rocketstore::console {

namespace {

ClusterProbe::Options ProbeOptions(broker::Broker& broker) {
  ClusterProbe::Options o;
  o.namesrv_addrs = broker.options().namesrv_addrs;
  o.local_address = broker.address();
  o.local_broker_name = broker.options().broker_name;
  return o;
}

}  // namespace

Console::Console(broker::Broker& broker, Clock& clock, ConsoleOptions options)
    : clock_(clock),
      sampler_(ConsoleReadings(broker)),
      runner_("console-rates", std::chrono::seconds(1),
              [this] { sampler_.RunOnce(clock_.NowMillis()); }),
      probe_(ProbeOptions(broker)),
      probe_runner_("console-cluster", std::chrono::seconds(5),
                    [this] { probe_.RunOnce(clock_.NowMillis()); }),
      api_(broker, sampler_, clock, std::move(options), &probe_),
      server_(api_) {}

Console::~Console() { Stop(); }

Status Console::Start() {
  RS_RETURN_IF_ERROR(server_.Start(api_.options().host, api_.options().port));
  sampler_.RunOnce(clock_.NowMillis());  // the first counter readings
  runner_.Start();
  probe_runner_.Start();
  probe_runner_.Wake();  // the first round at once, not after 5 s
  return Status::OK();
}

void Console::Stop() {
  server_.Stop();
  runner_.Stop();
  probe_runner_.Stop();
}

std::string Console::url() const {
  const std::string& h = api_.options().host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return "http://" + host + ":" + std::to_string(port()) + "/";
}

}  // namespace rocketstore::console
