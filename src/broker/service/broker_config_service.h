// File: broker/service/broker_config_service.h
//
// BrokerConfigService: the broker's configuration as the admin codes see it.
//   Text()      GET_BROKER_CONFIG (26) body: every key rocketstore recognises
//               (broker/broker_conf.h) with its current value, `key=value` lines.
//   DataVersionJson()  the 26 response's "version" header: {"counter":N,"timestamp":ms}
//               (counter 0 at start, +1 per applied update, as Java's Configuration).
//   Update()    UPDATE_BROKER_CONFIG (25): the body is properties text. Only the keys of
//               RuntimeKeys() — ones the running services really pick up — may be
//               changed; any other key (paths, ports, names, filter or store settings,
//               unknown keys) refuses the whole update, NO_PERMISSION naming the first
//               such key, nothing applied. Values are checked as broker.conf checks them
//               (INVALID_PARAMETER naming key and value, nothing applied). An accepted
//               update is applied to the services (the `apply` callback), bumps the data
//               version, and is written into the config file (BrokerConfigFile; the
//               persister writes it soon after, off the io thread). A body that is not
//               properties text is SYSTEM_ERROR. No body: SUCCESS, nothing changes.
//               When `apply` reports that the routes must show the change
//               (brokerPermission), the answer waits for the registration round that
//               carries it, as Java's registerBrokerAll (route_registration.h).
//
// Thread-safety: any thread; updates are serialised. Ownership: `clock` and `file` (may be
// null: updates are then not persisted) must outlive the service.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "broker/broker_options.h"
#include "broker/config/broker_config_file.h"
#include "broker/service/outcome.h"
#include "broker/service/route_registration.h"

namespace rocketstore::broker {

class BrokerConfigService {
 public:
  // Applies the new options to the services; true when the name servers must be told
  // (the routes show the change).
  using Apply = std::function<bool(const BrokerOptions&)>;
  // `register_routes` may be empty (then such a change is answered at once).
  BrokerConfigService(BrokerOptions initial, Clock& clock, BrokerConfigFile* file, Apply apply,
                      RequestRegistration register_routes = nullptr);

  // The keys UPDATE_BROKER_CONFIG may change (docs/operations.md lists them).
  static const std::vector<std::string_view>& RuntimeKeys();

  std::string Text() const;
  std::string DataVersionJson() const;
  // nullopt: `later` answers after the registration round (see Update above).
  std::optional<Verdict> Update(std::string_view properties, AnswerLater later);
  Verdict Update(std::string_view properties) { return *Update(properties, nullptr); }
  BrokerOptions Current() const;

 private:
  Clock& clock_;
  BrokerConfigFile* const file_;
  const Apply apply_;
  const RequestRegistration register_routes_;
  mutable std::mutex mu_;
  BrokerOptions options_;  // GUARDED_BY(mu_)
  int64_t counter_ = 0;    // GUARDED_BY(mu_)
  int64_t timestamp_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace rocketstore::broker
