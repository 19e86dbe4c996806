#include "broker/service/broker_config_service.h"

#include "broker/broker_conf.h"

namespace rocketstore::broker {

BrokerConfigService::BrokerConfigService(BrokerOptions initial, Clock& clock,
                                         BrokerConfigFile* file, Apply apply,
                                         RequestRegistration register_routes)
    : clock_(clock),
      file_(file),
      apply_(std::move(apply)),
      register_routes_(std::move(register_routes)),
      options_(std::move(initial)),
      timestamp_(clock.NowMillis()) {}

const std::vector<std::string_view>& BrokerConfigService::RuntimeKeys() {
  static const std::vector<std::string_view> keys = {
      "autoCreateSubscriptionGroup",
      "autoCreateTopicEnable",
      "brokerPermission",
      "longPollingEnable",
      "shortPollingTimeMills",
      // retention: the store's next round uses them (RetentionService::UpdateOptions)
      "fileReservedTime",
      "deleteWhen",
      "diskMaxUsedSpaceRatio",
      "diskSpaceCleanForciblyRatio",
      "diskSpaceWarningLevelRatio",
      "deleteFileBatchMax",
      "cleanFileForciblyEnable",
  };
  return keys;
}

std::string BrokerConfigService::Text() const {
  std::lock_guard l(mu_);
  return FormatBrokerConf(options_);
}

std::string BrokerConfigService::DataVersionJson() const {
  std::lock_guard l(mu_);
  return "{\"counter\":" + std::to_string(counter_) +
         ",\"timestamp\":" + std::to_string(timestamp_) + "}";
}

BrokerOptions BrokerConfigService::Current() const {
  std::lock_guard l(mu_);
  return options_;
}

std::optional<Verdict> BrokerConfigService::Update(std::string_view properties, AnswerLater later) {
  auto entries = ParseBrokerConf(properties);
  if (!entries.ok()) {
    return Verdict::Error(Outcome::kSystemError,
                          "string2Properties error: " + entries.status().message());
  }
  if (entries->empty()) return Verdict::Ok();
  std::string allowed;
  for (std::string_view k : RuntimeKeys())
    allowed += (allowed.empty() ? "" : ", ") + std::string(k);
  for (const BrokerConfEntry& e : *entries) {
    bool ok = false;
    for (std::string_view k : RuntimeKeys()) ok = ok || k == e.key;
    if (!ok) {
      return Verdict::Error(Outcome::kNoPermission,
                            "the broker config key '" + e.key +
                                "' cannot be changed at run time (allowed: " + allowed +
                                "); nothing was changed. Set it in broker.conf and restart");
    }
  }
  bool reregister = false;
  {
    std::lock_guard l(mu_);
    BrokerOptions next = options_;
    if (Status s = ApplyBrokerConf(properties, next, nullptr); !s.ok()) {
      return Verdict::Error(Outcome::kInvalidArgument, s.message() + "; nothing was changed");
    }
    options_ = next;
    ++counter_;
    timestamp_ = clock_.NowMillis();
    if (apply_) reregister = apply_(options_);
    if (file_ != nullptr) {
      for (const BrokerConfEntry& e : *entries) file_->Set(e.key, e.value);
    }
  }
  if (!reregister) return Verdict::Ok();
  return AnswerAfterRound(register_routes_, Verdict::Ok(), std::move(later));
}

}  // namespace rocketstore::broker
