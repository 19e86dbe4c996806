#include "console/console.h"

#include <chrono>

namespace rocketstore::console {

Console::Console(broker::Broker& broker, Clock& clock, ConsoleOptions options)
    : clock_(clock),
      sampler_(ConsoleReadings(broker)),
      runner_("console-rates", std::chrono::seconds(1),
              [this] { sampler_.RunOnce(clock_.NowMillis()); }),
      api_(broker, sampler_, clock, std::move(options)),
      server_(api_) {}

Console::~Console() { Stop(); }

Status Console::Start() {
  RS_RETURN_IF_ERROR(server_.Start(api_.options().host, api_.options().port));
  sampler_.RunOnce(clock_.NowMillis());  // the first counter readings
  runner_.Start();
  return Status::OK();
}

void Console::Stop() {
  server_.Stop();
  runner_.Stop();
}

std::string Console::url() const {
  const std::string& h = api_.options().host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return "http://" + host + ":" + std::to_string(port()) + "/";
}

}  // namespace rocketstore::console
